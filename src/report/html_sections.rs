//! The HTML sections every page shares, written once: a finding (its
//! verdict as a sentence, what it means and does not prove, its evidence
//! folded in a `<details>` element as a list of names and values, never
//! as a raw structure), the findings of a comparison (a Run's report, a
//! comparison and a fleet's page), and the notes.

use super::compare::{Comparison, FindingEntry};
use super::fmt;
use super::svg::esc;
use crate::result::Finding;
use std::fmt::Write;

/// One checked finding; `host` names the Run it comes from in a comparison.
pub fn finding(f: &Finding, host: Option<&str>, id: &str) -> String {
    let sev = fmt::severity(f.severity);
    let host = host.map_or(String::new(), |h| format!("<b>{}</b>: ", esc(h)));
    let mut out = format!(
        "<div class=\"finding {sev}\" id=\"{}\"><p>{host}<span class=\"sev\">{sev}</span> <b>{}</b></p>",
        esc(id),
        esc(&fmt::finding_head(f))
    );
    if !f.meaning.is_empty() {
        let _ = write!(out, "<p>means: {}</p>", esc(&f.meaning));
    }
    if !f.not_proven.is_empty() {
        let _ = write!(out, "<p>does not prove: {}</p>", esc(&f.not_proven));
    }
    if let Some(list) = evidence(&f.evidence) {
        let _ = write!(out, "<details><summary>evidence</summary>{list}</details>");
    }
    out.push_str("</div>\n");
    out
}

/// A comparison's findings under their heading: each host's warnings and
/// worse (and the findings across hosts) as `finding`s, the rest counted.
pub fn comparison_findings(c: &Comparison) -> String {
    let entries = c.finding_entries();
    if entries.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h2>Findings</h2>\n");
    for (n, (host, entry)) in entries.iter().enumerate() {
        match entry {
            FindingEntry::Checked(f) => {
                out.push_str(&finding(f, Some(host), &format!("finding-{n}-{}", f.id)))
            }
            other => {
                let _ = writeln!(
                    out,
                    "<p class=\"muted\"><b>{}</b>: {}</p>",
                    esc(host),
                    esc(&other.line())
                );
            }
        }
    }
    out
}

/// The notes under their heading (nothing without any).
pub fn notes(notes: &[String]) -> String {
    if notes.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h2>Notes</h2><ul>");
    for n in notes {
        let _ = write!(out, "<li>{}</li>", esc(n));
    }
    out.push_str("</ul>\n");
    out
}

/// A finding's evidence as a definition list (nested objects as nested
/// lists, arrays as bulleted items); None when it holds nothing.
fn evidence(value: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    match value {
        Value::Null => None,
        Value::Array(items) if items.is_empty() => None,
        Value::Object(map) => {
            let mut out = String::from("<dl class=\"evidence\">");
            let mut any = false;
            for (k, v) in map {
                if let Some(shown) = evidence(v) {
                    let _ = write!(out, "<dt>{}</dt><dd>{shown}</dd>", esc(k));
                    any = true;
                }
            }
            out.push_str("</dl>");
            any.then_some(out)
        }
        Value::Array(items) if items.iter().all(|v| !v.is_object()) => Some(esc(&items
            .iter()
            .map(fmt::evidence)
            .collect::<Vec<_>>()
            .join(", "))),
        Value::Array(items) => {
            let mut out = String::from("<ul>");
            for v in items {
                let _ = write!(out, "<li>{}</li>", evidence(v).unwrap_or_default());
            }
            out.push_str("</ul>");
            Some(out)
        }
        other => Some(esc(&fmt::evidence(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::evidence;

    /// Names and values, nested ones as nested lists, empty ones left out,
    /// every string escaped: no `{k=v}` and no JSON on the page.
    #[test]
    fn evidence_is_a_list_of_names_and_values() {
        let v = serde_json::json!({
            "judged": 1,
            "none": null,
            "empty": [],
            "layers": ["loop0", "<vda>"],
            "measurements": [{"share": 0.0449, "seconds": [{"second": 0}]}],
        });
        let html = evidence(&v).unwrap();
        assert!(!html.contains('{') && !html.contains("judged="), "{html}");
        assert!(!html.contains("none") && !html.contains("empty"), "{html}");
        assert!(html.contains("<dt>layers</dt><dd>loop0, &lt;vda&gt;</dd>"));
        assert!(html.contains("<dt>measurements</dt><dd><ul><li><dl class=\"evidence\"><dt>seconds</dt><dd><ul><li><dl class=\"evidence\"><dt>second</dt><dd>0</dd></dl></li></ul></dd><dt>share</dt><dd>0.0449</dd></dl></li></ul></dd>"), "{html}");
        assert_eq!(evidence(&serde_json::json!({"x": null})), None);
    }
}
