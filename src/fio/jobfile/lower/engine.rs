//! The engine, the queue, direct and synchronous I/O, and the page cache:
//! how a job's operations reach the disk.

use super::{Lowering, MAX_IODEPTH, MAX_NUMJOBS};
use crate::disk::{EngineChoice, EngineKind, JobSpec, Rw};
use crate::fio::jobfile::options::ENGINES;
use crate::fio::jobfile::parse::Setting;
use crate::fio::jobfile::JobFileError;

impl Lowering<'_> {
    pub(super) fn engine(&mut self) -> Result<EngineChoice, JobFileError> {
        let Some((name, s)) = self.text("ioengine") else {
            // fio's default on Linux.
            return Ok(EngineChoice::Exact(EngineKind::Psync));
        };
        Ok(match name {
            "io_uring" => EngineChoice::Exact(EngineKind::IoUring),
            "libaio" => EngineChoice::Exact(EngineKind::Libaio),
            "windowsaio" => EngineChoice::Exact(EngineKind::Windowsaio),
            "psync" => EngineChoice::Exact(EngineKind::Psync),
            // No data moves: the null engine's place (no test file); the
            // operations are the metadata work's (`metadata.rs`).
            "null" | "filecreate" | "filestat" | "filedelete" | "dircreate" | "dirstat"
            | "dirdelete" => EngineChoice::Exact(EngineKind::Null),
            "sync" | "pvsync" | "pvsync2" => {
                self.notes.push(format!(
                    "ioengine={name} ran as psync (pread/pwrite): the same I/O, one operation per system call"
                ));
                EngineChoice::Exact(EngineKind::Psync)
            }
            _ => {
                self.refuse(s, ENGINES)?;
                EngineChoice::Auto
            }
        })
    }

    pub(super) fn depth(
        &mut self,
        spec: &mut JobSpec,
        engine: EngineChoice,
    ) -> Result<(), JobFileError> {
        let iodepth = self.bounded("iodepth", MAX_IODEPTH)?;
        let numjobs = self.bounded("numjobs", MAX_NUMJOBS)?;
        spec.numjobs = numjobs;
        let sync_engine = engine == EngineChoice::Exact(EngineKind::Psync);
        if sync_engine && iodepth > 1 {
            // As fio does: a synchronous engine keeps one operation in flight.
            self.notes.push(format!(
                "iodepth={iodepth} with a synchronous engine: one operation in flight per thread, as in fio"
            ));
        }
        spec.iodepth = if sync_engine { 1 } else { iodepth };
        // fio: 0 submits everything ready at once (the whole depth).
        let batch = match self.number("iodepth_batch") {
            Some((0, _)) => spec.iodepth,
            Some((n, _)) => n.min(u64::from(spec.iodepth)) as u32,
            None => 1,
        };
        spec.iodepth_batch = batch.max(1);
        if let Some((max, _)) = self.number("iodepth_batch_complete_max") {
            if max < u64::from(spec.iodepth) {
                self.notes.push(format!(
                    "iodepth_batch_complete_max={max}: fio reaps at most {max} completions per call and books the wait of the others as latency; candor reaps every ready completion, so its latency at depth reads lower"
                ));
            }
        }
        if let Some((low, s)) = self.number("iodepth_low") {
            if low > 0 && low < u64::from(spec.iodepth) {
                let s = s.clone();
                self.refuse(&s, "fio refills the queue only once it has drained to iodepth_low; candor refills each slot at once")?;
            }
        }
        Ok(())
    }

    pub(super) fn direct_and_sync(&mut self, spec: &mut JobSpec) -> Result<(), JobFileError> {
        // direct and buffered set one switch: the one fio reads last wins.
        let direct = self.get("direct");
        let buffered = self.get("buffered");
        let later = |a: &Setting, b: &Setting| a.pos.line >= b.pos.line && a.pos.file == b.pos.file;
        spec.direct = match (direct, buffered) {
            (Some(d), Some(b)) if !later(d, b) => b.value.as_bool() == Some(false),
            (Some(d), _) => d.value.as_bool() == Some(true),
            (None, Some(b)) => b.value.as_bool() == Some(false),
            (None, None) => false,
        };
        if let Some((mode, s)) = self.text("sync") {
            // fio's options.c: 0/none, 1/sync (O_SYNC), dsync (O_DSYNC).
            spec.write_sync = match mode {
                "none" | "0" => crate::disk::WriteSync::None,
                "sync" | "1" => crate::disk::WriteSync::Sync,
                "dsync" => crate::disk::WriteSync::Dsync,
                other => {
                    return Err(Self::bad(
                        s,
                        format!(
                            "'{other}' is not one of fio's sync modes (0, none, 1, sync, dsync)"
                        ),
                    ))
                }
            };
        }
        let fsync = self.number("fsync").filter(|(n, _)| *n > 0);
        let fdatasync = self.number("fdatasync").filter(|(n, _)| *n > 0);
        match (fsync, fdatasync) {
            (Some(_), Some((_, s))) => {
                return Err(Self::bad(
                    s,
                    "fsync and fdatasync together are not supported; set one",
                ))
            }
            (Some((n, s)), None) | (None, Some((n, s))) => {
                spec.fsync = u32::try_from(n).map_err(|_| Self::bad(s, "too large"))?;
                spec.datasync = fdatasync.is_some();
            }
            (None, None) => {}
        }
        spec.end_fsync = self.flag("end_fsync") || self.flag("fsync_on_close");
        Ok(())
    }

    pub(super) fn cache(&mut self, rw: &Rw) -> Result<(bool, Option<i32>), JobFileError> {
        let invalidate = self
            .get("invalidate")
            .and_then(|s| s.value.as_bool())
            .unwrap_or(true);
        let advice = match self.text("fadvise_hint") {
            None | Some(("1", _)) => Some(if rw.is_random() {
                crate::disk::platform::ADVICE_RANDOM
            } else {
                crate::disk::platform::ADVICE_SEQUENTIAL
            }),
            Some(("0", _)) => None,
            Some(("sequential", _)) => Some(crate::disk::platform::ADVICE_SEQUENTIAL),
            Some(("random", _)) => Some(crate::disk::platform::ADVICE_RANDOM),
            Some(("normal", _)) => Some(crate::disk::platform::ADVICE_NORMAL),
            Some((other, s)) => {
                return Err(Self::bad(
                    s,
                    format!("'{other}' is not a hint (0, 1, sequential, random, normal)"),
                ))
            }
        };
        if let Some((mem, s)) = self.text("mem") {
            if !matches!(mem, "malloc" | "memalign") {
                let note = format!(
                    "{}: candor's buffers are ordinary aligned heap memory",
                    s.canonical()
                );
                self.notes.push(note);
            }
        }
        Ok((invalidate, advice))
    }
}
