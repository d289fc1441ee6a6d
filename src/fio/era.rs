//! fio's JSON changed its units over the years; this reads each era's
//! output into the one shape the importer takes (fio 3.x's), so that no
//! figure is read in the wrong unit. Facts from fio's `stat.c` at its tags:
//!
//! - fio 2.0.10 to 2.99 (3.0's release candidate): `slat`/`clat`/`lat`
//!   in microseconds (min, max, mean, stddev and percentiles); from 2.99
//!   `slat_ns`/`clat_ns`/`lat_ns` in nanoseconds.
//! - up to 2.20: `io_bytes` in KiB (`io_bytes >> 10`); from 2.21 in bytes,
//!   beside a new `io_kbytes`.
//! - up to 2.1.13: no `total_ios`.
//! - json+ latency bins: 2.2.12 to 2.19 keyed by bin index (with
//!   `FIO_IO_U_PLAT_BITS`); from 2.20 keyed by value (microseconds before
//!   2.99, nanoseconds since).
//! - 2.x fills its percentile list with `"0.00": 0` entries.
//!
//! The era is decided by the version fio printed and checked against the
//! keys present: a file whose keys are not its version's is refused (a
//! mixed-up or edited file would otherwise be read in the wrong unit).

use super::output::{bad, ImportError};
use serde_json::{Map, Value};
use std::path::Path;

/// The units of one fio output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Era {
    /// Latencies in microseconds (`clat`), not nanoseconds (`clat_ns`).
    pub latency_us: bool,
    /// `io_bytes` in KiB.
    pub io_kib: bool,
}

/// `fio-2.1.10`, `fio-3.1-12-gabcdef`, `fio-2.2.10-dirty` -> (2, 1, 10).
pub(super) fn version_number(version: &str) -> Option<(u32, u32, u32)> {
    let rest = version.trim().strip_prefix("fio-")?;
    let mut parts = rest
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .next()?
        .split('.')
        .map(|p| p.parse::<u32>().ok());
    let major = parts.next()??;
    let minor = parts.next().flatten().unwrap_or(0);
    let patch = parts.next().flatten().unwrap_or(0);
    Some((major, minor, patch))
}

/// The era of a version (None: a version this cannot read).
fn of_version(v: (u32, u32, u32)) -> Era {
    Era {
        latency_us: v < (2, 99, 0),
        io_kib: v < (2, 21, 0),
    }
}

/// The directions of a job entry that carry figures.
const DIRECTIONS: [&str; 5] = ["read", "write", "trim", "mixed", "sync"];

/// Reads one fio output (its `jobs`, or a client/server file's
/// `client_stats`) into nanoseconds and bytes. Returns notes for the Run.
pub(super) fn normalize(
    path: &Path,
    version: &str,
    jobs: &mut [Value],
) -> Result<Vec<String>, ImportError> {
    let mut notes = Vec::new();
    let seen = keys_era(jobs);
    let era = match (version_number(version), seen) {
        (Some(v), Some(seen)) => {
            let want = of_version(v);
            if seen.latency_us != want.latency_us {
                return Err(bad(
                    path,
                    format!(
                        "{version} prints latency as {}, but this file has {}: its keys are not its version's (edited, or put together from two outputs?)",
                        lat_name(want.latency_us),
                        lat_name(seen.latency_us)
                    ),
                ));
            }
            if seen.io_kib != want.io_kib {
                return Err(bad(
                    path,
                    format!(
                        "{version} prints io_bytes in {}, but this file {} io_kbytes: its keys are not its version's",
                        if want.io_kib { "KiB (and no io_kbytes)" } else { "bytes (beside io_kbytes)" },
                        if seen.io_kib { "has no" } else { "has" }
                    ),
                ));
            }
            want
        }
        (Some(v), None) => of_version(v),
        (None, Some(seen)) => {
            notes.push(format!(
                "fio version '{version}' is not one candor can read: units taken from the keys present ({}, io_bytes in {})",
                lat_name(seen.latency_us),
                if seen.io_kib { "KiB" } else { "bytes" }
            ));
            seen
        }
        (None, None) => {
            return Err(bad(
                path,
                format!("fio version '{version}' is not one candor can read, and no job has a latency or io_kbytes key to tell its units by"),
            ))
        }
    };
    let mut index_bins = false;
    let mut derived_ios = false;
    for job in jobs.iter_mut() {
        for key in DIRECTIONS {
            let Some(dir) = job.get_mut(key).and_then(Value::as_object_mut) else {
                continue;
            };
            if era.latency_us {
                index_bins |= latency_to_ns(dir);
            }
            if era.io_kib {
                if let Some(kib) = dir.get("io_bytes").and_then(Value::as_u64) {
                    dir.insert("io_bytes".into(), kib.saturating_mul(1024).into());
                }
            }
            if !dir.contains_key("total_ios") && key != "sync" {
                derived_ios |= derive_total_ios(dir);
            }
        }
    }
    if era.latency_us || era.io_kib {
        let mut what = Vec::new();
        if era.latency_us {
            what.push("latency in microseconds (slat/clat/lat), read as ns x 1000");
        }
        if era.io_kib {
            what.push("io_bytes in KiB, read as bytes x 1024 (exact to 1 KiB)");
        }
        notes.push(format!("{version} prints {}", what.join("; ")));
    }
    if index_bins {
        notes.push(format!("{version}'s json+ latency bins are keyed by bin index, not latency: not used (percentiles as fio printed them)"));
    }
    if derived_ios {
        notes.push(format!(
            "{version} prints no total_ios: I/O counts are iops x runtime (fio's iops is whole I/Os per second, so the counts are approximate)"
        ));
    }
    Ok(notes)
}

