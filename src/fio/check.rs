//! What every figure candor takes from fio's JSON must be before it is
//! imported. The importer reads numbers leniently (a missing count is 0),
//! so a file that is fio-shaped but wrong once became a `complete` Run
//! with empty, negative or absurd figures: `"jobs":[1,"a",null]`, a job that
//! did neither reads nor writes, `"iops":"NaN"`, a negative `bw_bytes`, a
//! json+ latency bin of 2^64-1 ns (p50 = 584 years). Here each field the
//! importer reads is checked to be:
//!
//! - of its type: counts are whole numbers, rates and means are numbers,
//!   never strings, null or booleans;
//! - finite and not negative, and within what a fio run can count;
//! - consistent: IOPS and bytes/s agree with the I/Os, bytes and runtime
//!   they come from (fio divides the one by the other), latencies lie
//!   between their min and max and within the job's wall time, percentiles
//!   rise with the percentile, json+ bins add up to their sample count.
//!
//! The first problem found is the error: one line naming the file, the job
//! and the field (the caller exits 2).

use super::output::{bad, ImportError};
use serde_json::{Map, Value};
use std::path::Path;

/// Counts of I/Os and samples above this are beyond any fio run (2^53:
/// 28 years at 10 million IOPS); it also keeps sums over clones exact.
const MAX_COUNT: u64 = 1 << 53;
/// Bytes above this (2^60, 1 EiB) are beyond any fio run.
const MAX_BYTES: u64 = 1 << 60;
/// Job times above ten years (in ms) are not a run's.
const MAX_RUNTIME_MS: u64 = 10 * 366 * 86_400_000;
/// CPU use above 100 % of 65,536 CPUs is not a machine's.
const MAX_CPU_PCT: f64 = 100.0 * 65_536.0;
/// The last second of the year 9999: a later timestamp is not a clock's.
const MAX_TIMESTAMP: u64 = 253_402_300_799;
/// How far fio's reported figures may stray from what they are computed
/// from: rounding of the runtime (whole ms) and of the printed values.
const RATE_TOLERANCE: f64 = 0.01;
/// fio's latency bins (and the percentiles read from them) stand for the
/// middle of a bucket 1/64 of its value wide: a bin may sit that far above
/// the largest sample. Twice that is allowed.
const BIN_SLACK: u64 = 32;

/// Checks the parts of one fio output that the importer reads.
pub(super) fn output(path: &Path, top: &Map<String, Value>) -> Result<(), ImportError> {
    if let Some(ts) = top.get("timestamp") {
        match ts.as_u64() {
            Some(t) if t <= MAX_TIMESTAMP => {}
            _ => return Err(bad(path, format!("timestamp {}, not a time", show(ts)))),
        }
    }
    if let Some(g) = top.get("global options") {
        if !g.is_object() {
            return Err(bad(
                path,
                format!("\"global options\" is {}, not an object", show(g)),
            ));
        }
    }
    let jobs = top.get("jobs").and_then(Value::as_array);
    for (index, job) in jobs.into_iter().flatten().enumerate() {
        // 30,000 jobs take a while: the first signal stops here.
        if crate::cancel::cancelled() {
            return Err(bad(path, "stopped by a signal"));
        }
        self::job(path, index, job)?;
    }
    if let Some(util) = top.get("disk_util") {
        disk_util(path, util)?;
    }
    Ok(())
}

