//! fio's metadata engines (`ioengine=filecreate`, `filestat`, `filedelete`,
//! `dircreate`, `dirstat`, `dirdelete`; `disk/metadata.rs`): how many names
//! each clone has (`nrfiles`), the one operation per name, and what candor
//! refuses of them. As fio 3.33 runs them (engines/fileoperations.c): a
//! fake block of `bs` bytes per file, the file's operation timed when fio
//! opens it, `filesize=` the block (fio counts filesize/bs fake I/Os per
//! file but makes one call), each operation booked as a read unless the job
//! only writes.

use super::Lowering;
use crate::disk::metadata::{MetaOp, Metadata, StatType};
use crate::disk::{JobSpec, Rw};
use crate::fio::jobfile::parse::Value;
use crate::fio::jobfile::JobFileError;

/// The most names per clone candor makes (fio's example makes 31,250).
const MAX_NRFILES: u64 = 1 << 20;

impl Lowering<'_> {
    /// The metadata engine the job names, if it names one.
    pub(super) fn metadata_op(&mut self) -> Result<Option<MetaOp>, JobFileError> {
        let Some((name, _)) = self.text("ioengine") else {
            return Ok(None);
        };
        let stat = match self.text("stat_type") {
            None => StatType::Stat,
            Some((t, s)) => StatType::parse(t)
                .ok_or_else(|| Self::bad(s, "not a stat_type fio knows (stat, lstat, statx)"))?,
        };
        Ok(MetaOp::from_fio(name, stat))
    }

    /// True when the job's engine is one of fio's metadata engines.
    pub(super) fn names_metadata_engine(&self) -> bool {
        self.text("ioengine")
            .is_some_and(|(n, _)| MetaOp::from_fio(n, StatType::Stat).is_some())
    }

    /// Sizes a metadata job: `nrfiles` blocks of `bs` per clone, one
    /// operation each, in order. Returns each clone's region length.
    pub(super) fn metadata_size(
        &mut self,
        spec: &mut JobSpec,
        op: MetaOp,
    ) -> Result<u64, JobFileError> {
        if !matches!(spec.rw, Rw::Read | Rw::Write) {
            let s = self
                .get("rw")
                .or(self.get("readwrite"))
                .expect("rw= set it");
            return Err(Self::bad(
                s,
                format!("ioengine={}: candor makes one operation per name, in order, booked as fio books them (reads, or writes for a job that only writes): give rw=read or rw=write", op.fio_name()),
            ));
        }
        let nrfiles = match self.number("nrfiles") {
            Some((0, s)) => return Err(Self::bad(s, "out of range (at least 1)")),
            Some((n, s)) if n > MAX_NRFILES => {
                return Err(Self::bad(
                    s,
                    format!("above candor's limit of {MAX_NRFILES} per clone"),
                ))
            }
            Some((n, _)) => n,
            None => 1,
        };
        let bs = spec.bs;
        if spec.block_sizes.is_some() {
            let s = self
                .get("bs")
                .or(self.get("blocksize"))
                .or(self.get("bsrange"))
                .or(self.get("bssplit"));
            if let Some(s) = s {
                return Err(Self::bad(
                    s,
                    "a metadata engine's block is fake: give one block size",
                ));
            }
        }
        if let Some(s) = self.get("filesize") {
            if !matches!(s.value, Value::SizeRange(lo, hi) if lo == bs && hi == bs) {
                return Err(Self::bad(
                    s,
                    format!("ioengine={}: fio counts filesize/bs fake I/Os per file in its IOPS, but makes one call per file; candor counts the calls: give filesize= equal to the block size ({bs})", op.fio_name()),
                ));
            }
        }
        let region = nrfiles * bs;
        if matches!(op, MetaOp::FileStat(_) | MetaOp::FileDelete) {
            if self.get("filesize").is_none() && self.get("size").is_none() {
                return Err(JobFileError::at(
                    &self.job.pos,
                    format!("[{}]: ioengine={} needs files made before the job: give filesize= (fio: 'you need to specify size=')", self.job.section, op.fio_name()),
                ));
            }
            if let Some(s) = self
                .get("create_on_open")
                .filter(|s| s.value.as_bool() == Some(true))
            {
                return Err(Self::bad(
                    s,
                    format!("with ioengine={}: fio then makes no files before the job, and each call fails (fio 3.33: 'No such file or directory'); leave it out", op.fio_name()),
                ));
            }
        }
        if let Some((size, s)) = self.number("size") {
            if size != region {
                return Err(Self::bad(
                    s,
                    format!("ioengine={}: fio gives each of the {nrfiles} files size/nrfiles bytes; candor makes one call per file: give size= as nrfiles x bs ({region}), or leave it out", op.fio_name()),
                ));
            }
        }
        // fio's filecreate and dircreate lay out nothing; the stat and delete
        // engines' files are made as candor makes them (`made` below).
        if let Some(s) = self.get("fallocate") {
            let note = format!(
                "{}: {}",
                s.spelled(),
                match s.def.support {
                    crate::fio::jobfile::options::Support::Note(n) => n,
                    _ => "",
                }
            );
            self.notes.retain(|n| *n != note);
        }
        for (name, why) in [
            (
                "time_based",
                "fio would make the calls again on names that already exist (or no longer do)",
            ),
            (
                "io_size",
                "fio would make the calls again on names that already exist (or no longer do)",
            ),
            (
                "ramp_time",
                "a ramp would leave some names out of the figures",
            ),
            (
                "filename",
                "candor names the files as fio does by default ($jobname.$jobnum.$filenum)",
            ),
            (
                "filename_format",
                "candor names the files as fio does by default ($jobname.$jobnum.$filenum)",
            ),
        ] {
            if let Some(s) = self.get(name).filter(|s| !super::at_default(s)) {
                let s = s.clone();
                self.refuse(&s, &format!("with ioengine={}: {why}", op.fio_name()))?;
            }
        }
        if let Some((n, s)) = self.number("loops").filter(|(n, _)| *n > 1) {
            let _ = n;
            let s = s.clone();
            self.refuse(&s, &format!("with ioengine={}: fio would make the calls again on names that already exist (or no longer do)", op.fio_name()))?;
        }
        // FIO_SYNCIO: one call at a time per clone.
        spec.iodepth = 1;
        spec.iodepth_batch = 1;
        spec.size = region;
        spec.byte_limit = Some(region);
        spec.runtime =
            std::time::Duration::from_micros(self.time("runtime").map_or(0, |(us, _)| us));
        spec.ramp = std::time::Duration::ZERO;
        if let Some((n, _)) = self.number("number_ios").filter(|(n, _)| *n > 0) {
            spec.op_limit = Some(n);
        }
        let made = match op {
            MetaOp::FileStat(_) | MetaOp::FileDelete => format!(
                " The {nrfiles} files per clone are made first ({bs} bytes each, as fio lays them out), outside the measured interval."
            ),
            MetaOp::DirStat(_) | MetaOp::DirDelete => format!(
                " The {nrfiles} directories per clone are made first (mode 0700, as fio's setup_dirs), outside the measured interval."
            ),
            MetaOp::DirCreate => " fio makes each directory with mode 0 (it passes S_IFDIR as mkdir's mode); so does candor.".to_string(),
            MetaOp::FileCreate => " candor's time of each create includes its close, which fio leaves out (it times the open alone).".to_string(),
        };
        let after = match op {
            MetaOp::DirCreate | MetaOp::DirStat(_) | MetaOp::DirDelete => " (this engine came after fio 3.33, which cannot load it: read from fio's engines/fileoperations.c)",
            _ => "",
        };
        self.notes.push(format!(
            "ioengine={}{after}: no data moves; each operation is one call on a name of its own, {nrfiles} per clone, in candor's directory .candor-meta-PID inside the job's (fio uses the job's directory itself), removed at the end.{made} IOPS are operations of the filesystem, not of the medium.",
            op.fio_name()
        ));
        Ok(region)
    }

    /// The job's metadata work once its directory is known.
    pub(super) fn metadata(&self, op: MetaOp, spec: &JobSpec, dir: &std::path::Path) -> Metadata {
        Metadata {
            op,
            nrfiles: spec.size / spec.bs,
            name: self.job.fio_name().to_string(),
            dir: dir.to_path_buf(),
        }
    }
}