fn lat_name(us: bool) -> &'static str {
    if us {
        "clat (microseconds)"
    } else {
        "clat_ns (nanoseconds)"
    }
}

/// The era the keys of the directions show, if any latency or io_kbytes key is there.
fn keys_era(jobs: &[Value]) -> Option<Era> {
    let mut latency_us = None;
    let mut io_kib = None;
    for job in jobs {
        for key in DIRECTIONS {
            let Some(dir) = job.get(key).and_then(Value::as_object) else {
                continue;
            };
            if dir.contains_key("clat_ns") || dir.contains_key("lat_ns") {
                latency_us.get_or_insert(false);
            } else if dir.contains_key("clat") || dir.contains_key("lat") {
                latency_us.get_or_insert(true);
            }
            if key != "sync" && dir.contains_key("io_bytes") {
                io_kib.get_or_insert(!dir.contains_key("io_kbytes"));
            }
        }
    }
    let latency_us = latency_us?;
    Some(Era {
        latency_us,
        // Every fio with latency in ns has io_kbytes.
        io_kib: io_kib.unwrap_or(latency_us),
    })
}

/// `slat`/`clat`/`lat` (microseconds) -> `slat_ns`/`clat_ns`/`lat_ns`.
/// True when json+ bins keyed by index were dropped.
fn latency_to_ns(dir: &mut Map<String, Value>) -> bool {
    let mut index_bins = false;
    for (old, new) in [("slat", "slat_ns"), ("clat", "clat_ns"), ("lat", "lat_ns")] {
        let Some(Value::Object(mut lat)) = dir.remove(old) else {
            continue;
        };
        for key in ["min", "max"] {
            if let Some(n) = lat.get(key).and_then(Value::as_u64) {
                lat.insert(key.into(), n.saturating_mul(1000).into());
            }
        }
        for key in ["mean", "stddev"] {
            if let Some(x) = lat.get(key).and_then(Value::as_f64) {
                lat.insert(key.into(), (x * 1000.0).into());
            }
        }
        if let Some(Value::Object(p)) = lat.get_mut("percentile") {
            // 2.x pads its list with "0.00": 0; those are no percentiles.
            p.retain(|k, v| !(k.parse::<f64>() == Ok(0.0) && v.as_u64() == Some(0)));
            for v in p.values_mut() {
                if let Some(n) = v.as_u64() {
                    *v = n.saturating_mul(1000).into();
                }
            }
        }
        if let Some(Value::Object(bins)) = lat.remove("bins") {
            if bins.contains_key("FIO_IO_U_PLAT_BITS") {
                index_bins = true;
            } else {
                let in_ns: Map<String, Value> = bins
                    .into_iter()
                    .map(|(k, v)| match k.parse::<u64>() {
                        Ok(us) => (us.saturating_mul(1000).to_string(), v),
                        Err(_) => (k, v),
                    })
                    .collect();
                lat.insert("bins".into(), Value::Object(in_ns));
            }
        }
        dir.insert(new.into(), Value::Object(lat));
    }
    index_bins
}

/// fio before 2.1.14 prints no `total_ios`: iops x runtime (ms) stands in.
/// True when a count was derived.
fn derive_total_ios(dir: &mut Map<String, Value>) -> bool {
    let iops = dir.get("iops").and_then(Value::as_f64);
    let runtime_ms = dir.get("runtime").and_then(Value::as_u64);
    match (iops, runtime_ms) {
        (Some(iops), Some(ms)) if iops.is_finite() && iops >= 0.0 => {
            let ios = (iops * ms as f64 / 1000.0).round();
            dir.insert("total_ios".into(), (ios as u64).into());
            ios > 0.0
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read() {
        assert_eq!(version_number("fio-2.1.10"), Some((2, 1, 10)));
        assert_eq!(version_number("fio-3.1-12-gabcdef"), Some((3, 1, 0)));
        assert_eq!(version_number("fio-2.2.10-dirty"), Some((2, 2, 10)));
        assert_eq!(version_number("fio-3.33"), Some((3, 33, 0)));
        assert_eq!(version_number("3.33"), None);
        assert!(of_version((2, 20, 0)).io_kib);
        assert!(!of_version((2, 21, 0)).io_kib);
        assert!(of_version((2, 21, 0)).latency_us);
        assert!(!of_version((2, 99, 0)).latency_us);
    }
}
