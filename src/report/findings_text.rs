//! Findings as plain text, the way `candor analyze`, `candor sweep` and the
//! end of a battery print them: checked ones first (refusals, warnings,
//! info), then what was not checked, then the can/cannot-claim sentences.

use crate::findings::Claims;
use crate::result::{Finding, FindingStatus, Severity};
use std::fmt::Write as _;

fn tag(f: &Finding) -> &'static str {
    match (f.status, f.severity) {
        (FindingStatus::NotChecked, _) => "NOT CHECKED",
        (_, Severity::Corruption) => "CORRUPTED",
        (_, Severity::Refusal) => "REFUSED",
        (_, Severity::Warning) => "WARNING",
        (_, Severity::Info) => "INFO",
    }
}

/// One line of `key=value` pairs from a flat evidence object (nested values as compact JSON).
pub fn evidence_line(e: &serde_json::Value) -> String {
    match e {
        serde_json::Value::Object(map) => map
            .iter()
            .filter(|(_, v)| !(v.is_null() || v.as_array().is_some_and(|a| a.is_empty())))
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// The findings as plain text: checked ones first (refusals, warnings, info),
/// then what was not checked, then the can/cannot-claim sentences.
pub fn findings_text(out: &mut String, findings: &[Finding]) {
    let mut sorted: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.id != crate::findings::CLAIMS_ID)
        .collect();
    sorted.sort_by_key(|f| {
        (
            f.status == FindingStatus::NotChecked,
            std::cmp::Reverse(f.severity),
        )
    });
    if sorted.is_empty() {
        let _ = writeln!(out, "no findings");
    }
    for f in sorted {
        let subject = f
            .subject
            .as_deref()
            .map(|s| format!(" [{s}]"))
            .unwrap_or_default();
        let _ = writeln!(out, "{:<11} {}{}", tag(f), f.id, subject);
        let _ = writeln!(out, "    {}", f.verdict);
        if f.status == FindingStatus::Checked {
            let _ = writeln!(out, "    evidence: {}", evidence_line(&f.evidence));
            if !f.not_proven.is_empty() && f.severity > Severity::Info {
                let _ = writeln!(out, "    does not prove: {}", f.not_proven);
            }
        }
    }
    if let Some(c) = Claims::stored(findings) {
        for (title, lines) in [("Can claim:", &c.can), ("Cannot claim:", &c.cannot)] {
            let _ = writeln!(out, "\n{title}");
            for s in lines {
                let _ = writeln!(out, "  - {s}");
            }
        }
    }
}
