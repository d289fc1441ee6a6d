//! Drift: is a figure within its host's usual range? The `regressed` and
//! `improved` findings compare each key figure of a Run (a test's headline
//! rate; the p99 latency of QD1 and fsync tests) with the same host's
//! earlier Runs of the same workload.
//!
//! The rule, and why:
//! - the earlier figures are the host's last `DRIFT_WINDOW` Runs of that
//!   workload before this one (one value per Run: its median over passes);
//!   with fewer than `DRIFT_MIN_EARLIER` the check is not made (not-checked);
//! - the noise is the larger of a floor (`DRIFT_FLOOR_DISK` /
//!   `DRIFT_FLOOR_COMPUTE` of the earlier median) and `DRIFT_MAD_K` robust
//!   standard deviations (1.4826 x the median absolute deviation). The floor
//!   covers hosts whose few earlier Runs happened to agree; the MAD term
//!   covers hosts that are noisy by nature;
//! - the usual range is the min..max of the earlier figures that lie within
//!   the noise of their median (an earlier Run that was itself odd, a spike
//!   or the first Run after a change, does not widen it: a lasting change
//!   keeps firing until it is most of the window and so the new usual),
//!   widened on both sides by the noise. The edges alone are not enough: a
//!   new Run drawn from the same distribution as n earlier ones falls
//!   outside their min..max with probability 2/(n+1), one in two with three
//!   earlier Runs;
//! - a figure below the widened range is `regressed` when higher is better
//!   (IOPS, MB/s, events/s) and `improved` when lower is better (latency);
//!   above it, the other way round.
//!
//! The statistics are pure (`history::assess`, which `query`'s trends use
//! too); `for_run` reads the earlier figures from the database and builds
//! the findings.

use super::assess::{assess, Assessment, Facts, Verdict};
use super::figures::{figures, Figure, Key};
use super::query;
use super::History;
use crate::findings::drift::{DRIFT_MIN_EARLIER, DRIFT_WINDOW};
use crate::findings::{checked, not_checked, round_to};
use crate::result::{Finding, Run};
use serde_json::json;

/// One key figure and what its host's earlier Runs say about it.
pub struct Judged<'a> {
    pub figure: &'a Figure,
    /// Earlier figures found (may be fewer than needed).
    pub earlier: usize,
    /// First and last time of the earlier figures compared with (RFC 3339).
    pub span: Option<(String, String)>,
    pub assessment: Option<Assessment>,
}

/// The drift findings of a Run on `host`: one `regressed` or `improved`
/// finding per key figure that left its range; one not-checked finding per
/// id listing the figures with too few earlier Runs. `host_changed` goes
/// into the evidence of each finding.
pub fn drift_findings(
    host: &str,
    judged: &[Judged],
    host_changed: &serde_json::Map<String, serde_json::Value>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let changed_note = if host_changed.is_empty() {
        String::new()
    } else {
        format!(
            "; the host changed since its previous Run ({})",
            host_changed.keys().cloned().collect::<Vec<_>>().join(", ")
        )
    };
    for j in judged {
        let Some(a) = j.assessment else { continue };
        let id = match a.verdict {
            Verdict::Within => continue,
            Verdict::Regressed => "regressed",
            Verdict::Improved => "improved",
        };
        let f = j.figure;
        let m = f.metric;
        let change = a
            .change()
            .map(|c| format!(" ({:+.0} %)", c * 100.0))
            .unwrap_or_default();
        let side = if a.value < a.min { "below" } else { "above" };
        let verdict = format!(
            "{} {}: {}{change}, {side} this host's usual range of {} over its last {} Runs (median {}) by more than the noise ({}){changed_note}",
            f.test,
            m.short(),
            m.show(a.value),
            m.show_range(a.min, a.max),
            a.n,
            m.show(a.median),
            m.show(a.noise),
        );
        let mut evidence = json!({
            "host": host,
            "workload": f.workload,
            "metric": m.as_str(),
            "unit": m.unit(),
            "higher_is_better": m.higher_is_better(),
            "value": round_to(a.value, 3),
            "passes": f.passes,
            "earlier_median": round_to(a.median, 3),
            "earlier_min": round_to(a.min, 3),
            "earlier_max": round_to(a.max, 3),
            "earlier_mad": round_to(a.mad, 3),
            "earlier_count": a.n,
            "earlier_outliers": a.outliers,
            "earlier_from": j.span.as_ref().map(|s| s.0.clone()),
            "earlier_to": j.span.as_ref().map(|s| s.1.clone()),
            "noise": round_to(a.noise, 3),
            "floor_pct": round_to(a.floor * 100.0, 1),
            "change_pct": a.change().map(|c| round_to(c * 100.0, 1)),
        });
        if !host_changed.is_empty() {
            evidence["host_changed"] = serde_json::Value::Object(host_changed.clone());
        }
        out.push(checked(
            id,
            Some(format!("{} {}", f.test, m.short())),
            verdict,
            evidence,
        ));
    }
    let unchecked: Vec<&Judged> = judged.iter().filter(|j| j.assessment.is_none()).collect();
    if !unchecked.is_empty() {
        let examples: Vec<String> = unchecked
            .iter()
            .take(3)
            .map(|j| {
                format!(
                    "{} {}: {} earlier",
                    j.figure.test,
                    j.figure.metric.short(),
                    j.earlier
                )
            })
            .collect();
        let more = if unchecked.len() > 3 { "; ..." } else { "" };
        for id in ["regressed", "improved"] {
            let mut f = not_checked(
                id,
                format!(
                    "{} of {} key figures have fewer than {DRIFT_MIN_EARLIER} earlier Runs of the same workload on host {host}: drift not checked for them ({}{more})",
                    unchecked.len(),
                    judged.len(),
                    examples.join("; ")
                ),
                "three earlier Runs of the same workload on this host",
            );
            f.evidence["host"] = host.into();
            f.evidence["unchecked"] = unchecked
                .iter()
                .map(|j| json!({"test": j.figure.test, "metric": j.figure.metric.as_str(), "earlier": j.earlier}))
                .collect();
            f.evidence["checked_count"] = (judged.len() - unchecked.len()).into();
            out.push(f);
        }
    }
    out
}

