//! fio's `verify` family: which checksum each written block carries, and
//! whether the job reads back what it wrote (`do_verify`), only checks what
//! an earlier run wrote (`verify_only`), or stops at the first bad block
//! (`verify_fatal`). What candor cannot check as fio does is refused here.

use super::pattern::name_seed;
use super::Lowering;
use crate::disk::verify::HEADER_BYTES;
use crate::disk::{EngineChoice, EngineKind, JobSpec, Verify, VerifyAlg};
use crate::fio::jobfile::JobFileError;

/// The methods fio 3.33 has that candor does not compute.
const FIO_ONLY: [&str; 14] = [
    "crc64",
    "crc32",
    "crc16",
    "crc7",
    "xxhash",
    "sha512",
    "sha1",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "pattern",
    "pattern_hdr",
    "null",
];

impl Lowering<'_> {
    /// `verify_only=1` with a verify method: the job writes nothing.
    pub(super) fn verify_only(&self) -> bool {
        self.flag("verify_only")
            && self
                .text("verify")
                .is_some_and(|(v, _)| !matches!(v, "0" | "none"))
    }

    /// The job's verify settings (after its pattern, engine, randomness and
    /// size are known).
    pub(super) fn verify(
        &mut self,
        spec: &mut JobSpec,
        on_device: bool,
    ) -> Result<(), JobFileError> {
        let Some((name, s)) = self.text("verify") else {
            return Ok(());
        };
        if matches!(name, "0" | "none") {
            return Ok(());
        }
        let Some(alg) = VerifyAlg::from_fio(name) else {
            if FIO_ONLY.contains(&name) {
                self.refuse(
                    s,
                    "candor's verify checksums are crc32c, md5, sha256 and meta",
                )?;
                return Ok(());
            }
            return Err(Self::bad(
                s,
                "not a verify method fio knows (md5, crc64, crc32c, crc32c-intel, crc32, crc16, crc7, xxhash, sha512, sha256, sha1, sha3-224, sha3-256, sha3-384, sha3-512, meta, pattern, pattern_hdr, null)",
            ));
        };
        if !spec.rw.writes() || spec.rw.reads() {
            let why = if spec.rw.writes() {
                "candor verifies jobs that only write; fio would also check the blocks this job reads"
            } else {
                "a job that only reads: fio checks each block against the header an earlier fio run wrote; candor checks only what a candor job wrote (a job that writes, or the same job with verify_only=1)"
            };
            self.refuse(s, why)?;
            return Ok(());
        }
        if spec.engine == EngineChoice::Exact(EngineKind::Null) {
            self.refuse(s, "ioengine=null stores nothing to read back")?;
            return Ok(());
        }
        if spec.min_bs() < HEADER_BYTES as u64 {
            return Err(Self::bad(
                s,
                format!(
                    "blocks of {} bytes are smaller than candor's {HEADER_BYTES}-byte verify header",
                    spec.min_bs()
                ),
            ));
        }
        if let Some((loops, l)) = self.number("loops").filter(|(n, _)| *n > 1) {
            self.refuse(
                l,
                &format!("loops={loops} with verify: fio checks after each loop; candor checks once, after the job's writes"),
            )?;
        }
        let after_writes = self
            .get("do_verify")
            .is_none_or(|d| d.value.as_bool() != Some(false));
        let only = self.flag("verify_only");
        if only {
            let o = self.get("verify_only").expect("verify_only is set");
            if !spec.is_bounded() {
                return Err(Self::bad(
                    o,
                    "with time_based: fio's verify_only replays a size-bounded run of the job (HOWTO: it does not support time_based), and so does candor",
                ));
            }
            if !on_device {
                return Err(Self::bad(
                    o,
                    "on a file: candor creates a fresh test file for each run and removes it after, so no earlier run's blocks are there to check; verify_only runs on a block device (--device)",
                ));
            }
            if !after_writes {
                return Err(Self::bad(
                    o,
                    "with do_verify=0 checks nothing: fio's dry run remembers no write to check; remove do_verify=0",
                ));
            }
            let fresh = self
                .get("randrepeat")
                .is_some_and(|r| r.value.as_bool() == Some(false));
            if spec.rw.is_random() && fresh && self.get("randseed").is_none() {
                return Err(Self::bad(
                    o,
                    "with randrepeat=0 and no randseed: each run draws other random offsets, so this one would look for blocks where the earlier run wrote none; set randseed= in both runs",
                ));
            }
        }
        if spec.rw.is_random() && self.get("randseed").is_none() && self.get("randrepeat").is_none()
        {
            // Each run of the job file must draw the same offsets, or
            // verify_only would look for blocks where none was written.
            spec.seed = name_seed(&self.job.section);
            self.notes.push(
                "verify on random offsets: the same offsets on every run of this job file (candor's own sequence, seeded from the section name, as randrepeat=1, fio's default, repeats fio's), so that verify_only finds what an earlier run wrote".to_string(),
            );
        }
        spec.verify = Some(Verify {
            alg,
            after_writes,
            only,
            fatal: self.flag("verify_fatal"),
        });
        Ok(())
    }
}

