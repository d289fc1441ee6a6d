//! What `candor disk --job FILE --parse-only` prints: each job of a fio
//! job file as candor will run it (pattern, sizes, depth, clones, how it
//! ends, what it waits for), the files fio would use and the ones candor
//! creates instead, the notes, and the fio command of each job. A plan,
//! not a Run: nothing has been measured.

use crate::disk::{BlockSizes, JobSpec};
use crate::fio::jobfile::lower::{Lowered, LoweredJobs};
use crate::fio::jobfile::JobFile;
use crate::units::{fmt_bytes, fmt_duration};

/// The plan of a job file, in words.
pub fn jobfile_plan(file: &JobFile, plan: &LoweredJobs) -> String {
    let mut out = format!(
        "{}: {} job{}, sha256 {}\n",
        file.path,
        plan.jobs.len(),
        if plan.jobs.len() == 1 { "" } else { "s" },
        &file.files[0].sha256[..16]
    );
    for f in &file.files[1..] {
        out.push_str(&format!("  includes {}\n", f.path));
    }
    let starts = starts_together(plan);
    for (i, job) in plan.jobs.iter().enumerate() {
        out.push_str(&format!(
            "\n[{}] ({}, reporting group {})\n",
            job.section, job.pos, job.group
        ));
        out.push_str(&format!("  {}\n", what(&job.spec)));
        out.push_str(&format!("  {}\n", ends(&job.spec)));
        if let Some(v) = &job.spec.verify {
            out.push_str(&format!("  {}\n", verify(v)));
        }
        out.push_str(&format!("  {}\n", when(job, plan, &starts[i], i)));
        let mut used: Vec<usize> = job.threads.iter().map(|t| t.0).collect();
        used.sort_unstable();
        used.dedup();
        for f in used {
            let use_ = &plan.files[f];
            let shared =
                if use_.jobs.len() > 1 || job.threads.iter().filter(|t| t.0 == f).count() > 1 {
                    ", shared"
                } else {
                    ""
                };
            if let Some(g) = &use_.device {
                let access = if g.writable && job.spec.writes_target() {
                    "WRITES it (--overwrite-device): what it holds there is destroyed"
                } else {
                    "reads it (--device)"
                };
                out.push_str(&format!(
                    "  device: {} itself, bytes up to {} ({} device{shared}); the job {access}\n",
                    use_.fio_path.display(),
                    use_.size,
                    fmt_bytes(g.size),
                ));
                continue;
            }
            if let Some(m) = &job.spec.metadata {
                out.push_str(&format!("  names: {}\n", m.describe()));
                continue;
            }
            out.push_str(&format!(
                "  file: fio would use {} ({}{shared}); candor creates its own in {}\n",
                use_.fio_path.display(),
                fmt_bytes(use_.size),
                use_.dir.display()
            ));
        }
        for n in &job.notes {
            out.push_str(&format!("  note: {n}\n"));
        }
        out.push_str(&format!("  fio: {}\n", job.fio_command));
    }
    if !plan.ignored.is_empty() {
        out.push_str("\nIgnored (--ignore-unsupported):\n");
        for w in &plan.ignored {
            out.push_str(&format!("  {w}\n"));
        }
    }
    out
}

fn sizes(s: &BlockSizes) -> String {
    match s {
        BlockSizes::Fixed(b) => crate::units::fio_size(*b),
        BlockSizes::Split(v) => v
            .iter()
            .map(|(b, p)| format!("{}/{p}", crate::units::fio_size(*b)))
            .collect::<Vec<_>>()
            .join(":"),
        BlockSizes::Range(lo, hi) => {
            format!(
                "{}-{}",
                crate::units::fio_size(*lo),
                crate::units::fio_size(*hi)
            )
        }
    }
}

