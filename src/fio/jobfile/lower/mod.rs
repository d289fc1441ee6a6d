//! A job file's jobs lowered into what candor runs (`plan::jobfile` wraps
//! them into a `plan::DiskPlan`): one `JobSpec` per job
//! with its clones' files and regions, the order fio runs them in
//! (`stonewall`, `wait_for`, `startdelay`), and notes that say where
//! candor does something fio would not. An option candor cannot run
//! faithfully is refused here by name, with its file and line; with
//! `ignore_unsupported` the refusal becomes a recorded warning and the job
//! runs without it.
//!
//! Pure but for looking at the paths fio would use (to refuse devices and
//! missing directories): no file is created or opened here, so a bad job
//! file leaves nothing behind.
//!
//! This file holds the plan's shapes, the walk over the jobs and the
//! reading helpers; each concern of one job is a file of its own:
//! `pattern` (what each operation is: rw, block sizes, alignment, mix,
//! randomness), `engine` (engine, queue, direct and sync, cache), `timing`
//! (rates, size, how long, steady state), `files` (the files and regions
//! fio would use), `sizing` (a region the file decides: `filesize=`, an
//! existing file without `size=`), `placement` (CPUs and I/O priority), `order` (stonewall phases, `wait_for`, `startdelay`),
//! `data` (what writes carry), `metadata` (fio's file and directory
//! engines: `nrfiles` names, one call each), `notes` (where candor differs from fio, said in words), `verify` (the
//! checksum each written block carries and the read-back).

mod data;
mod engine;
mod files;
mod metadata;
mod notes;
mod order;
mod pattern;
mod placement;
mod sizing;
#[cfg(test)]
mod tests;
mod timing;
mod verify;

use super::device::DeviceGrant;
use super::options::{Kind, Support};
use super::parse::{read_value, Job, Setting, Value};
use super::source::{Pos, MAX_JOBS};
use super::value::KbBase;
use super::{JobFile, JobFileError};
use crate::disk::schedule::{ExitWhat, StartsAfter};
use crate::disk::steady::SteadySpec;
use crate::disk::{BlockSizes, JobSpec};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

/// What lowering needs besides the job file.
#[derive(Debug, Clone)]
pub struct Context {
    /// Where fio puts the files of jobs that name no directory: its current
    /// directory (`--dir` changes it for candor).
    pub default_dir: PathBuf,
    /// `--dir` was given: a job file's `directory=` that does not exist on
    /// this host stands for it (a job file moved between hosts).
    pub dir_given: bool,
    /// Refusals become warnings, recorded in the Run; the job runs without the option.
    pub ignore_unsupported: bool,
    /// The seed of jobs whose file fixes none (`--seed`); else a fresh one.
    pub seed: Option<u64>,
    /// Block devices the command line allows jobs to use (`--device`,
    /// `--overwrite-device`); a job naming any other device is refused.
    pub devices: Vec<DeviceGrant>,
}

/// A file fio would use; candor makes its own file in the same directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileUse {
    /// The path fio would use.
    pub fio_path: PathBuf,
    /// The directory candor creates its own file in.
    pub dir: PathBuf,
    /// Bytes candor's file needs: the end of the furthest region on it.
    pub size: u64,
    /// The jobs (by index) that use it.
    pub jobs: Vec<usize>,
    /// A block device the command line allowed: the jobs use it itself,
    /// candor creates no file.
    pub device: Option<DeviceGrant>,
}

/// One job, ready to be given files and run.
#[derive(Debug, Clone)]
pub struct Lowered {
    pub section: String,
    pub pos: Pos,
    /// fio's reporting group.
    pub group: u32,
    pub spec: JobSpec,
    /// Each clone's file (an index into `LoweredJobs::files`) and region (first byte, length).
    pub threads: Vec<(usize, u64, u64)>,
    /// fio's name for it: `name=`, else the section.
    pub fio_name: String,
    /// The jobs that must end before this one starts.
    pub after: StartsAfter,
    pub start_delay: Duration,
    pub steady: Option<SteadySpec>,
    /// Drop cached pages of its files before it starts (fio's `invalidate`).
    pub invalidate: bool,
    /// The `posix_fadvise` advice for its files (fio's `fadvise_hint`).
    pub fadvise: Option<i32>,
    /// The settings in force, in fio's names.
    pub options: Vec<String>,
    /// `fio --name=SECTION ...`: this job alone, as the job file sets it.
    pub fio_command: String,
    /// Where candor does something fio would not, in words.
    pub notes: Vec<String>,
    /// fio's `exitall` (set anywhere in the file) with this job's
    /// `exit_what`: what its end stops.
    pub exit_what: Option<ExitWhat>,
}

