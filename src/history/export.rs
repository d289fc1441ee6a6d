//! `candor history export`'s rows: one per figure with its host, time and
//! workload key, for spreadsheets, pandas, ClickHouse or BigQuery (laid out
//! as CSV or NDJSON by `report::figure_rows`). Streamed row by row: a
//! history of ten thousand Runs exports without holding it in memory. Rows
//! come in primary-key order: host by host, workload by workload, each in
//! time order (a Run's metrics together).

use super::figures::Key;
use super::query::Filter;
use rusqlite::Connection;
use serde_json::Value;

/// The export's columns, in order. A contract with outside scripts: append only.
pub const COLUMNS: [&str; 20] = [
    "host",
    "hostname",
    "label",
    "run",
    "started_at",
    "status",
    "source",
    "tool",
    "tool_version",
    "workload",
    "kind",
    "test",
    "metric",
    "unit",
    "value",
    "min",
    "max",
    "passes",
    "higher_is_better",
    "key_figure",
];

/// One figure: the values of `COLUMNS`, in order (null where unknown).
pub type Row = [Value; 20];

/// Hands every figure of the Runs that pass `filter` to `each`, in order;
/// returns the number of rows.
pub fn each_figure(
    conn: &Connection,
    filter: &Filter,
    each: &mut dyn FnMut(&Row) -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    let (clause, values) = filter.sql();
    let sql = format!(
        "SELECT h.name, r.hostname, r.label, r.hash, r.started_at, r.status, r.source, r.tool, r.tool_version,
                w.key, w.kind, w.test, s.metric, s.unit, f.value, f.min, f.max, f.passes, s.higher_is_better, s.key_figure
         FROM figures f
         JOIN series s ON s.host_id = f.host_id AND s.workload_id = f.workload_id AND s.metric = f.metric
         JOIN hosts h ON h.id = f.host_id JOIN workloads w ON w.id = f.workload_id JOIN runs r ON r.id = f.run_id
         WHERE {clause} ORDER BY f.host_id, f.workload_id, f.started_unix, f.run_id, f.metric"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(values))?;
    let mut n = 0u64;
    while let Some(r) = rows.next()? {
        // A history of years exports for a while: the first signal stops it.
        crate::cancel::check()?;
        let text = |i: usize| -> rusqlite::Result<Value> {
            Ok(r.get::<_, Option<String>>(i)?
                .map_or(Value::Null, Value::String))
        };
        let key = match Key::from_i64(r.get(19)?) {
            Key::Headline => "headline",
            Key::Felt => "felt",
            Key::Other => "",
        };
        let cells: Row = [
            text(0)?,
            text(1)?,
            text(2)?,
            text(3)?,
            text(4)?,
            text(5)?,
            text(6)?,
            text(7)?,
            text(8)?,
            text(9)?,
            text(10)?,
            text(11)?,
            text(12)?,
            text(13)?,
            r.get::<_, f64>(14)?.into(),
            r.get::<_, f64>(15)?.into(),
            r.get::<_, f64>(16)?.into(),
            r.get::<_, i64>(17)?.into(),
            (r.get::<_, i64>(18)? != 0).into(),
            key.into(),
        ];
        each(&cells)?;
        n += 1;
    }
    Ok(n)
}
