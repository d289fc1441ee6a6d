//! A CrystalDiskMark result as a Run (`source` = `crystaldiskmark-import`):
//! one measurement per Read or Write row, named as candor's battery names
//! the same test (`SEQ1M Q8T1`, `RND4K Q32T16`), so that `candor compare`
//! sets it beside a candor Run. MB/s are 10^6 bytes; IOPS as printed (CDM
//! computes them from MB/s and the block size, and candor checks they
//! agree); the latency is CDM's mean in µs (CDM 7 on), no percentiles.
//! What CDM's figures are and candor's are not is said in the notes: the
//! best of N passes (candor's are medians), the latency the lowest of the
//! passes' means, the Mix rows (reads and writes summed) left out.

use super::parse::{parse, CdmResult, CdmRow, Half};
use crate::result::*;
use std::collections::BTreeMap;
use std::path::Path;

/// Reads a CrystalDiskMark result into a Run. Errors are one line naming the file.
pub fn import(text: &str, path: &Path, label: Option<String>) -> Result<Run, String> {
    let name = path.display();
    let r = parse(text).map_err(|e| format!("{name}: CrystalDiskMark result: {e}"))?;
    for row in &r.rows {
        check(row).map_err(|e| format!("{name}: CrystalDiskMark result: {e}"))?;
    }
    Ok(run_of(&r, path, label))
}

/// IOPS and MB/s must say the same (CDM derives one from the other): a
/// row whose block size is not what candor takes it to be fails here.
fn check(row: &CdmRow) -> Result<(), String> {
    let Some(iops) = row.iops else { return Ok(()) };
    let derived = row.mb_per_s * 1e6 / row.block_size as f64;
    // Half a unit of each printed last digit: 0.05 IOPS, 0.0005 MB/s.
    let slack = 0.05 + 0.0005 * 1e6 / row.block_size as f64 + 1e-9;
    if (iops - derived).abs() > slack {
        return Err(format!(
            "'{}': {iops} IOPS is not {} MB/s over {}-byte blocks ({derived:.1})",
            row.line, row.mb_per_s, row.block_size
        ));
    }
    Ok(())
}

