//! What the measured latencies mean for applications (METHODOLOGY §4), as
//! info findings: a chain of dependent reads, the fsync-bound commit ceiling,
//! and one line each for PostgreSQL/MySQL, Redis, ClickHouse/Elasticsearch
//! merges and SQLite. Each is arithmetic on measured percentiles, nothing more.

use super::metrics::{is_random, metrics, Dir, ProfileSeries};
use super::{checked, not_checked, round_to};
use crate::result::{median, FileRole, Finding, Run};
use crate::units::{fmt_count, fmt_ns, sig3};
use serde_json::json;

/// Dependent page reads in one web request's query (index pages, heap pages,
/// join indexes): METHODOLOGY's worked example uses 200.
pub const CHAIN_READS: f64 = 200.0;

/// A busy OLTP commit rate to put the fsync latency in context (METHODOLOGY: 2,000/s).
pub const COMMITS_PER_SEC: f64 = 2000.0;

/// Data a background merge reads and writes once (10 GB: a mid-sized ClickHouse part set).
pub const MERGE_BYTES: f64 = 10e9;

struct AppLatency {
    p50: f64,
    p99: f64,
    p99_9: f64,
    max: f64,
    subject: String,
}

fn lat(m: &ProfileSeries) -> Option<AppLatency> {
    let pick = |f: fn(&crate::result::LatencyStats) -> u64| {
        median(
            &m.points
                .iter()
                .map(|p| f(&p.stats.lat_ns) as f64)
                .collect::<Vec<_>>(),
        )
    };
    let p50 = pick(|l| l.p50)?;
    if p50 <= 0.0 {
        return None;
    }
    Some(AppLatency {
        p50,
        p99: pick(|l| l.p99)?,
        p99_9: pick(|l| l.p99_9)?,
        max: m
            .points
            .iter()
            .map(|p| p.stats.lat_ns.max as f64)
            .fold(0.0, f64::max),
        subject: m.subject(),
    })
}

fn qd1_random_read(run: &Run) -> Option<AppLatency> {
    metrics(run)
        .iter()
        .filter(|m| {
            m.role == FileRole::Main && m.dir == Dir::Read && m.is_plain() && is_random(m.job())
        })
        .filter(|m| {
            (4096..=8192).contains(&m.job().spec.bs)
                && m.job().spec.iodepth == 1
                && m.job().spec.numjobs == 1
        })
        .min_by_key(|m| m.job().spec.bs)
        .and_then(lat)
}

/// The commit latency of a QD1 write with fsync: candor times each write
/// through its sync; fio times the sync apart (imports keep it as `sync`),
/// so there a commit is the write plus its sync. Percentiles of a sum are
/// not the sum of percentiles: the p50s add up to a fair middle, the p99s
/// to an upper bound, and the evidence says which was used.
fn fsync_write(run: &Run) -> Option<(AppLatency, bool)> {
    let all = metrics(run);
    let m = all
        .iter()
        .filter(|m| {
            m.role == FileRole::Main
                && m.dir == Dir::Write
                && m.job().spec.fsync > 0
                && m.job().spec.iodepth == 1
        })
        .min_by_key(|m| m.job().spec.bs)?;
    let mut l = lat(m)?;
    let syncs: Vec<&crate::result::LatencyStats> = m
        .points
        .iter()
        .filter_map(|p| p.job.sync.as_ref().map(|s| &s.lat_ns))
        .collect();
    if syncs.is_empty() {
        return Some((l, false));
    }
    let pick = |f: fn(&crate::result::LatencyStats) -> u64| {
        median(&syncs.iter().map(|s| f(s) as f64).collect::<Vec<_>>()).unwrap_or(0.0)
    };
    l.p50 += pick(|s| s.p50);
    l.p99 += pick(|s| s.p99);
    l.p99_9 += pick(|s| s.p99_9);
    l.max += syncs.iter().map(|s| s.max as f64).fold(0.0, f64::max);
    Some((l, true))
}

