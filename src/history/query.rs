//! Reading the history: hosts, Runs, a host's series and their points, the
//! earlier figures drift compares with, and where each key figure of a host
//! stands. Every query uses an index: a trend is one range scan of the
//! `figures` table's primary key (series, time).

use super::assess::{assess, Assessment, Facts};
use super::figures::{Key, Metric};
use crate::error::usage;
use crate::findings::drift::DRIFT_WINDOW;
use rusqlite::{params, Connection, OptionalExtension};

/// A host and its Runs' extent.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HostRow {
    #[serde(skip)]
    pub id: i64,
    /// The identity: the label, else the hostname.
    pub name: String,
    pub label: Option<String>,
    pub hostname: Option<String>,
    pub cpu_model: Option<String>,
    pub cpu_cores: Option<i64>,
    pub cpu_threads: Option<i64>,
    pub mem_total_bytes: Option<i64>,
    pub virtualization: Option<String>,
    pub os_release: Option<String>,
    pub kernel: Option<String>,
    pub runs: i64,
    pub first_at: String,
    pub last_at: String,
}

/// One stored Run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunRow {
    /// The content hash (hex SHA-256); its first 12 digits name it in text.
    pub run: String,
    pub host: String,
    pub started_at: String,
    #[serde(skip)]
    pub started_unix: i64,
    pub status: String,
    pub source: String,
    pub tool: String,
    pub tool_version: String,
    pub preset: Option<String>,
    /// The measurement kinds it holds: `disk`, `cpu`, ...
    pub kinds: String,
    pub label: Option<String>,
    pub added_at: String,
    pub added_from: Option<String>,
    pub json_bytes: i64,
}

/// A day (`2026-01-31`, midnight UTC; with `end`, the next midnight) or an RFC 3339 time.
fn parse_when(flag: &str, text: &str, end: bool) -> anyhow::Result<i64> {
    let t = text.trim();
    let day = if t.len() == 10 {
        crate::units::parse_rfc3339(&format!("{t}T00:00:00Z"))
    } else {
        None
    };
    match (day, crate::units::parse_rfc3339(t)) {
        (Some(d), _) => Ok(if end { d + 86400 } else { d }),
        (None, Some(s)) => Ok(if end { s + 1 } else { s }),
        (None, None) => Err(crate::error::usage(format!(
            "{flag} '{text}': give a day (2026-01-31) or a time (2026-01-31T12:00:00Z)"
        ))),
    }
}

/// Which hosts and Runs to list or export.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// A host identity (exact) or hostname.
    pub host: Option<String>,
    /// The Runs' label (exact).
    pub label: Option<String>,
    /// Runs that started at or after (Unix seconds).
    pub since: Option<i64>,
    /// Runs that started before (Unix seconds).
    pub until: Option<i64>,
    /// One host, by its row id (what `find_host` resolved).
    pub host_id: Option<i64>,
}

impl Filter {
    /// A filter from the command line's words: `since` and `until` each a
    /// day (`2026-01-31`: from its midnight UTC; `until` takes the whole
    /// day) or an RFC 3339 time; anything else is a usage error naming the flag.
    pub fn from_words(
        host: Option<String>,
        label: Option<String>,
        since: Option<&str>,
        until: Option<&str>,
    ) -> anyhow::Result<Filter> {
        Ok(Filter {
            host,
            label,
            since: since.map(|s| parse_when("--since", s, false)).transpose()?,
            until: until.map(|s| parse_when("--until", s, true)).transpose()?,
            host_id: None,
        })
    }

    /// The WHERE clause over `runs r JOIN hosts h` and its parameters.
    pub(crate) fn sql(&self) -> (String, Vec<rusqlite::types::Value>) {
        use rusqlite::types::Value;
        let mut parts = vec!["1".to_string()];
        let mut values = Vec::new();
        if let Some(h) = &self.host {
            parts.push("(h.name = ? OR h.hostname = ?)".into());
            values.push(Value::Text(h.clone()));
            values.push(Value::Text(h.clone()));
        }
        if let Some(id) = self.host_id {
            parts.push("h.id = ?".into());
            values.push(Value::Integer(id));
        }
        if let Some(l) = &self.label {
            parts.push("r.label = ?".into());
            values.push(Value::Text(l.clone()));
        }
        if let Some(s) = self.since {
            parts.push("r.started_unix >= ?".into());
            values.push(Value::Integer(s));
        }
        if let Some(u) = self.until {
            parts.push("r.started_unix < ?".into());
            values.push(Value::Integer(u));
        }
        (parts.join(" AND "), values)
    }
}

