//! fio job files: read the way fio 3.33 reads them (sections, `[global]`,
//! comments, `include`, `${VAR}`, fio's keywords and their arithmetic,
//! option aliases, units under `kb_base`), then lowered into candor's jobs
//! (`lower/`), refusing by name, with the file and line, whatever candor
//! cannot run faithfully.
//!
//! The flow: `source` reads the file and its includes into sections of
//! option lines; `parse` turns them into jobs with typed settings
//! (`expand` substitutes, `value` reads values, `options` knows every
//! option); `lower` makes the plan candor runs. Nothing here measures.

pub mod arith;
pub mod device;
pub mod expand;
pub mod lexer;
pub mod lower;
pub mod options;
pub mod parse;
pub mod source;
pub mod value;

pub use expand::Env;
pub use parse::{Job, Setting, Value};
pub use source::{FileSystem, InMemory, Pos, Reader, SourceFile, MAX_JOBS};

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// Mutated job files (characters that matter to the grammar put in,
    /// taken out, swapped) never panic the reader or the lowering, and
    /// every error is one line. The cargo-fuzz target (fuzz/) does the same
    /// at length; this keeps a quick version in every test run.
    #[test]
    fn mutated_job_files_give_jobs_or_one_line_errors() {
        let seeds = [
            "[global]\nbs=4k\nsize=${SIZE}\nioengine=libaio\n[a]\nrw=randread:8\nnumjobs=$ncpus*2\niodepth=4\n[b]\nstonewall\nrw=write\nrate=1m,\n",
            "[x]\ninclude inc.fio\nbssplit=4k/10:64k/50:32k/\nrwmixread=70\nss=iops:2%\nss_dur=2\ntime_based\nruntime=1s\n",
            "[a]\nsize=1m\nrate_iops=,50\nstartdelay=1-3\nfilename=/tmp/x\noffset_increment=4k\nnumjobs=2\n[b]\nwait_for=a\nkb_base=1000\nbs=8KiB\n",
        ];
        let alphabet = b"[]=:,;#$%{}\n-/0123456789kKmMgGx\\ _.i";
        let mut rng = crate::disk::buffer::Payload::new(11);
        for i in 0..3000 {
            let mut text: Vec<u8> = seeds[i % seeds.len()].as_bytes().to_vec();
            for _ in 0..(1 + rng.next_u64() % 6) {
                let at = (rng.next_u64() as usize) % (text.len() + 1);
                let c = alphabet[(rng.next_u64() as usize) % alphabet.len()];
                match rng.next_u64() % 3 {
                    0 => text.insert(at, c),
                    1 if at < text.len() => {
                        text.remove(at);
                    }
                    _ if at < text.len() => text[at] = c,
                    _ => {}
                }
            }
            let text = String::from_utf8_lossy(&text).into_owned();
            let files = InMemory(
                [
                    (PathBuf::from("/t/j.fio"), text.clone()),
                    (
                        PathBuf::from("/t/inc.fio"),
                        "rw=randrw\ninclude inc.fio\n".to_string(),
                    ),
                ]
                .into(),
            );
            let env = Env::fixed(&[("SIZE", "4m")], 4096, 1024, 2);
            let file = match read(&files, Path::new("/t/j.fio"), &[], &env) {
                Ok(f) => f,
                Err(e) => {
                    assert!(!e.to_string().contains('\n'), "{text:?}: {e}");
                    continue;
                }
            };
            let ctx = lower::Context {
                default_dir: PathBuf::from("/tmp"),
                dir_given: false,
                ignore_unsupported: i % 2 == 0,
                seed: Some(1),
                devices: Vec::new(),
            };
            if let Err(e) = lower::lower(&file, &ctx) {
                assert!(!e.to_string().contains('\n'), "{text:?}: {e}");
            }
        }
    }
}
