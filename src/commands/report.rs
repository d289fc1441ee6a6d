//! `candor report`: render a Run file as text, Markdown, CSV, JSON or HTML.

use crate::error::usage;
use crate::report::{render_with, Format, Options, RateUnit};
use std::path::PathBuf;

/// Flags of `candor report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The Run file (written by `candor run`, `candor disk`, `candor import`, ...).
    #[arg(value_name = "RUN.json")]
    pub file: Option<PathBuf>,
    /// Output format: a terminal summary, Markdown tables, CSV (one row per
    /// measurement and direction), the Run as JSON, or one self-contained HTML file.
    #[arg(long, short, value_enum, default_value = "text")]
    pub format: Format,
    /// Write to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Unit of byte rates: MB (10^6 bytes/s) or MiB (2^20 bytes/s).
    #[arg(long, value_enum, default_value = "MB")]
    pub unit: RateUnit,
}

pub fn execute(args: Args) -> anyhow::Result<()> {
    let Some(file) = args.file else {
        return Err(usage(
            "no Run file given: candor report RUN.json [--format text|md|csv|json|html]",
        ));
    };
    let run = crate::result::read_run(&file)?;
    let text = render_with(&run, args.format, &Options { unit: args.unit });
    write_output(args.output.as_deref(), &text)
}

/// Writes to the file (atomically: temp file + rename) or to standard output.
pub fn write_output(output: Option<&std::path::Path>, text: &str) -> anyhow::Result<()> {
    match output {
        None => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                // A closed pipe (`| head`) is not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => Ok(other?),
            }
        }
        Some(path) => {
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            };
            if !dir.is_dir() {
                return Err(usage(format!(
                    "--output {}: directory {} does not exist",
                    path.display(),
                    dir.display()
                )));
            }
            let name = path
                .file_name()
                .ok_or_else(|| usage(format!("--output {}: not a file name", path.display())))?;
            let tmp = dir.join(format!(
                ".{}.{}.tmp",
                name.to_string_lossy(),
                std::process::id()
            ));
            let result = std::fs::write(&tmp, text).and_then(|_| std::fs::rename(&tmp, path));
            if let Err(e) = result {
                let _ = std::fs::remove_file(&tmp);
                return Err(anyhow::anyhow!(
                    "--output {}: cannot write: {e}",
                    path.display()
                ));
            }
            Ok(())
        }
    }
}
