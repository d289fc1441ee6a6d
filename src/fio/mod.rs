//! fio's vocabulary, both ways: fio's JSON output read into a Run
//! (`import`), and the fio command line that reproduces one of candor's jobs
//! (`command`). Job files will live here too. Nothing here measures.

mod check;
pub mod command;
mod era;
pub mod import;
mod job;
pub mod jobfile;
mod latency;
mod merge;
pub mod output;

pub use import::{import, import_files, import_hosts, parse_files};
pub use latency::percentile_from_bins;
pub use output::{parse_fio, FioOutput, ImportError};

/// A word for a POSIX shell: as it is when it is plainly safe, else in single quotes.
pub(crate) fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+%@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A number in a fio JSON object, 0.0 when absent.
pub(crate) fn f64_of(v: &serde_json::Value, key: &str) -> f64 {
    v.get(key).and_then(|x| x.as_f64()).unwrap_or(0.0)
}

/// A count in a fio JSON object (negative or fractional values clamp), 0 when absent.
pub(crate) fn u64_of(v: &serde_json::Value, key: &str) -> u64 {
    v.get(key)
        .and_then(|x| x.as_u64().or_else(|| x.as_f64().map(|f| f.max(0.0) as u64)))
        .unwrap_or(0)
}
