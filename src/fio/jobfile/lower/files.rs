//! The files fio would use for each clone of a job (`filename`,
//! `filename_format`, `directory`) and candor's regions on them (`offset`,
//! `offset_increment`); candor makes its own file beside each.

use super::{FileUse, Lowering};
use crate::disk::{EngineChoice, EngineKind, JobSpec};
use crate::fio::jobfile::device::{self, DeviceGrant};
use crate::fio::jobfile::parse::Setting;
use crate::fio::jobfile::JobFileError;
use std::path::{Path, PathBuf};

impl<'a> Lowering<'a> {
    /// The block device this job's `filename=` names, if it is one: allowed
    /// by the command line (`--device`, and `--overwrite-device` for a job
    /// that writes) or refused here.
    pub(super) fn device(&mut self, writes: bool) -> Result<Option<DeviceGrant>, JobFileError> {
        let Some((path, s)) = self.one_named_path() else {
            return Ok(None);
        };
        let Some(rdev) = device::block_device(&path) else {
            return Ok(None);
        };
        device::grant_for(&self.ctx.devices, &path, rdev, writes)
            .map(|g| Some(g.clone()))
            .map_err(|why| Self::bad(s, why))
    }

    /// The path of the one file a job's `filename=` names (none for
    /// several names, or for no `filename=`), against its `directory=`.
    pub(super) fn one_named_path(&self) -> Option<(PathBuf, &'a Setting)> {
        let (name, s) = self.text("filename")?;
        let names = split_colons(name);
        let [one] = names.as_slice() else {
            return None;
        };
        let dir = match self.text("directory") {
            Some((d, _)) => self.directory_here(d),
            None => self.ctx.default_dir.clone(),
        };
        Some((absolute(&dir, Path::new(one)), s))
    }

    /// A `directory=` on this host: as written, or `--dir` where the
    /// command line gave one and the directory does not exist here.
    fn directory_here(&self, d: &str) -> PathBuf {
        let dir = absolute(&self.ctx.default_dir, Path::new(&unescape(d)));
        let missing = std::fs::symlink_metadata(&dir)
            .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
        if self.ctx.dir_given && missing {
            self.ctx.default_dir.clone()
        } else {
            dir
        }
    }

    /// The directory the job runs in when `--dir` replaced its
    /// `directory=` (missing on this host); none when it runs as written.
    pub(super) fn replaced_directory(&self) -> Option<PathBuf> {
        let (d, _) = self.text("directory")?;
        let written = absolute(&self.ctx.default_dir, Path::new(&unescape(d)));
        let here = self.directory_here(d);
        (here != written).then_some(here)
    }

    /// A job on a device without `size=`: as fio, from `offset` to the
    /// device's end, as if the job had said `size=` that.
    pub(super) fn device_size(
        &self,
        grant: &DeviceGrant,
        min_bs: u64,
    ) -> Result<(u64, &'a Setting), JobFileError> {
        let s = self.get("filename").expect("a device comes from filename=");
        if let Some((_, inc)) = self
            .number("offset_increment")
            .filter(|(n, _)| *n > 0 && self.number("numjobs").is_some_and(|(j, _)| j > 1))
        {
            return Err(Self::bad(
                inc,
                "offset_increment on a device without size=: each clone would run to the device's end from its own offset; give size=",
            ));
        }
        let start = self.number("offset").map_or(0, |(n, _)| n);
        let len = device::region(grant, None, start, min_bs).map_err(|why| Self::bad(s, why))?;
        Ok((len, s))
    }

