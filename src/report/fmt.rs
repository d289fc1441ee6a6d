//! Figures as people read them: sensible precision, the unit written, the
//! spread beside the median. Shared by every format.

use super::summary::{ComputeRow, ComputeUnit, Summary};
use super::RateUnit;
use crate::result::{Finding, FindingStatus, Run, Severity, Spread};
use crate::units::{fmt_bytes, fmt_count, fmt_duration, fmt_ns, sig3};

/// A byte rate in the chosen unit, without the unit: one decimal below 10,000
/// (so 526.0 MB/s and 501.6 MiB/s stay distinguishable), none above.
pub fn rate(bytes_per_sec: f64, unit: RateUnit) -> String {
    let v = unit.scale(bytes_per_sec);
    if v.abs() >= 10_000.0 {
        fmt_count(v)
    } else {
        format!("{v:.1}")
    }
}

/// A byte rate with its unit: `526.0 MB/s`.
pub fn rate_with_unit(bytes_per_sec: f64, unit: RateUnit) -> String {
    format!("{} {}", rate(bytes_per_sec, unit), unit.label())
}

/// IOPS: thousands separators from 100 up, one decimal below.
pub fn iops(value: f64) -> String {
    if value.abs() >= 100.0 {
        fmt_count(value)
    } else {
        format!("{value:.1}")
    }
}

/// A latency in ns with its unit (`68.2 us`); `–` for 0 (not recorded).
pub fn latency(ns: f64) -> String {
    if ns <= 0.0 {
        "–".to_string()
    } else {
        fmt_ns(ns)
    }
}

/// Pass spread as `x1.02` (max/min); `1 pass` when there is only one.
pub fn spread(s: &Spread) -> String {
    match (s.n, s.ratio) {
        (0, _) => "–".to_string(),
        (1, _) => "1 pass".to_string(),
        (_, Some(r)) => format!("x{r:.2}"),
        (_, None) => "x∞".to_string(),
    }
}

/// A ratio such as main/control: `29.9x`.
pub fn ratio(r: f64) -> String {
    format!("{}x", sig3(r))
}

/// A compute figure with its unit.
pub fn compute_value(row: &ComputeRow, value: f64, unit: RateUnit) -> String {
    match row.unit {
        ComputeUnit::Events => format!("{} events/s", iops(value)),
        ComputeUnit::Ops => format!("{} ops/s", iops(value)),
        ComputeUnit::Bytes => rate_with_unit(value, unit),
    }
}

/// Evidence (a JSON value) on one line: `main_mb_s=1474.8, control_mb_s=49.3`.
pub fn evidence(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => trim_float(f),
            _ => n.to_string(),
        },
        Value::Bool(b) => b.to_string(),
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|v| match v {
                    Value::Object(_) => format!("{{{}}}", evidence(v)),
                    _ => evidence(v),
                })
                .collect();
            format!("[{}]", parts.join(", "))
        }
        // Keys without a value (null) are left out: they carry no evidence.
        Value::Object(map) => map
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| match v {
                Value::Object(_) => format!("{k}: {{{}}}", evidence(v)),
                _ => format!("{k}={}", evidence(v)),
            })
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// A float with up to 4 decimals, trailing zeros removed.
fn trim_float(f: f64) -> String {
    let s = format!("{f:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// `info`, `warning`, `refusal`, `corruption`.
pub fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Refusal => "refusal",
        Severity::Corruption => "corruption",
    }
}

/// The finding's heading: `host-cache (SEQ1M Q8T1 read): verdict`.
pub fn finding_head(f: &Finding) -> String {
    match &f.subject {
        Some(s) if !s.is_empty() => format!("{} ({}): {}", f.id, s, f.verdict),
        _ => format!("{}: {}", f.id, f.verdict),
    }
}

