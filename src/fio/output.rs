//! One fio output file: finding the JSON in it (fio and shells print
//! text before it), checking it is fio's, and errors that name the file.

use crate::result::SCHEMA_FAMILY;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Why a file could not be imported. Each message names the file.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Not a regular file, too large, not text, or unreadable (`input`).
    #[error(transparent)]
    Input(#[from] crate::input::InputError),
    #[error("{path}: {problem}")]
    Bad { path: PathBuf, problem: String },
}

pub(super) fn bad(path: &Path, problem: impl Into<String>) -> ImportError {
    ImportError::Bad {
        path: path.to_path_buf(),
        // Problems quote the file (job names, values), which may hold anything.
        problem: crate::error::printable(&problem.into()),
    }
}

/// One fio output file, parsed.
#[derive(Debug)]
pub struct FioOutput {
    pub path: PathBuf,
    /// `fio-3.33`.
    pub version: String,
    /// Unix seconds when fio printed the output (the end of the run).
    pub timestamp: Option<u64>,
    /// Lines before the JSON (fio's notes and warnings).
    pub preamble: Vec<String>,
    pub global: Map<String, Value>,
    pub jobs: Vec<Value>,
    /// fio's `disk_util` (checked by `check::output`).
    pub disk_util: Vec<Value>,
    /// What reading this fio version's units took (`era`), for the Run's notes.
    pub notes: Vec<String>,
    /// fio's client/server output (`client_stats`): each job names its `hostname`.
    pub client_server: bool,
}

impl Drop for FioOutput {
    /// 30,000 parsed jobs take a second and more to free: freed one by one
    /// until the first signal (`cancel::drop_until_stopped`).
    fn drop(&mut self) {
        crate::cancel::drop_until_stopped(std::mem::take(&mut self.jobs));
    }
}

/// Finds and parses the JSON in a fio output file. Text before the JSON
/// (fio's notes and warnings, or its normal output) and after it is allowed.
pub fn parse_fio(text: &str, path: &Path) -> Result<FioOutput, ImportError> {
    let text = text.trim_start_matches('\u{feff}');
    if text.trim().is_empty() {
        return Err(bad(path, "empty file, not fio JSON output"));
    }
    // The JSON starts at the first line that begins with '{'.
    let mut start = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with('{') {
            start = Some(offset);
            break;
        }
        offset += line.len();
    }
    let Some(start) = start else {
        return Err(bad(
            path,
            "no JSON found: not fio JSON output (run fio with --output-format=json or json+)",
        ));
    };
    let preamble: Vec<String> = text[..start]
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    // Read through `input::stoppable`: a 100 MiB output parses for
    // seconds, and the first signal stops it.
    let mut stream = serde_json::Deserializer::from_reader(crate::input::stoppable(&text[start..]))
        .into_iter::<Value>();
    let value = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) if e.is_eof() => {
            return Err(bad(
                path,
                format!("truncated fio JSON (the file ends early: {e})"),
            ))
        }
        Some(Err(e)) => return Err(bad(path, format!("not valid JSON: {e}"))),
        None => return Err(bad(path, "no JSON found: not fio JSON output")),
    };
    let Value::Object(top) = value else {
        return Err(bad(path, "JSON, but not fio output (not an object)"));
    };
    if top
        .get("schema")
        .and_then(|s| s.as_str())
        .is_some_and(|s| s.starts_with(SCHEMA_FAMILY))
    {
        return Err(bad(
            path,
            "this is a candor Run, not fio output: use `candor report` on it",
        ));
    }
    // A file re-written by a script may have lost fio's version line; its
    // jobs still say it is fio's (their units are then read from the keys).
    let jobs_named = top
        .get("jobs")
        .and_then(Value::as_array)
        .and_then(|j| j.first())
        .is_some_and(|j| j.get("jobname").is_some());
    let version = match top.get("fio version").and_then(|v| v.as_str()) {
        Some(v) => v.to_string(),
        None if jobs_named => "(no fio version)".to_string(),
        None => {
            return Err(bad(
                path,
                "JSON, but not fio output (no \"fio version\" field)",
            ))
        }
    };
    let mut top = top;
    // `fio --client host ...` prints its jobs as `client_stats`, each with its
    // host, and one more named "All clients" (their sum).
    let client_server = !top.contains_key("jobs") && top.contains_key("client_stats");
    let list = if client_server {
        "client_stats"
    } else {
        "jobs"
    };
    let Some(jobs) = top.get_mut(list).and_then(|j| j.as_array_mut()) else {
        return Err(bad(path, "fio output without a \"jobs\" list"));
    };
    if client_server {
        jobs.retain(|j| j.get("jobname").and_then(Value::as_str) != Some("All clients"));
    }
    if jobs.is_empty() {
        return Err(bad(path, "fio output with no jobs"));
    }
    let notes = super::era::normalize(path, &version, jobs)?;
    if client_server {
        let jobs = top.remove("client_stats").unwrap_or_default();
        for (i, j) in jobs.as_array().into_iter().flatten().enumerate() {
            if j.get("hostname")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                return Err(bad(
                    path,
                    format!("client_stats[{i}] names no hostname: not fio client/server output"),
                ));
            }
        }
        top.insert("jobs".into(), jobs);
    }
    super::check::output(path, &top)?;
    // Taken out, not copied: a copy of 100 MiB of jobs took seconds.
    let jobs = match top.remove("jobs") {
        Some(Value::Array(jobs)) => jobs,
        _ => Vec::new(),
    };
    let global = match top.remove("global options") {
        Some(Value::Object(g)) => g,
        _ => Default::default(),
    };
    let disk_util = match top.remove("disk_util") {
        Some(Value::Array(d)) => d,
        _ => Vec::new(),
    };
    Ok(FioOutput {
        path: path.to_path_buf(),
        version,
        timestamp: top.get("timestamp").and_then(|t| t.as_u64()),
        preamble,
        global,
        jobs,
        disk_util,
        notes,
        client_server,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_names_the_problem() {
        let p = Path::new("x.json");
        let e = |t: &str| parse_fio(t, p).unwrap_err().to_string();
        assert_eq!(e(""), "x.json: empty file, not fio JSON output");
        assert!(e("hello\nworld\n").contains("no JSON found"));
        assert!(e("{\"fio version\": \"fio-3.33\", \"jobs\": [").contains("truncated"));
        assert!(e("{\"a\": 1}").contains("not fio output"));
        assert!(e("{\"schema\": \"candor.run/1\"}").contains("candor Run"));
        assert!(e("{\"fio version\": \"fio-3.33\", \"jobs\": []}").contains("no jobs"));
        assert!(e("{nope}").contains("not valid JSON"));
    }
}