/// The Run of a parsed result.
pub fn run_of(r: &CdmResult, path: &Path, label: Option<String>) -> Run {
    let mut run = Run::new(vec![
        "candor".into(),
        "import".into(),
        path.display().to_string(),
    ]);
    run.source = "crystaldiskmark-import".into();
    run.tool = Tool {
        name: "crystaldiskmark".into(),
        version: r.version.clone(),
        target: None,
        libraries: BTreeMap::new(),
    };
    // A saved result names no machine: its Comment is free text (often the
    // drive), and a file name is no host either. Taking either as the host
    // would file two machines of one comment as one host in the history,
    // so the host is the user's word (`--label`), or the history asks.
    run.label = label;
    if let Some(c) = &r.comment {
        run.notes.push(format!(
            "CrystalDiskMark's comment: '{c}' (not taken as the host's name: give it with --label)"
        ));
    }
    run.host.os_release = r.os.clone();
    run.host.storage = r.drive.as_ref().map(|d| StorageFacts {
        dir: d.clone(),
        ..StorageFacts::default()
    });
    run.started_at = r.date.as_deref().and_then(crate::units::slashed_date_utc);
    run.finished_at = None;
    run.plan = Some(serde_json::json!({
        "kind": "crystaldiskmark-import",
        "file": path.display().to_string(),
        "profile": r.profile,
        "passes": r.passes,
    }));
    let passes = r.passes.map_or("its".to_string(), |n| n.to_string());
    run.notes.push(format!(
        "Imported from CrystalDiskMark {} by candor {}. Each figure is the best of {passes} passes, not a median: it reads higher than candor's median of the same test would. MB/s are 10^6 bytes/s.",
        r.version,
        env!("CARGO_PKG_VERSION")
    ));
    run.notes.push("CrystalDiskMark runs DiskSpd with -S (its source, DiskBench.cpp): the OS cache off, recorded as O_DIRECT; without write-through, so a write may end in the drive's volatile cache. The result file itself does not say so.".into());
    if r.rows.iter().any(|x| x.latency_us.is_some()) {
        run.notes.push("CrystalDiskMark's latency is the lowest of the passes' mean latencies (µs): no percentiles, recorded as the mean only".into());
    } else {
        run.notes
            .push("CrystalDiskMark before 7 prints no latency: recorded as 0".into());
    }
    if r.measure_s.is_none() {
        run.notes.push("The file does not say how long each pass measured (CrystalDiskMark 8 prints 'Measure N sec'): recorded as 0".into());
    }
    if run.started_at.is_some() {
        run.notes.push("CrystalDiskMark prints its date in the host's local time without a zone: it is recorded as if it were UTC".into());
    }
    if let Some(p) = &r.profile {
        run.notes.push(format!("CrystalDiskMark's profile: {p}"));
    }
    let mix: Vec<&CdmRow> = r.rows.iter().filter(|x| x.half == Half::Mix).collect();
    if !mix.is_empty() {
        run.notes.push(format!(
            "CrystalDiskMark's Mix rows (read {}%) give reads and writes summed, which candor records per direction: not imported. As printed: {}",
            r.mix_read_pct.map_or("?".into(), |p| p.to_string()),
            mix.iter().map(|x| x.line.as_str()).collect::<Vec<_>>().join("; ")
        ));
    }
    for row in r.rows.iter().filter(|x| x.half != Half::Mix) {
        let write = row.half == Half::Write;
        let rw = match (row.random, write) {
            (true, false) => "randread",
            (true, true) => "randwrite",
            (false, false) => "read",
            (false, true) => "write",
        };
        let bytes_per_sec = row.mb_per_s * 1e6;
        let mut notes = Vec::new();
        let iops = match row.iops {
            Some(i) => i,
            None => {
                notes.push(format!(
                    "CrystalDiskMark {} prints no IOPS for this row: MB/s over the block size, as CrystalDiskMark computes them",
                    r.version
                ));
                bytes_per_sec / row.block_size as f64
            }
        };
        let stats = DirectionStats {
            ops: 0,
            bytes: 0,
            iops,
            bytes_per_sec,
            lat_ns: LatencyStats {
                mean: row.latency_us.unwrap_or(0.0) * 1000.0,
                ..LatencyStats::default()
            },
            series: Vec::new(),
        };
        let measure_ns = r.measure_s.unwrap_or(0).saturating_mul(1_000_000_000);
        let spec = DiskSpec {
            rw: Rw::parse(rw),
            rwmixread: None,
            bs: row.block_size,
            iodepth: row.queues.max(1),
            iodepth_batch: None,
            numjobs: row.threads.max(1),
            size: r.test_size.unwrap_or(0),
            runtime_ns: measure_ns,
            ramp_ns: 0,
            engine: "crystaldiskmark".into(),
            direct: true,
            ..Default::default()
        };
        run.measurements.push(Measurement::Disk(DiskMeasurement {
            profile: Some(spec.label()),
            pass: Some(1),
            role: FileRole::Main,
            started_at: run.started_at.clone(),
            read: (!write).then(|| stats.clone()),
            write: write.then_some(stats),
            spec,
            threads: Vec::new(),
            cpu: CpuUse::default(),
            measured_ns: measure_ns,
            file: None,
            span: None,
            sync: None,
            fio_command: String::new(),
            notes,
            job: None,
            block_stack: Vec::new(),
            beside_other_jobs: false,
            device: None,
            verify: None,
        }));
    }
    run.status = RunStatus::Complete;
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iops_must_agree_with_mb_per_s() {
        let row = |mbs: f64, iops: f64, bs: u64| CdmRow {
            half: Half::Read,
            random: false,
            block_size: bs,
            queues: 8,
            threads: 1,
            mb_per_s: mbs,
            iops: Some(iops),
            latency_us: None,
            line: "row".into(),
        };
        assert!(check(&row(531.458, 506.8, 1 << 20)).is_ok());
        assert!(check(&row(269.406, 65772.9, 4096)).is_ok());
        // The same figures read as 128 KiB blocks: refused.
        let e = check(&row(531.458, 506.8, 128 << 10)).unwrap_err();
        assert!(
            e.contains("506.8 IOPS is not 531.458 MB/s over 131072-byte blocks"),
            "{e}"
        );
    }
}
