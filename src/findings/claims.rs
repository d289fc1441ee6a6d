//! "Can claim / cannot claim": plain sentences per host, built from the
//! findings and from what was not checked. A report ends with these, so
//! that nobody has to read the evidence to know what a number is good for.

use super::metrics::max_passes;
use crate::result::{Finding, FindingStatus, Run, RunStatus, Severity};
use serde::{Deserialize, Serialize};

/// The id of the finding that carries a Run's claims in its evidence
/// (`{"can": [...], "cannot": [...]}`); it always comes last.
pub const CLAIMS_ID: &str = "claims";

/// What the numbers of one Run support, and what they do not.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Claims {
    pub can: Vec<String>,
    pub cannot: Vec<String>,
}

/// How a sentence of `cannot` that stands for a check not made begins
/// (`Not checked (caps): ...`): a terminal summary that lists the checks not
/// made by id leaves these sentences to `--verbose`.
pub const NOT_CHECKED_CLAIM: &str = "Not checked (";

impl Claims {
    /// The claims stored among `findings` (the `claims` finding's evidence), if any.
    pub fn stored(findings: &[Finding]) -> Option<Claims> {
        let f = findings.iter().find(|f| f.id == CLAIMS_ID)?;
        let list = |key: &str| -> Vec<String> {
            f.evidence[key]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        };
        Some(Claims {
            can: list("can"),
            cannot: list("cannot"),
        })
    }
}

/// The claims of a Run, from its findings as the current rules compute them.
pub fn claims(run: &Run) -> Claims {
    from_findings(run, &super::analyze_checks(run))
}

fn subject(f: &Finding) -> String {
    f.subject.clone().unwrap_or_else(|| "this host".into())
}

/// Adds `subject` to the group of `id` (created with `sentence`).
fn group(
    grouped: &mut Vec<(String, Vec<String>, String)>,
    id: &str,
    subject: String,
    sentence: String,
) {
    match grouped.iter_mut().find(|g| g.0 == id) {
        Some(g) => g.1.push(subject),
        None => grouped.push((id.to_string(), vec![subject], sentence)),
    }
}

