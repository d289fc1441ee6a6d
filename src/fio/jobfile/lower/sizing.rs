//! How large each clone's region is when the file, not `size=`, decides it:
//! `filesize=` (fio gives each file that size), and a job without `size=`
//! whose `filename=` is a file that exists (fio sizes the job from it).
//! As fio 3.33 does it in filesetup.c (`setup_files`): a file's region is
//! its size less the job's offset, and the job's `size` is that region,
//! or `size=` where it is smaller.

use super::Lowering;
use crate::fio::jobfile::parse::{Setting, Value};
use crate::fio::jobfile::JobFileError;
use std::path::PathBuf;

/// What the file gives the job: each clone's region, and the setting that decided it.
pub(super) struct FromFile<'a> {
    pub region: u64,
    pub setting: &'a Setting,
}

impl<'a> Lowering<'a> {
    /// The region `filesize=` gives each clone's file, when it is set.
    pub(super) fn filesize(&mut self, device: bool) -> Result<Option<FromFile<'a>>, JobFileError> {
        let Some(s) = self.get("filesize") else {
            return Ok(None);
        };
        let Value::SizeRange(low, high) = s.value else {
            return Ok(None);
        };
        if device {
            return Err(Self::bad(
                s,
                "filesize= on a block device: fio would test only that much of it; give size= for the region of a device",
            ));
        }
        if low == 0 {
            return Err(Self::bad(s, "out of range (at least 1)"));
        }
        if low > high {
            return Err(Self::bad(
                s,
                format!("the low size {low} is above the high size {high}: fio draws from their difference, which wraps; give low-high"),
            ));
        }
        if low != high {
            self.refuse(s, "a range of file sizes, a size drawn at random for each file: candor gives every clone's file one size; give one size")?;
            return Ok(None);
        }
        if let Some((inc, is)) = self.number("offset_increment") {
            if inc > 0 && self.number("numjobs").is_some_and(|(n, _)| n > 1) {
                return Err(Self::bad(
                    is,
                    "offset_increment with filesize=: each clone's region would end at its file's end from its own offset, a size of its own; candor gives every clone one region size; give size=",
                ));
            }
        }
        let offset = self.number("offset").map_or(0, |(n, _)| n);
        if offset > low {
            let at = self.get("offset").expect("an offset is set");
            return Err(Self::bad(
                at,
                format!("beyond the {low}-byte file filesize= gives (fio: 'you need to specify valid offset=')"),
            ));
        }
        Ok(Some(FromFile {
            region: low - offset,
            setting: s,
        }))
    }

    /// The job's one `filename=` when it is a path under /dev that does not
    /// exist here: a device named by a job file from another host.
    pub(super) fn missing_device(&self) -> Option<(PathBuf, &'a Setting)> {
        let (path, s) = self.one_named_path()?;
        let missing = std::fs::symlink_metadata(&path)
            .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
        (path.starts_with("/dev") && missing).then_some((path, s))
    }

    /// A job without `size=` whose `filename=` names a regular file that
    /// exists: fio's job covers that file from the offset to its end.
    pub(super) fn sized_by_existing_file(&mut self) -> Result<Option<FromFile<'a>>, JobFileError> {
        let Some((path, s)) = self.one_named_path() else {
            return Ok(None);
        };
        let Ok(meta) = std::fs::metadata(&path) else {
            return Ok(None);
        };
        // An empty file gives fio nothing to size from: it asks for size=.
        if !meta.is_file() || meta.len() == 0 {
            return Ok(None);
        }
        let offset = self.number("offset").map_or(0, |(n, _)| n);
        if offset > meta.len() {
            return Err(Self::bad(
                s,
                format!("the job has no size= and {} is {} bytes, less than offset={offset} (fio: 'you need to specify valid offset=')", path.display(), meta.len()),
            ));
        }
        self.notes.push(format!(
            "no size=: fio sizes the job from the existing file {} ({} bytes, from offset {offset}); candor gives its own file beside it that size",
            path.display(),
            meta.len()
        ));
        Ok(Some(FromFile {
            region: meta.len() - offset,
            setting: s,
        }))
    }
}
