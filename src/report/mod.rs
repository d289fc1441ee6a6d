//! Reports: every rendering of Runs lives here. One Run, or several side
//! by side, as text, Markdown, CSV, JSON or one self-contained HTML file;
//! the findings as text; what the sweep and compute commands print; a fleet
//! run's table of hosts beside its comparison (`fleet.rs`).
//!
//! Reporting never measures: everything here is a pure function of Runs.
//! The figures are first reduced to a summary (`summary.rs`: medians over
//! passes, spread, main/control ratios) or a comparison (`compare.rs`), then
//! each format (one exporter per file, behind the `Exporter` trait, as
//! hyperfine's exporters) only lays them out. Units are always written, and
//! rates can be shown in MB/s (10^6) or MiB/s (2^20) because caps hide in one
//! of them.

mod analysis;
mod compare;
mod compute_text;
mod csv;
pub mod explanation;
mod figure_rows;
mod findings_text;
mod fleet;
mod fmt;
pub mod history;
mod history_html;
pub mod history_pages;
mod html;
mod html_sections;
mod job_plan;
mod json;
mod kept_finding;
mod markdown;
mod stack;
mod summary;
mod svg;
mod sweep;
mod table;
mod text;
mod unixbench_text;

pub use analysis::{analysis_json, analysis_text, Analysed};
pub use compare::{Column, ColumnQuantity, ComparedHost, Comparison};
pub use compute_text::compute_text;
pub use csv::field as csv_field;
pub use figure_rows::{ExportFormat, FigureWriter};
pub use findings_text::findings_text;
pub use fleet::{
    fleet_clean_text, fleet_compare_files, fleet_comparison, fleet_table, render_fleet,
};
pub use history_html::{history_html, HostSection};
pub use job_plan::jobfile_plan;
pub use summary::{ComputeRow, Direction, DiskRow, Summary};
pub use sweep::{caps_text, sweep_text, table as sweep_table};
pub use unixbench_text::unixbench_text;

use crate::result::Run;

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// A terminal summary.
    #[default]
    Text,
    /// Markdown tables that paste into a forum post or a README.
    #[value(alias = "markdown")]
    Md,
    /// One row per measurement and direction (report) or per host (compare), stable columns.
    Csv,
    /// The Run itself, normalised (report), or the comparison table (compare).
    Json,
    /// One self-contained HTML file: tables, findings, inline SVG charts, no scripts.
    Html,
}

impl Format {
    /// The name `--format` takes (`text`, `md`, ...): clap's, the one spelling.
    pub fn name(self) -> String {
        use clap::ValueEnum;
        let value = self.to_possible_value().expect("every format has a name");
        value.get_name().to_string()
    }

    /// The extension of a file written in this format.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Text => "txt",
            Format::Md => "md",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Html => "html",
        }
    }

    /// The format a file's extension names, if any.
    pub fn from_extension(ext: &str) -> Option<Format> {
        use clap::ValueEnum;
        Format::value_variants()
            .iter()
            .copied()
            .find(|f| f.extension() == ext)
    }

    /// A `--format` parser that takes only `allowed`: `--help` lists
    /// exactly those (with their help and aliases), and clap refuses any
    /// other value with that list. Every command that prints a subset of
    /// the formats (`analyze`, `history list`, `history show`, `history
    /// report`, `unixbench`) says so through it, instead of a vocabulary of
    /// its own. (A history trend's svg and an export's ndjson are not a
    /// Run's formats: `history_pages::TrendFormat` and `ExportFormat` name them.)
    pub fn only(
        allowed: &'static [Format],
    ) -> impl clap::builder::TypedValueParser<Value = Format> {
        use clap::builder::TypedValueParser;
        use clap::ValueEnum;
        let values = allowed
            .iter()
            .map(|f| f.to_possible_value().expect("every format has a name"));
        clap::builder::PossibleValuesParser::new(values)
            .map(|name| Format::from_str(&name, false).expect("one of the listed names"))
    }
}

/// How byte rates are shown. Both are always available; the unit is always written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum RateUnit {
    /// MB/s: 10^6 bytes per second (what most tools and vendors print).
    #[default]
    #[value(name = "MB", alias = "mb")]
    Mb,
    /// MiB/s: 2^20 bytes per second (where caps such as "500 MiB/s" are often set).
    #[value(name = "MiB", alias = "mib")]
    Mib,
}

impl RateUnit {
    /// `MB/s` or `MiB/s`.
    pub fn label(self) -> &'static str {
        match self {
            RateUnit::Mb => "MB/s",
            RateUnit::Mib => "MiB/s",
        }
    }

    /// Bytes per second in this unit.
    pub fn scale(self, bytes_per_sec: f64) -> f64 {
        match self {
            RateUnit::Mb => crate::units::mb_per_sec(bytes_per_sec),
            RateUnit::Mib => crate::units::mib_per_sec(bytes_per_sec),
        }
    }
}

/// Rendering options beyond the format.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// The unit of byte rates in tables and charts.
    pub unit: RateUnit,
    /// The text summary in full: each finding's evidence, the block stack
    /// of every measurement, every note (the other formats always are).
    pub verbose: bool,
}

/// One output format: how a Run and a comparison are laid out.
pub trait Exporter {
    /// One Run.
    fn run(&self, run: &Run, options: &Options) -> String;
    /// Several Runs side by side (already sorted).
    fn compare(&self, comparison: &Comparison, options: &Options) -> String;
}

fn exporter(format: Format) -> Box<dyn Exporter> {
    match format {
        Format::Text => Box::new(text::TextExporter),
        Format::Md => Box::new(markdown::MarkdownExporter),
        Format::Csv => Box::new(csv::CsvExporter),
        Format::Json => Box::new(json::JsonExporter),
        Format::Html => Box::new(html::HtmlExporter),
    }
}

/// Renders a Run in a format, rates in MB/s.
pub fn render(run: &Run, format: Format) -> String {
    render_with(run, format, &Options::default())
}

/// Renders a Run in a format with options (e.g. rates in MiB/s).
pub fn render_with(run: &Run, format: Format, options: &Options) -> String {
    exporter(format).run(run, options)
}

/// Renders several Runs side by side, one row per host, rates in MB/s,
/// with `cross`, the findings across them (`findings::analyze_many`).
/// `sort` names a column (or a unique part of its name, or `host`); the
/// best value comes first. An unknown or ambiguous column is a usage error
/// (exit code 2) that lists the columns.
pub fn render_compare(
    runs: &[Run],
    cross: &[crate::result::Finding],
    format: Format,
    sort: Option<&str>,
) -> anyhow::Result<String> {
    render_compare_with(runs, cross, format, sort, &Options::default())
}

/// `render_compare` with options.
pub fn render_compare_with(
    runs: &[Run],
    cross: &[crate::result::Finding],
    format: Format,
    sort: Option<&str>,
    options: &Options,
) -> anyhow::Result<String> {
    let mut comparison = Comparison::of(runs, cross.to_vec());
    if let Some(key) = sort {
        comparison.sort_by(key).map_err(crate::error::usage)?;
    }
    Ok(exporter(format).compare(&comparison, options))
}
