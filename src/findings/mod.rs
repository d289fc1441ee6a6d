//! Findings: what a Run's numbers mean and what they do not prove.
//!
//! Every finding is a pure function of one Run (or of several Runs, for the
//! cross-host ones): no I/O, no clock, no host access. So a finding can be
//! recomputed on any Run, old or imported (`candor analyze`), and tested on
//! synthetic Runs. One file per family; `catalogue.rs` is the registry of
//! stable ids with the long explanations that `candor explain` prints.
//!
//! The rule that runs through all of them: a check whose evidence is missing
//! (no control series, one pass only, no per-second series) yields a finding
//! with status `not-checked`, never silence that a reader could take for "ok".
//! A check that had its evidence and found nothing emits nothing.

mod apps;
mod cache;
pub mod caps;
mod catalogue;
mod claims;
mod cpu_bound;
mod cross;
pub mod drift;
mod file;
mod host;
mod jobfile;
mod limiter;
pub mod metrics;
mod round;
pub mod serial_path;
mod series;
mod stability;
mod stack;
#[cfg(test)]
pub(crate) mod synth;
mod unixbench;
mod verify;

pub use catalogue::{catalogue, info, FindingInfo};
pub use claims::{claims, Claims, CLAIMS_ID, NOT_CHECKED_CLAIM};
pub use cpu_bound::IO_CPU_BOUND_PCT;
pub use cross::HostMetrics;
pub use stack::foreign_share;

use crate::result::{Finding, FindingStatus, Run, Severity};
use serde_json::Value;

/// Every single-run finding of `run`, then the application translation and,
/// last, the `claims` finding (can claim / cannot claim) built from them.
pub fn analyze(run: &Run) -> Vec<Finding> {
    let mut findings = analyze_checks(run);
    let c = claims::from_findings(run, &findings);
    findings.push(claims::as_finding(&c));
    findings
}

/// The checks alone, without the `claims` summary.
pub(crate) fn analyze_checks(run: &Run) -> Vec<Finding> {
    let mut out = Vec::new();
    // Each check walks every measurement: on a Run of 30,000 the first
    // signal stops between them (the command then prints nothing).
    macro_rules! check {
        ($e:expr) => {
            if crate::cancel::cancelled() {
                return out;
            }
            out.extend($e);
        };
    }
    let has_disk = run.disk().next().is_some();
    if has_disk {
        // First: data that did not read back as written outweighs any figure.
        check!(verify::verified(run));
        check!(file::tmpfs(run));
        check!(file::sparse_file(run));
        check!(cache::host_cache(run));
        check!(cache::residency(run));
        check!(limiter::limiter_flat(run));
        check!(limiter::limiter_rw_equal(run));
        check!(limiter::limiter_qd_flat(run));
        check!(round::round_plateau(run));
        check!(caps::caps_finding(run));
        check!(series::burst_cliff(run));
        check!(cache::write_back(run));
        check!(series::not_steady(run));
        check!(host::media_unverifiable(run));
        check!(stack::foreign_io(run));
        check!(stack::cache_layer(run));
        check!(stack::write_amplification(run));
        check!(stack::latency_above_device(run));
    }
    if !run.measurements.is_empty() {
        check!(stability::unstable(run));
    }
    check!(stability::thread_imbalance(run));
    check!(cpu_bound::io_cpu_bound(run));
    check!(host::cpu_steal(run));
    check!(host::smt(run));
    check!(unixbench::page_cache(run));
    check!(unixbench::shell(run));
    check!(unixbench::compiler(run));
    check!(unixbench::execl(run));
    check!(unixbench::not_run(run));
    if has_disk {
        check!(apps::application(run));
        check!(jobfile::concurrent(run));
        check!(jobfile::working_set(run));
        check!(jobfile::short(run));
        check!(jobfile::buffered(run));
        check!(jobfile::gtod_reduce(run));
        check!(jobfile::randrepeat(run));
        check!(jobfile::reused_buffers(run));
        check!(jobfile::compressible_data(run));
        check!(jobfile::metadata(run));
    }
    out
}

/// Findings across several Runs (one per host): `metric-disagreement`.
pub fn analyze_many(runs: &[Run]) -> Vec<Finding> {
    analyze_hosts(&runs.iter().map(HostMetrics::of).collect::<Vec<_>>())
}

/// `analyze_many` from what it needs of each Run, taken one Run at a time.
pub fn analyze_hosts(hosts: &[HostMetrics]) -> Vec<Finding> {
    cross::metric_disagreement(hosts)
}

/// A finding whose evidence was there; severity, meaning and what it does
/// not prove come from the catalogue entry of `id`.
pub(crate) fn checked(
    id: &str,
    subject: Option<String>,
    verdict: String,
    evidence: Value,
) -> Finding {
    let entry = info(id).unwrap_or_else(|| panic!("finding id {id} is not in the catalogue"));
    Finding {
        id: id.to_string(),
        severity: entry.severity,
        status: FindingStatus::Checked,
        subject,
        verdict,
        evidence,
        meaning: entry.meaning.to_string(),
        not_proven: entry.not_proven.to_string(),
    }
}

/// A check that could not be made: `missing` says which evidence was absent.
pub(crate) fn not_checked(id: &str, verdict: String, missing: &str) -> Finding {
    let entry = info(id).unwrap_or_else(|| panic!("finding id {id} is not in the catalogue"));
    Finding {
        id: id.to_string(),
        severity: Severity::Info,
        status: FindingStatus::NotChecked,
        subject: None,
        verdict,
        evidence: serde_json::json!({ "missing": missing }),
        meaning: entry.meaning.to_string(),
        not_proven: entry.not_proven.to_string(),
    }
}