/// fio's `disk_util`: a list of devices, each with its name, whole-number
/// counters and a busy percentage (fio clamps it at 100).
fn disk_util(path: &Path, util: &Value) -> Result<(), ImportError> {
    let Some(devices) = util.as_array() else {
        return Err(bad(
            path,
            format!("\"disk_util\" is {}, not a list", show(util)),
        ));
    };
    for (i, d) in devices.iter().enumerate() {
        let name = d.get("name").and_then(Value::as_str);
        let at = At {
            path,
            job: format!("disk_util[{i}]"),
        };
        if !d.is_object() || name.is_none_or(str::is_empty) {
            return Err(bad(
                path,
                format!("disk_util[{i}] is {}, not a device with a name", show(d)),
            ));
        }
        // The last ones are printed by newer fio (sectors) and for a device
        // with slaves (dm, md: aggr_*); a missing key is not checked.
        for key in [
            "read_ios",
            "write_ios",
            "read_merges",
            "write_merges",
            "read_ticks",
            "write_ticks",
            "in_queue",
            "read_sectors",
            "write_sectors",
            "aggr_read_ios",
            "aggr_write_ios",
            "aggr_read_sectors",
            "aggr_write_sectors",
            "aggr_read_merges",
            "aggr_write_merge",
            "aggr_read_ticks",
            "aggr_write_ticks",
            "aggr_in_queue",
        ] {
            at.count(d, "", key, MAX_COUNT)?;
        }
        at.real_at_most(d, "", "util", 100.0 + 1e-6, "100 %")?;
        at.real_at_most(d, "", "aggr_util", 100.0 + 1e-6, "100 %")?;
    }
    Ok(())
}

/// Where a problem is: the file and the job.
struct At<'a> {
    path: &'a Path,
    job: String,
}

impl At<'_> {
    fn bad(&self, field: &str, problem: impl std::fmt::Display) -> ImportError {
        bad(self.path, format!("{}: {field} {problem}", self.job))
    }

    /// A whole number from 0 to `max`, if present.
    fn count(
        &self,
        obj: &Value,
        parent: &str,
        key: &str,
        max: u64,
    ) -> Result<Option<u64>, ImportError> {
        let Some(v) = obj.get(key) else {
            return Ok(None);
        };
        match v.as_u64() {
            Some(n) if n <= max => Ok(Some(n)),
            Some(n) => Err(self.bad(
                &field(parent, key),
                format!("is {n}, more than a fio run can count"),
            )),
            None => Err(self.bad(
                &field(parent, key),
                format!("is {}, not a whole number of 0 or more", show(v)),
            )),
        }
    }

    /// A finite number of 0 or more, if present.
    fn real(&self, obj: &Value, parent: &str, key: &str) -> Result<Option<f64>, ImportError> {
        let Some(v) = obj.get(key) else {
            return Ok(None);
        };
        match v.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(Some(x)),
            _ => Err(self.bad(
                &field(parent, key),
                format!("is {}, not a number of 0 or more", show(v)),
            )),
        }
    }

    /// `real`, and at most `max` (`what` names the bound).
    fn real_at_most(
        &self,
        obj: &Value,
        parent: &str,
        key: &str,
        max: f64,
        what: &str,
    ) -> Result<Option<f64>, ImportError> {
        match self.real(obj, parent, key)? {
            Some(x) if x > max => Err(self.bad(
                &field(parent, key),
                format!("is {}, more than {what}", real_in_words(x)),
            )),
            other => Ok(other),
        }
    }
}

