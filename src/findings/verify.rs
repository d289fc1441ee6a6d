//! What a verifying job (fio's `verify=`) read back: `data-corrupted` when
//! a block was not what the job wrote there, the most severe finding candor
//! makes (no speed means anything on storage that loses data), and
//! `data-verified` when every block checked was as written.
//!
//! Pure functions of the Run: each measurement's `verify` record.

use super::checked;
use crate::result::{DiskMeasurement, Finding, Run, VerifyRecord};
use crate::units::fmt_bytes;
use serde_json::json;

/// The job's name in the finding: its job-file section, else its label.
fn subject(d: &DiskMeasurement) -> String {
    match &d.job {
        Some(j) if !j.section.is_empty() => j.section.clone(),
        _ => d.label(),
    }
}

fn evidence(d: &DiskMeasurement, v: &VerifyRecord) -> serde_json::Value {
    json!({
        "algorithm": v.algorithm,
        "verify_only": v.only,
        "blocks_checked": v.blocks_checked,
        "bytes_checked": v.bytes_checked,
        "blocks_bad": v.blocks_bad,
        "target": d.device.as_ref().map(|x| x.device.clone())
            .or_else(|| d.file.as_ref().map(|f| f.path.clone())),
        "first_bad": v.first_bad.iter().map(|b| json!({
            "offset": b.offset,
            "len": b.len,
            "thread": b.thread,
            "field": b.field,
            "wanted": b.wanted,
            "got": b.got,
        })).collect::<Vec<_>>(),
    })
}

/// `data-corrupted` for each job that read back a bad block, `data-verified`
/// for each whose every block was as written. Jobs that did not verify get
/// neither: nothing was read back.
pub fn verified(run: &Run) -> Vec<Finding> {
    let mut out = Vec::new();
    for d in run.disk() {
        let Some(v) = &d.verify else { continue };
        let what = if v.only {
            "what an earlier run of the job wrote (verify_only)"
        } else {
            "what the job wrote"
        };
        if v.blocks_bad > 0 {
            let first = v.first_bad.first().map_or(String::new(), |b| {
                format!(
                    "; the first at byte {} ({} block): {} wanted {}, got {}",
                    b.offset,
                    fmt_bytes(b.len),
                    b.field,
                    b.wanted,
                    b.got
                )
            });
            out.push(checked(
                "data-corrupted",
                Some(subject(d)),
                format!(
                    "the storage returned other data than was written: {} of {} blocks read back ({}) differ from {what}{first}",
                    v.blocks_bad,
                    v.blocks_checked,
                    v.algorithm,
                ),
                evidence(d, v),
            ));
        } else if v.blocks_checked > 0 {
            out.push(checked(
                "data-verified",
                Some(subject(d)),
                format!(
                    "read back {} blocks ({}) of {what}: every one as written ({})",
                    v.blocks_checked,
                    fmt_bytes(v.bytes_checked),
                    v.algorithm
                ),
                evidence(d, v),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth;
    use crate::result::{BadBlock, Severity};

    fn run_with(v: Option<VerifyRecord>) -> Run {
        let mut run = synth::run();
        let mut m = synth::job(None, "write", 4096, 1, 1, 10_000.0);
        synth::dm(&mut m).verify = v;
        run.measurements.push(m);
        run
    }

    fn record(bad: u64) -> VerifyRecord {
        VerifyRecord {
            algorithm: "crc32c".into(),
            only: false,
            blocks_checked: 16384,
            bytes_checked: 16384 * 4096,
            blocks_bad: bad,
            first_bad: (0..bad.min(8))
                .map(|i| BadBlock {
                    offset: (1000 + i) * 4096,
                    len: 4096,
                    thread: 0,
                    field: "checksum".into(),
                    wanted: "crc32c 0a0b0c0d".into(),
                    got: "crc32c 01020304 (of the data read)".into(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_bad_block_is_the_most_severe_finding_and_names_its_offset() {
        let f = verified(&run_with(Some(record(2))));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].id, "data-corrupted");
        assert_eq!(f[0].severity, Severity::Corruption);
        assert!(f[0].severity > Severity::Refusal);
        assert!(
            f[0].verdict.contains("2 of 16384 blocks"),
            "{}",
            f[0].verdict
        );
        assert!(
            f[0].verdict.contains(&(1000 * 4096).to_string()),
            "{}",
            f[0].verdict
        );
        assert_eq!(f[0].evidence["first_bad"][1]["offset"], 1001 * 4096);
        // Above every other finding of the Run: reports order by severity,
        // so it leads them.
        let all = crate::findings::analyze(&run_with(Some(record(1))));
        let top = all.iter().filter(|f| f.severity == Severity::Corruption);
        assert_eq!(
            top.map(|f| f.id.as_str()).collect::<Vec<_>>(),
            ["data-corrupted"]
        );
        assert!(all.len() > 1, "{all:?}");
    }

    #[test]
    fn a_clean_read_back_says_so_and_no_verify_says_nothing() {
        let f = verified(&run_with(Some(record(0))));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].id, "data-verified");
        assert_eq!(f[0].severity, Severity::Info);
        assert!(f[0].verdict.contains("16384 blocks"), "{}", f[0].verdict);
        assert!(verified(&run_with(None)).is_empty());
    }
}
