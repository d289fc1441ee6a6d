//! Adding a Run to the history: its identity (a content hash, so a Run added
//! twice is stored once), its host's identity (the label, else the hostname),
//! the checks that keep a Run out of the history (no time, still running, no
//! host), and the rows: the Run's exact JSON beside its query rows, written
//! inside the caller's transaction so that a failure adds nothing.

use super::figures::{figures, Figure};
use crate::result::{Run, RunStatus};
use rusqlite::{params, OptionalExtension, Transaction};
use std::io::Read as _;

/// zstd level for the stored JSON: level 3 makes a battery's 234 KB Run
/// 64 KB (3.7x) in about a millisecond; higher levels gain under 10 % more
/// for many times the CPU.
const ZSTD_LEVEL: i32 = 3;

/// A Run on its way into the history: the Run, its exact text, where it came from.
pub struct Incoming<'a> {
    pub run: &'a Run,
    /// The Run's JSON exactly as read (or as `result::run_json` writes it).
    pub text: &'a str,
    /// The file it was read from, if any (kept in `runs.added_from`).
    pub from: Option<&'a str>,
    /// The host to file it under instead of its label or hostname (`history add --host`).
    pub host: Option<&'a str>,
}

/// What adding did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    /// The Run's content hash (hex SHA-256).
    pub hash: String,
    /// The host it is filed under.
    pub host: String,
    /// False when the same Run was already stored (nothing was written).
    pub new: bool,
}

/// The host a Run belongs to: its label, else its hostname.
pub fn identity(run: &Run) -> Option<String> {
    run.label
        .as_deref()
        .or(run.host.hostname.as_deref())
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The Run's identity: SHA-256 of its JSON in a canonical form (keys sorted,
/// no whitespace), without `findings`. Findings are recomputable (`candor
/// analyze --write` rewrites them), so a re-analysed Run is the same Run;
/// a pretty or compact copy of a file is the same Run too.
pub fn run_hash(text: &str) -> anyhow::Result<String> {
    let mut value: serde_json::Value = serde_json::from_str(text)?;
    if let Some(map) = value.as_object_mut() {
        map.remove("findings");
    }
    let canonical = serde_json::to_vec(&value)?;
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, &canonical);
    Ok(digest.as_ref().iter().map(|b| format!("{b:02x}")).collect())
}

/// Why a Run cannot enter a history, in words; None when it can. `host`
/// is `history add --host`, which supplies a missing identity.
pub fn refusal(run: &Run, host: Option<&str>) -> Option<String> {
    if run.status == RunStatus::Running {
        return Some("the Run is still running (or its candor was killed): finish it with candor run --resume, then add it".into());
    }
    if started_unix(run).is_none() {
        return Some(
            "the Run has no valid started_at or finished_at time: a history orders Runs by time"
                .into(),
        );
    }
    if host.is_none() && identity(run).is_none() {
        return Some(
            "the Run has no label and no hostname: say which host it belongs to with --host".into(),
        );
    }
    None
}

/// When the Run started (Unix seconds): `started_at`, else `finished_at`.
pub fn started_unix(run: &Run) -> Option<i64> {
    run.started_at
        .as_deref()
        .and_then(crate::units::parse_rfc3339)
        .or_else(|| {
            run.finished_at
                .as_deref()
                .and_then(crate::units::parse_rfc3339)
        })
}