/// The lines under "What can be claimed" and "What cannot be claimed". When
/// the Run carries a `claims` finding, its sentences are used as written;
/// otherwise (older Runs, imports not yet analysed) they are built from the
/// findings: a finding's meaning is backed by its evidence; what it does not
/// prove, and every check that could not run, is what cannot be claimed.
pub fn claims(run: &Run) -> (Vec<String>, Vec<String>) {
    if let Some(c) = crate::findings::Claims::stored(&run.findings) {
        return (c.can, c.cannot);
    }
    let mut can = Vec::new();
    let mut cannot = Vec::new();
    for f in &run.findings {
        match f.status {
            FindingStatus::Checked => {
                if !f.meaning.is_empty() {
                    can.push(format!("{}: {}", f.id, f.meaning));
                }
                if !f.not_proven.is_empty() {
                    cannot.push(format!("{}: {}", f.id, f.not_proven));
                }
            }
            FindingStatus::NotChecked => cannot.push(format!(
                "{}: not checked ({}){}",
                f.id,
                f.verdict,
                if f.not_proven.is_empty() {
                    String::new()
                } else {
                    format!("; {}", f.not_proven)
                }
            )),
        }
    }
    (can, cannot)
}

/// Facts a reader needs before the tables, as (name, value) lines.
pub fn facts(run: &Run, summary: &Summary) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let tool = format!("{} {}", run.tool.name, run.tool.version);
    let mut status = match run.status {
        crate::result::RunStatus::Complete => "complete".to_string(),
        other => format!(
            "{} (only the measurements that finished are shown)",
            other.as_str().to_uppercase()
        ),
    };
    if run.source != "candor" {
        status.push_str(&format!(", source {}", run.source));
    }
    out.push(("Run", format!("{tool} · {status}")));
    if let Some(started) = &run.started_at {
        let mut when = started.clone();
        if let Some(d) = summary.duration_s {
            let d = fmt_duration(std::time::Duration::from_secs_f64(d.max(0.0)));
            if summary.duration_from_clock {
                when.push_str(&format!(" · took {d}"));
            } else {
                when.push_str(&format!(" · {d} measured"));
            }
        }
        out.push(("Started", when));
    }
    let h = &run.host;
    let mut host: Vec<String> = Vec::new();
    if let Some(n) = &h.hostname {
        host.push(n.clone());
    }
    if let Some(m) = &h.cpu_model {
        host.push(m.clone());
    }
    match (h.cpu_threads, h.cpu_cores) {
        (Some(t), Some(c)) if t != c => host.push(format!("{t} CPUs ({c} cores)")),
        (Some(t), _) => host.push(format!("{t} CPUs")),
        _ => {}
    }
    if let Some(m) = h.mem_total_bytes {
        host.push(format!("{} RAM", fmt_bytes(m)));
    }
    if let Some(v) = &h.virtualization {
        host.push(format!("virt {}", v.kind));
    }
    // A Windows Run's kernel names its system ("Windows 10.0 build
    // 19045"); a Linux one is the bare release ("6.1.0-18-amd64").
    if let Some(k) = &h.kernel {
        if k.starts_with("Windows") {
            host.push(k.clone());
        } else {
            host.push(format!("Linux {k}"));
        }
    }
    if let Some(a) = h.extra.get("arch") {
        host.push(a.clone());
    }
    if let Some(o) = &h.os_release {
        host.push(o.clone());
    }
    if !host.is_empty() {
        out.push(("Host", host.join(" · ")));
    }
    if let Some(why) = h.extra.get("emulated") {
        out.push(("Emulated", why.clone()));
    }
    if let Some(s) = &h.storage {
        let mut dir = s.dir.clone();
        let mut on: Vec<String> = Vec::new();
        if let Some(fs) = &s.fs_type {
            on.push(fs.clone());
        }
        if let Some(dev) = &s.device {
            on.push(format!("on {dev}"));
        }
        if !on.is_empty() {
            dir.push_str(&format!(" ({})", on.join(" ")));
        }
        if let Some(model) = &s.device_model {
            dir.push_str(&format!(" · device model {model} (claimed, not measured)"));
        }
        if let Some(o) = &s.mount_options {
            dir.push_str(&format!(" · mount {o}"));
        }
        out.push(("Test dir", dir));
    }
    if let Some(stack) = block_stack(run) {
        out.push(("Block stack", stack));
    }
    let sizes = |v: &[u64]| {
        v.iter()
            .map(|&b| fmt_bytes(b))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !summary.main_sizes.is_empty() {
        let mut files = format!("main {}", sizes(&summary.main_sizes));
        if !summary.control_sizes.is_empty() {
            files.push_str(&format!(" · control {}", sizes(&summary.control_sizes)));
        } else {
            files.push_str(" · no control file");
        }
        out.push(("Files", files));
    }
    // An import of an old fio that printed no job options: neither the
    // engine nor O_DIRECT is known, and neither is shown as if it were.
    if summary.engines.iter().all(|e| e == "unknown") && !summary.engines.is_empty() {
        out.push((
            "Engine",
            "unknown, and whether O_DIRECT: fio printed no job options".to_string(),
        ));
    } else if !summary.engines.is_empty() {
        let direct = match summary.direct {
            Some(true) => "O_DIRECT".to_string(),
            Some(false) => "buffered (page cache)".to_string(),
            None => format!(
                "O_DIRECT, except through the page cache: {}",
                summary.buffered_tests.join(", ")
            ),
        };
        out.push((
            "Engine",
            format!("{} · {direct}", summary.engines.join(", ")),
        ));
    }
    let mut passes = if summary.passes > 1 {
        format!(
            "{} passes; figures are medians over passes, spread = max/min",
            summary.passes
        )
    } else {
        "1 pass: one figure per test, spread unknown".to_string()
    };
    if let Some(p) = &summary.preset {
        passes = format!("preset {p} · {passes}");
    }
    out.push(("Passes", passes));
    if let Some(j) = &run.job_file {
        let mut text = format!(
            "{} · sha256 {}",
            j.path,
            &j.sha256[..j.sha256.len().min(16)]
        );
        if j.files.len() > 1 {
            text.push_str(&format!(" · {} included file(s)", j.files.len() - 1));
        }
        if !j.sections.is_empty() {
            text.push_str(&format!(" · sections {}", j.sections.join(", ")));
        }
        out.push(("Job file", text));
    }
    for (i, d) in run.devices.iter().enumerate() {
        out.insert(i, ("Device", device_words(d)));
    }
    if let Some(l) = &run.label {
        out.insert(0, ("Label", l.clone()));
    }
    out
}