    /// The files fio would use for each clone, and candor's regions on them.
    pub(super) fn files(
        &mut self,
        index: usize,
        spec: &JobSpec,
        region: u64,
        device: Option<&DeviceGrant>,
        files: &mut Vec<FileUse>,
    ) -> Result<Vec<(usize, u64, u64)>, JobFileError> {
        if let Some((n, s)) = self.number("nrfiles") {
            if n != 1 && spec.metadata.is_none() && !self.names_metadata_engine() {
                let s = s.clone();
                self.refuse(&s, "candor runs one file per job thread")?;
            }
        }
        let dir = match self.text("directory") {
            Some((d, s)) => {
                if split_colons(d).len() > 1 {
                    return Err(Self::bad(
                        s,
                        "several directories are not supported: candor puts a job's files in one",
                    ));
                }
                let written = absolute(&self.ctx.default_dir, Path::new(&unescape(d)));
                let dir = self.directory_here(d);
                if dir != written {
                    let note = format!(
                        "{}: {} does not exist on this host: candor puts the job's files in --dir {} (fio, without such a directory, refuses the job: 'is not a directory')",
                        s.spelled(),
                        written.display(),
                        dir.display()
                    );
                    if !self.notes.contains(&note) {
                        self.notes.push(note);
                    }
                }
                // fio lstat()s each directory= when the job is set up
                // (options.c, str_directory_cb; --parse-only skips it) and
                // refuses the job unless it is a directory itself: missing,
                // or a symbolic link, is "not a directory". It creates
                // missing levels only below it, for a filename with '/'.
                match std::fs::symlink_metadata(&dir) {
                    Ok(m) if m.is_dir() => {}
                    Ok(m) => {
                        let what = if m.file_type().is_symlink() {
                            "a symbolic link"
                        } else {
                            "not a directory"
                        };
                        return Err(Self::bad(
                            s,
                            format!("{} is {what}: fio refuses such a directory= when the job starts ('is not a directory': it lstat()s it), and so does candor", dir.display()),
                        ));
                    }
                    Err(e) => {
                        return Err(Self::bad(
                            s,
                            format!("{}: {e}: fio refuses a directory= that does not exist when the job starts ('is not a directory'; it creates missing levels only below it, for a filename with '/'), and so does candor (give --dir to put the job's files there instead)", dir.display()),
                        ));
                    }
                }
                dir
            }
            None => self.ctx.default_dir.clone(),
        };
        let offset = self.number("offset").map_or(0, |(n, _)| n);
        let increment = self.number("offset_increment").map_or(0, |(n, _)| n);
        // An offset need not be a multiple of the block: fio (io_u.c) issues
        // each clone's blocks from its first byte (offset + offset_increment
        // x clone), as candor's pattern does; O_DIRECT's alignment is
        // checked with the directory (plan::jobfile).
        let mut threads = Vec::with_capacity(spec.numjobs as usize);
        for clone in 0..u64::from(spec.numjobs) {
            let (path, s) = match self.text("filename") {
                Some((name, s)) => {
                    let names = split_colons(name);
                    if names.len() > 1 {
                        return Err(Self::bad(
                            s,
                            "several files per job are not supported: candor runs one file per job thread",
                        ));
                    }
                    if names[0] == "-" {
                        return Err(Self::bad(
                            s,
                            "standard input or output is not a file candor can test",
                        ));
                    }
                    (absolute(&dir, Path::new(&names[0])), Some(s))
                }
                None => {
                    let format = self
                        .text("filename_format")
                        .map_or("$jobname.$jobnum.$filenum", |(f, _)| f);
                    if format.contains("$clientuid") {
                        let s = self.get("filename_format").expect("set");
                        return Err(Self::bad(s, "$clientuid is for fio's client/server mode"));
                    }
                    let name = format
                        .replace("$jobname", &self.job.section)
                        .replace("$jobnum", &clone.to_string())
                        .replace("$filenum", "0");
                    (
                        absolute(&dir, Path::new(&name)),
                        self.get("filename_format"),
                    )
                }
            };
            let at = |why: String| match s {
                Some(s) => Self::bad(s, why),
                None => JobFileError::at(&self.job.pos, why),
            };
            let parent = path.parent().unwrap_or(Path::new("/")).to_path_buf();
            let start = offset + increment * clone;
            if let Some(rdev) = device::block_device(&path) {
                // Allowed by the command line (`device`) or refused here.
                let grant = match device {
                    Some(g) if g.rdev == rdev => g,
                    _ => {
                        let why =
                            device::grant_for(&self.ctx.devices, &path, rdev, spec.writes_target())
                                .err()
                                .unwrap_or_else(|| {
                                    "a device named through filename_format: name it with filename="
                                        .into()
                                });
                        return Err(at(why));
                    }
                };
                device::region(grant, Some(region), start, spec.min_bs()).map_err(&at)?;
                // One device is one target, whatever path names it.
                let same = |f: &FileUse| f.device.as_ref().is_some_and(|d| d.rdev == grant.rdev);
                let i = match files.iter().position(same) {
                    Some(i) => i,
                    None => {
                        files.push(FileUse {
                            fio_path: path.clone(),
                            dir: parent,
                            size: 0,
                            jobs: Vec::new(),
                            device: Some(grant.clone()),
                        });
                        files.len() - 1
                    }
                };
                let f = &mut files[i];
                f.size = f.size.max(start + region);
                if f.jobs.last() != Some(&index) {
                    f.jobs.push(index);
                }
                threads.push((i, start, region));
                continue;
            }
            // candor's own file goes beside any regular file fio would have used.
            if let Ok(meta) = std::fs::metadata(&path) {
                let t = meta.file_type();
                if crate::input::kind_in_words(&t) == "a character device" {
                    return Err(at(format!(
                        "{} is a character device: candor tests files it creates, and block devices named by --device",
                        path.display()
                    )));
                }
                if t.is_dir() {
                    return Err(at(format!("{} is a directory", path.display())));
                }
                let note = format!(
                    "fio would use the existing file {} ({} bytes, its contents as they are); candor never touches a file it did not create, and made its own beside it",
                    path.display(),
                    meta.len()
                );
                if t.is_file() && !self.notes.contains(&note) {
                    self.notes.push(note);
                }
            }
            if !parent.is_dir() {
                // Levels of a filename with '/' that are missing: fio creates
                // each (filesetup.c, create_work_dirs, mode 0700) when the
                // job starts; so does candor, when its files are made.
                let (base, missing) =
                    crate::disk::made_dirs::missing_levels(&parent).map_err(|why| {
                        at(format!(
                            "the directory {} cannot be created: {why}",
                            parent.display()
                        ))
                    })?;
                let note = format!(
                    "the directory {} does not exist: candor creates it as fio would ({} level(s) below {}, mode 0700), and removes what it created when it ends, which fio does not",
                    parent.display(),
                    missing.len(),
                    base.display()
                );
                // fio's null engine creates no directory, nor does candor.
                let null = spec.engine == EngineChoice::Exact(EngineKind::Null);
                if !null && !self.notes.contains(&note) {
                    self.notes.push(note);
                }
            }
            let end = start + region;
            let i = match files.iter().position(|f| f.fio_path == path) {
                Some(i) => i,
                None => {
                    files.push(FileUse {
                        fio_path: path.clone(),
                        dir: parent,
                        size: 0,
                        jobs: Vec::new(),
                        device: None,
                    });
                    files.len() - 1
                }
            };
            let f = &mut files[i];
            f.size = f.size.max(end);
            // Jobs are lowered in order: this job is the last one if it is there.
            if f.jobs.last() != Some(&index) {
                f.jobs.push(index);
            }
            threads.push((i, start, region));
        }
        Ok(threads)
    }
}

/// fio separates several names with ':'; `\:` is a colon in a name.
pub(super) fn split_colons(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                out.last_mut().expect("one").push(':');
                chars.next();
            }
            ':' => out.push(String::new()),
            c => out.last_mut().expect("one").push(c),
        }
    }
    out
}

fn unescape(text: &str) -> String {
    text.replace("\\:", ":")
}

/// `path` made absolute against `base`, `.` and `..` resolved by name.
pub(super) fn absolute(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}