/// The claims given already computed findings.
pub fn from_findings(run: &Run, findings: &[Finding]) -> Claims {
    let mut c = Claims::default();
    let has_disk = run.disk().next().is_some();
    let has_compute = run.compute().next().is_some();
    let passes = max_passes(run);

    if run.status != RunStatus::Complete && run.status != RunStatus::Running {
        c.cannot.push(format!(
            "The run is {}: only the measurements that finished count, and the battery is incomplete.",
            run.status.as_str()
        ));
    }
    if has_disk {
        let refused = findings.iter().any(|f| f.severity >= Severity::Refusal);
        if !refused {
            // An import's files were fio's, not candor's.
            let target = if run.source == "fio-import" {
                "the files or devices fio's jobs named"
            } else if run.source == "diskspd-import" {
                "the targets DiskSpd named"
            } else if run.source == "crystaldiskmark-import" {
                "CrystalDiskMark's test file (the best of its passes)"
            } else if run.disk().any(|m| m.device.is_some()) {
                "the block devices the jobs named"
            } else {
                "candor's test file"
            };
            c.can.push(format!(
                "The disk figures are what this host delivered to {target} during this test{}.",
                if passes >= 2 {
                    format!(" (median of {passes} passes)")
                } else {
                    String::new()
                }
            ));
            // A DiskSpd target run through the OS cache measured it as much as the disk.
            let cached: Vec<String> = run
                .disk()
                .filter(|m| !m.spec.direct && run.source == "diskspd-import")
                .map(|m| m.label())
                .collect();
            if !cached.is_empty() {
                c.cannot.push(format!(
                    "The medium's speed from {}: it ran through the OS cache (no O_DIRECT, DiskSpd without -Su or -Sh).",
                    cached.join(", ")
                ));
            }
        }
    } else {
        c.cannot
            .push("Nothing about the disk: no disk measurement in this run.".into());
    }
    if has_compute {
        c.can.push(
            "The compute figures come from one implementation linked into candor, the same on every host: they compare across candor runs."
                .into(),
        );
    } else {
        c.cannot.push(
            "Nothing about CPU, memory, crypto or compression: not measured in this run.".into(),
        );
    }

    let mut apps_unchecked: Vec<&str> = Vec::new();
    // Findings that fire on many profiles at once become one sentence per id.
    let mut grouped: Vec<(String, Vec<String>, String)> = Vec::new();
    for f in findings {
        let s = subject(f);
        let e = &f.evidence;
        if f.status == FindingStatus::NotChecked {
            if f.id.starts_with("app-") {
                apps_unchecked.push(f.id.trim_start_matches("app-"));
            } else {
                c.cannot
                    .push(format!("{NOT_CHECKED_CLAIM}{}): {}.", f.id, f.verdict));
            }
            continue;
        }
        match f.id.as_str() {
            "data-corrupted" => c.cannot.push(format!(
                "{s}: that this storage keeps what it is given: it returned other data than was written ({} bad blocks), and no speed of it means anything until that is explained.",
                e["blocks_bad"]
            )),
            "data-verified" => c.can.push(format!(
                "{s}: every block read back was as written ({} blocks, {}).",
                e["blocks_checked"],
                e["algorithm"].as_str().unwrap_or("")
            )),
            "host-cache" => c.cannot.push(format!(
                "{s}: the figure is not the disk's; a file larger than RAM reads {}x slower, so the main figure came from a cache.",
                crate::units::sig3(1.0 / e["control_over_main"].as_f64().unwrap_or(1.0).max(1e-9))
            )),
            "cache-unexcluded" => {
                let size = e["control_file_bytes"]
                    .as_u64()
                    .map_or("the control file".into(), crate::units::fmt_bytes);
                c.can.push(format!("{s}: not served by a cache smaller than {size}."));
                c.cannot.push(format!("{s}: a host cache larger than {size} is not ruled out."));
            }
            "residency" => c.cannot.push(format!("{s}: the file was read many times over; the figure probably came from a cache.")),
            "limiter-flat" | "limiter-rw-equal" | "limiter-qd-flat" if f.severity >= Severity::Warning => {
                group(&mut grouped, f.id.as_str(), s, "the figures are a limiter's setting, not the medium's speed".into())
            }
            "limiter-qd-flat" => group(
                &mut grouped,
                "limiter-qd-flat-ceiling",
                s,
                "queue depth buys nothing (one large request fills the path): a ceiling, and whether it is a limiter's or the medium's is not told apart".into(),
            ),
            "round-plateau" if f.severity >= Severity::Warning => group(
                &mut grouped,
                "round-plateau",
                format!(
                    "{s} ({} {})",
                    crate::units::fmt_count(e["round_value"].as_f64().unwrap_or(0.0)),
                    e["round_unit"].as_str().unwrap_or("")
                ),
                "the figures sit on round commercial steps: probably configured caps, not the medium".into(),
            ),
            "caps" => {
                let any = |keys: [&str; 4]| keys.iter().any(|k| !e[*k].is_null());
                let caps = any(["read_iops", "write_iops", "read_bytes_per_sec", "write_bytes_per_sec"]);
                let ceilings = any([
                    "read_iops_ceiling",
                    "write_iops_ceiling",
                    "read_bytes_ceiling",
                    "write_bytes_ceiling",
                ]);
                if caps || ceilings {
                    c.can.push(format!("The sweep reached: {}.", f.verdict));
                }
                if caps {
                    c.cannot.push("The medium's own speed above the caps: the caps hide it.".into());
                }
                if ceilings {
                    c.cannot.push("Whether the ceilings the sweep reached are a limiter's or the medium's own top: nothing in the points tells them apart.".into());
                }
                if !caps && !ceilings {
                    c.can.push("No IOPS or bandwidth plateau within the block sizes and queue depths swept: no cap is evident up to there (one above the deepest point is not ruled out).".into());
                }
            }
            "burst-cliff" if !e["device_shared"].is_null() => c.cannot.push(format!(
                "{s}: whether the drop in the series was a burst ending: other I/O shared the device during it."
            )),
            "burst-cliff" => {
                c.can.push(format!(
                    "{s}: the sustained level after the cliff is {} MB/s.",
                    crate::units::sig3(e["level_after_bytes_per_sec"].as_f64().unwrap_or(0.0) / 1e6)
                ));
                c.cannot.push(format!("{s}: the level before the cliff is a burst, not a sustained speed."));
            }
            "write-back" => c.cannot.push(format!(
                "{s}: the write figures are acknowledgement speed from a cache, not guaranteed medium speed."
            )),
            "unstable" => c.cannot.push(format!("{s}: a single figure; the passes varied by x{}.", e["max_over_min"])),
            "thread-imbalance" => c.cannot.push(format!("{s}: per-thread shares differ widely; multi-thread figures reflect scheduling.")),
            "sparse-file" => c.cannot.push(format!("{s}: any read figure from this sparse file (holes read as zeros).")),
            "not-steady" => c.cannot.push(format!("{s}: sustained performance beyond the test's length (no steady state reached).")),
            "io-cpu-bound" => c.cannot.push(format!(
                "{s}: the disk's own ceiling: the threads driving it were CPU-bound ({} % of a core each); the figure is a floor.",
                e["max_cpu_pct_per_thread"]
            )),
            "cpu-steal" => c.cannot.push(format!(
                "Figures free of neighbours' CPU contention: steal reached {} %.",
                e["max_steal_pct"]
            )),
            "smt" => c.cannot.push(format!(
                "All {} logical CPUs count as cores: only {} are.",
                e["cpu_threads"], e["cpu_cores"]
            )),
            "job-concurrent" => c.cannot.push(format!(
                "{s}: what each job gets alone: they ran at the same time and shared the disk (job-concurrent)."
            )),
            "job-working-set" => c.cannot.push(
                "The medium's own speed from this job file: its files fit in a cache (job-working-set).".into(),
            ),
            "job-short" => c.cannot.push(format!(
                "{s}: a sustained rate: the job was over in a fraction of a second (job-short)."
            )),
            "job-metadata" => c.cannot.push(format!(
                "{s}: the disk's speed: its operations were filesystem calls, no data moved (job-metadata)."
            )),
            "job-buffered" => c.cannot.push(format!(
                "{s}: the disk's own speed: buffered I/O measures the page cache too (job-buffered)."
            )),
            "foreign-io" => c.cannot.push(format!(
                "{s}: what the device does alone: other I/O shared it during the measurement (foreign-io)."
            )),
            "cache-layer" => c.cannot.push(format!(
                "The disk's read speed: a cache inside the guest at {s} served the reads (cache-layer)."
            )),
            "write-amplification" => c.cannot.push(format!(
                "The disk's write speed from the figures: the disk wrote {}x the bytes candor wrote (write-amplification).",
                e["factor"]
            )),
            "latency-above-device" => c.cannot.push(format!(
                "{s}: the device's latency: most of candor's was spent above the device, in the guest (latency-above-device)."
            )),
            "media-unverifiable" => c.cannot.push("The disk type (NVMe, SSD, HDD): inside a VM it is the provider's claim, not measured.".into()),
            "app-commit" => c.can.push(format!(
                "A single writer that syncs each commit manages about {} commits/s here.",
                crate::units::fmt_count(e["commits_per_sec_at_p50"].as_f64().unwrap_or(0.0))
            )),
            "app-read-chain" => c.can.push(format!(
                "A chain of {} dependent 4 KiB reads takes about {} at p50.",
                crate::units::fmt_count(e["reads"].as_f64().unwrap_or(0.0)),
                crate::units::fmt_ns(e["chain_p50_ns"].as_f64().unwrap_or(0.0))
            )),
            _ => {}
        }
    }
    for (id, subjects, sentence) in grouped {
        c.cannot
            .push(format!("{}: {sentence} ({id}).", subjects.join(", ")));
    }
    if !apps_unchecked.is_empty() {
        c.cannot.push(format!(
            "{NOT_CHECKED_CLAIM}application translation: {}): the latency profiles they need (FSYNC4K, RND4K Q1T1, SEQ1M read and write) were not all measured.",
            apps_unchecked.join(", ")
        ));
    }
    if has_disk && passes < 2 {
        c.cannot.push(
            "Stability over time: one pass only; a second pass at another time can differ.".into(),
        );
    }
    c.cannot.dedup();
    c.can.dedup();
    c
}