/// `randrw 70/30, bs 4k (reads) 64k (writes), iodepth 8, 4 clones, io_uring, O_DIRECT`.
fn what(spec: &JobSpec) -> String {
    let s = spec.sizes();
    let bs = match (spec.rw.reads(), spec.rw.writes()) {
        (true, true) if s[0] != s[1] => {
            format!("bs {} (reads) {} (writes)", sizes(&s[0]), sizes(&s[1]))
        }
        (false, true) => format!("bs {}", sizes(&s[1])),
        _ => format!("bs {}", sizes(&s[0])),
    };
    let mix = if spec.rw.is_mixed() {
        format!(" {}/{}", spec.rwmixread, 100 - spec.rwmixread)
    } else {
        String::new()
    };
    let engine = match spec.engine {
        _ if spec.metadata.is_some() => spec.metadata.as_ref().expect("some").op.fio_name(),
        crate::disk::EngineChoice::Exact(k) => k.as_str(),
        crate::disk::EngineChoice::Auto => "the best engine available",
    };
    let mut parts = vec![
        format!("{}{mix}, {bs}", spec.rw),
        format!("iodepth {}", spec.iodepth),
        format!(
            "{} thread{}",
            spec.numjobs,
            if spec.numjobs == 1 { "" } else { "s" }
        ),
        engine.to_string(),
        if spec.direct {
            "O_DIRECT".into()
        } else {
            "buffered (page cache)".into()
        },
    ];
    if spec.writes_target() && spec.data != crate::disk::data::WriteContent::Random {
        parts.push(format!("writes {}", spec.data.describe()));
    }
    if let Some(crate::disk::Modifier::Back(b)) = spec.modifier {
        parts.push(format!(
            "backwards: each block starts {} before the last one's end (the first at 0; below 0, that much before the region's end), as fio",
            crate::units::fio_size(b)
        ));
    }
    match spec.write_sync {
        crate::disk::WriteSync::Dsync => {
            parts.push("writes O_DSYNC (each returns once stable)".into())
        }
        crate::disk::WriteSync::Sync => {
            parts.push("writes O_SYNC (each returns once stable)".into())
        }
        crate::disk::WriteSync::None => {}
    }
    if spec.fsync > 0 {
        let kind = if spec.datasync { "fdatasync" } else { "fsync" };
        parts.push(format!("{kind} every {} writes", spec.fsync));
    }
    if spec.rw.is_random() && !spec.distribution.is_uniform() {
        parts.push(format!(
            "offsets random_distribution={} (drawn independently, no random map)",
            spec.distribution.fio()
        ));
    }
    for (d, name) in [(0, "reads"), (1, "writes")] {
        if let Some(r) = spec.rate[d] {
            parts.push(format!("{name} capped at {}/s per thread", fmt_bytes(r)));
        }
    }
    if let Some(m) = spec.rate_min {
        parts.push(m.describe());
    }
    if let Some(f) = spec.flow {
        parts.push(f.describe());
    }
    parts.join(", ")
}

/// What a verifying job checks, and when.
fn verify(v: &crate::disk::Verify) -> String {
    let alg = v.alg.as_str();
    let mut line = if v.only {
        format!("verify_only ({alg}): writes nothing; draws the job's writes again and reads back what an earlier run of it wrote")
    } else if v.after_writes {
        format!("verify {alg}: every block written carries a checked header; read back after the job's writes, outside the measured interval")
    } else {
        format!("verify {alg}: every block written carries a checked header; not read back (do_verify=0: a later verify_only run checks it)")
    };
    if v.fatal && (v.only || v.after_writes) {
        line.push_str("; stops at the first bad block (verify_fatal)");
    }
    line
}

/// How the job ends.
fn ends(spec: &JobSpec) -> String {
    let ramp = if spec.ramp.is_zero() {
        String::new()
    } else {
        format!(" after a {} ramp", fmt_duration(spec.ramp))
    };
    // What each thread may issue before it stops: fio's size (times loops,
    // or io_size) and number_ios, whichever is reached first.
    let mut budget = Vec::new();
    match (&spec.metadata, spec.byte_limit) {
        (Some(m), _) => budget.push(format!(
            "{} calls ({} fake bytes)",
            m.nrfiles,
            fmt_bytes(m.nrfiles * spec.bs)
        )),
        (None, Some(bytes)) => budget.push(fmt_bytes(bytes)),
        (None, None) => {}
    }
    if let Some(ops) = spec.op_limit {
        budget.push(format!(
            "{} operations",
            crate::units::fmt_count(ops as f64)
        ));
    }
    let first = if budget.len() > 1 {
        ", whichever comes first"
    } else {
        ""
    };
    match (budget.is_empty(), spec.runtime.is_zero()) {
        (false, true) => format!(
            "ends when each thread has issued {}{first} (size-bounded){ramp}",
            budget.join(" or ")
        ),
        (false, false) => format!(
            "ends when each thread has issued {}, or after {}{ramp}",
            budget.join(" or "),
            fmt_duration(spec.runtime)
        ),
        (true, _) => format!("runs for {} (time_based){ramp}", fmt_duration(spec.runtime)),
    }
}