/// A job file, lowered: its jobs and the files fio would use, which
/// `plan::jobfile` checks and wraps into a `plan::DiskPlan` (and
/// `candor disk --parse-only` prints).
#[derive(Debug, Clone)]
pub struct LoweredJobs {
    pub jobs: Vec<Lowered>,
    pub files: Vec<FileUse>,
    /// Refused options that ran without their effect (`ignore_unsupported`):
    /// `file:line: option: why`.
    pub ignored: Vec<String>,
}

/// The most clones and the deepest queue candor runs, as `candor disk` allows.
const MAX_NUMJOBS: u64 = 1024;
const MAX_IODEPTH: u64 = 4096;
/// The largest block candor issues.
const MAX_BS: u64 = 256 << 20;

/// Lowers every job of `file`.
pub fn lower(file: &JobFile, ctx: &Context) -> Result<LoweredJobs, JobFileError> {
    let mut plan = LoweredJobs {
        jobs: Vec::new(),
        files: Vec::new(),
        ignored: Vec::new(),
    };
    let mut group = 0u32;
    let base_seed = ctx.seed.unwrap_or_else(crate::seed::fresh);
    let stonewall = |j: &Job| {
        j.get("stonewall")
            .is_some_and(|s| s.value.as_bool() == Some(true))
    };
    let last_stonewall = file.jobs.iter().rposition(stonewall);
    // `wait_for` names a job by its fio name: each name's jobs, in order.
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, j) in file.jobs.iter().enumerate() {
        by_name.entry(j.fio_name()).or_default().push(i);
    }
    // fio's exitall is process-wide (options.c, str_exitall_cb): set in
    // one job, every job's end stops others.
    let exitall = file
        .jobs
        .iter()
        .find_map(|j| j.get("exitall").filter(|s| s.value.as_bool() == Some(true)));
    let mut threads = 0u64;
    // The phase a job is in: where it began (a stonewall job) and where the one before began.
    let mut phase = (0usize, 0usize);
    for (index, job) in file.jobs.iter().enumerate() {
        let mut l = Lowering {
            job,
            ctx,
            ignored: &mut plan.ignored,
            notes: Vec::new(),
        };
        // fio's reporting groups: a stonewall or new_group after other jobs starts one.
        if index > 0 && (l.flag("stonewall") || l.flag("new_group")) {
            group += 1;
        }
        if index > 0 && stonewall(job) {
            phase = (index, phase.0);
        }
        let delay_breaks_order = if stonewall(job) && index + 1 < file.jobs.len() {
            Some("startdelay on a stonewall job with jobs after it: fio's job loop starts the later jobs while this one waits out its delay, then this one waits for them to end; candor does not run that order")
        } else if last_stonewall.is_some_and(|s| s > index) {
            Some("startdelay on a job before a stonewall job: fio's job loop passes over a job still in its delay and starts the stonewall job as soon as nothing runs, so the order would depend on timing; candor does not run that order")
        } else {
            None
        };
        let seed = crate::seed::splitmix64(base_seed ^ index as u64);
        let mut lowered = l.lower(index, group, seed, delay_breaks_order, &mut plan.files)?;
        // fio numbers threads over the whole file, clones included (init.c,
        // get_new_job): a split placement starts from this job's first.
        if let Some(first) = lowered.spec.placement.split_from.as_mut() {
            *first = threads as u32;
        }
        let numjobs = lowered.spec.numjobs;
        if let Some(note) = placement::placement_note(job, &lowered.spec.placement, numjobs) {
            lowered.notes.push(note);
        }
        threads += u64::from(lowered.spec.numjobs);
        if threads > MAX_JOBS as u64 {
            return Err(JobFileError::at(
                &job.pos,
                format!("[{}]: with it the job file's jobs come to {threads}, clones counted: fio runs at most {MAX_JOBS} (its REAL_MAX_JOBS; 'maximum number of jobs reached') and so does candor", job.section),
            ));
        }
        if let Some(set) = exitall {
            let what = match job.get("exit_what") {
                Some(s) => match &s.value {
                    Value::Text(t) => ExitWhat::parse(t).ok_or_else(|| {
                        JobFileError::at(
                            &s.pos,
                            format!(
                                "{}: not an exit_what fio knows (group, stonewall, all)",
                                s.spelled()
                            ),
                        )
                    })?,
                    _ => ExitWhat::Group,
                },
                None => ExitWhat::Group,
            };
            lowered.exit_what = Some(what);
            lowered.notes.push(format!(
                "exitall (set at {}; fio's is process-wide: every job's): when a clone of this job ends, fio stops its other clones and {} (exit_what={}); so does candor. A job stopped before it started never runs; one stopped while running is measured up to its last completion",
                set.pos,
                what.describe(),
                match what { ExitWhat::Group => "group", ExitWhat::Stonewall => "stonewall", ExitWhat::All => "all" }
            ));
        }
        lowered.fio_name = job.fio_name().to_string();
        lowered.after = order::order(job, index, phase, &by_name)?;
        plan.jobs.push(lowered);
    }
    timing::check_steady_groups(&plan, file)?;
    verify::refuse_shared_blocks(&mut plan, file, ctx.ignore_unsupported)?;
    notes::overwrite_notes(&mut plan, file);
    Ok(plan)
}

