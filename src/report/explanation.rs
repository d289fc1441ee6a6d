//! `candor explain`'s pages: every finding id with its title, and one
//! finding's long explanation with its thresholds, wrapped for a terminal.

use crate::findings::{catalogue, info};
use std::fmt::Write;

/// Every finding id, its severity and title, one per line.
pub fn finding_list() -> String {
    let mut out = String::new();
    for f in catalogue() {
        let _ = writeln!(
            out,
            "{:<20} {:<8} {}",
            f.id,
            format!("{:?}", f.severity).to_lowercase(),
            f.title
        );
    }
    out
}

/// One finding's explanation, meaning, limits and thresholds; None for an
/// unknown id.
pub fn finding_page(id: &str) -> Option<String> {
    let f = info(id)?;
    let mut out = String::new();
    let severity = format!("{:?}", f.severity).to_lowercase();
    let _ = writeln!(out, "{} ({severity}): {}", f.id, f.title);
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", wrap(f.explanation, 78));
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", wrap(&format!("Means: {}", f.meaning), 78));
    let not_proven = format!("Does not prove: {}", f.not_proven);
    let _ = writeln!(out, "{}", wrap(&not_proven, 78));
    if !f.thresholds.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "Thresholds:");
        for (name, value) in f.thresholds {
            let _ = writeln!(out, "  {name} = {value}");
        }
    }
    Some(out)
}

/// Greedy word wrap at `width` columns.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split_whitespace() {
        if line > 0 && line + 1 + word.len() > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += word.len();
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn words_wrap_at_the_width_and_stay_whole() {
        let text = "aaa bbb ccc dddddddddd e";
        assert_eq!(super::wrap(text, 7), "aaa bbb\nccc\ndddddddddd\ne");
        assert!(super::finding_page("host-cache").is_some());
        assert!(super::finding_page("no-such-finding").is_none());
    }
}