/// A number as a message shows it: as written up to 15 digits, beyond in
/// exponent form (`1e300`, not three hundred digits).
fn real_in_words(x: f64) -> String {
    if x.abs() < 1e15 {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

fn field(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// A JSON value as it appears in the file, cut short when long.
fn show(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 40 {
        format!("{}...", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

fn job(path: &Path, index: usize, job: &Value) -> Result<(), ImportError> {
    if !job.is_object() {
        return Err(bad(
            path,
            format!("jobs[{index}] is {}, not a job (an object)", show(job)),
        ));
    }
    let name = match job.get("jobname") {
        None => "(no name)".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(bad(
                path,
                format!("jobs[{index}]: jobname is {}, not a name", show(other)),
            ))
        }
    };
    let at = At {
        path,
        job: format!("job '{name}' (jobs[{index}])"),
    };
    if let Some(o) = job.get("job options") {
        if !o.is_object() {
            return Err(at.bad("\"job options\"", format!("is {}, not an object", show(o))));
        }
    }
    at.count(job, "", "groupid", u64::from(u32::MAX))?;
    let error = at
        .count(job, "", "error", u64::from(u32::MAX))?
        .unwrap_or(0);
    let elapsed_s = at.count(job, "", "elapsed", MAX_RUNTIME_MS / 1000)?;
    at.count(job, "", "job_runtime", MAX_RUNTIME_MS)?;
    // Percent of one CPU, summed over a group's jobs: not above 100 for
    // each CPU a machine can have.
    for cpu in ["usr_cpu", "sys_cpu"] {
        at.real_at_most(job, "", cpu, MAX_CPU_PCT, "100 % of 65,536 CPUs")?;
    }
    // No latency can outlast the job that timed it (fio's elapsed: whole
    // seconds, the ramp included; one more second for the rounding).
    let wall_ns = elapsed_s
        .filter(|&s| s > 0)
        .map(|s| (s + 1) * 1_000_000_000);
    let mut ios = 0u64;
    for key in ["read", "write", "sync"] {
        if let Some(dir) = job.get(key) {
            let n = direction(&at, dir, key, wall_ns)?;
            if key != "sync" {
                ios = ios.saturating_add(n);
            }
        }
    }
    if ios == 0 && error == 0 {
        if job
            .get("mixed")
            .and_then(|m| m.get("total_ios"))
            .and_then(Value::as_u64)
            .is_some_and(|n| n > 0)
        {
            return Err(at.bad(
                "mixed",
                "holds the I/O: fio's unified_rw_reporting is not imported (run fio without it)",
            ));
        }
        return Err(at.bad(
            "read and write",
            "hold no I/O (total_ios 0 or absent): nothing to import",
        ));
    }
    Ok(())
}

/// Checks one direction (`read`, `write` or `sync`); its I/O count.
fn direction(at: &At, dir: &Value, key: &str, wall_ns: Option<u64>) -> Result<u64, ImportError> {
    if !dir.is_object() {
        return Err(at.bad(key, format!("is {}, not an object", show(dir))));
    }
    let ios = at.count(dir, key, "total_ios", MAX_COUNT)?.unwrap_or(0);
    let bytes = at.count(dir, key, "io_bytes", MAX_BYTES)?;
    let runtime_ms = at.count(dir, key, "runtime", MAX_RUNTIME_MS)?;
    let iops = at.real(dir, key, "iops")?;
    let bw_bytes = at.real(dir, key, "bw_bytes")?;
    at.real(dir, key, "bw")?;
    for lat in ["lat_ns", "clat_ns", "slat_ns"] {
        if let Some(l) = dir.get(lat) {
            latency(at, l, &field(key, lat), wall_ns)?;
        }
    }
    if ios == 0 {
        return Ok(0);
    }
    // fio computes both rates from the counts over the direction's runtime.
    if let Some(ms) = runtime_ms.filter(|&ms| ms > 0) {
        let per_sec = |n: u64| n as f64 * 1000.0 / ms as f64;
        let agrees = |printed: f64, expected: f64| {
            (printed - expected).abs() <= expected * RATE_TOLERANCE + 1.0
        };
        if let Some(iops) = iops.filter(|&x| !agrees(x, per_sec(ios))) {
            return Err(at.bad(
                &field(key, "iops"),
                format!(
                    "is {iops}, but total_ios {ios} over runtime {ms} ms is {:.1}",
                    per_sec(ios)
                ),
            ));
        }
        if let (Some(bw), Some(bytes)) = (bw_bytes, bytes) {
            if !agrees(bw, per_sec(bytes)) {
                return Err(at.bad(
                    &field(key, "bw_bytes"),
                    format!(
                        "is {bw}, but io_bytes {bytes} over runtime {ms} ms is {:.0}",
                        per_sec(bytes)
                    ),
                ));
            }
        }
    }
    Ok(ios)
}

/// Checks one latency summary (`clat_ns` and the like).
fn latency(at: &At, lat: &Value, name: &str, wall_ns: Option<u64>) -> Result<(), ImportError> {
    if !lat.is_object() {
        return Err(at.bad(name, format!("is {}, not an object", show(lat))));
    }
    let n = at.count(lat, name, "N", MAX_COUNT)?.unwrap_or(0);
    let min = at.count(lat, name, "min", u64::MAX)?.unwrap_or(0);
    let max = at.count(lat, name, "max", u64::MAX)?.unwrap_or(0);
    // Samples between 0 and max have a mean and a spread no larger than max
    // (clones are merged through both: an absurd one would make them infinite).
    let largest = format!("max {max}");
    let mean = at
        .real_at_most(lat, name, "mean", max as f64 * (1.0 + 1e-9) + 1.0, &largest)?
        .unwrap_or(0.0);
    at.real_at_most(lat, name, "stddev", max as f64 + 1.0, &largest)?;
    if n > 0 {
        if min > max {
            return Err(at.bad(name, format!("has min {min} above max {max}")));
        }
        if mean < min as f64 * (1.0 - 1e-9) - 1.0 || mean > max as f64 * (1.0 + 1e-9) + 1.0 {
            return Err(at.bad(
                &field(name, "mean"),
                format!("is {mean}, outside min {min} and max {max}"),
            ));
        }
        if let Some(wall) = wall_ns.filter(|&w| max > w) {
            return Err(at.bad(
                &field(name, "max"),
                format!(
                    "is {max} ns, longer than the whole job ({} s)",
                    wall / 1_000_000_000
                ),
            ));
        }
    }
    // A bucket value may exceed the largest sample by its width (1/64).
    let ceiling = max.saturating_add(max / BIN_SLACK).saturating_add(1);
    if let Some(p) = lat.get("percentile") {
        let Some(p) = p.as_object() else {
            return Err(at.bad(
                &field(name, "percentile"),
                format!("is {}, not an object", show(p)),
            ));
        };
        let mut points: Vec<(f64, u64)> = Vec::with_capacity(p.len());
        for (k, v) in p {
            let at_pct = field(&field(name, "percentile"), k);
            let q: f64 = match k.parse::<f64>() {
                Ok(q) if (0.0..=100.0).contains(&q) => q,
                _ => return Err(at.bad(&at_pct, "is not a percentile (0 to 100)")),
            };
            let Some(value) = v.as_u64() else {
                return Err(at.bad(
                    &at_pct,
                    format!("is {}, not a whole number of 0 or more", show(v)),
                ));
            };
            if n > 0 && value > ceiling {
                return Err(at.bad(&at_pct, format!("is {value}, above max {max}")));
            }
            points.push((q, value));
        }
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        if let Some(w) = points.windows(2).find(|w| w[1].1 < w[0].1) {
            return Err(at.bad(
                &field(name, "percentile"),
                format!(
                    "falls from {} at p{} to {} at p{}: percentiles never fall",
                    w[0].1, w[0].0, w[1].1, w[1].0
                ),
            ));
        }
    }
    if let Some(b) = lat.get("bins") {
        let Some(b) = b.as_object() else {
            return Err(at.bad(
                &field(name, "bins"),
                format!("is {}, not an object", show(b)),
            ));
        };
        let mut total = 0u64;
        for (k, v) in b {
            let at_bin = field(&field(name, "bins"), k);
            let Ok(value) = k.parse::<u64>() else {
                return Err(at.bad(&at_bin, "is not a latency in ns"));
            };
            let Some(count) = v.as_u64().filter(|&c| c <= MAX_COUNT) else {
                return Err(at.bad(&at_bin, format!("holds {}, not a count", show(v))));
            };
            if count > 0 && value > ceiling {
                return Err(at.bad(
                    &at_bin,
                    format!("is a latency above the largest sample ({max} ns)"),
                ));
            }
            total = total.saturating_add(count);
        }
        // fio adds every sample to one bin: the bins hold N samples.
        if (total as f64 - n as f64).abs() > n as f64 * RATE_TOLERANCE + 1.0 {
            return Err(at.bad(
                &field(name, "bins"),
                format!("hold {total} samples, but N is {n}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Result<(), String> {
        let top: Value = serde_json::from_str(text).unwrap();
        output(Path::new("x.json"), top.as_object().unwrap()).map_err(|e| e.to_string())
    }

    fn one_job(job: &str) -> String {
        format!("{{\"fio version\": \"fio-3.33\", \"jobs\": [{job}]}}")
    }

    const READ: &str = r#"{"jobname": "r", "elapsed": 3, "read": {"total_ios": 1000, "io_bytes": 4096000, "runtime": 2000, "iops": 500.0, "bw_bytes": 2048000, "clat_ns": {"min": 100, "max": 9000, "mean": 800.5, "stddev": 50.0, "N": 1000, "percentile": {"50.000000": 700, "99.000000": 8000}, "bins": {"700": 990, "9000": 10}}}, "write": {"total_ios": 0}}"#;

    #[test]
    fn an_absurd_figure_is_shown_short() {
        let e = check(&one_job(&READ.replacen(
            "\"jobname\": \"r\",",
            "\"jobname\": \"r\", \"usr_cpu\": 1e300,",
            1,
        )))
        .unwrap_err()
        .to_string();
        assert!(e.contains("usr_cpu is 1e300, more than"), "{e}");
        assert_eq!(real_in_words(2.5), "2.5");
    }

    #[test]
    fn a_sound_job_passes() {
        assert_eq!(check(&one_job(READ)), Ok(()));
    }

    #[test]
    fn each_bad_figure_is_named() {
        let cases: [(&str, &str, &str); 12] = [
            (
                "\"iops\": 500.0",
                "\"iops\": \"NaN\"",
                "read.iops is \"NaN\", not a number",
            ),
            (
                "\"bw_bytes\": 2048000",
                "\"bw_bytes\": -2048000",
                "read.bw_bytes is -2048000",
            ),
            (
                "\"iops\": 500.0",
                "\"iops\": 5000.0",
                "read.iops is 5000, but total_ios 1000 over runtime 2000 ms is 500.0",
            ),
            (
                "\"bw_bytes\": 2048000",
                "\"bw_bytes\": 4096000",
                "read.bw_bytes is 4096000",
            ),
            (
                "\"9000\": 10",
                "\"18446744073709551615\": 10",
                "read.clat_ns.bins.18446744073709551615 is a latency above the largest sample",
            ),
            (
                "\"9000\": 10",
                "\"9000\": 50",
                "read.clat_ns.bins hold 1040 samples, but N is 1000",
            ),
            (
                "\"max\": 9000",
                "\"max\": 18446744073709551615",
                "read.clat_ns.max is 18446744073709551615 ns, longer than the whole job (4 s)",
            ),
            (
                "\"min\": 100",
                "\"min\": 10000",
                "read.clat_ns has min 10000 above max 9000",
            ),
            (
                "\"99.000000\": 8000",
                "\"99.000000\": 600",
                "read.clat_ns.percentile falls from 700 at p50 to 600 at p99",
            ),
            (
                "\"total_ios\": 1000",
                "\"total_ios\": 1e3",
                "read.total_ios is 1000.0, not a whole number",
            ),
            (
                "\"jobname\": \"r\"",
                "\"jobname\": 7",
                "jobs[0]: jobname is 7, not a name",
            ),
            (
                "\"50.000000\": 700",
                "\"NaN\": 700",
                "read.clat_ns.percentile.NaN is not a percentile",
            ),
        ];
        for (from, to, expected) in cases {
            assert!(READ.contains(from), "{from}");
            let e = check(&one_job(&READ.replacen(from, to, 1))).expect_err(to);
            assert!(e.starts_with("x.json: "), "{e}");
            assert!(e.contains(expected), "{to}: {e}");
            assert!(!e.contains('\n'));
        }
    }

    #[test]
    fn jobs_that_are_not_jobs() {
        let e = check(&one_job("1, \"a\", null")).unwrap_err();
        assert_eq!(e, "x.json: jobs[0] is 1, not a job (an object)");
        let e = check(&one_job(
            r#"{"jobname": "idle", "read": {"total_ios": 0}, "write": {"total_ios": 0}}"#,
        ))
        .unwrap_err();
        assert!(
            e.contains("job 'idle' (jobs[0]): read and write hold no I/O"),
            "{e}"
        );
        let e = check(&one_job(r#"{"jobname": "m", "mixed": {"total_ios": 5}}"#)).unwrap_err();
        assert!(e.contains("unified_rw_reporting"), "{e}");
        // A job fio reports as failed may have done nothing: it imports, as failed.
        assert_eq!(check(&one_job(r#"{"jobname": "e", "error": 5}"#)), Ok(()));
        let e = check(r#"{"fio version": "fio-3.33", "timestamp": -1, "jobs": []}"#).unwrap_err();
        assert!(e.contains("timestamp -1, not a time"), "{e}");
    }
}
