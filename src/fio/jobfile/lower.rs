//! A job file's jobs lowered into what candor runs: one `JobSpec` per job
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

use super::device::{self, DeviceGrant};
use super::options::{Kind, Support};
use super::parse::{read_value, Job, Setting, Value};
use super::source::{Pos, MAX_JOBS};
use super::value::{self, KbBase};
use super::{JobFile, JobFileError};
use crate::disk::schedule::StartsAfter;
use crate::disk::steady::SteadySpec;
use crate::disk::{BlockSizes, EngineChoice, EngineKind, JobSpec, Modifier, Rw};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What lowering needs besides the job file.
#[derive(Debug, Clone)]
pub struct Context {
    /// Where fio puts the files of jobs that name no directory: its current
    /// directory (`--dir` changes it for candor).
    pub default_dir: PathBuf,
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
    /// Each clone's file (an index into `JobFilePlan::files`) and region (first byte, length).
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
}

/// A job file, lowered.
#[derive(Debug, Clone)]
pub struct JobFilePlan {
    pub jobs: Vec<Lowered>,
    pub files: Vec<FileUse>,
    /// Refused options that ran without their effect (`ignore_unsupported`):
    /// `file:line: option: why`.
    pub ignored: Vec<String>,
}

const ENGINES: &str =
    "candor runs io_uring, libaio, psync (fio's sync, pvsync and pvsync2 run as psync) and null";
/// The most clones and the deepest queue candor runs, as `candor disk` allows.
const MAX_NUMJOBS: u64 = 1024;
const MAX_IODEPTH: u64 = 4096;
/// The largest block candor issues.
const MAX_BS: u64 = 256 << 20;

/// Lowers every job of `file`.
pub fn lower(file: &JobFile, ctx: &Context) -> Result<JobFilePlan, JobFileError> {
    let mut plan = JobFilePlan {
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
        threads += u64::from(lowered.spec.numjobs);
        if threads > MAX_JOBS as u64 {
            return Err(JobFileError::at(
                &job.pos,
                format!("[{}]: with it the job file's jobs come to {threads}, clones counted: fio runs at most {MAX_JOBS} (its REAL_MAX_JOBS; 'maximum number of jobs reached') and so does candor", job.section),
            ));
        }
        lowered.fio_name = job.fio_name().to_string();
        lowered.after = order(job, index, phase, &by_name)?;
        plan.jobs.push(lowered);
    }
    check_steady_groups(&plan, file)?;
    overwrite_notes(&mut plan, file);
    Ok(plan)
}

/// fio lays a file out (writes it whole) before a job reads it, or with
/// `overwrite=1`; a file only written to, without it, is allocated and
/// written for the first time by the job. candor always fills its files
/// first, so its writes overwrite data: say so where fio's would not.
fn overwrite_notes(plan: &mut JobFilePlan, file: &JobFile) {
    let read: Vec<bool> = plan
        .files
        .iter()
        .map(|f| f.jobs.iter().any(|&j| plan.jobs[j].spec.rw.reads()))
        .collect();
    for i in 0..plan.jobs.len() {
        let job = &plan.jobs[i];
        let writes_only = job.spec.rw.writes() && !job.spec.rw.reads();
        let overwrite = file.jobs[i]
            .get("overwrite")
            .is_some_and(|s| s.value.as_bool() == Some(true));
        let read_by_someone = job.threads.iter().any(|(f, _, _)| read[*f]);
        let on_device = job
            .threads
            .iter()
            .any(|(f, _, _)| plan.files[*f].device.is_some());
        if writes_only && !on_device && !overwrite && !read_by_someone {
            plan.jobs[i].notes.push(
                "fio would write into a newly allocated file (overwrite=0); candor writes its file in full first, so the writes overwrite data".to_string(),
            );
        }
    }
}

/// The jobs `job` waits for, as fio's job loop (backend.c, `run_threads`)
/// orders them: it creates jobs in file order, passes over a job whose
/// `wait_for` job still runs, and stops at a stonewall job until every job
/// created before it has ended. So a stonewall job *and every job after it*
/// start when the phase before has ended (`phase`: where this job's phase
/// and the one before began; the jobs of earlier phases ended before the
/// phase before began). `wait_for` names a job before it by its fio name
/// (`name=`, else the section), which must be unique, as fio asks.
fn order(
    job: &Job,
    index: usize,
    phase: (usize, usize),
    by_name: &HashMap<&str, Vec<usize>>,
) -> Result<StartsAfter, JobFileError> {
    let (begins, before) = phase;
    let mut after = StartsAfter {
        phase: if begins > 0 { before..begins } else { 0..0 },
        job: None,
    };
    if let Some(s) = job.get("wait_for") {
        let name = s.raw.as_deref().unwrap_or_default();
        if name == job.fio_name() {
            return Err(JobFileError::at(
                &s.pos,
                format!("wait_for={name}: a job cannot wait for itself (fio refuses it too)"),
            ));
        }
        let all = by_name.get(name).map_or(&[][..], Vec::as_slice);
        let earlier = all.partition_point(|&i| i < index);
        match &all[..earlier] {
            [] => {
                return Err(JobFileError::at(
                    &s.pos,
                    format!("wait_for={name}: no job named {name} before this one (fio matches a job's name=, else its section, and allows no forward references)"),
                ))
            }
            // A job of an earlier phase has ended before this phase begins.
            [one] if *one >= begins && !after.phase.contains(one) => after.job = Some(*one),
            [_] => {}
            _ => {
                return Err(JobFileError::at(
                    &s.pos,
                    format!("wait_for={name}: several jobs are named {name}; fio refuses that too"),
                ))
            }
        }
    }
    Ok(after)
}