/// For each job, the jobs that start at the same moment (the same jobs
/// before them, the same delay), found in one pass.
fn starts_together(plan: &LoweredJobs) -> Vec<std::rc::Rc<Vec<usize>>> {
    let mut by_start: std::collections::HashMap<_, Vec<usize>> = std::collections::HashMap::new();
    for (i, job) in plan.jobs.iter().enumerate() {
        by_start
            .entry((&job.after, job.start_delay))
            .or_default()
            .push(i);
    }
    let shared: std::collections::HashMap<_, _> = by_start
        .into_iter()
        .map(|(k, v)| (k, std::rc::Rc::new(v)))
        .collect();
    plan.jobs
        .iter()
        .map(|job| shared[&(&job.after, job.start_delay)].clone())
        .collect()
}

/// At most this many jobs are named in a list: a plan of 16,000 jobs
/// stays linear in its jobs.
const NAMED: usize = 8;

/// `a, b, c` or `a, b, ... (and 12 more)`, of the `n` names `names` gives:
/// only the first few are taken.
fn list<'a>(n: usize, names: impl Iterator<Item = &'a str>) -> String {
    let shown: Vec<&str> = names.take(NAMED).collect();
    if n > NAMED {
        format!("{}, ... (and {} more)", shown.join(", "), n - NAMED)
    } else {
        shown.join(", ")
    }
}

/// When it starts: after which jobs (fio's phases: a stonewall job and the
/// jobs after it start when the phase before has ended), and beside which.
fn when(job: &Lowered, plan: &LoweredJobs, together: &[usize], index: usize) -> String {
    let delay = if job.start_delay.is_zero() {
        String::new()
    } else {
        format!(", {} after the run starts", fmt_duration(job.start_delay))
    };
    let others = together
        .iter()
        .filter(|&&j| j != index)
        .map(|&j| plan.jobs[j].section.as_str());
    let beside = match together.len().saturating_sub(1) {
        0 => String::new(),
        n => format!(", beside {}", list(n, others)),
    };
    if job.after.is_empty() {
        if beside.is_empty() {
            format!("starts first{delay}")
        } else {
            format!("starts at once{beside}{delay}")
        }
    } else {
        format!(
            "starts when {} ended{beside}{delay}",
            list(
                job.after.len(),
                job.after.iter().map(|i| plan.jobs[i].fio_name.as_str())
            )
        )
    }
}

#[cfg(test)]
mod tests {
    use super::ends;
    use crate::disk::{JobSpec, Rw};
    use std::time::Duration;

    fn job(bytes: Option<u64>, ops: Option<u64>, runtime: u64) -> JobSpec {
        let mut j = JobSpec::new(Rw::Randread, 4096, 1);
        j.byte_limit = bytes;
        j.op_limit = ops;
        j.runtime = Duration::from_secs(runtime);
        j.ramp = Duration::ZERO;
        j
    }

    #[test]
    fn a_job_bounded_by_its_operations_says_so_and_is_never_called_time_based() {
        // number_ios with time_based: fio stops at the count or the runtime.
        let e = ends(&job(None, Some(1000), 3));
        assert_eq!(
            e,
            "ends when each thread has issued 1,000 operations, or after 3s"
        );
        let e = ends(&job(Some(8 << 20), Some(1000), 0));
        assert!(
            e.contains("8 MiB or 1,000 operations, whichever comes first (size-bounded)"),
            "{e}"
        );
        assert!(ends(&job(None, None, 3)).contains("(time_based)"));
    }
}