/// A block device the jobs used, in words: whether candor wrote it (what
/// it held there is gone), and where.
pub fn device_words(d: &crate::result::DeviceRecord) -> String {
    let what = format!("{} ({}, {})", d.path, d.dev, fmt_bytes(d.size_bytes));
    if d.written_bytes > 0 {
        let jobs: Vec<String> = d
            .jobs
            .iter()
            .filter(|j| j.written_bytes > 0)
            .map(|j| {
                format!(
                    "[{}] {} within bytes {}-{}",
                    j.job,
                    fmt_bytes(j.written_bytes),
                    j.region[0],
                    j.region[1]
                )
            })
            .collect();
        format!(
            "{what} WAS WRITTEN: candor wrote {} to it ({}); what the device held there is gone",
            fmt_bytes(d.written_bytes),
            jobs.join("; ")
        )
    } else if d.writable {
        format!("{what} named by --overwrite-device for jobs that write; no job wrote to it")
    } else {
        format!("{what} read only (--device): candor did not write to it")
    }
}

/// The jobs of a job file, one line each: `seq-read  0.00-0.41 s  ended by size  beside rand-read`.
/// The layers under the test file and what each did over all the disk
/// measurements, beside candor's own bytes: `candor read 2.1 GiB, wrote 0 B
/// · vda (the filesystem's) read 2.1 GiB, wrote 1.2 MiB`.
fn block_stack(run: &Run) -> Option<String> {
    let mut candor = (0u64, 0u64);
    let mut layers: Vec<(String, u64, u64)> = Vec::new();
    for d in run.disk().filter(|d| !d.block_stack.is_empty()) {
        candor.0 += d.read.as_ref().map_or(0, |s| s.bytes);
        candor.1 += d.write.as_ref().map_or(0, |s| s.bytes);
        for l in &d.block_stack {
            let role = match l.layer.relation {
                crate::result::StackRelation::Filesystem => "the filesystem's".to_string(),
                crate::result::StackRelation::Member => "filesystem member".to_string(),
                _ => l.layer.via.clone(),
            };
            let name = format!("{} ({role})", l.layer.name);
            let io = l.io.unwrap_or_default();
            match layers.iter_mut().find(|(n, _, _)| *n == name) {
                Some(e) => {
                    e.1 += io.read_bytes;
                    e.2 += io.write_bytes;
                }
                None => layers.push((name, io.read_bytes, io.write_bytes)),
            }
        }
    }
    if layers.is_empty() {
        return None;
    }
    let mut parts = vec![format!(
        "candor read {}, wrote {}",
        fmt_bytes(candor.0),
        fmt_bytes(candor.1)
    )];
    parts.extend(
        layers
            .into_iter()
            .map(|(n, r, w)| format!("{n} read {}, wrote {}", fmt_bytes(r), fmt_bytes(w))),
    );
    Some(parts.join(" · "))
}