/// A verifying job checks the blocks it wrote: another clone of it, or
/// another job running meanwhile, writing the same bytes of the same file
/// would put its own blocks there, which the read-back would call
/// corrupted. Such a job is refused (with `ignore_unsupported`: runs
/// without verify, recorded). A job ordered wholly before it or after it
/// (stonewall phases, `wait_for`) is no such writer: a prefill, or a later
/// job overwriting what was checked already.
pub(super) fn refuse_shared_blocks(
    plan: &mut super::LoweredJobs,
    file: &crate::fio::jobfile::JobFile,
    ignore_unsupported: bool,
) -> Result<(), JobFileError> {
    let overlap = |a: &(usize, u64, u64), b: &(usize, u64, u64)| {
        a.0 == b.0 && a.1 < b.1 + b.2 && b.1 < a.1 + a.2
    };
    // Whether job `a` has ended before job `b` starts: `b`'s order
    // (the jobs it starts after) reaches `a`.
    let ends_before = |jobs: &[super::Lowered], a: usize, b: usize| {
        let mut seen = vec![false; jobs.len()];
        let mut todo = vec![b];
        while let Some(x) = todo.pop() {
            for p in jobs[x].after.iter() {
                if p == a {
                    return true;
                }
                if !std::mem::replace(&mut seen[p], true) {
                    todo.push(p);
                }
            }
        }
        false
    };
    for i in 0..plan.jobs.len() {
        if plan.jobs[i].spec.verify.is_none() {
            continue;
        }
        let job = &plan.jobs[i];
        let clones = job
            .threads
            .iter()
            .enumerate()
            .any(|(k, a)| job.threads[k + 1..].iter().any(|b| overlap(a, b)));
        let other = plan.jobs.iter().enumerate().find(|(j, o)| {
            *j != i
                && o.spec.writes_target()
                && o.threads
                    .iter()
                    .any(|b| job.threads.iter().any(|a| overlap(a, b)))
                && !ends_before(&plan.jobs, *j, i)
                && !ends_before(&plan.jobs, i, *j)
        });
        let why = match (clones, other) {
            (true, _) => format!(
                "its {} clones write the same bytes of one file, and each would find the others' blocks where it wrote its own; give each clone its own file (fio's default without filename=) or region (offset_increment)",
                job.spec.numjobs
            ),
            (false, Some((_, o))) => format!(
                "[{}] also writes bytes of this job's file while it runs, and this job would find its blocks where it wrote its own; candor verifies a job only on bytes no other job writes meanwhile (order them with stonewall)",
                o.section
            ),
            (false, None) => continue,
        };
        let s = file.jobs[i]
            .get("verify")
            .expect("a verifying job has verify=");
        let e = JobFileError::at(&s.pos, format!("{}: not supported: {why}", s.spelled()));
        if !ignore_unsupported {
            return Err(e);
        }
        let line = format!("{e} (ignored: --ignore-unsupported)");
        plan.ignored.push(line.clone());
        plan.jobs[i].notes.push(line);
        plan.jobs[i].spec.verify = None;
    }
    Ok(())
}