/// fio judges steady state over a whole reporting group when
/// `group_reporting` is set, and per clone otherwise; candor judges one
/// job's threads together, so it runs steady state only where the two agree.
fn check_steady_groups(plan: &JobFilePlan, file: &JobFile) -> Result<(), JobFileError> {
    let mut in_group: HashMap<u32, usize> = HashMap::new();
    for j in &plan.jobs {
        *in_group.entry(j.group).or_default() += 1;
    }
    for (i, job) in plan.jobs.iter().enumerate() {
        if job.steady.is_none() {
            continue;
        }
        let setting = file.jobs[i]
            .get("steadystate_duration")
            .expect("steady state comes from ss_dur");
        let grouped = file.jobs[i]
            .get("group_reporting")
            .is_some_and(|s| s.value.as_bool() == Some(true));
        let alone = in_group[&job.group] == 1;
        if (grouped && !alone) || (!grouped && job.spec.numjobs > 1) {
            return Err(JobFileError::at(
                &setting.pos,
                if grouped {
                    "steady state over a reporting group of several jobs is not supported: candor judges each job on its own (put the job in a group of its own with new_group or stonewall)".to_string()
                } else {
                    "steady state with numjobs > 1 and no group_reporting: fio judges each clone on its own, candor judges the job's clones together (add group_reporting)".to_string()
                },
            ));
        }
    }
    Ok(())
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
        JobFileError::at(&setting.pos, format!("{}: {message}", setting.canonical()))
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
        self.by_support()?;
        let engine = self.engine()?;
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
        self.randomness(&mut spec, seed)?;
        let device = self.device(&rw)?;
        let size = self.timing_and_size(&mut spec, device.as_ref())?;
        let threads = self.files(index, &spec, size, device.as_ref(), files)?;
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
            fio_command: crate::fio::command::for_jobfile_job(self.job),
            notes: std::mem::take(&mut self.notes),
        })
    }

    /// Every setting by what candor does with its option: refusals (unless
    /// at fio's default) and notes.
    fn by_support(&mut self) -> Result<(), JobFileError> {
        for s in self.job.effective() {
            match s.def.support {
                Support::Refuse(why) if !at_default(s) => self.refuse(s, why)?,
                Support::Note(note) if !at_default(s) => {
                    self.notes.push(format!("{}: {note}", s.canonical()))
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn engine(&mut self) -> Result<EngineChoice, JobFileError> {
        let Some((name, s)) = self.text("ioengine") else {
            // fio's default on Linux.
            return Ok(EngineChoice::Exact(EngineKind::Psync));
        };
        Ok(match name {
            "io_uring" => EngineChoice::Exact(EngineKind::IoUring),
            "libaio" => EngineChoice::Exact(EngineKind::Libaio),
            "psync" => EngineChoice::Exact(EngineKind::Psync),
            "null" => EngineChoice::Exact(EngineKind::Null),
            "sync" | "pvsync" | "pvsync2" => {
                self.notes.push(format!(
                    "ioengine={name} ran as psync (pread/pwrite): the same I/O, one operation per system call"
                ));
                EngineChoice::Exact(EngineKind::Psync)
            }
            other => {
                self.refuse(s, &format!("ioengine={other}: {ENGINES}"))?;
                EngineChoice::Auto
            }
        })
    }

    /// `rw=` and its offset modifier (`randread:8`, `write:4k`).
    fn pattern(&mut self) -> Result<(Rw, Option<(String, Setting)>), JobFileError> {
        let Some((text, s)) = self.text("rw") else {
            return Ok((Rw::Read, None));
        };
        let (name, modifier) = match text.split_once(':') {
            Some((n, m)) => (n, Some(m.to_string())),
            None => (text, None),
        };
        let rw = Rw::parse(name);
        if !rw.is_runnable() {
            let known = ["trim", "randtrim", "trimwrite", "randtrimwrite"];
            return Err(Self::bad(
                s,
                if known.contains(&name) {
                    format!("'{name}' trims, which candor does not do")
                } else {
                    format!("'{name}' is not an I/O pattern fio knows (read, write, rw, randread, randwrite, randrw, ...)")
                },
            ));
        }
        Ok((rw, modifier.map(|m| (m, s.clone()))))
    }

    fn modifier(
        &mut self,
        modifier: Option<(String, Setting)>,
        rw: &Rw,
        min_bs: u64,
    ) -> Result<Option<Modifier>, JobFileError> {
        let Some((text, s)) = modifier else {
            return Ok(None);
        };
        let kb = kb_base(self.job);
        let n = value::number(&text, kb).map_err(|e| Self::bad(&s, e))?;
        if rw.is_random() {
            let identical = match self.text("rw_sequencer") {
                None | Some(("sequential", _)) => false,
                Some(("identical", _)) => true,
                Some((other, rs)) => {
                    return Err(Self::bad(
                        rs,
                        format!("'{other}' is not a sequencer (sequential, identical)"),
                    ))
                }
            };
            let n = u32::try_from(n).map_err(|_| Self::bad(&s, "the modifier is too large"))?;
            Ok((n > 1).then_some(if identical {
                Modifier::Same(n)
            } else {
                Modifier::Run(n)
            }))
        } else {
            if n % min_bs != 0 {
                return Err(Self::bad(
                    &s,
                    format!("a hole of {n} bytes is not a multiple of the {min_bs}-byte block"),
                ));
            }
            Ok((n > 0).then_some(Modifier::Holes(n)))
        }
    }

    /// Block sizes for reads and writes from `bs`, `bsrange` and
    /// `bssplit`, the one fio reads last winning as it does in fio (with
    /// one exception fio mixes, refused).
    fn block_sizes(&mut self, rw: &Rw) -> Result<[BlockSizes; 2], JobFileError> {
        let mut sizes = [BlockSizes::Fixed(4096), BlockSizes::Fixed(4096)];
        let mut split_seen: Option<Setting> = None;
        let ordered: Vec<&Setting> = self
            .job
            .inherited
            .iter()
            .chain(self.job.own.iter())
            .filter(|s| matches!(s.def.name, "bs" | "bsrange" | "bssplit"))
            .collect();
        for s in ordered {
            for (d, size) in sizes.iter_mut().enumerate() {
                match &s.value {
                    Value::Numbers(v) => {
                        if let Some(b) = v[d] {
                            *size = BlockSizes::Fixed(b);
                        }
                    }
                    Value::Range(v) => {
                        if let Some((lo, hi)) = v[d] {
                            if split_seen.is_some() {
                                return Err(Self::bad(
                                    s,
                                    "bsrange after bssplit: fio then draws the split's sizes within the range; set one of the two",
                                ));
                            }
                            *size = BlockSizes::Range(lo, hi);
                        }
                    }
                    Value::Split(v) => {
                        if let Some(split) = &v[d] {
                            *size = BlockSizes::Split(split.clone());
                            split_seen = Some(s.clone());
                        }
                    }
                    _ => {}
                }
            }
        }
        for (d, size) in sizes.iter().enumerate() {
            let used = if d == 0 { rw.reads() } else { rw.writes() };
            let setting = self
                .get("bssplit")
                .or_else(|| self.get("bsrange"))
                .or_else(|| self.get("bs"));
            let bad = |why: String| match setting {
                Some(s) => Self::bad(s, why),
                None => JobFileError::at(&self.job.pos, why),
            };
            if used && size.min() == 0 {
                return Err(bad("a block size of 0".into()));
            }
            if used && size.max() > MAX_BS {
                return Err(bad(format!(
                    "a block size of {} is above candor's limit of 256 MiB",
                    size.max()
                )));
            }
            if let BlockSizes::Range(lo, hi) = size {
                if used && hi % lo != 0 {
                    return Err(bad(format!(
                        "the range {lo}-{hi}: fio gives its top size a share that differs from the others when it is not a multiple of the bottom one; give multiples"
                    )));
                }
            }
        }
        Ok(sizes)
    }

    /// fio's `ba`: one alignment for the directions the job issues.
    fn align(&mut self, rw: &Rw) -> Result<Option<u64>, JobFileError> {
        let Some(s) = self.get("ba") else {
            return Ok(None);
        };
        let Value::Numbers(v) = &s.value else {
            return Ok(None);
        };
        let used: Vec<u64> = [(rw.reads(), v[0]), (rw.writes(), v[1])]
            .into_iter()
            .filter_map(|(u, a)| if u { a } else { None })
            .collect();
        if used.windows(2).any(|w| w[0] != w[1]) {
            return Err(Self::bad(
                s,
                "different alignments for reads and writes are not supported",
            ));
        }
        match used.first() {
            Some(0) => Err(Self::bad(s, "an alignment of 0")),
            other => Ok(other.copied()),
        }
    }

    fn mix(&mut self, spec: &mut JobSpec) -> Result<(), JobFileError> {
        // rwmixread and rwmixwrite set one share: the later line wins.
        let read = self.number("rwmixread");
        let write = self.number("rwmixwrite");
        let pick = match (read, write) {
            (Some(r), Some(w)) if w.1.pos.line > r.1.pos.line || w.1.pos.file != r.1.pos.file => {
                Some((100u64.checked_sub(w.0), w.1))
            }
            (Some(r), _) => Some((Some(r.0), r.1)),
            (None, Some(w)) => Some((100u64.checked_sub(w.0), w.1)),
            (None, None) => None,
        };
        if let Some((share, s)) = pick {
            match share {
                Some(v) if v <= 100 => spec.rwmixread = v as u32,
                _ => return Err(Self::bad(s, "out of range (0-100)")),
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

    fn depth(&mut self, spec: &mut JobSpec, engine: EngineChoice) -> Result<(), JobFileError> {
        let iodepth = self.bounded("iodepth", MAX_IODEPTH)?;
        let numjobs = self.bounded("numjobs", MAX_NUMJOBS)?;
        spec.numjobs = numjobs;
        let sync_engine = engine == EngineChoice::Exact(EngineKind::Psync);
        if sync_engine && iodepth > 1 {
            // As fio does: a synchronous engine keeps one operation in flight.
            self.notes.push(format!(
                "iodepth={iodepth} with a synchronous engine: one operation in flight per thread, as in fio"
            ));
        }
        spec.iodepth = if sync_engine { 1 } else { iodepth };
        // fio: 0 submits everything ready at once (the whole depth).
        let batch = match self.number("iodepth_batch") {
            Some((0, _)) => spec.iodepth,
            Some((n, _)) => n.min(u64::from(spec.iodepth)) as u32,
            None => 1,
        };
        spec.iodepth_batch = batch.max(1);
        if let Some((max, _)) = self.number("iodepth_batch_complete_max") {
            if max < u64::from(spec.iodepth) {
                self.notes.push(format!(
                    "iodepth_batch_complete_max={max}: fio reaps at most {max} completions per call and books the wait of the others as latency; candor reaps every ready completion, so its latency at depth reads lower"
                ));
            }
        }
        if let Some((low, s)) = self.number("iodepth_low") {
            if low > 0 && low < u64::from(spec.iodepth) {
                let s = s.clone();
                self.refuse(&s, "fio refills the queue only once it has drained to iodepth_low; candor refills each slot at once")?;
            }
        }
        Ok(())
    }

    fn direct_and_sync(&mut self, spec: &mut JobSpec) -> Result<(), JobFileError> {
        // direct and buffered set one switch: the one fio reads last wins.
        let direct = self.get("direct");
        let buffered = self.get("buffered");
        let later = |a: &Setting, b: &Setting| a.pos.line >= b.pos.line && a.pos.file == b.pos.file;
        spec.direct = match (direct, buffered) {
            (Some(d), Some(b)) if !later(d, b) => b.value.as_bool() == Some(false),
            (Some(d), _) => d.value.as_bool() == Some(true),
            (None, Some(b)) => b.value.as_bool() == Some(false),
            (None, None) => false,
        };
        if let Some((mode, s)) = self.text("sync") {
            if !matches!(mode, "none" | "0") {
                let s = s.clone();
                self.refuse(&s, "candor does not open its files with O_SYNC or O_DSYNC")?;
            }
        }
        let fsync = self.number("fsync").filter(|(n, _)| *n > 0);
        let fdatasync = self.number("fdatasync").filter(|(n, _)| *n > 0);
        match (fsync, fdatasync) {
            (Some(_), Some((_, s))) => {
                return Err(Self::bad(
                    s,
                    "fsync and fdatasync together are not supported; set one",
                ))
            }
            (Some((n, s)), None) | (None, Some((n, s))) => {
                spec.fsync = u32::try_from(n).map_err(|_| Self::bad(s, "too large"))?;
                spec.datasync = fdatasync.is_some();
            }
            (None, None) => {}
        }
        spec.end_fsync = self.flag("end_fsync") || self.flag("fsync_on_close");
        Ok(())
    }

    fn rate(&mut self, spec: &mut JobSpec, sizes: &[BlockSizes; 2]) -> Result<(), JobFileError> {
        let dirs = |name: &str| match self.get(name).map(|s| &s.value) {
            Some(Value::Numbers(v)) => *v,
            _ => [None, None, None],
        };
        let (bytes, iops) = (dirs("rate"), dirs("rate_iops"));
        for d in 0..2 {
            // fio: a byte rate wins; an IOPS rate counts the smallest block.
            spec.rate[d] = match (bytes[d], iops[d]) {
                (Some(b), _) if b > 0 => Some(b),
                (_, Some(i)) if i > 0 => Some(i * sizes[d].min()),
                _ => None,
            };
        }
        if let Some((process, s)) = self.text("rate_process") {
            match process {
                "linear" => {}
                "poisson" => spec.rate_poisson = true,
                other => {
                    return Err(Self::bad(
                        s,
                        format!("'{other}' is not a rate process (linear, poisson)"),
                    ))
                }
            }
        }
        Ok(())
    }

    fn randomness(&mut self, spec: &mut JobSpec, fresh: u64) -> Result<(), JobFileError> {
        spec.random_map = !self.flag("norandommap");
        if let Some((dist, s)) = self.text("random_distribution") {
            if dist != "random" {
                let s = s.clone();
                self.refuse(&s, "candor draws offsets uniformly; zipf, pareto, normal and zoned distributions are not supported")?;
            }
        }
        if let Some(s) = self.get("percentage_random") {
            if let Value::Numbers(v) = &s.value {
                if v.iter().flatten().any(|p| *p != 100) {
                    let s = s.clone();
                    self.refuse(&s, "candor's jobs are wholly random or wholly sequential")?;
                }
            }
        }
        spec.seed = match (self.number("randseed"), self.get("randrepeat")) {
            (Some((seed, _)), _) => seed,
            (None, Some(r)) if r.value.as_bool() == Some(true) => {
                // Asked to repeat: the same offsets on every run of this job
                // file (candor's sequence, not fio's).
                self.notes.push(
                    "randrepeat=1: the same offsets on every run (candor's own sequence, seeded from the section name; fio's differs)".to_string(),
                );
                name_seed(&self.job.section)
            }
            _ => fresh,
        };
        Ok(())
    }

    /// `size`, `io_size`, `number_ios`, `loops`, `runtime`, `time_based`,
    /// `ramp_time`: how long the job runs. Returns each clone's region length.
    fn timing_and_size(
        &mut self,
        spec: &mut JobSpec,
        device: Option<&DeviceGrant>,
    ) -> Result<u64, JobFileError> {
        let given = self.number("size");
        let on_device = match (given, device) {
            (None, Some(grant)) => Some(self.device_size(grant, spec.min_bs())?),
            _ => None,
        };
        let Some((size, size_s)) = given.or(on_device) else {
            return Err(JobFileError::at(
                &self.job.pos,
                format!(
                    "[{}] has no size: candor creates its own files, so the job must say how large (fio asks the same of a file that does not exist)",
                    self.job.section
                ),
            ));
        };
        let (max_bs, min_bs) = (spec.max_bs(), spec.min_bs());
        if size < max_bs {
            return Err(Self::bad(
                size_s,
                format!("smaller than the block size ({max_bs} bytes)"),
            ));
        }
        // Whole blocks of the smallest size (fio's regions end on one).
        let region = size / min_bs * min_bs;
        spec.size = region;
        let loops = match self.number("loops") {
            Some((0, s)) => return Err(Self::bad(s, "out of range (at least 1)")),
            Some((n, _)) => n,
            None => 1,
        };
        let time_based = self.flag("time_based");
        let runtime = self.time("runtime").map_or(0, |(us, _)| us);
        spec.ramp = Duration::from_micros(self.time("ramp_time").map_or(0, |(us, _)| us));
        if time_based && runtime == 0 {
            let s = self.get("time_based").expect("time_based is set");
            return Err(Self::bad(
                s,
                "time_based without a runtime would run until stopped; give a runtime",
            ));
        }
        spec.runtime = Duration::from_micros(runtime);
        if !time_based {
            let io = self.number("io_size").map_or(size, |(n, _)| n).max(1);
            spec.byte_limit = Some(io.saturating_mul(loops));
            if spec.rw.is_random() && spec.random_map && min_bs != max_bs {
                self.notes.push(format!(
                    "several block sizes at random: fio ends the job once its map of {}-byte blocks is covered, which comes before size bytes (2,052,096 of 2 MiB in a test on this project's VM); candor stops each thread at size, its last operation passing it by less than one block",
                    min_bs
                ));
            }
        }
        if let Some((n, _)) = self.number("number_ios").filter(|(n, _)| *n > 0) {
            spec.op_limit = Some(n.saturating_mul(loops));
        }
        if loops > 1 && time_based {
            self.notes.push(format!(
                "loops={loops} with time_based: the runtime decides, as in fio"
            ));
        }
        Ok(region)
    }

    /// The block device this job's `filename=` names, if it is one: allowed
    /// by the command line (`--device`, and `--overwrite-device` for a job
    /// that writes) or refused here.
    fn device(&mut self, rw: &Rw) -> Result<Option<DeviceGrant>, JobFileError> {
        let Some((name, s)) = self.text("filename") else {
            return Ok(None);
        };
        let names = split_colons(name);
        let [one] = names.as_slice() else {
            return Ok(None);
        };
        let dir = match self.text("directory") {
            Some((d, _)) => absolute(&self.ctx.default_dir, Path::new(&unescape(d))),
            None => self.ctx.default_dir.clone(),
        };
        let path = absolute(&dir, Path::new(one));
        let Some(meta) = device::block_device(&path) else {
            return Ok(None);
        };
        device::grant_for(&self.ctx.devices, &path, &meta, rw.writes())
            .map(|g| Some(g.clone()))
            .map_err(|why| Self::bad(s, why))
    }

    /// A job on a device without `size=`: as fio, from `offset` to the
    /// device's end, as if the job had said `size=` that.
    fn device_size(
        &self,
        grant: &DeviceGrant,
        min_bs: u64,
    ) -> Result<(u64, &'a Setting), JobFileError> {
        let s = self.get("filename").expect("a device comes from filename=");
        if let Some((_, inc)) = self
            .number("offset_increment")
            .filter(|(n, _)| *n > 0 && self.number("numjobs").is_some_and(|(j, _)| j > 1))
        {
            return Err(Self::bad(
                inc,
                "offset_increment on a device without size=: each clone would run to the device's end from its own offset; give size=",
            ));
        }
        let start = self.number("offset").map_or(0, |(n, _)| n);
        let len = device::region(grant, None, start, min_bs).map_err(|why| Self::bad(s, why))?;
        Ok((len, s))
    }

    /// The files fio would use for each clone, and candor's regions on them.
    fn files(
        &mut self,
        index: usize,
        spec: &JobSpec,
        region: u64,
        device: Option<&DeviceGrant>,
        files: &mut Vec<FileUse>,
    ) -> Result<Vec<(usize, u64, u64)>, JobFileError> {
        if let Some((n, s)) = self.number("nrfiles") {
            if n != 1 {
                let s = s.clone();
                self.refuse(&s, "candor runs one file per job thread")?;
            }
        }
        let dir = match self.text("directory") {
            Some((d, s)) => {
                if split_colons(d).len() > 1 {
                    return Err(Self::bad(
                        s,
                        "several directories are not supported: candor puts a job's files in one",
                    ));
                }
                absolute(&self.ctx.default_dir, Path::new(&unescape(d)))
            }
            None => self.ctx.default_dir.clone(),
        };
        let offset = self.number("offset").map_or(0, |(n, _)| n);
        let increment = self.number("offset_increment").map_or(0, |(n, _)| n);
        let unit = spec.unit();
        if let Some((_, s)) = self.number("offset").filter(|(n, _)| n % unit != 0) {
            return Err(Self::bad(
                s,
                format!("not a multiple of the {unit}-byte block"),
            ));
        }
        if let Some((_, s)) = self
            .number("offset_increment")
            .filter(|(n, _)| n % unit != 0)
        {
            return Err(Self::bad(
                s,
                format!("not a multiple of the {unit}-byte block"),
            ));
        }
        let mut threads = Vec::with_capacity(spec.numjobs as usize);
        for clone in 0..u64::from(spec.numjobs) {
            let (path, s) = match self.text("filename") {
                Some((name, s)) => {
                    let names = split_colons(name);
                    if names.len() > 1 {
                        return Err(Self::bad(
                            s,
                            "several files per job are not supported: candor runs one file per job thread",
                        ));
                    }
                    if names[0] == "-" {
                        return Err(Self::bad(
                            s,
                            "standard input or output is not a file candor can test",
                        ));
                    }
                    (absolute(&dir, Path::new(&names[0])), Some(s))
                }
                None => {
                    let format = self
                        .text("filename_format")
                        .map_or("$jobname.$jobnum.$filenum", |(f, _)| f);
                    if format.contains("$clientuid") {
                        let s = self.get("filename_format").expect("set");
                        return Err(Self::bad(s, "$clientuid is for fio's client/server mode"));
                    }
                    let name = format
                        .replace("$jobname", &self.job.section)
                        .replace("$jobnum", &clone.to_string())
                        .replace("$filenum", "0");
                    (
                        absolute(&dir, Path::new(&name)),
                        self.get("filename_format"),
                    )
                }
            };
            let at = |why: String| match s {
                Some(s) => Self::bad(s, why),
                None => JobFileError::at(&self.job.pos, why),
            };
            let parent = path.parent().unwrap_or(Path::new("/")).to_path_buf();
            let start = offset + increment * clone;
            if let Some(meta) = device::block_device(&path) {
                // Allowed by the command line (`device`) or refused here.
                let grant = match device {
                    Some(g) if g.rdev == std::os::unix::fs::MetadataExt::rdev(&meta) => g,
                    _ => {
                        let why =
                            device::grant_for(&self.ctx.devices, &path, &meta, spec.rw.writes())
                                .err()
                                .unwrap_or_else(|| {
                                    "a device named through filename_format: name it with filename="
                                        .into()
                                });
                        return Err(at(why));
                    }
                };
                device::region(grant, Some(region), start, spec.min_bs()).map_err(&at)?;
                // One device is one target, whatever path names it.
                let same = |f: &FileUse| f.device.as_ref().is_some_and(|d| d.rdev == grant.rdev);
                let i = match files.iter().position(same) {
                    Some(i) => i,
                    None => {
                        files.push(FileUse {
                            fio_path: path.clone(),
                            dir: parent,
                            size: 0,
                            jobs: Vec::new(),
                            device: Some(grant.clone()),
                        });
                        files.len() - 1
                    }
                };
                let f = &mut files[i];
                f.size = f.size.max(start + region);
                if f.jobs.last() != Some(&index) {
                    f.jobs.push(index);
                }
                threads.push((i, start, region));
                continue;
            }
            // candor's own file goes beside any regular file fio would have used.
            if let Ok(meta) = std::fs::metadata(&path) {
                use std::os::unix::fs::FileTypeExt;
                let t = meta.file_type();
                if t.is_char_device() {
                    return Err(at(format!(
                        "{} is a character device: candor tests files it creates, and block devices named by --device",
                        path.display()
                    )));
                }
                if t.is_dir() {
                    return Err(at(format!("{} is a directory", path.display())));
                }
                let note = format!(
                    "fio would use the existing file {} ({} bytes, its contents as they are); candor never touches a file it did not create, and made its own beside it",
                    path.display(),
                    meta.len()
                );
                if t.is_file() && !self.notes.contains(&note) {
                    self.notes.push(note);
                }
            }
            if !parent.is_dir() {
                return Err(at(format!(
                    "the directory {} does not exist (candor creates files, not directories)",
                    parent.display()
                )));
            }
            let end = start + region;
            let i = match files.iter().position(|f| f.fio_path == path) {
                Some(i) => i,
                None => {
                    files.push(FileUse {
                        fio_path: path.clone(),
                        dir: parent,
                        size: 0,
                        jobs: Vec::new(),
                        device: None,
                    });
                    files.len() - 1
                }
            };
            let f = &mut files[i];
            f.size = f.size.max(end);
            // Jobs are lowered in order: this job is the last one if it is there.
            if f.jobs.last() != Some(&index) {
                f.jobs.push(index);
            }
            threads.push((i, start, region));
        }
        Ok(threads)
    }

    fn steady(&mut self) -> Result<Option<SteadySpec>, JobFileError> {
        let Some((dur_us, dur)) = self.time("steadystate_duration") else {
            return Ok(None);
        };
        if dur_us == 0 {
            return Ok(None);
        }
        let seconds = dur_us / 1_000_000;
        if seconds == 0 || dur_us % 1_000_000 != 0 {
            return Err(Self::bad(
                dur,
                "fio samples steady state once per second: give whole seconds",
            ));
        }
        let criterion = self
            .text("steadystate")
            .map_or("iops_slope:0.01%", |(t, _)| t);
        let ramp = self.time("steadystate_ramp_time").map_or(0, |(us, _)| us);
        let at = self.get("steadystate").unwrap_or(dur);
        SteadySpec::parse(criterion, seconds as u32, ramp * 1000)
            .map(Some)
            .map_err(|e| Self::bad(at, e))
    }

    fn cache(&mut self, rw: &Rw) -> Result<(bool, Option<i32>), JobFileError> {
        let invalidate = self
            .get("invalidate")
            .and_then(|s| s.value.as_bool())
            .unwrap_or(true);
        let advice = match self.text("fadvise_hint") {
            None | Some(("1", _)) => Some(if rw.is_random() {
                libc::POSIX_FADV_RANDOM
            } else {
                libc::POSIX_FADV_SEQUENTIAL
            }),
            Some(("0", _)) => None,
            Some(("sequential", _)) => Some(libc::POSIX_FADV_SEQUENTIAL),
            Some(("random", _)) => Some(libc::POSIX_FADV_RANDOM),
            Some(("normal", _)) => Some(libc::POSIX_FADV_NORMAL),
            Some((other, s)) => {
                return Err(Self::bad(
                    s,
                    format!("'{other}' is not a hint (0, 1, sequential, random, normal)"),
                ))
            }
        };
        if let Some((mem, s)) = self.text("mem") {
            if !matches!(mem, "malloc" | "memalign") {
                let note = format!(
                    "{}: candor's buffers are ordinary aligned heap memory",
                    s.canonical()
                );
                self.notes.push(note);
            }
        }
        Ok((invalidate, advice))
    }

    fn reporting_notes(&mut self, rw: &Rw) {
        if self.flag("group_reporting") {
            self.notes.push(
                "group_reporting: fio would report the jobs of this group together; candor keeps one measurement per job, its clones merged, with each thread's figures".to_string(),
            );
        }
        for (name, what) in [
            ("disable_lat", "total latency"),
            ("disable_clat", "completion latency"),
        ] {
            if self.flag(name) {
                self.notes.push(format!(
                    "{name}=1: fio would report no {what}; candor measures every operation's latency anyway"
                ));
            }
        }
        if rw.writes() && !self.flag("refill_buffers") {
            // The finding job-reused-buffers explains it; the note says it here.
            self.notes.push(
                "fio would reuse its write buffers (filled once, then scrambled); candor writes fresh random data every time".to_string(),
            );
        }
    }
}

/// The seed of a job that asks for repeatable offsets: from its name, so
/// every run of the job file draws the same ones.
fn name_seed(section: &str) -> u64 {
    section.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
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

/// fio separates several names with ':'; `\:` is a colon in a name.
fn split_colons(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                out.last_mut().expect("one").push(':');
                chars.next();
            }
            ':' => out.push(String::new()),
            c => out.last_mut().expect("one").push(c),
        }
    }
    out
}

fn unescape(text: &str) -> String {
    text.replace("\\:", ":")
}

/// `path` made absolute against `base`, `.` and `..` resolved by name.
fn absolute(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{read, Env, InMemory};
    use super::*;

    fn plan(text: &str) -> Result<JobFilePlan, JobFileError> {
        plan_with(text, false)
    }

    fn plan_with(text: &str, ignore: bool) -> Result<JobFilePlan, JobFileError> {
        let r = InMemory([(PathBuf::from("/j.fio"), text.to_string())].into());
        let file = read(
            &r,
            Path::new("/j.fio"),
            &[],
            &Env::fixed(&[], 4096, 8192, 2),
        )?;
        lower(
            &file,
            &Context {
                default_dir: PathBuf::from("/var/tmp"),
                ignore_unsupported: ignore,
                seed: Some(7),
                devices: Vec::new(),
            },
        )
    }

    #[test]
    fn a_forum_file() {
        let p = plan(
            "[global]\nioengine=libaio\nfilename=/var/tmp/t.test\nsize=100m\nloops=2\nnumjobs=32\ngroup_reporting\n[seq]\nrw=read\nbs=1m\n[rand]\nrw=randread\nbs=4k\niodepth=16\n",
        )
        .unwrap();
        assert_eq!(p.jobs.len(), 2);
        assert_eq!(p.files.len(), 1, "one shared file");
        assert_eq!(p.files[0].size, 100 << 20);
        let seq = &p.jobs[0];
        assert_eq!(seq.spec.numjobs, 32);
        assert_eq!(
            seq.spec.byte_limit,
            Some(200 << 20),
            "size x loops per clone"
        );
        assert!(seq.spec.runtime.is_zero());
        assert!(!seq.spec.direct, "fio's default is buffered");
        assert_eq!(seq.spec.iodepth, 1, "{:?}", seq.spec.engine);
        assert!(
            seq.after.is_empty() && p.jobs[1].after.is_empty(),
            "no stonewall: together"
        );
        assert_eq!(p.jobs[1].spec.iodepth, 16);
        assert!(p.jobs[1].spec.random_map);
        assert!(seq.notes.iter().any(|n| n.starts_with("group_reporting")));
        assert!(seq
            .fio_command
            .starts_with("fio --name=seq --ioengine=libaio"));
    }

    #[test]
    fn clones_get_their_own_files_unless_named() {
        let p = plan("[w]\nrw=write\nsize=1m\nnumjobs=3\n").unwrap();
        let names: Vec<String> = p
            .files
            .iter()
            .map(|f| f.fio_path.display().to_string())
            .collect();
        assert_eq!(
            names,
            ["/var/tmp/w.0.0", "/var/tmp/w.1.0", "/var/tmp/w.2.0"]
        );
        let p = plan("[w]\nrw=write\nsize=1m\nnumjobs=3\nfilename_format=shared.$filenum\noffset_increment=1m\n").unwrap();
        assert_eq!(p.files.len(), 1);
        assert_eq!(p.files[0].size, 3 << 20);
        assert_eq!(p.jobs[0].threads[2], (0, 2 << 20, 1 << 20));
    }

    #[test]
    fn order_groups_and_delays() {
        let p = plan("[global]\nsize=1m\n[a]\n[b]\nstonewall\n[c]\nwait_for=a\nstartdelay=2\n[d]\nnew_group\n").unwrap();
        // [d] comes after the stonewall job [b]: fio creates it only once [b] started.
        assert_eq!(afters(&p), [vec![], vec![0], vec![0], vec![0]]);
        let groups: Vec<u32> = p.jobs.iter().map(|j| j.group).collect();
        assert_eq!(groups, [0, 1, 1, 2]);
        assert_eq!(p.jobs[2].start_delay, Duration::from_secs(2));
        let e = plan("[a]\nsize=1m\nwait_for=z\n").unwrap_err().to_string();
        assert!(e.starts_with("/j.fio:3: wait_for=z: no job named z"), "{e}");
    }

    fn afters(p: &JobFilePlan) -> Vec<Vec<usize>> {
        p.jobs.iter().map(|j| j.after.iter().collect()).collect()
    }

    /// The fio names of the jobs job `i` waits for.
    fn waited_for(p: &JobFilePlan, i: usize) -> Vec<&str> {
        p.jobs[i]
            .after
            .iter()
            .map(|j| p.jobs[j].fio_name.as_str())
            .collect()
    }

    /// fio's job loop stops at a stonewall job: the jobs after it start
    /// with it, when the phase before has ended (issue 20).
    #[test]
    fn jobs_after_a_stonewall_job_start_with_it() {
        let p = plan("[global]\nsize=32m\n[seq-write]\nrw=write\n[rand-read]\nstonewall\nrw=randread\n[rand-write]\nrw=randwrite\n").unwrap();
        assert_eq!(afters(&p), [vec![], vec![0], vec![0]]);
        assert_eq!(waited_for(&p, 2), ["seq-write"]);
        let p = plan(
            "[global]\nsize=1m\n[a]\n[b]\nstonewall\n[c]\n[d]\nstonewall\n[e]\n[f]\nwait_for=e\n",
        )
        .unwrap();
        assert_eq!(
            afters(&p),
            [
                vec![],
                vec![0],
                vec![0],
                vec![1, 2],
                vec![1, 2],
                vec![1, 2, 4]
            ]
        );
        // A stonewall on the first job waits for nothing.
        let p = plan("[global]\nsize=1m\n[a]\nstonewall\n[b]\n").unwrap();
        assert_eq!(afters(&p), [Vec::<usize>::new(), vec![]]);
    }

    /// `wait_for` names a job as fio does: by its `name=`, else its section;
    /// a `name=` in `[global]` names no job.
    #[test]
    fn wait_for_matches_the_jobs_fio_name() {
        let p = plan(
            "[global]\nsize=1m\nname=g\n[x]\nname=alpha\n[y]\nwait_for=alpha\n[z]\nwait_for=y\n",
        )
        .unwrap();
        assert_eq!(afters(&p), [vec![], vec![0], vec![1]]);
        assert_eq!(waited_for(&p, 1), ["alpha"]);
        let e = plan("[x]\nsize=1m\nname=alpha\n[y]\nsize=1m\nwait_for=x\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("wait_for=x: no job named x"), "{e}");
        let e = plan("[x]\nsize=1m\nname=a\n[y]\nsize=1m\nname=a\n[z]\nsize=1m\nwait_for=a\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("several jobs are named a"), "{e}");
        let e = plan("[x]\nsize=1m\nname=me\nwait_for=me\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot wait for itself"), "{e}");
    }

    /// Where fio's order would depend on timing (a delayed job before a
    /// stonewall job, a delayed stonewall job with jobs after it), candor
    /// refuses the delay by name.
    #[test]
    fn a_start_delay_that_makes_fios_order_depend_on_timing_is_refused() {
        let e = plan("[global]\nsize=1m\n[a]\nstartdelay=1\n[b]\nstonewall\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "/j.fio:4: startdelay=1: not supported: startdelay on a job before a stonewall job"
            ),
            "{e}"
        );
        let e = plan("[global]\nsize=1m\n[a]\n[b]\nstonewall\nstartdelay=1\n[c]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("startdelay on a stonewall job with jobs after it"),
            "{e}"
        );
        // Ignored: the job runs without its delay, and the Run says so.
        let p = plan_with(
            "[global]\nsize=1m\n[a]\nstartdelay=1\n[b]\nstonewall\n",
            true,
        )
        .unwrap();
        assert_eq!(p.jobs[0].start_delay, Duration::ZERO);
        assert_eq!(p.ignored.len(), 1);
        // A delay after the last stonewall, or on the last job, is fio's plain order.
        let p = plan("[global]\nsize=1m\n[a]\n[b]\nstonewall\n[c]\nstartdelay=1\n").unwrap();
        assert_eq!(p.jobs[2].start_delay, Duration::from_secs(1));
        let p = plan("[global]\nsize=1m\n[a]\n[b]\nstonewall\nstartdelay=1\n").unwrap();
        assert_eq!(p.jobs[1].start_delay, Duration::from_secs(1));
    }

    /// Every `--name` starts a job on fio's command line: the printed
    /// command names the job once, by its fio name, and leaves out `wait_for`.
    #[test]
    fn the_fio_command_names_its_job_once() {
        let p = plan("[global]\nname=file1\nsize=1m\n[fio-seq-reads]\nrw=read\n[b]\nname=bee\nwait_for=fio-seq-reads\n").unwrap();
        assert_eq!(
            p.jobs[0].fio_command,
            "fio --name=fio-seq-reads --size=1m --rw=read"
        );
        assert_eq!(p.jobs[1].fio_command, "fio --name=bee --size=1m");
    }

    #[test]
    fn semantics_of_the_options_candor_runs() {
        let p = plan("[x]\nrw=randrw:4\nrwmixwrite=30\nbs=4k,64k\nsize=8m\nrate=1m,\nrate_iops=,100\nioengine=io_uring\niodepth=8\niodepth_batch=0\ndirect=1\nfdatasync=2\nend_fsync=1\ntime_based\nruntime=3\nramp_time=500ms\nnumber_ios=1000\nrandseed=99\nnorandommap\n").unwrap();
        let s = &p.jobs[0].spec;
        assert_eq!(s.rwmixread, 70);
        assert_eq!(
            s.block_sizes,
            Some([BlockSizes::Fixed(4096), BlockSizes::Fixed(65536)])
        );
        assert_eq!(s.bs, 4096);
        assert_eq!(s.rate, [Some(1 << 20), Some(100 * 65536)]);
        assert_eq!((s.iodepth, s.iodepth_batch), (8, 8));
        assert!(s.direct && s.datasync && s.end_fsync);
        assert_eq!(s.fsync, 2);
        assert_eq!(s.runtime, Duration::from_secs(3));
        assert_eq!(s.ramp, Duration::from_millis(500));
        assert_eq!((s.byte_limit, s.op_limit), (None, Some(1000)));
        assert_eq!(s.seed, 99);
        assert!(!s.random_map);
        assert_eq!(s.modifier, Some(Modifier::Run(4)));
    }

    #[test]
    fn refusals_name_the_line_and_can_be_ignored() {
        let e = plan("[x]\nsize=1m\nthinktime=10\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "/j.fio:3: thinktime=10: not supported: candor does not pause between I/Os (thinktime)"
        );
        let e = plan("[x]\nsize=1m\nioengine=rdma\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("ioengine=rdma: not supported: ioengine=rdma: candor runs io_uring"),
            "{e}"
        );
        // At fio's default an unsupported option changes nothing.
        assert!(plan("[x]\nsize=1m\nthinktime=0\nverify=0\nzero_buffers=0\n").is_ok());
        let p = plan_with("[x]\nsize=1m\nthinktime=10\nioengine=rdma\n", true).unwrap();
        assert_eq!(p.ignored.len(), 2);
        assert!(p.ignored[0].ends_with("(ignored: --ignore-unsupported)"));
        let e = plan("[x]\nsize=1m\nrw=trim\n").unwrap_err().to_string();
        assert!(e.contains("trims"), "{e}");
        let e = plan("[x]\nsize=1m\nrwmixread=150\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "/j.fio:3: rwmixread=150: out of range (0-100)");
        let e = plan("[x]\nrw=read\n").unwrap_err().to_string();
        assert!(e.contains("[x] has no size"), "{e}");
        let e = plan("[x]\nsize=1m\ntime_based\n").unwrap_err().to_string();
        assert!(e.contains("without a runtime"), "{e}");
        let e = plan("[x]\nsize=1m\nfilename=/dev/null\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("is a character device"), "{e}");
        let e = plan("[x]\nsize=1m\nfilename=/nonexistent-dir/f\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist"), "{e}");
        let e = plan("[x]\nsize=1m\nnumjobs=2\nss_dur=5\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("add group_reporting"), "{e}");
    }

    #[test]
    fn an_existing_file_is_left_alone_and_said_so() {
        let dir = tempfile::tempdir().unwrap();
        let existing = dir.path().join("data.bin");
        std::fs::write(&existing, b"precious").unwrap();
        let p = plan(&format!("[x]\nsize=1m\nfilename={}\n", existing.display())).unwrap();
        assert!(
            p.jobs[0]
                .notes
                .iter()
                .any(|n| n.contains("existing file") && n.contains("8 bytes")),
            "{:?}",
            p.jobs[0].notes
        );
        assert_eq!(p.files[0].dir, dir.path());
    }

    #[test]
    fn colons_and_paths() {
        assert_eq!(split_colons("a:b"), ["a", "b"]);
        assert_eq!(split_colons("/dev/dsk/foo@3,0\\:c"), ["/dev/dsk/foo@3,0:c"]);
        assert_eq!(
            absolute(Path::new("/a/b"), Path::new("../c/./d")),
            PathBuf::from("/a/c/d")
        );
    }
}