fn time(unix: i64) -> String {
    crate::units::rfc3339_utc(unix.max(0) as u64)
}

/// The hosts with at least one Run that passes `filter`, by name, with the
/// count and extent of those Runs.
pub fn hosts(conn: &Connection, filter: &Filter) -> rusqlite::Result<Vec<HostRow>> {
    let (clause, values) = filter.sql();
    let sql = format!(
        "SELECT h.id, h.name, h.label, h.hostname, h.cpu_model, h.cpu_cores, h.cpu_threads, h.mem_total_bytes,
                h.virtualization, h.os_release, h.kernel, COUNT(r.id), MIN(r.started_unix), MAX(r.started_unix)
         FROM hosts h JOIN runs r ON r.host_id = h.id WHERE {clause} GROUP BY h.id ORDER BY h.name"
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(values), |r| {
        Ok(HostRow {
            id: r.get(0)?,
            name: r.get(1)?,
            label: r.get(2)?,
            hostname: r.get(3)?,
            cpu_model: r.get(4)?,
            cpu_cores: r.get(5)?,
            cpu_threads: r.get(6)?,
            mem_total_bytes: r.get(7)?,
            virtualization: r.get(8)?,
            os_release: r.get(9)?,
            kernel: r.get(10)?,
            runs: r.get(11)?,
            first_at: time(r.get(12)?),
            last_at: time(r.get(13)?),
        })
    })?;
    rows.collect()
}

/// The Runs that pass `filter`, oldest first; with `limit`, the most recent ones.
pub fn runs(
    conn: &Connection,
    filter: &Filter,
    limit: Option<usize>,
) -> rusqlite::Result<Vec<RunRow>> {
    let (clause, values) = filter.sql();
    let limit = limit.map_or(-1, |l| l as i64);
    let sql = format!(
        "SELECT * FROM (
           SELECT r.hash, h.name, r.started_at, r.started_unix, r.status, r.source, r.tool, r.tool_version,
                  r.preset, r.kinds, r.label, r.added_at, r.added_from, r.json_bytes, r.id
           FROM runs r JOIN hosts h ON h.id = r.host_id WHERE {clause}
           ORDER BY r.started_unix DESC, r.id DESC LIMIT {limit})
         ORDER BY started_unix, id"
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(values), |r| {
        Ok(RunRow {
            run: r.get(0)?,
            host: r.get(1)?,
            started_at: r.get(2)?,
            started_unix: r.get(3)?,
            status: r.get(4)?,
            source: r.get(5)?,
            tool: r.get(6)?,
            tool_version: r.get(7)?,
            preset: r.get(8)?,
            kinds: r.get(9)?,
            label: r.get(10)?,
            added_at: r.get(11)?,
            added_from: r.get(12)?,
            json_bytes: r.get(13)?,
        })
    })?;
    rows.collect()
}

/// The id of the host named `name` (its identity), if stored.
pub fn host_id(conn: &Connection, name: &str) -> rusqlite::Result<Option<i64>> {
    conn.query_row("SELECT id FROM hosts WHERE name = ?1", [name], |r| r.get(0))
        .optional()
}

/// The host the user means by `wanted`: its identity, else its hostname
/// when one host has it, else a unique part of an identity. A usage error
/// lists the hosts otherwise.
pub fn find_host(conn: &Connection, wanted: &str) -> anyhow::Result<HostRow> {
    let all = hosts(conn, &Filter::default())?;
    let pick =
        |list: Vec<&HostRow>| -> Option<HostRow> { (list.len() == 1).then(|| list[0].clone()) };
    let lower = wanted.to_lowercase();
    if let Some(h) = pick(all.iter().filter(|h| h.name == wanted).collect())
        .or_else(|| {
            pick(
                all.iter()
                    .filter(|h| h.hostname.as_deref() == Some(wanted))
                    .collect(),
            )
        })
        .or_else(|| {
            pick(
                all.iter()
                    .filter(|h| h.name.to_lowercase() == lower)
                    .collect(),
            )
        })
        .or_else(|| {
            pick(
                all.iter()
                    .filter(|h| h.name.to_lowercase().contains(&lower))
                    .collect(),
            )
        })
    {
        return Ok(h);
    }
    let names: Vec<String> = all
        .iter()
        .take(12)
        .map(|h| format!("'{}'", h.name))
        .collect();
    let more = if all.len() > 12 { ", ..." } else { "" };
    let matching = all
        .iter()
        .filter(|h| h.name.to_lowercase().contains(&lower))
        .count();
    let what = if matching > 1 {
        "is ambiguous"
    } else {
        "is not in the history"
    };
    Err(usage(format!(
        "host '{wanted}' {what}; hosts: {}{more}",
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    )))
}