/// Adds a Run (already checked with `refusal`) inside `tx`.
pub fn add(tx: &Transaction, incoming: &Incoming) -> anyhow::Result<Added> {
    let run = incoming.run;
    let hash = run_hash(incoming.text)?;
    let host = incoming
        .host
        .map(str::to_string)
        .or_else(|| identity(run))
        .ok_or_else(|| anyhow::anyhow!("no host identity"))?;
    let started = started_unix(run).ok_or_else(|| anyhow::anyhow!("no time"))?;
    let exists: Option<i64> = tx
        .query_row("SELECT id FROM runs WHERE hash = ?1", [&hash], |r| r.get(0))
        .optional()?;
    if exists.is_some() {
        return Ok(Added {
            hash,
            host,
            new: false,
        });
    }
    let host_id = upsert_host(tx, &host, run, started)?;
    let compressed = zstd::bulk::compress(incoming.text.as_bytes(), ZSTD_LEVEL)?;
    let figures = figures(run);
    let mut kinds: Vec<&str> = run.measurements.iter().map(|m| m.kind()).collect();
    kinds.dedup();
    kinds.sort_unstable();
    kinds.dedup();
    let preset = run
        .plan
        .as_ref()
        .and_then(|p| p.get("preset").or_else(|| p.get("kind")))
        .and_then(|p| p.as_str());
    tx.execute(
        "INSERT INTO runs (hash, host_id, started_at, started_unix, finished_at, status, source, tool,
            tool_version, schema, preset, kinds, label, hostname, cpu_model, cpu_threads,
            mem_total_bytes, kernel, added_at, added_from, json_bytes, json_zstd)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
        params![
            hash,
            host_id,
            run.started_at.clone().or_else(|| run.finished_at.clone()),
            started,
            run.finished_at,
            run.status.as_str(),
            run.source,
            run.tool.name,
            run.tool.version,
            run.schema,
            preset,
            kinds.join(","),
            run.label,
            run.host.hostname,
            run.host.cpu_model,
            run.host.cpu_threads,
            run.host.mem_total_bytes.map(|b| b as i64),
            run.host.kernel,
            crate::units::now_rfc3339(),
            incoming.from,
            incoming.text.len() as i64,
            compressed,
        ],
    )?;
    let run_id = tx.last_insert_rowid();
    insert_figures(tx, host_id, run_id, started, &figures)?;
    let mut stmt = tx.prepare(
        "INSERT INTO findings (run_id, seq, id, severity, status, subject, verdict) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for (seq, f) in run.findings.iter().enumerate() {
        stmt.execute(params![
            run_id,
            seq as i64,
            f.id,
            json_word(&f.severity),
            json_word(&f.status),
            f.subject,
            f.verdict
        ])?;
    }
    Ok(Added {
        hash,
        host,
        new: true,
    })
}

/// The JSON word of a unit enum (`warning`, `not-checked`).
fn json_word<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The host's row: created with this Run's identity facts, or brought up
/// to date with them when this is the newest Run of that host.
fn upsert_host(tx: &Transaction, name: &str, run: &Run, started: i64) -> rusqlite::Result<i64> {
    let h = &run.host;
    let virt = h.virtualization.as_ref().map(|v| v.kind.clone());
    let facts = params![
        name,
        run.label,
        h.hostname,
        h.cpu_model,
        h.cpu_cores,
        h.cpu_threads,
        h.mem_total_bytes.map(|b| b as i64),
        virt,
        h.os_release,
        h.kernel,
        started
    ];
    tx.execute(
        "INSERT INTO hosts (name, label, hostname, cpu_model, cpu_cores, cpu_threads, mem_total_bytes,
            virtualization, os_release, kernel, first_unix, last_unix)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11)
         ON CONFLICT (name) DO UPDATE SET first_unix = MIN(first_unix, excluded.first_unix)",
        facts,
    )?;
    tx.execute(
        "UPDATE hosts SET label = ?2, hostname = ?3, cpu_model = ?4, cpu_cores = ?5, cpu_threads = ?6,
            mem_total_bytes = ?7, virtualization = ?8, os_release = ?9, kernel = ?10, last_unix = ?11
         WHERE name = ?1 AND last_unix <= ?11",
        facts,
    )?;
    tx.query_row("SELECT id FROM hosts WHERE name = ?1", [name], |r| r.get(0))
}