pub fn job_lines(run: &Run) -> Vec<String> {
    let rows = super::summary::job_rows(run);
    let width = rows.iter().map(|r| r.section.len()).max().unwrap_or(0);
    rows.iter()
        .map(|r| {
            let beside = if r.beside.is_empty() {
                "alone".to_string()
            } else {
                format!("beside {}", r.beside.join(", "))
            };
            format!(
                "{:<width$}  {:.2}-{:.2} s  group {}  ended by {}  {beside}",
                r.section, r.from_s, r.to_s, r.group, r.ended_by
            )
        })
        .collect()
}

/// Per-thread IOPS of one pass on one line: `t0 30,120 · t1 1,204 (max/min 25.0x)`.
pub fn threads_line(iops: &[f64]) -> String {
    let parts: Vec<String> = iops
        .iter()
        .enumerate()
        .map(|(i, v)| format!("t{i} {}", self::iops(*v)))
        .collect();
    let min = iops.iter().copied().fold(f64::INFINITY, f64::min);
    let max = iops.iter().copied().fold(0.0, f64::max);
    let ratio = if min > 0.0 {
        format!("max/min {:.2}x", max / min)
    } else {
        "a thread did no I/O".to_string()
    };
    format!("{} ({ratio})", parts.join(" · "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_keep_the_decimal_that_shows_a_cap() {
        // 526.0 MB/s is 501.6 MiB/s: one decimal shows both.
        assert_eq!(rate(526.0e6, RateUnit::Mb), "526.0");
        assert_eq!(rate(526.0e6, RateUnit::Mib), "501.6");
        assert_eq!(rate(12_345.6e6, RateUnit::Mb), "12,346");
        assert_eq!(iops(40132.5), "40,133");
        assert_eq!(iops(49.25), "49.2");
    }

    #[test]
    fn evidence_is_one_line() {
        let v = serde_json::json!({"main_mb_s": 1474.8, "control_mb_s": 49.3, "passes": [1, 2],
            "spread": null, "near": [{"iops": 36358, "subject": "RW75 QD64 read"}]});
        assert_eq!(
            evidence(&v),
            "control_mb_s=49.3, main_mb_s=1474.8, near=[{iops=36358, subject=RW75 QD64 read}], passes=[1, 2]"
        );
    }
}

#[cfg(test)]
mod host_line_tests {
    use super::*;

    /// The Host line names the architecture, and an emulated Run says so on
    /// a line of its own; a Run without them shows neither.
    #[test]
    fn host_names_the_architecture_and_emulation() {
        let mut run = Run::new(vec!["candor".into()]);
        run.host.kernel = Some("6.1.0".into());
        let plain = facts(&run, &Summary::of(&run));
        assert!(!plain.iter().any(|(k, _)| *k == "Emulated"), "{plain:?}");
        run.host.extra.insert("arch".into(), "armv7l".into());
        run.host
            .extra
            .insert("emulated".into(), "emulated (qemu-user or similar)".into());
        let f = facts(&run, &Summary::of(&run));
        let host = &f.iter().find(|(k, _)| *k == "Host").unwrap().1;
        assert!(host.contains("Linux 6.1.0 · armv7l"), "{host}");
        let emulated = &f.iter().find(|(k, _)| *k == "Emulated").unwrap().1;
        assert!(emulated.starts_with("emulated (qemu-user"), "{emulated}");
    }

    /// A Windows Run's kernel line says Windows, not "Linux Windows".
    #[test]
    fn host_names_windows_as_windows() {
        let mut run = Run::new(vec!["candor".into()]);
        run.host.kernel = Some("Windows 10.0 build 19045".into());
        let f = facts(&run, &Summary::of(&run));
        let host = &f.iter().find(|(k, _)| *k == "Host").unwrap().1;
        assert_eq!(host, "Windows 10.0 build 19045");
    }
}
