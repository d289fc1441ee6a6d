//! `candor analyze`: recompute the findings of one or more Runs with the
//! current rules (old, imported or hand-made Runs included) and print them;
//! with several Runs, the cross-host findings too. `--write` stores the new
//! findings back into each file (atomically).

use crate::findings::{analyze, analyze_many};
use crate::result::{read_run, write_run_atomic, Finding, FindingStatus, Run, Severity};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Flags of `candor analyze`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Run files (JSON written by candor run/disk/sweep/import).
    #[arg(required = true, value_name = "RUN.json")]
    pub runs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Store the recomputed findings back into each Run file.
    #[arg(long)]
    pub write: bool,
}

/// How findings are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let mut runs: Vec<Run> = Vec::new();
    for path in &args.runs {
        runs.push(read_run(path)?);
    }
    let per_run: Vec<Vec<Finding>> = runs.iter().map(analyze).collect();
    let cross = if runs.len() > 1 {
        analyze_many(&runs)
    } else {
        Vec::new()
    };

    if args.write {
        for ((run, findings), path) in runs.iter_mut().zip(&per_run).zip(&args.runs) {
            run.findings = findings.clone();
            write_run_atomic(run, path)
                .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))?;
        }
    }

    match args.format {
        Format::Json => {
            let doc = serde_json::json!({
                "runs": runs.iter().zip(&per_run).zip(&args.runs).map(|((run, f), path)| serde_json::json!({
                    "file": path.display().to_string(),
                    "host": run.display_name(),
                    "findings": f,
                })).collect::<Vec<_>>(),
                "cross_host": cross,
            });
            println!("{}", serde_json::to_string_pretty(&doc)?);
        }
        Format::Text => {
            let mut out = String::new();
            for ((run, f), path) in runs.iter().zip(&per_run).zip(&args.runs) {
                let _ = writeln!(out, "== {} ({}) ==", run.display_name(), path.display());
                render_text(&mut out, f);
                out.push('\n');
            }
            if runs.len() > 1 {
                let _ = writeln!(out, "== across hosts ==");
                render_text(&mut out, &cross);
            }
            print!("{out}");
        }
    }
    Ok(())
}

fn tag(f: &Finding) -> &'static str {
    match (f.status, f.severity) {
        (FindingStatus::NotChecked, _) => "NOT CHECKED",
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
pub fn render_text(out: &mut String, findings: &[Finding]) {
    let mut sorted: Vec<&Finding> = findings.iter().filter(|f| f.id != "claims").collect();
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
    if let Some(c) = findings.iter().find(|f| f.id == "claims") {
        for (title, key) in [("Can claim:", "can"), ("Cannot claim:", "cannot")] {
            let _ = writeln!(out, "\n{title}");
            for s in c.evidence[key].as_array().into_iter().flatten() {
                let _ = writeln!(out, "  - {}", s.as_str().unwrap_or_default());
            }
        }
    }
}