/// Lowering one job.
struct Lowering<'a> {
    job: &'a Job,
    ctx: &'a Context,
    ignored: &'a mut Vec<String>,
    notes: Vec<String>,
}

impl<'a> Lowering<'a> {
    fn get(&self, name: &str) -> Option<&'a Setting> {
        self.job.get(name)
    }

    fn flag(&self, name: &str) -> bool {
        self.get(name)
            .and_then(|s| s.value.as_bool())
            .unwrap_or(false)
    }

    fn number(&self, name: &str) -> Option<(u64, &'a Setting)> {
        self.get(name).and_then(|s| match s.value {
            Value::Number(n) => Some((n, s)),
            _ => None,
        })
    }

    fn time(&self, name: &str) -> Option<(u64, &'a Setting)> {
        self.get(name).and_then(|s| match s.value {
            Value::Time(us) => Some((us, s)),
            _ => None,
        })
    }

    fn text(&self, name: &str) -> Option<(&'a str, &'a Setting)> {
        self.get(name).and_then(|s| match &s.value {
            Value::Text(t) => Some((t.as_str(), s)),
            _ => None,
        })
    }

    /// An error on `setting`'s line.
    fn bad(setting: &Setting, message: impl std::fmt::Display) -> JobFileError {
        JobFileError::at(&setting.pos, format!("{}: {message}", setting.spelled()))
    }

    /// Refuses `setting` (or, told to, records that it ran without it).
    fn refuse(&mut self, setting: &Setting, why: &str) -> Result<(), JobFileError> {
        let e = Self::bad(setting, format!("not supported: {why}"));
        if !self.ctx.ignore_unsupported {
            return Err(e);
        }
        let line = format!("{e} (ignored: --ignore-unsupported)");
        if !self.ignored.contains(&line) {
            self.ignored.push(line.clone());
        }
        self.notes.push(line);
        Ok(())
    }

    fn lower(
        &mut self,
        index: usize,
        group: u32,
        seed: u64,
        delay_breaks_order: Option<&str>,
        files: &mut Vec<FileUse>,
    ) -> Result<Lowered, JobFileError> {
        // The engine first: a job for an engine candor does not run is
        // refused for that, before any of its other options.
        let engine = self.engine()?;
        let meta = self.metadata_op()?;
        self.by_support()?;
        let (rw, modifier) = self.pattern()?;
        let sizes = self.block_sizes(&rw)?;
        let min_bs = match (rw.reads(), rw.writes()) {
            (true, false) => sizes[0].min(),
            (false, true) => sizes[1].min(),
            _ => sizes[0].min().min(sizes[1].min()),
        };
        let align = self.align(&rw)?;
        let mut spec = JobSpec::new(rw.clone(), min_bs, 1);
        spec.engine = engine;
        spec.block_sizes = (sizes != [BlockSizes::Fixed(min_bs), BlockSizes::Fixed(min_bs)])
            .then_some(sizes.clone());
        spec.align = align.filter(|a| *a != min_bs);
        spec.modifier = self.modifier(modifier, &rw, min_bs)?;
        self.mix(&mut spec)?;
        self.depth(&mut spec, engine)?;
        self.direct_and_sync(&mut spec)?;
        self.rate(&mut spec, &sizes)?;
        self.think(&mut spec)?;
        self.flow(&mut spec)?;
        self.randomness(&mut spec, seed)?;
        spec.placement = self.placement()?;
        spec.data = self.write_data(sizes[1].min())?;
        // A verify_only job writes nothing: its device needs only --device.
        let device = self.device(rw.writes() && !self.verify_only())?;
        let size = match meta {
            Some(op) => self.metadata_size(&mut spec, op)?,
            None => self.timing_and_size(&mut spec, device.as_ref())?,
        };
        self.verify(&mut spec, device.is_some())?;
        if let (Some(span), Some(s)) = (
            spec.distribution.absolute_span(),
            self.get("random_distribution"),
        ) {
            if span > size {
                return Err(Self::bad(
                    s,
                    format!("the zones span {span} bytes, more than the {size}-byte file (fio: zoned_abs sizes exceed file size)"),
                ));
            }
        }
        let threads = self.files(index, &spec, size, device.as_ref(), files)?;
        if let Some(op) = meta {
            spec.metadata = Some(self.metadata(op, &spec, &files[threads[0].0].dir));
        }
        let steady = self.steady()?;
        let (invalidate, fadvise) = self.cache(&rw)?;
        self.reporting_notes(&rw);
        let start_delay = match self.get("startdelay").map(|s| (&s.value, s)) {
            Some((Value::TimeRange(lo, hi), s)) if lo != hi => {
                self.refuse(s, "a random start delay per clone; give one delay")?;
                Duration::from_micros(*lo)
            }
            Some((Value::TimeRange(lo, _), _)) => Duration::from_micros(*lo),
            _ => Duration::ZERO,
        };
        let start_delay = match (delay_breaks_order, self.get("startdelay")) {
            (Some(why), Some(s)) if !start_delay.is_zero() => {
                self.refuse(s, why)?;
                Duration::ZERO
            }
            _ => start_delay,
        };
        Ok(Lowered {
            section: self.job.section.clone(),
            pos: self.job.pos.clone(),
            group,
            spec,
            threads,
            fio_name: String::new(),
            after: StartsAfter::default(),
            start_delay,
            steady,
            invalidate,
            fadvise,
            options: self.job.effective().iter().map(|s| s.canonical()).collect(),
            fio_command: crate::fio::command::for_jobfile_job(
                self.job,
                self.replaced_directory().as_deref(),
            ),
            notes: std::mem::take(&mut self.notes),
            exit_what: None,
        })
    }

    /// Every setting by what candor does with its option: refusals (unless
    /// at fio's default) and notes.
    fn by_support(&mut self) -> Result<(), JobFileError> {
        for s in self.job.effective() {
            match s.def.support {
                Support::Refuse(why) if !at_default(s) => self.refuse(s, why)?,
                Support::Note(note) if !at_default(s) => {
                    self.notes.push(format!("{}: {note}", s.spelled()))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A count of at least 1 and at most `max` (1 when not set).
    fn bounded(&self, name: &str, max: u64) -> Result<u32, JobFileError> {
        match self.number(name) {
            Some((0, s)) => Err(Self::bad(s, "out of range (at least 1)")),
            Some((n, s)) if n > max => Err(Self::bad(s, format!("above candor's limit of {max}"))),
            Some((n, _)) => Ok(n as u32),
            None => Ok(1),
        }
    }
}

/// True when the setting is at fio's default value (then it changes nothing).
fn at_default(s: &Setting) -> bool {
    match (s.def.default, s.def.kind) {
        (None, Kind::Flag) => s.value.as_bool() == Some(false),
        (None, _) => false,
        (Some(default), _) => {
            read_value(s.def, Some(default), KbBase::Binary).is_ok_and(|d| d == s.value)
        }
    }
}

/// The job's kb_base (for values read here, such as the rw modifier).
fn kb_base(job: &Job) -> KbBase {
    match job.get("kb_base").map(|s| &s.value) {
        Some(Value::Text(t)) => KbBase::parse(t).unwrap_or(KbBase::Binary),
        _ => KbBase::Binary,
    }
}
