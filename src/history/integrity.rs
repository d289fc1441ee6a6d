//! Whether a history's file is whole. SQLite reads a damaged page only
//! when a query reaches it: a history with random bytes in its middle
//! lists, exports and even takes new Runs (written into the damaged file)
//! without a word. So every open looks first (`PRAGMA quick_check`: every
//! page of every table and index, in one pass of the file): a command that
//! writes refuses a damaged history, in one line; a command that reads is
//! told which Runs cannot be read back, and reads the rest.

use rusqlite::Connection;

/// What `quick_check` found: nothing (None), or its first complaints, on
/// one line.
pub fn damage(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let mut stmt = conn.prepare("PRAGMA quick_check(3)")?;
    let lines: Vec<String> = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<Result<_, _>>()?;
    Ok(match lines.as_slice() {
        [ok] if ok == "ok" => None,
        _ => Some(
            lines
                .iter()
                .flat_map(|l| l.lines())
                .filter(|l| !l.starts_with("***"))
                .collect::<Vec<_>>()
                .join("; "),
        ),
    })
}

/// The Runs whose stored JSON cannot be read back (their hash, or `Run
/// #N` when the row itself cannot be read), and whether the table of Runs
/// could be walked. Each row is read on its own, by its id: a damaged page
/// ends a walk of the table, not a look-up of the rows beside it.
pub fn unreadable_runs(conn: &Connection) -> (Vec<String>, bool) {
    let mut bad = Vec::new();
    let Ok(Some(last)) = conn.query_row("SELECT max(id) FROM runs", [], |r| {
        r.get::<_, Option<i64>>(0)
    }) else {
        return (bad, false);
    };
    for id in 1..=last.min(10_000_000) {
        if crate::cancel::cancelled() {
            break;
        }
        let row: rusqlite::Result<(String, Vec<u8>)> = conn.query_row(
            "SELECT hash, json_zstd FROM runs WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        );
        match row {
            Ok((hash, blob)) => {
                // zstd checks its frame; the hash, that it is that Run.
                let whole = super::add::stored_json(&blob)
                    .ok()
                    .and_then(|text| super::add::run_hash(&text).ok())
                    .is_some_and(|h| h == hash);
                if !whole {
                    let short: String = hash.chars().take(12).collect();
                    bad.push(crate::error::printable(&short));
                }
            }
            Err(rusqlite::Error::QueryReturnedNoRows) => {}
            Err(_) => bad.push(format!("Run #{id}")),
        }
    }
    (bad, true)
}

/// The warning a read of a damaged history gives: what is damaged, and
/// which Runs cannot be read.
pub fn read_warning(path: &std::path::Path, conn: &Connection, damage: &str) -> String {
    let (bad, walked) = unreadable_runs(conn);
    let runs = match (bad.len(), walked) {
        (0, true) => "every Run's stored JSON still reads back whole".to_string(),
        (n, true) => format!("{n} Run(s) unreadable: {}", bad.join(", ")),
        (_, false) => "the table of Runs itself cannot be read".to_string(),
    };
    format!(
        "{}: the history is damaged ({damage}); {runs}; what follows is what could be read (the Run files are the source of truth: add them to a new --db)",
        path.display()
    )
}