/// One series of a host: a workload and a metric.
#[derive(Debug, Clone)]
pub struct SeriesRow {
    pub host_id: i64,
    pub workload_id: i64,
    pub workload: String,
    pub kind: String,
    pub test: String,
    pub metric: Metric,
    pub key: Key,
}

/// The series of a host in test order (workload ids follow first appearance);
/// `key_only` keeps the key figures.
pub fn host_series(
    conn: &Connection,
    host: i64,
    key_only: bool,
) -> rusqlite::Result<Vec<SeriesRow>> {
    let mut stmt = conn.prepare(
        "SELECT s.host_id, s.workload_id, w.key, w.kind, w.test, s.metric, s.key_figure FROM series s JOIN workloads w ON w.id = s.workload_id
         WHERE s.host_id = ?1 AND (?2 = 0 OR s.key_figure > 0) ORDER BY w.id, s.key_figure = 0, s.key_figure, s.metric",
    )?;
    let rows = stmt.query_map(params![host, key_only as i64], |r| {
        let metric: String = r.get(5)?;
        Ok(SeriesRow {
            host_id: r.get(0)?,
            workload_id: r.get(1)?,
            workload: r.get(2)?,
            kind: r.get(3)?,
            test: r.get(4)?,
            metric: Metric::parse(&metric).unwrap_or(Metric::Iops),
            key: Key::from_i64(r.get(6)?),
        })
    })?;
    rows.collect()
}

