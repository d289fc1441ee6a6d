//! fio job files: read the way fio 3.33 reads them (sections, `[global]`,
//! comments, `include`, `${VAR}`, fio's keywords and their arithmetic,
//! option aliases, units under `kb_base`), then lowered into candor's jobs
//! (`lower.rs`), refusing by name, with the file and line, whatever candor
//! cannot run faithfully.
//!
//! The flow: `source` reads the file and its includes into sections of
//! option lines; `parse` turns them into jobs with typed settings
//! (`expand` substitutes, `value` reads values, `options` knows every
//! option); `lower` makes the plan candor runs. Nothing here measures.

pub mod arith;
pub mod expand;
pub mod lexer;
pub mod lower;
pub mod options;
pub mod parse;
pub mod source;
pub mod value;

pub use expand::Env;
pub use parse::{Job, Setting, Value};
pub use source::{FileSystem, InMemory, Pos, Reader, SourceFile};

use std::path::Path;

/// A job file that cannot be run: one line, with the file and line when
/// the problem is on one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFileError {
    pub pos: Option<Pos>,
    pub message: String,
}

impl JobFileError {
    /// A problem on one line.
    pub fn at(pos: &Pos, message: impl Into<String>) -> JobFileError {
        JobFileError {
            pos: Some(pos.clone()),
            message: message.into(),
        }
    }

    /// A problem with the file as a whole (the message names it).
    pub fn whole(message: impl Into<String>) -> JobFileError {
        JobFileError {
            pos: None,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for JobFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.pos {
            Some(pos) => write!(f, "{pos}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for JobFileError {}

/// A job file read: every file it took text from, and its jobs.
#[derive(Debug, Clone)]
pub struct JobFile {
    /// The job file as the user named it.
    pub path: String,
    /// The job file first, then each included file.
    pub files: Vec<SourceFile>,
    pub jobs: Vec<Job>,
}

/// Reads a job file (and its includes) into jobs. `sections`: fio's
/// `--section`, the job sections to keep (all when empty); naming one that
/// does not exist is an error.
pub fn read(
    reader: &dyn Reader,
    path: &Path,
    sections: &[String],
    env: &Env,
) -> Result<JobFile, JobFileError> {
    let raw = source::read(reader, path, sections)?;
    for wanted in sections {
        if !raw.names.contains(wanted) {
            return Err(JobFileError::whole(format!(
                "{}: no section [{wanted}] (sections: {})",
                path.display(),
                raw.names.join(", ")
            )));
        }
    }
    let jobs = parse::jobs(&raw, env)?;
    if jobs.is_empty() {
        return Err(JobFileError::whole(format!(
            "{}: no job sections, only [global] (fio would run nothing)",
            path.display()
        )));
    }
    Ok(JobFile {
        path: path.display().to_string(),
        files: raw.files,
        jobs,
    })
}
