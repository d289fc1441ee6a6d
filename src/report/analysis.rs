//! What `candor analyze` prints: each Run's findings (recomputed with the
//! current rules) and, for several Runs, the findings across hosts; as text
//! or as one JSON document.

use super::findings_text::findings_text;
use crate::result::{Finding, Run};
use std::fmt::Write as _;
use std::path::Path;

/// One analysed Run: where it came from, the Run, its recomputed findings,
/// and (with `--history`) its drift against its host's earlier Runs.
pub struct Analysed<'a> {
    pub file: &'a Path,
    pub run: &'a Run,
    pub findings: &'a [Finding],
    /// The drift findings and the database they come from, with `--history`.
    pub history: Option<(&'a Path, &'a [Finding])>,
}

/// The findings of each Run, then those across hosts (with several Runs).
pub fn analysis_text(runs: &[Analysed], cross: &[Finding]) -> String {
    let mut out = String::new();
    for a in runs {
        let _ = writeln!(out, "== {} ({}) ==", a.run.display_name(), a.file.display());
        findings_text(&mut out, a.findings);
        out.push('\n');
        if let Some((db, drift)) = a.history {
            let _ = writeln!(
                out,
                "== {} against its earlier Runs in {} ==",
                a.run.display_name(),
                db.display()
            );
            findings_text(&mut out, drift);
            out.push('\n');
        }
    }
    if runs.len() > 1 {
        let _ = writeln!(out, "== across hosts ==");
        findings_text(&mut out, cross);
    }
    out
}

/// `{"runs": [{file, host, findings}], "cross_host": [...]}`; with
/// `--history` each Run also has `"history": {"db", "findings"}`.
pub fn analysis_json(runs: &[Analysed], cross: &[Finding]) -> String {
    let doc = serde_json::json!({
        "runs": runs.iter().map(|a| {
            let mut v = serde_json::json!({
                "file": a.file.display().to_string(),
                "host": a.run.display_name(),
                "findings": a.findings,
            });
            if let Some((db, drift)) = a.history {
                v["history"] = serde_json::json!({"db": db.display().to_string(), "findings": drift});
            }
            v
        }).collect::<Vec<_>>(),
        "cross_host": cross,
    });
    let mut s = serde_json::to_string_pretty(&doc).expect("findings always serialise");
    s.push('\n');
    s
}