/// The figure rows, with their workloads, names and series created as needed.
fn insert_figures(
    tx: &Transaction,
    host_id: i64,
    run_id: i64,
    started: i64,
    figures: &[Figure],
) -> rusqlite::Result<()> {
    let mut find_workload = tx.prepare("SELECT id FROM workloads WHERE key = ?1")?;
    let mut new_workload =
        tx.prepare("INSERT INTO workloads (key, kind, test) VALUES (?1, ?2, ?3)")?;
    let mut name =
        tx.prepare("INSERT OR IGNORE INTO workload_names (workload_id, test) VALUES (?1, ?2)")?;
    let mut find_series = tx
        .prepare("SELECT id FROM series WHERE host_id = ?1 AND workload_id = ?2 AND metric = ?3")?;
    let mut new_series = tx.prepare(
        "INSERT INTO series (host_id, workload_id, metric, unit, higher_is_better, key_figure) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut figure = tx.prepare(
        "INSERT INTO figures (host_id, workload_id, started_unix, run_id, metric, value, min, max, passes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    let mut last_workload: Option<(String, i64)> = None;
    for f in figures {
        let workload_id = match &last_workload {
            Some((key, id)) if *key == f.workload => *id,
            _ => {
                let id = match find_workload
                    .query_row([&f.workload], |r| r.get::<_, i64>(0))
                    .optional()?
                {
                    Some(id) => id,
                    None => {
                        new_workload.execute(params![f.workload, f.kind, f.test])?;
                        tx.last_insert_rowid()
                    }
                };
                name.execute(params![id, f.test])?;
                if let Some(spec) = &f.spec_test {
                    name.execute(params![id, spec])?;
                }
                last_workload = Some((f.workload.clone(), id));
                id
            }
        };
        let metric = f.metric.as_str();
        let known = find_series
            .query_row(params![host_id, workload_id, metric], |r| {
                r.get::<_, i64>(0)
            })
            .optional()?;
        if known.is_none() {
            new_series.execute(params![
                host_id,
                workload_id,
                metric,
                f.metric.unit(),
                f.metric.higher_is_better(),
                f.key as i64
            ])?;
        }
        figure.execute(params![
            host_id,
            workload_id,
            started,
            run_id,
            metric,
            f.value,
            f.min,
            f.max,
            f.passes
        ])?;
    }
    Ok(())
}

/// The stored JSON of a Run, byte for byte as it was added.
pub fn stored_json(compressed: &[u8]) -> std::io::Result<String> {
    let mut text = String::new();
    zstd::stream::read::Decoder::new(compressed)?.read_to_string(&mut text)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_ignores_layout_and_findings_but_not_figures() {
        let mut run = crate::findings::synth::run();
        run.measurements.push(crate::findings::synth::job(
            Some("RND4K Q1T1"),
            "randread",
            4096,
            1,
            1,
            5000.0,
        ));
        let pretty = crate::result::run_json(&run);
        let compact = serde_json::to_string(&run).unwrap();
        assert_eq!(run_hash(&pretty).unwrap(), run_hash(&compact).unwrap());
        let mut analysed = run.clone();
        analysed.findings = crate::findings::analyze(&run);
        assert_eq!(
            run_hash(&pretty).unwrap(),
            run_hash(&crate::result::run_json(&analysed)).unwrap()
        );
        let mut other = run.clone();
        crate::findings::synth::dm(&mut other.measurements[0])
            .read
            .as_mut()
            .unwrap()
            .iops = 5001.0;
        assert_ne!(
            run_hash(&pretty).unwrap(),
            run_hash(&crate::result::run_json(&other)).unwrap()
        );
    }

    #[test]
    fn refusals_name_the_reason() {
        let mut run = crate::findings::synth::run();
        run.status = RunStatus::Complete;
        run.host.hostname = Some("web-1".into());
        assert_eq!(refusal(&run, None), None);
        assert_eq!(identity(&run).as_deref(), Some("web-1"));
        run.label = Some("provider A".into());
        assert_eq!(identity(&run).as_deref(), Some("provider A"));
        run.label = None;
        run.host.hostname = None;
        assert!(refusal(&run, None).unwrap().contains("--host"));
        assert_eq!(refusal(&run, Some("x")), None);
        run.started_at = Some("yesterday".into());
        run.finished_at = None;
        assert!(refusal(&run, Some("x")).unwrap().contains("started_at"));
        run.started_at = Some("2026-01-02T03:04:05Z".into());
        run.status = RunStatus::Running;
        assert!(refusal(&run, Some("x")).unwrap().contains("still running"));
    }
}
