//! `io-cpu-bound`: a disk figure that the CPU driving it may have capped.
//!
//! A job thread that is busy nearly all the time submitting and reaping
//! cannot ask the disk for more. In a small VM one 4k I/O costs several
//! microseconds of CPU (system call, the virtual disk's notification, the
//! interrupt: 7-10 us per 4k write on the 2-vCPU guest of BENCHMARKS.md), so one
//! thread tops out near 10^9 / (CPU ns per I/O) IOPS whatever the disk could do.

use super::{checked, not_checked, round_to};
use crate::result::{Finding, Run};
use crate::units::sig3;
use serde_json::json;

/// candor's CPU time (user + system) per job thread, as a percentage of one
/// core, from which the thread counts as busy nearly all the time. Below it
/// the thread waited for the disk a measurable share of the interval.
pub const IO_CPU_BOUND_PCT: f64 = 85.0;

/// Fires for every disk test (the null engine aside: it has no disk to wait
/// for) whose job threads each used at least [`IO_CPU_BOUND_PCT`] of a core.
pub fn io_cpu_bound(run: &Run) -> Vec<Finding> {
    let mut with_cpu = 0;
    let mut without_cpu = 0;
    let mut bound = Vec::new();
    let mut worst: Option<(f64, String, f64)> = None;
    for d in run.disk() {
        // The null engine has no disk to wait for; a test that did no I/O
        // (a run cut short) has no figure the CPU could have capped.
        let ops = (d.read.as_ref().map_or(0, |s| s.ops))
            .saturating_add(d.write.as_ref().map_or(0, |s| s.ops));
        if d.spec.engine == "null" || ops == 0 {
            continue;
        }
        let busy = d.cpu.usr_pct + d.cpu.sys_pct;
        if busy <= 0.0 {
            without_cpu += 1;
            continue;
        }
        with_cpu += 1;
        let per_thread = busy / d.spec.numjobs.max(1) as f64;
        if per_thread < IO_CPU_BOUND_PCT {
            continue;
        }
        let what = format!(
            "{} {}{}",
            d.label(),
            d.spec.rw,
            d.pass.map(|p| format!(" pass {p}")).unwrap_or_default()
        );
        bound.push(json!({
            "measurement": what,
            "cpu_pct_per_thread": round_to(per_thread, 1),
            "numjobs": d.spec.numjobs,
            "iops": round_to(d.total_iops(), 0),
            "cpu_ns_per_io": (ops > 0).then(|| d.cpu.cpu_ns / ops),
        }));
        if worst.as_ref().is_none_or(|w| per_thread > w.0) {
            worst = Some((per_thread, what, d.total_iops()));
        }
    }
    if with_cpu == 0 {
        if without_cpu == 0 {
            return Vec::new();
        }
        return vec![not_checked(
            "io-cpu-bound",
            "candor's CPU use was not recorded: whether the CPU capped a disk figure was not checked"
                .into(),
            "CPU use (user + system) per disk test",
        )];
    }
    let Some((pct, what, iops)) = worst else {
        return Vec::new();
    };
    vec![checked(
        "io-cpu-bound",
        Some(what.clone()),
        format!(
            "each job thread used {pct:.0} % of a core for {} IOPS ({} of {} disk tests at or above {} %): the CPU may have capped the figure, not the disk",
            sig3(iops),
            bound.len(),
            with_cpu,
            IO_CPU_BOUND_PCT
        ),
        json!({
            "max_cpu_pct_per_thread": round_to(pct, 1),
            "measurements_bound": bound,
            "measurements_with_cpu": with_cpu,
            "threshold_cpu_pct_per_thread": IO_CPU_BOUND_PCT,
        }),
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::*;
    use crate::result::{CpuUse, FindingStatus};

    fn busy(usr: f64, sys: f64) -> CpuUse {
        CpuUse {
            usr_pct: usr,
            sys_pct: sys,
            steal_pct: 0.0,
            cpu_ns: 27_000_000_000,
            run_wait_ns: None,
        }
    }

    #[test]
    fn a_thread_busy_all_the_time_caps_the_figure() {
        let mut run = run();
        run.measurements.push(job(
            Some("RND4K Q32T1"),
            "randwrite",
            4096,
            32,
            1,
            115_000.0,
        ));
        run.measurements
            .push(job(Some("RND4K Q32T1"), "randread", 4096, 32, 1, 68_000.0));
        // The synthetic jobs use 15 % of a core: nothing to say.
        assert!(io_cpu_bound(&run).is_empty());
        dm(&mut run.measurements[0]).cpu = busy(20.0, 72.0);
        let f = io_cpu_bound(&run);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].status, FindingStatus::Checked);
        assert_eq!(
            f[0].subject.as_deref(),
            Some("RND4K Q32T1 randwrite pass 1")
        );
        assert_eq!(f[0].evidence["max_cpu_pct_per_thread"], 92.0);
        assert_eq!(f[0].evidence["measurements_with_cpu"], 2);
        // 27 s of CPU over 115,000 IOPS x 30 s.
        assert_eq!(
            f[0].evidence["measurements_bound"][0]["cpu_ns_per_io"],
            7826
        );
        assert!(f[0].verdict.contains("92 % of a core"), "{}", f[0].verdict);
    }

    #[test]
    fn the_share_is_per_job_thread() {
        let mut run = run();
        run.measurements
            .push(job(Some("RND4K Q32T4"), "randread", 4096, 32, 1, 200_000.0));
        let d = dm(&mut run.measurements[0]);
        d.spec.numjobs = 4;
        d.cpu = busy(60.0, 140.0); // 200 % over four threads: 50 % each
        assert!(io_cpu_bound(&run).is_empty());
        dm(&mut run.measurements[0]).cpu = busy(100.0, 260.0); // 90 % each
        assert_eq!(io_cpu_bound(&run).len(), 1);
    }

    #[test]
    fn null_engine_and_missing_cpu() {
        let mut run = run();
        assert!(
            io_cpu_bound(&run).is_empty(),
            "no disk test, nothing to say"
        );
        run.measurements
            .push(job(None, "randread", 4096, 32, 1, 20_000_000.0));
        dm(&mut run.measurements[0]).spec.engine = "null".into();
        dm(&mut run.measurements[0]).cpu = busy(99.0, 1.0);
        assert!(
            io_cpu_bound(&run).is_empty(),
            "the null engine is CPU-bound by design"
        );
        dm(&mut run.measurements[0]).spec.engine = "io_uring".into();
        dm(&mut run.measurements[0]).cpu = CpuUse::default();
        assert_eq!(io_cpu_bound(&run)[0].status, FindingStatus::NotChecked);
    }

    /// A test that completed no I/O (`--runtime 1ns` once gave one) has no
    /// figure the CPU could have capped, however busy the thread was.
    #[test]
    fn a_test_without_io_is_not_cpu_bound() {
        let mut run = run();
        run.measurements
            .push(job(Some("RND4K Q32T1"), "randread", 4096, 32, 1, 0.0));
        let d = dm(&mut run.measurements[0]);
        d.cpu = busy(50.0, 50.0);
        if let Some(r) = d.read.as_mut() {
            r.ops = 0;
        }
        assert!(io_cpu_bound(&run).is_empty());
    }
}