/// The drift findings of `run` against the history in `conn`: its key
/// figures against the earlier Runs (strictly earlier in time) of its host
/// (`host`, else its label or hostname).
pub fn for_run(history: &History, run: &Run, host: Option<&str>) -> anyhow::Result<Vec<Finding>> {
    let conn = history.conn();
    let sql = |e: rusqlite::Error| history.error(e);
    let name = host
        .map(str::to_string)
        .or_else(|| super::add::identity(run))
        .ok_or_else(|| {
            crate::error::usage(
                "the Run has no label and no hostname: its host in the history is unknown",
            )
        })?;
    let started = super::add::started_unix(run).ok_or_else(|| {
        crate::error::usage(
            "the Run has no valid started_at time: it cannot be placed among earlier Runs",
        )
    })?;
    let host_id = query::host_id(conn, &name).map_err(sql)?;
    let figs = figures(run);
    let mut judged = Vec::new();
    for f in figs.iter().filter(|f| f.key != Key::Other) {
        let earlier = match host_id {
            Some(h) => query::earlier(conn, h, &f.workload, f.metric, started, DRIFT_WINDOW)
                .map_err(sql)?,
            None => Vec::new(),
        };
        let values: Vec<f64> = earlier.iter().map(|p| p.value).collect();
        let span = match (earlier.last(), earlier.first()) {
            (Some(a), Some(b)) => Some((a.started_at.clone(), b.started_at.clone())),
            _ => None,
        };
        judged.push(Judged {
            figure: f,
            earlier: earlier.len(),
            span,
            assessment: assess(f.kind == "disk", f.metric, &values, f.value),
        });
    }
    let changed = match host_id {
        Some(h) => match query::facts_before(conn, h, started).map_err(sql)? {
            Some(before) => Facts::changes(&before, &Facts::of(run)),
            None => Default::default(),
        },
        None => Default::default(),
    };
    let mut found = drift_findings(&name, &judged, &changed);
    note_fleet(&mut found, run.fleet.as_ref());
    Ok(found)
}