/// The series of `host` that `test` names: a test name the workload was
/// seen under (`RND4K Q32T1 read`, `FSYNC4K write`, case ignored), its
/// workload key, else a unique part of a name. With `metric`, that metric's
/// series; else the key figures (the headline first). A usage error lists
/// the host's tests when nothing or several workloads match.
pub fn find_series(
    conn: &Connection,
    host: &HostRow,
    test: &str,
    metric: Option<Metric>,
) -> anyhow::Result<SeriesRow> {
    let all = host_series(conn, host.id, false)?;
    let mut names = conn.prepare(
        "SELECT DISTINCT n.test, w.key FROM workload_names n JOIN workloads w ON w.id = n.workload_id
         JOIN series s ON s.workload_id = w.id WHERE s.host_id = ?1",
    )?;
    let pairs: Vec<(String, String)> = names
        .query_map([host.id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let wanted = test.trim().to_lowercase();
    let mut workloads: Vec<&str> = pairs
        .iter()
        .filter(|(n, k)| n.to_lowercase() == wanted || k.to_lowercase() == wanted)
        .map(|(_, k)| k.as_str())
        .collect();
    if workloads.is_empty() {
        workloads = pairs
            .iter()
            .filter(|(n, _)| n.to_lowercase().contains(&wanted))
            .map(|(_, k)| k.as_str())
            .collect();
    }
    workloads.sort_unstable();
    workloads.dedup();
    let tests = || {
        let mut t: Vec<String> = all.iter().map(|s| format!("'{}'", s.test)).collect();
        t.dedup();
        t.truncate(24);
        t.join(", ")
    };
    match workloads.len() {
        0 => {
            return Err(usage(format!(
                "--test '{test}': host '{}' has no such test; its tests: {}",
                host.name,
                tests()
            )))
        }
        1 => {}
        _ => {
            return Err(usage(format!(
                "--test '{test}' matches {} workloads of host '{}'; give one of: {}",
                workloads.len(),
                host.name,
                workloads.join(", ")
            )))
        }
    }
    let of_workload: Vec<&SeriesRow> = all.iter().filter(|s| s.workload == workloads[0]).collect();
    let found = match metric {
        Some(m) => of_workload.iter().find(|s| s.metric == m),
        None => of_workload
            .iter()
            .find(|s| s.key == Key::Headline)
            .or_else(|| of_workload.first()),
    };
    found.map(|s| (*s).clone()).ok_or_else(|| {
        let have: Vec<&str> = of_workload.iter().map(|s| s.metric.as_str()).collect();
        usage(format!(
            "--metric: '{}' has no {} figures; it has: {}",
            of_workload.first().map_or(test, |s| s.test.as_str()),
            metric.map_or("such", |m| m.as_str()),
            have.join(", ")
        ))
    })
}

/// One figure in time.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TrendPoint {
    pub started_at: String,
    #[serde(skip)]
    pub unix: i64,
    pub run: String,
    pub value: f64,
    pub min: f64,
    pub max: f64,
    pub passes: i64,
}

/// A series' points, oldest first; with `last`, only the most recent ones.
pub fn points(
    conn: &Connection,
    series: &SeriesRow,
    last: Option<usize>,
) -> rusqlite::Result<Vec<TrendPoint>> {
    let mut out = points_before(
        conn,
        (series.host_id, series.workload_id, series.metric),
        i64::MAX,
        last.map_or(-1, |l| l as i64),
    )?;
    out.reverse();
    Ok(out)
}

fn point(r: &rusqlite::Row) -> rusqlite::Result<TrendPoint> {
    Ok(TrendPoint {
        unix: r.get(0)?,
        run: r.get(1)?,
        value: r.get(2)?,
        min: r.get(3)?,
        max: r.get(4)?,
        passes: r.get(5)?,
        started_at: r.get(6)?,
    })
}

/// The host's figures of `workload` and `metric` that started before
/// `before` (Unix seconds), most recent first, at most `limit`.
pub fn earlier(
    conn: &Connection,
    host: i64,
    workload: &str,
    metric: Metric,
    before: i64,
    limit: usize,
) -> rusqlite::Result<Vec<TrendPoint>> {
    let id: Option<i64> = conn
        .query_row("SELECT id FROM workloads WHERE key = ?1", [workload], |r| {
            r.get(0)
        })
        .optional()?;
    match id {
        Some(w) => points_before(conn, (host, w, metric), before, limit as i64),
        None => Ok(Vec::new()),
    }
}

/// The points of (host, workload, metric) that started before `before`,
/// most recent first, at most `limit` (-1: all): a range scan of the
/// primary key (host, workload, time).
fn points_before(
    conn: &Connection,
    (host, workload, metric): (i64, i64, Metric),
    before: i64,
    limit: i64,
) -> rusqlite::Result<Vec<TrendPoint>> {
    let mut stmt = conn.prepare(
        "SELECT f.started_unix, r.hash, f.value, f.min, f.max, f.passes, r.started_at FROM figures f JOIN runs r ON r.id = f.run_id
         WHERE f.host_id = ?1 AND f.workload_id = ?2 AND f.metric = ?3 AND f.started_unix < ?4
         ORDER BY f.started_unix DESC, f.run_id DESC LIMIT ?5",
    )?;
    let rows = stmt.query_map(
        params![host, workload, metric.as_str(), before, limit],
        point,
    )?;
    rows.collect()
}

/// The identity facts of the host's last Run before `before`.
pub fn facts_before(conn: &Connection, host: i64, before: i64) -> rusqlite::Result<Option<Facts>> {
    conn.query_row(
        "SELECT cpu_model, cpu_threads, mem_total_bytes, kernel FROM runs
         WHERE host_id = ?1 AND started_unix < ?2 ORDER BY started_unix DESC, id DESC LIMIT 1",
        params![host, before],
        |r| {
            Ok(Facts {
                cpu_model: r.get(0)?,
                cpu_threads: r.get(1)?,
                mem_total_bytes: r.get(2)?,
                kernel: r.get(3)?,
            })
        },
    )
    .optional()
}

/// Where one key figure of a host stands: its latest point against the
/// host's earlier points of the same series (the drift window).
#[derive(Debug, Clone)]
pub struct Standing {
    pub series: SeriesRow,
    pub latest: TrendPoint,
    /// The earlier figures compared with, most recent first.
    pub earlier: Vec<TrendPoint>,
    /// All the series' points, the latest included.
    pub total: i64,
    /// None with too few earlier figures.
    pub assessment: Option<Assessment>,
}

/// Every key figure of `host`, latest against earlier, in test order.
pub fn standings(conn: &Connection, host: &HostRow) -> rusqlite::Result<Vec<Standing>> {
    let mut out = Vec::new();
    let mut count = conn.prepare(
        "SELECT COUNT(*) FROM figures WHERE host_id = ?1 AND workload_id = ?2 AND metric = ?3",
    )?;
    for s in host_series(conn, host.id, true)? {
        let Some(latest) = points(conn, &s, Some(1))?.pop() else {
            continue;
        };
        let earlier = points_before(
            conn,
            (s.host_id, s.workload_id, s.metric),
            latest.unix,
            DRIFT_WINDOW as i64,
        )?;
        let values: Vec<f64> = earlier.iter().map(|p| p.value).collect();
        let assessment = assess(s.kind == "disk", s.metric, &values, latest.value);
        let total = count.query_row(params![s.host_id, s.workload_id, s.metric.as_str()], |r| {
            r.get(0)
        })?;
        out.push(Standing {
            series: s,
            latest,
            earlier,
            total,
            assessment,
        });
    }
    Ok(out)
}

/// The stored JSON of the Run whose hash starts with `prefix` (at least 6
/// hex digits), exactly as it was added. A usage error when none or several match.
pub fn stored_run(conn: &Connection, prefix: &str) -> anyhow::Result<(String, String)> {
    let p = prefix.trim().to_ascii_lowercase();
    if p.len() < 6 || !p.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(usage(format!(
            "'{prefix}': give a Run's hash or its first 6 or more hex digits (candor history list shows them)"
        )));
    }
    let mut stmt =
        conn.prepare("SELECT hash, json_zstd FROM runs WHERE hash >= ?1 AND hash < ?2 LIMIT 2")?;
    let upper = format!("{p}g");
    let found: Vec<(String, Vec<u8>)> = stmt
        .query_map(params![p, upper], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    match found.len() {
        0 => Err(usage(format!("no Run with hash {prefix} in the history"))),
        1 => {
            let (hash, blob) = found.into_iter().next().expect("one");
            Ok((hash, super::add::stored_json(&blob)?))
        }
        _ => Err(usage(format!(
            "{prefix} starts the hashes of several Runs; give more digits"
        ))),
    }
}

/// A stored finding of a Run (the Run's own, as it was added).
#[derive(Debug, Clone, serde::Serialize)]
pub struct FindingRow {
    pub id: String,
    pub severity: String,
    pub status: String,
    pub subject: Option<String>,
    pub verdict: String,
}

/// The most recent Run of a host.
pub fn latest_run(conn: &Connection, host: &HostRow) -> rusqlite::Result<Option<RunRow>> {
    let filter = Filter {
        host_id: Some(host.id),
        ..Filter::default()
    };
    Ok(runs(conn, &filter, Some(1))?.pop())
}

/// The stored findings of the Run with this hash, in their order.
pub fn stored_findings(conn: &Connection, hash: &str) -> rusqlite::Result<Vec<FindingRow>> {
    let mut stmt = conn.prepare(
        "SELECT f.id, f.severity, f.status, f.subject, f.verdict FROM findings f JOIN runs r ON r.id = f.run_id
         WHERE r.hash = ?1 ORDER BY f.seq",
    )?;
    let rows = stmt.query_map([hash], |r| {
        Ok(FindingRow {
            id: r.get(0)?,
            severity: r.get(1)?,
            status: r.get(2)?,
            subject: r.get(3)?,
            verdict: r.get(4)?,
        })
    })?;
    rows.collect()
}

/// How many Runs of host `name` started before `before` (Unix seconds).
pub fn runs_before(conn: &Connection, name: &str, before: i64) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT COUNT(*) FROM runs r JOIN hosts h ON h.id = r.host_id WHERE h.name = ?1 AND r.started_unix < ?2",
        params![name, before],
        |r| r.get(0),
    )
}

#[cfg(test)]
mod tests {
    use super::parse_when;

    #[test]
    fn days_cover_the_whole_day_and_times_are_exact() {
        let d = parse_when("--since", "2026-01-31", false).unwrap();
        assert_eq!(crate::units::rfc3339_utc(d as u64), "2026-01-31T00:00:00Z");
        let u = parse_when("--until", "2026-01-31", true).unwrap();
        assert_eq!(u - d, 86400);
        let t = parse_when("--until", "2026-01-31T12:00:00Z", true).unwrap();
        assert_eq!(t - d, 12 * 3600 + 1);
        let e = parse_when("--since", "last week", false).unwrap_err();
        assert!(crate::error::is_usage(&e) && e.to_string().starts_with("--since 'last week'"));
    }
}