/// The fastest sequential (bs >= 128 KiB) main-file figure in one direction.
fn best_seq(run: &Run, dir: Dir) -> Option<(String, f64)> {
    metrics(run)
        .iter()
        .filter(|m| m.role == FileRole::Main && m.dir == dir && m.is_plain() && !is_random(m.job()))
        .filter(|m| m.job().spec.bs >= 128 * 1024)
        .map(|m| (m.subject(), m.bps_spread().median))
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// All application findings (checked or not-checked).
pub fn application(run: &Run) -> Vec<Finding> {
    let read = qd1_random_read(run);
    let (sync, sync_added) = match fsync_write(run) {
        Some((l, added)) => (Some(l), added),
        None => (None, false),
    };
    let mut out = Vec::new();

    match &read {
        Some(r) => out.push(checked(
            "app-read-chain",
            Some(r.subject.clone()),
            format!(
                "a query that reads {} dependent pages waits about {} (p50 {} each), {} when every read is a p99 ({})",
                CHAIN_READS,
                fmt_ns(r.p50 * CHAIN_READS),
                fmt_ns(r.p50),
                fmt_ns(r.p99 * CHAIN_READS),
                fmt_ns(r.p99)
            ),
            json!({
                "reads": CHAIN_READS,
                "read_p50_ns": r.p50,
                "read_p99_ns": r.p99,
                "chain_p50_ns": r.p50 * CHAIN_READS,
                "chain_p99_ns": r.p99 * CHAIN_READS,
            }),
        )),
        None => out.push(not_checked(
            "app-read-chain",
            "no QD1 random 4-8 KiB read with latencies: the time of a chain of dependent reads was not computed".into(),
            "a QD1 random read (RND4K Q1T1) with latency percentiles",
        )),
    }

    match &sync {
        Some(s) => out.push(checked(
            "app-commit",
            Some(s.subject.clone()),
            format!(
                "one writer that syncs every commit tops out near {} commits/s (fsync p50 {}), {} at p99 ({}); {} commits/s would wait {} s of every second at p99",
                fmt_count(1e9 / s.p50),
                fmt_ns(s.p50),
                fmt_count(1e9 / s.p99.max(1.0)),
                fmt_ns(s.p99),
                fmt_count(COMMITS_PER_SEC),
                sig3(COMMITS_PER_SEC * s.p99 / 1e9)
            ),
            json!({
                "fsync_p50_ns": s.p50,
                "fsync_p99_ns": s.p99,
                "fsync_p99_9_ns": s.p99_9,
                "write_plus_separate_sync": sync_added,
                "commits_per_sec_at_p50": round_to(1e9 / s.p50, 1),
                "commits_per_sec_at_p99": round_to(1e9 / s.p99.max(1.0), 1),
                "example_commits_per_sec": COMMITS_PER_SEC,
                "wait_sec_per_sec_at_p99": round_to(COMMITS_PER_SEC * s.p99 / 1e9, 4),
            }),
        )),
        None => out.push(not_checked(
            "app-commit",
            "no QD1 write with fsync: the commit ceiling of a single writer was not computed".into(),
            "an FSYNC4K measurement (QD1 write, sync after every write)",
        )),
    }

    match (&read, &sync) {
        (Some(r), Some(s)) => out.push(checked(
            "app-postgres-mysql",
            None,
            format!(
                "PostgreSQL/MySQL (InnoDB): a single session commits at most ~{}/s (fsync p50 {}); a {}-page index+heap lookup chain takes ~{} (p50) to ~{} (p99)",
                fmt_count(1e9 / s.p50),
                fmt_ns(s.p50),
                CHAIN_READS,
                fmt_ns(r.p50 * CHAIN_READS),
                fmt_ns(r.p99 * CHAIN_READS)
            ),
            json!({"fsync_p50_ns": s.p50, "read_p50_ns": r.p50, "read_p99_ns": r.p99}),
        )),
        _ => out.push(not_checked(
            "app-postgres-mysql",
            "PostgreSQL/MySQL need both the fsync latency and QD1 random reads: not both were measured".into(),
            "FSYNC4K and RND4K Q1T1 read",
        )),
    }

    match &sync {
        Some(s) => out.push(checked(
            "app-redis",
            None,
            format!(
                "Redis appendfsync everysec: fsync p99.9 {}, worst {}: stalls of that size reach clients as latency spikes",
                fmt_ns(s.p99_9),
                fmt_ns(s.max)
            ),
            json!({"fsync_p99_9_ns": s.p99_9, "fsync_max_ns": s.max}),
        )),
        None => out.push(not_checked(
            "app-redis",
            "no fsync latency: what Redis' appendfsync would feel was not computed".into(),
            "FSYNC4K",
        )),
    }

    match (best_seq(run, Dir::Read), best_seq(run, Dir::Write)) {
        (Some((rs, rb)), Some((ws, wb))) if rb > 0.0 && wb > 0.0 => out.push(checked(
            "app-merges",
            None,
            format!(
                "ClickHouse/Elasticsearch merges: reading and rewriting 10 GB takes ~{} s ({} MB/s read, {} MB/s write)",
                sig3(MERGE_BYTES / rb + MERGE_BYTES / wb),
                sig3(rb / 1e6),
                sig3(wb / 1e6)
            ),
            json!({
                "merge_bytes": MERGE_BYTES,
                "read_bytes_per_sec": round_to(rb, 0),
                "write_bytes_per_sec": round_to(wb, 0),
                "read_from": rs,
                "write_from": ws,
                "merge_sec": round_to(MERGE_BYTES / rb + MERGE_BYTES / wb, 2),
            }),
        )),
        _ => out.push(not_checked(
            "app-merges",
            "no sequential read and write of large blocks: merge time was not computed".into(),
            "SEQ1M read and write",
        )),
    }

    match &sync {
        Some(s) => out.push(checked(
            "app-sqlite",
            None,
            format!(
                "SQLite: each transaction syncs at least once (WAL) and usually twice or more (rollback journal): at most ~{}/s in WAL mode, ~{}/s with a journal",
                fmt_count(1e9 / s.p50),
                fmt_count(1e9 / (2.0 * s.p50))
            ),
            json!({
                "fsync_p50_ns": s.p50,
                "tx_per_sec_wal": round_to(1e9 / s.p50, 1),
                "tx_per_sec_journal": round_to(1e9 / (2.0 * s.p50), 1),
            }),
        )),
        None => out.push(not_checked(
            "app-sqlite",
            "no fsync latency: SQLite's transaction rate was not computed".into(),
            "FSYNC4K",
        )),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::*;
    use crate::result::FindingStatus;

    #[test]
    fn read_chain_200_pages_at_68_us_is_about_14_ms() {
        let mut run = run();
        let mut m = job(Some("RND4K Q1T1"), "randread", 4096, 1, 1, 14000.0);
        let l = &mut dm(&mut m).read.as_mut().unwrap().lat_ns;
        l.p50 = 68_000;
        l.p99 = 142_000;
        run.measurements.push(m);
        let f = application(&run);
        let chain = f.iter().find(|f| f.id == "app-read-chain").unwrap();
        assert_eq!(chain.status, FindingStatus::Checked);
        assert_eq!(chain.evidence["chain_p50_ns"], 13_600_000.0);
        assert!(chain.verdict.contains("13.6 ms"), "{}", chain.verdict);
        let commit = f.iter().find(|f| f.id == "app-commit").unwrap();
        assert_eq!(commit.status, FindingStatus::NotChecked);
    }

    #[test]
    fn commit_ceiling_from_fsync_p99_620_us() {
        let mut run = run();
        let mut m = job(Some("FSYNC4K"), "randwrite", 4096, 1, 1, 2000.0);
        let d = dm(&mut m);
        d.spec.fsync = 1;
        let l = &mut d.write.as_mut().unwrap().lat_ns;
        l.p50 = 400_000;
        l.p99 = 620_000;
        run.measurements.push(m);
        let f = application(&run);
        let c = f.iter().find(|f| f.id == "app-commit").unwrap();
        assert_eq!(c.evidence["commits_per_sec_at_p50"], 2500.0);
        // 2,000 commits/s at p99 620 us: 1.24 s of waiting per second.
        assert_eq!(c.evidence["wait_sec_per_sec_at_p99"], 1.24);
        assert_eq!(
            f.iter().find(|f| f.id == "app-sqlite").unwrap().status,
            FindingStatus::Checked
        );
    }
}
