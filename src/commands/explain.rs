//! `candor explain ID`: the long explanation of a finding, with its
//! thresholds; `candor explain --list`: every finding id with its title.

use crate::findings::{catalogue, info};

/// Flags of `candor explain`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The finding id (e.g. host-cache, limiter-flat, caps).
    #[arg(value_name = "ID")]
    pub id: Option<String>,
    /// List every finding id with its title.
    #[arg(long, conflicts_with = "id")]
    pub list: bool,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    use std::fmt::Write;
    // Built as text and written at once: `candor explain X | head` closes
    // the pipe early, which is not an error (println! would panic).
    let mut out = String::new();
    if args.list {
        for f in catalogue() {
            let _ = writeln!(
                out,
                "{:<20} {:<8} {}",
                f.id,
                format!("{:?}", f.severity).to_lowercase(),
                f.title
            );
        }
        return crate::output::write_text(None, &out, false);
    }
    let Some(id) = args.id else {
        return Err(crate::error::usage(
            "explain needs a finding id (e.g. `candor explain host-cache`) or --list",
        ));
    };
    let Some(f) = info(&id) else {
        return Err(crate::error::usage(format!(
            "unknown finding id '{id}': `candor explain --list` lists them"
        )));
    };
    let _ = writeln!(
        out,
        "{} ({}): {}",
        f.id,
        format!("{:?}", f.severity).to_lowercase(),
        f.title
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", wrap(f.explanation, 78));
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", wrap(&format!("Means: {}", f.meaning), 78));
    let _ = writeln!(
        out,
        "{}",
        wrap(&format!("Does not prove: {}", f.not_proven), 78)
    );
    if !f.thresholds.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "Thresholds:");
        for (name, value) in f.thresholds {
            let _ = writeln!(out, "  {name} = {value}");
        }
    }
    crate::output::write_text(None, &out, false)
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
