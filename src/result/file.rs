//! Reading and writing Run files. Writing goes through `output` (atomic: a
//! reader never sees half a Run); reading names the file and the problem for
//! anything that is not a Run.

use super::run::{Run, SCHEMA_FAMILY, SCHEMA_MAJOR};
use crate::error::printable;
use crate::output::Replace;
use std::path::{Path, PathBuf};

/// Why a file could not be read as a Run. Each message names the file.
#[derive(Debug, thiserror::Error)]
pub enum ReadRunError {
    /// Not a regular file, too large, not text, or unreadable (`input`).
    #[error(transparent)]
    Input(#[from] crate::input::InputError),
    #[error("{path}: empty file, not a candor Run")]
    Empty { path: PathBuf },
    #[error("{path}: not JSON: {detail}")]
    NotJson { path: PathBuf, detail: String },
    #[error("{path}: truncated JSON (the file ends early: {detail})")]
    Truncated { path: PathBuf, detail: String },
    #[error("{path}: JSON, but not a candor Run (no \"schema\": \"candor.run/N\" field)")]
    NotARun { path: PathBuf },
    #[error("{path}: written by a newer candor (schema {schema}); this build reads up to {SCHEMA_FAMILY}{SCHEMA_MAJOR}: upgrade candor")]
    Newer { path: PathBuf, schema: String },
    #[error("{path}: a candor Run, but malformed: {detail}")]
    Malformed { path: PathBuf, detail: String },
}

/// Reads (`input::read_text`: a regular file, bounded) and validates a Run file.
pub fn read_run(path: &Path) -> Result<Run, ReadRunError> {
    parse_run(&crate::input::read_text(path)?, path)
}

/// Parses and validates the text of a Run file (`path` only names it in
/// errors). A leading byte-order mark is ignored, as every reader does.
pub fn parse_run(text: &str, path: &Path) -> Result<Run, ReadRunError> {
    let p = || path.to_path_buf();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(ReadRunError::Empty { path: p() });
    }
    let value: serde_json::Value = crate::input::parse_json(text).map_err(|e| {
        if e.is_eof() {
            ReadRunError::Truncated {
                path: p(),
                detail: printable(&e.to_string()),
            }
        } else {
            ReadRunError::NotJson {
                path: p(),
                detail: printable(&e.to_string()),
            }
        }
    })?;
    let schema = value
        .get("schema")
        .and_then(|s| s.as_str())
        .ok_or_else(|| ReadRunError::NotARun { path: p() })?;
    let major: u32 = schema
        .strip_prefix(SCHEMA_FAMILY)
        .and_then(|m| m.split('.').next())
        .and_then(|m| m.parse().ok())
        .ok_or_else(|| ReadRunError::NotARun { path: p() })?;
    if major > SCHEMA_MAJOR {
        return Err(ReadRunError::Newer {
            path: p(),
            schema: schema.to_string(),
        });
    }
    super::sane::check(&value).map_err(|detail| ReadRunError::Malformed {
        path: p(),
        detail: format!("impossible value: {detail}"),
    })?;
    // serde quotes the offending value, which may hold anything.
    let malformed = |e: serde_json::Error| ReadRunError::Malformed {
        path: p(),
        detail: printable(&e.to_string()),
    };
    // The measurements one by one, so that the first signal stops a Run of
    // 30,000 of them here too (the rest is left for the exit to free).
    let mut value = value;
    let measurements = match value.as_object_mut().and_then(|o| o.remove("measurements")) {
        None => Vec::new(),
        Some(serde_json::Value::Array(ms)) => ms,
        Some(other) => {
            return Err(ReadRunError::Malformed {
                path: p(),
                detail: format!("measurements is {}, not a list", kind_of(&other)),
            })
        }
    };
    let mut run: Run = serde_json::from_value(value).map_err(malformed)?;
    run.measurements.reserve(measurements.len());
    let mut measurements = measurements.into_iter();
    for m in measurements.by_ref() {
        if crate::cancel::cancelled() {
            std::mem::forget(measurements);
            return Err(ReadRunError::Malformed {
                path: p(),
                detail: "stopped by a signal".into(),
            });
        }
        run.measurements
            .push(serde_json::from_value(m).map_err(malformed)?);
    }
    Ok(run)
}

/// A JSON value's kind, in words.
fn kind_of(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "an object",
    }
}

/// Writes the Run through the one writer (`output::write_atomic`: a new
/// temporary file beside the target, fsync, rename over what `replace` allows).
pub fn write_run(run: &Run, path: &Path, replace: Replace) -> std::io::Result<()> {
    crate::output::write_atomic(path, run_json(run).as_bytes(), replace)
}

/// The text of a Run file, exactly as `write_run` writes it (the history
/// stores these bytes for a Run that was never written to a file).
pub fn run_json(run: &Run) -> String {
    let mut json = serde_json::to_string_pretty(run).expect("a Run always serialises");
    json.push('\n');
    json
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::Run;

    fn parse(text: &str) -> Result<Run, ReadRunError> {
        parse_run(text, Path::new("x.json"))
    }

    #[test]
    fn round_trip() {
        let run = Run::new(vec!["candor".into()]);
        let text = serde_json::to_string(&run).unwrap();
        let back = parse(&text).unwrap();
        assert_eq!(back.schema, "candor.run/1");
    }

    #[test]
    fn bad_inputs_name_the_problem() {
        assert!(matches!(parse(""), Err(ReadRunError::Empty { .. })));
        assert!(matches!(parse("hello"), Err(ReadRunError::NotJson { .. })));
        assert!(matches!(
            parse("{\"schema\": \"candor.r"),
            Err(ReadRunError::Truncated { .. })
        ));
        assert!(matches!(
            parse("{\"a\": 1}"),
            Err(ReadRunError::NotARun { .. })
        ));
        assert!(matches!(parse("[1,2]"), Err(ReadRunError::NotARun { .. })));
        let newer = parse("{\"schema\": \"candor.run/2\"}").unwrap_err();
        assert!(matches!(newer, ReadRunError::Newer { .. }));
        assert!(newer.to_string().starts_with("x.json: "));
        assert!(matches!(
            parse("{\"schema\": \"candor.run/1\"}"),
            Err(ReadRunError::Malformed { .. })
        ));
    }
}