/// A drift finding of a Run measured while other hosts of its fleet ran
/// (`candor fleet run --parallel`) says so in its verdict and evidence:
/// their load on shared storage, network or the physical machine may be
/// what moved the figure, not a change of the host.
pub fn note_fleet(findings: &mut [Finding], fleet: Option<&crate::result::FleetContext>) {
    let Some(f) = fleet.filter(|f| !f.overlapped_with.is_empty()) else {
        return;
    };
    for d in findings
        .iter_mut()
        .filter(|d| d.status == crate::result::FindingStatus::Checked)
    {
        d.verdict.push_str(&format!(
            "; measured while other hosts of its fleet ran ({}, up to {} at once): their load may be in it",
            f.overlapped_with.join(", "),
            f.parallel
        ));
        d.evidence["fleet_overlapped_with"] = json!(f.overlapped_with);
        d.evidence["fleet_parallel"] = json!(f.parallel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::figures::Metric;

    #[test]
    fn a_figure_measured_beside_other_hosts_says_so() {
        let mut found = vec![
            checked(
                "regressed",
                None,
                "cpu primes all threads: 1,502 events/s (-45 %)".into(),
                json!({}),
            ),
            not_checked(
                "regressed",
                "too few earlier Runs".into(),
                "three earlier Runs",
            ),
        ];
        note_fleet(&mut found, None);
        assert!(!found[0].verdict.contains("fleet"));
        let ctx = crate::result::FleetContext {
            parallel: 2,
            overlapped_with: vec!["bravo".into()],
            destination: None,
        };
        note_fleet(&mut found, Some(&ctx));
        assert!(found[0].verdict.ends_with(
            "(-45 %); measured while other hosts of its fleet ran (bravo, up to 2 at once): their load may be in it"
        ));
        assert_eq!(found[0].evidence["fleet_overlapped_with"], json!(["bravo"]));
        assert!(
            !found[1].verdict.contains("fleet"),
            "not-checked ones stay as they are"
        );
        // A host of a --parallel run that ran alone gets no such words.
        let alone = crate::result::FleetContext {
            parallel: 2,
            overlapped_with: vec![],
            destination: None,
        };
        let mut again = vec![checked("improved", None, "x".into(), json!({}))];
        note_fleet(&mut again, Some(&alone));
        assert_eq!(again[0].verdict, "x");
    }

    #[test]
    fn fires_outside_the_widened_range_and_knows_which_way_is_better() {
        let earlier = [40_000.0, 41_000.0, 39_500.0, 40_500.0];
        let iops = |v| assess(true, Metric::Iops, &earlier, v).unwrap().verdict;
        // Within the range, and beyond it by less than the 10 % floor (4,025).
        assert_eq!(iops(40_200.0), Verdict::Within);
        assert_eq!(iops(36_000.0), Verdict::Within);
        assert_eq!(iops(35_000.0), Verdict::Regressed);
        assert_eq!(iops(46_000.0), Verdict::Improved);
        let lat = [100_000.0, 104_000.0, 98_000.0];
        let p99 = |v| assess(true, Metric::LatP99, &lat, v).unwrap().verdict;
        assert_eq!(
            p99(200_000.0),
            Verdict::Regressed,
            "higher latency is worse"
        );
        assert_eq!(p99(50_000.0), Verdict::Improved);
        assert_eq!(p99(110_000.0), Verdict::Within);
    }

    #[test]
    fn noisy_hosts_get_a_wider_allowance_and_one_odd_run_does_not_decide() {
        // A host that swings by a third from Run to Run: MAD 8,000, noise 3 x 1.4826 x 8,000.
        let noisy = [30_000.0, 46_000.0, 38_000.0, 50_000.0, 36_000.0];
        let a = assess(true, Metric::Iops, &noisy, 12_000.0).unwrap();
        assert!(a.noise > 30_000.0, "{a:?}");
        assert_eq!(a.verdict, Verdict::Within);
        // One odd earlier Run (the first after a drop) does not widen the
        // usual range: the second Run at the new level fires again.
        let steady = [40_000.0, 40_400.0, 39_800.0, 40_100.0, 12_000.0];
        let b = assess(true, Metric::Iops, &steady, 52_000.0).unwrap();
        assert_eq!(b.verdict, Verdict::Improved, "{b:?}");
        assert_eq!((b.min, b.max, b.outliers), (39_800.0, 40_400.0, 1));
        let again = assess(true, Metric::Iops, &steady, 12_500.0).unwrap();
        assert_eq!(again.verdict, Verdict::Regressed, "{again:?}");
        // Once the new level is most of the window, it is the usual.
        let settled = [40_000.0, 12_100.0, 40_100.0, 12_000.0, 12_300.0];
        assert_eq!(
            assess(true, Metric::Iops, &settled, 12_500.0)
                .unwrap()
                .verdict,
            Verdict::Within
        );
        // Half and half: no usual level, the whole range counts.
        let split = [40_000.0, 12_000.0, 40_100.0, 12_100.0];
        let c = assess(true, Metric::Iops, &split, 12_500.0).unwrap();
        assert_eq!((c.verdict, c.outliers), (Verdict::Within, 0));
    }

    #[test]
    fn compute_floor_is_tighter_and_too_few_runs_are_not_judged() {
        let e = [1000.0, 1002.0, 998.0];
        assert_eq!(
            assess(false, Metric::EventsPerSec, &e, 940.0)
                .unwrap()
                .verdict,
            Verdict::Regressed
        );
        assert_eq!(
            assess(true, Metric::Iops, &e, 940.0).unwrap().verdict,
            Verdict::Within
        );
        assert!(assess(false, Metric::EventsPerSec, &e[..2], 10.0).is_none());
    }

    #[test]
    fn host_changes_only_for_facts_known_on_both_sides() {
        let a = Facts {
            cpu_model: Some("EPYC 7B13".into()),
            cpu_threads: Some(4),
            mem_total_bytes: None,
            kernel: Some("6.1".into()),
        };
        let b = Facts {
            cpu_model: Some("Xeon E5".into()),
            cpu_threads: Some(4),
            mem_total_bytes: Some(8 << 30),
            kernel: None,
        };
        let c = Facts::changes(&a, &b);
        assert_eq!(c.keys().collect::<Vec<_>>(), ["cpu_model"]);
    }
}