/// The claims as the last finding of a Run (id `claims`), so that they are stored with it.
pub fn as_finding(c: &Claims) -> Finding {
    super::checked(
        CLAIMS_ID,
        None,
        format!(
            "can claim: {}, cannot claim: {}",
            c.can.len(),
            c.cannot.len()
        ),
        serde_json::json!({ "can": c.can, "cannot": c.cannot }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::*;

    #[test]
    fn cache_and_missing_control_become_sentences() {
        let mut run = run();
        run.measurements
            .push(job_mb(Some("SEQ1M Q8T1"), "read", 1 << 20, 8, 1, 1474.8));
        let c = claims(&run);
        assert!(
            c.cannot
                .iter()
                .any(|s| s.contains("host-cache") && s.contains("control series")),
            "{c:?}"
        );
        assert!(c.cannot.iter().any(|s| s.contains("one pass only")));
        run.measurements.push(control(job_mb(
            Some("SEQ1M Q8T1"),
            "read",
            1 << 20,
            8,
            1,
            49.3,
        )));
        let c = claims(&run);
        assert!(
            c.cannot.iter().any(|s| s.contains("came from a cache")),
            "{c:?}"
        );
        let f = crate::findings::analyze(&run);
        let last = f.last().unwrap();
        assert_eq!(last.id, "claims");
        assert_eq!(
            last.evidence["cannot"].as_array().unwrap().len(),
            c.cannot.len()
        );
    }
}