/// Rounds to `digits` decimals for evidence, so that JSON stays readable.
pub(crate) fn round_to(value: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (value * f).round() / f
}

/// A percentage with two significant digits, however small: 0.0005 -> "0.0005".
pub(crate) fn pct(fraction: f64) -> String {
    let p = fraction * 100.0;
    if p == 0.0 || !p.is_finite() {
        return "0".into();
    }
    let decimals = (1 - p.abs().log10().floor() as i32).max(0) as usize;
    format!("{p:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pct_keeps_two_significant_digits() {
        assert_eq!(pct(0.000005), "0.00050");
        assert_eq!(pct(0.0334), "3.3");
        assert_eq!(pct(0.5), "50");
        assert_eq!(pct(0.0), "0");
    }

    /// A battery-shaped Run: every profile in three passes, a control series,
    /// latencies, series, host facts. Nothing panics, every application line
    /// is computed, and a medium-like Run raises no warning.
    #[test]
    fn full_battery_run_on_a_plausible_medium() {
        use crate::result::{LatencyStats, Virtualization};
        let mut run = synth::run();
        run.host.cpu_threads = Some(4);
        run.host.cpu_cores = Some(4);
        run.host.virtualization = Some(Virtualization {
            kind: "none".into(),
            ..Default::default()
        });
        let lat = |p50: u64| LatencyStats {
            p50,
            p90: p50 * 2,
            p99: p50 * 3,
            p99_9: p50 * 5,
            max: p50 * 20,
            ..Default::default()
        };
        for pass in 1..=3u32 {
            let wobble = 1.0 + 0.01 * pass as f64;
            let profiles: [(&str, &str, u64, u32, f64); 9] = [
                ("SEQ1M Q8T1", "read", 1 << 20, 8, 3000.0),
                ("SEQ1M Q8T1", "write", 1 << 20, 8, 2000.0),
                ("SEQ1M Q1T1", "read", 1 << 20, 1, 1500.0),
                ("SEQ1M Q1T1", "write", 1 << 20, 1, 1200.0),
                ("RND4K Q32T1", "randread", 4096, 32, 300_000.0),
                ("RND4K Q32T1", "randwrite", 4096, 32, 200_000.0),
                ("RND4K Q1T1", "randread", 4096, 1, 12_000.0),
                ("RND4K Q1T1", "randwrite", 4096, 1, 9_000.0),
                ("MIX70", "randrw", 4096, 16, 90_000.0),
            ];
            for (profile, rw, bs, qd, iops) in profiles {
                let mut m = synth::job(Some(profile), rw, bs, qd, pass, iops * wobble);
                let d = synth::dm(&mut m);
                for s in [&mut d.read, &mut d.write].into_iter().flatten() {
                    s.lat_ns = lat((1e9 / s.iops * qd as f64) as u64);
                    let rates: Vec<f64> = (0..30)
                        .map(|i| s.iops * (1.0 + 0.02 * ((i % 3) as f64 - 1.0)))
                        .collect();
                    s.series = synth::series(&rates, bs);
                }
                run.measurements.push(m);
            }
            let mut f = synth::job(Some("FSYNC4K"), "randwrite", 4096, 1, pass, 2000.0 * wobble);
            let d = synth::dm(&mut f);
            d.spec.fsync = 1;
            d.write.as_mut().unwrap().lat_ns = lat(400_000);
            run.measurements.push(f);
        }
        for (profile, rw, bs, qd, iops) in [
            ("SEQ1M Q8T1", "read", 1u64 << 20, 8u32, 2900.0),
            ("RND4K Q32T1", "randread", 4096, 32, 290_000.0),
        ] {
            run.measurements.push(synth::control(synth::job(
                Some(profile),
                rw,
                bs,
                qd,
                1,
                iops,
            )));
        }
        let f = analyze(&run);
        let warnings: Vec<&Finding> = f
            .iter()
            .filter(|f| f.severity >= Severity::Warning)
            .collect();
        assert!(warnings.is_empty(), "{warnings:#?}");
        for id in [
            "app-read-chain",
            "app-commit",
            "app-postgres-mysql",
            "app-redis",
            "app-merges",
            "app-sqlite",
            "cache-unexcluded",
        ] {
            assert!(
                f.iter()
                    .any(|x| x.id == id && x.status == FindingStatus::Checked),
                "{id} missing"
            );
        }
        let claims = &f.last().unwrap().evidence;
        assert!(claims["can"].as_array().unwrap().len() >= 4, "{claims}");
    }

    #[test]
    fn every_emitted_id_is_catalogued_and_claims_come_last() {
        let mut run = synth::run();
        run.measurements.push(synth::job(
            Some("RND4K Q1T1"),
            "randread",
            4096,
            1,
            1,
            9000.0,
        ));
        let f = analyze(&run);
        assert!(f.iter().all(|f| info(&f.id).is_some()));
        assert_eq!(f.last().unwrap().id, "claims");
        // No disk, no compute: nothing to say but the claims.
        let f = analyze(&synth::run());
        assert!(f.iter().all(|f| f.id == "claims" || f.id == "smt"), "{f:?}");
    }
}
