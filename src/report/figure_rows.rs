//! `candor history export`'s layout: the history's figure rows
//! (`history::export`) as CSV (a header, RFC 4180 quoting) or NDJSON (one
//! JSON object per line, the same names), written as they come.

use crate::history::export::{Row, COLUMNS};
use serde_json::Value;
use std::io::Write;

/// CSV or NDJSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Csv,
    /// Newline-delimited JSON: one object per figure.
    Ndjson,
}

/// Writes figure rows to `out` in one format: `start` before the first row
/// (the CSV header), then `row` for each.
pub struct FigureWriter<'a> {
    format: ExportFormat,
    out: &'a mut dyn Write,
}

impl<'a> FigureWriter<'a> {
    /// Writes the header, if the format has one.
    pub fn start(format: ExportFormat, out: &'a mut dyn Write) -> std::io::Result<Self> {
        if format == ExportFormat::Csv {
            writeln!(out, "{}", COLUMNS.join(","))?;
        }
        Ok(FigureWriter { format, out })
    }

    /// Writes one figure.
    pub fn row(&mut self, cells: &Row) -> anyhow::Result<()> {
        match self.format {
            ExportFormat::Csv => {
                let line: Vec<String> = cells
                    .iter()
                    .map(|c| match c {
                        Value::Null => String::new(),
                        // A label's control characters are never data: escaped, as on a terminal.
                        Value::String(s) => super::csv_field(&crate::error::terminal_safe(s)),
                        other => other.to_string(),
                    })
                    .collect();
                writeln!(self.out, "{}", line.join(","))?;
            }
            ExportFormat::Ndjson => {
                let object: serde_json::Map<String, Value> = COLUMNS
                    .iter()
                    .map(|c| c.to_string())
                    .zip(cells.iter().cloned())
                    .collect();
                serde_json::to_writer(&mut *self.out, &object)?;
                self.out.write_all(b"\n")?;
            }
        }
        Ok(())
    }
}
