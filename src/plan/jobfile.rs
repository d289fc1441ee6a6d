//! A fio job file's plan: read (`fio::jobfile`), lowered into candor's
//! jobs (`fio::jobfile::lower`: fio's vocabulary into `JobSpec`s, their
//! files and order), then checked here, before any file exists: each job's
//! values, the memory every job's buffers need together, each directory
//! (a filesystem candor measures on, O_DIRECT alignment) and the room for
//! every file; the lowered jobs and their files become a `DiskPlan` in
//! fio's order. Every refusal is a one-line usage error with the file and
//! line or the job file's path.

use super::{dir_index, DiskJobs, DiskPlan, PlanDir, PlanFile};
use crate::disk::{BlockSizes, EngineChoice, EngineKind, TestDir};
use crate::error::usage;
use crate::fio::jobfile::device::DeviceGrant;
use crate::fio::jobfile::source::{InMemory, Reader};
use crate::fio::jobfile::{self, lower, Env, FileSystem, JobFile, JobFileError};
use crate::host::block_device::{self, BlockDeviceFacts};
use crate::result::{DeviceRecord, JobFileRecord, JobFileText};
use std::path::{Path, PathBuf};

/// What the user asked for: the job file and the flags that change it.
#[derive(Debug, Clone)]
pub struct JobFileRequest<'a> {
    pub path: &'a Path,
    /// The job file's text when it was made in memory (`--diskspd`), not
    /// read from `path`.
    pub text: Option<&'a str>,
    /// fio's `--section`: only these sections.
    pub sections: &'a [String],
    /// `--dir`: where jobs whose file names no directory put it (else the
    /// current directory, as fio).
    pub dir: Option<&'a Path>,
    pub ignore_unsupported: bool,
    pub seed: Option<u64>,
    /// `--device`: block devices jobs may read.
    pub devices: &'a [PathBuf],
    /// `--overwrite-device`: of those, the ones jobs may write.
    pub overwrite_devices: &'a [PathBuf],
}

/// Reads the job file and lowers it, each job's values checked; every
/// problem is a usage error.
pub fn read(request: &JobFileRequest) -> anyhow::Result<(JobFile, lower::LoweredJobs)> {
    let in_memory = request
        .text
        .map(|text| InMemory([(request.path.to_path_buf(), text.to_string())].into()));
    let reader: &dyn Reader = match &in_memory {
        Some(m) => m,
        None => &FileSystem,
    };
    let file = jobfile::read(reader, request.path, request.sections, &Env::of_this_host())
        .map_err(|e| usage(e.to_string()))?;
    // Absolute, so that a relative --dir (`--dir .`) names its files' parent.
    let default_dir = match request.dir {
        Some(d) => {
            std::path::absolute(d).map_err(|e| usage(format!("--dir {}: {e}", d.display())))?
        }
        None => std::env::current_dir()
            .map_err(|e| usage(format!("the current directory: {e} (give --dir)")))?,
    };
    let ctx = lower::Context {
        default_dir,
        dir_given: request.dir.is_some(),
        ignore_unsupported: request.ignore_unsupported,
        seed: request.seed,
        devices: grants(request.devices, request.overwrite_devices)?,
    };
    let lowered = lower_checked(&file, &ctx).map_err(|e| usage(e.to_string()))?;
    Ok((file, lowered))
}

/// The devices named on the command line, each a block device;
/// `--overwrite-device` must name a device `--device` names (by device
/// number: a symlink to it is the same device).
pub fn grants(devices: &[PathBuf], overwrite: &[PathBuf]) -> anyhow::Result<Vec<DeviceGrant>> {
    let rdev = |flag: &str, p: &Path| -> anyhow::Result<(u64, BlockDeviceFacts)> {
        let facts = block_device::inspect(p).map_err(|e| usage(format!("{flag} {e}")))?;
        let rdev = crate::fio::jobfile::device::block_device(p)
            .ok_or_else(|| usage(format!("{flag} {}: not a block device", p.display())))?;
        Ok((rdev, facts))
    };
    let mut grants: Vec<DeviceGrant> = Vec::new();
    for p in devices {
        let (rdev, facts) = rdev("--device", p)?;
        if grants.iter().any(|g| g.rdev == rdev) {
            continue;
        }
        grants.push(DeviceGrant {
            path: p.clone(),
            rdev,
            size: facts.size_bytes,
            logical_block_size: facts.logical_block_size,
            writable: false,
        });
    }
    for p in overwrite {
        let (rdev, _) = rdev("--overwrite-device", p)?;
        match grants.iter_mut().find(|g| g.rdev == rdev) {
            Some(g) => g.writable = true,
            None => {
                return Err(usage(format!(
                    "--overwrite-device {}: that device is not named by --device; name it with both (--device lets jobs read it, --overwrite-device lets them write it)",
                    p.display()
                )))
            }
        }
    }
    Ok(grants)
}

/// The job file's jobs lowered, each one's values checked (the same
/// checks as `candor disk`'s, named by section).
pub fn lower_checked(
    file: &JobFile,
    ctx: &lower::Context,
) -> Result<lower::LoweredJobs, JobFileError> {
    let lowered = lower::lower(file, ctx)?;
    for job in &lowered.jobs {
        super::preflight::check_values(&job.spec)
            .and_then(|()| {
                super::preflight::check_system(job.spec.engine).map_err(|e| format!("ioengine={e}"))
            })
            .map_err(|e| JobFileError::at(&job.pos, format!("[{}]: {e}", job.section)))?;
    }
    Ok(lowered)
}

/// The checks that need the machine: memory for every job's buffers (they
/// may all run at once), every device, every directory, and every file's
/// room. Returns the plan: the directories, opened, and candor's files,
/// each sized to its directory's O_DIRECT alignment.
pub fn plan(file: &JobFile, lowered: &lower::LoweredJobs) -> anyhow::Result<DiskPlan> {
    check_memory(file, lowered, crate::host::memory::available_bytes())?;
    check_devices(lowered)?;
    let dirs = open_dirs(file, lowered)?;
    let files = lowered
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let size = match &f.device {
                Some(_) => f.size,
                None => {
                    let align = dirs[dir_index(&dirs, &f.dir)].dir.direct_alignment();
                    f.size.div_ceil(align) * align
                }
            };
            PlanFile {
                dir: f.dir.clone(),
                purpose: file_purpose(&f.fio_path),
                size,
                seed: lowered.jobs[f.jobs[0]].spec.seed ^ (i as u64).wrapping_mul(0x5851_f42d),
                fio_path: Some(f.fio_path.clone()),
                device: f.device.clone(),
                written: written(lowered, f),
                needed: needed(lowered, f),
            }
        })
        .collect();
    Ok(DiskPlan {
        dirs,
        files,
        jobs: DiskJobs::FioOrder(lowered.jobs.clone()),
    })
}

/// A name for candor's file from fio's (`.candor-job-<name>-<pid>-<n>.tmp`).
fn file_purpose(fio_path: &Path) -> String {
    let base = fio_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let clean: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(crate::leftovers::names::MAX_JOB_NAME)
        .collect();
    if clean.is_empty() {
        return "job-file".to_string();
    }
    format!("job-{clean}")
}

/// Each device a job uses: O_DIRECT at its logical block size, and a
/// device a job writes must be writable and in use by nothing (itself,
/// its partitions, anything stacked on them: mounts, swap, holders, an
/// exclusive open). Checked again right before it is opened for writing
/// (`disk::device`).
fn check_devices(plan: &lower::LoweredJobs) -> anyhow::Result<()> {
    for f in &plan.files {
        let Some(grant) = &f.device else { continue };
        for &j in &f.jobs {
            let job = &plan.jobs[j];
            let align = grant.logical_block_size;
            if !job.spec.direct {
                continue;
            }
            let mut need = vec![
                ("block size", job.spec.min_bs()),
                ("alignment (ba)", job.spec.unit()),
            ];
            need.extend(job.threads.iter().map(|t| ("offset", t.1)));
            if let Some((what, v)) = need.iter().find(|(_, v)| v % align != 0) {
                return Err(usage(format!(
                    "{}: [{}] uses direct=1 with a {what} of {v} bytes, not a multiple of the {align}-byte logical block size of {}",
                    job.pos,
                    job.section,
                    grant.path.display()
                )));
            }
        }
        let writer = f
            .jobs
            .iter()
            .map(|&j| &plan.jobs[j])
            .find(|j| j.spec.writes_target());
        if let Some(job) = writer {
            writable_now(&grant.path, false)
                .map_err(|why| usage(format!("{}: [{}] writes {why}", job.pos, job.section)))?;
        }
    }
    Ok(())
}

/// Refuses writing the device at `path` when the kernel marks it read-only
/// or anything uses it, in words that name what (the reason follows
/// "[job] writes "). `held`: the caller holds the device with `O_EXCL`
/// (the kernel's exclusive-open answer for it would be the caller's own).
pub fn writable_now(path: &Path, held: bool) -> Result<(), String> {
    let facts = if held {
        block_device::inspect_claimed(path)
    } else {
        block_device::inspect(path)
    }
    .map_err(|e| e.to_string())?;
    let shown = path.display();
    if facts.read_only {
        return Err(format!("{shown}, which the kernel marks read-only"));
    }
    if !facts.users.is_empty() {
        let users: Vec<&str> = facts.users.iter().map(|u| u.0.as_str()).collect();
        return Err(format!(
            "{shown}, which is in use: {}; candor never writes a device in use",
            users.join("; ")
        ));
    }
    Ok(())
}

/// The jobs' buffers, all at once, must fit in half the available memory
/// (the rule of `candor disk`), and each job's in the address space: the
/// allocation would abort otherwise.
fn check_memory(
    file: &JobFile,
    plan: &lower::LoweredJobs,
    available: Option<u64>,
) -> anyhow::Result<()> {
    // Each job alone first: its own refusal names what it needs (buffers, verify's map).
    for job in &plan.jobs {
        super::preflight::check_memory(&job.spec, available).map_err(usage)?;
    }
    let need: u64 = plan
        .jobs
        .iter()
        .map(|j| super::preflight::memory_needed(&j.spec))
        .sum();
    if let Some(avail) = available.filter(|avail| need > avail / 2) {
        return Err(usage(format!(
            "{}: its jobs' I/O buffers (and verify's maps of the last writes) need {} together; {} of memory is available (candor uses at most half)",
            file.path,
            crate::units::fmt_bytes(need),
            crate::units::fmt_bytes(avail)
        )));
    }
    Ok(())
}

/// The test directory of each file fio would use, checked: a filesystem
/// candor measures on, O_DIRECT alignment for the jobs that ask for it, and
/// room for all of candor's files with the usual margin left free. A
/// missing directory is checked on its nearest existing ancestor.
fn open_dirs(file: &JobFile, plan: &lower::LoweredJobs) -> anyhow::Result<Vec<PlanDir>> {
    let mut dirs: Vec<PlanDir> = Vec::new();
    for f in plan.files.iter().filter(|f| f.device.is_none()) {
        if dirs.iter().any(|d| d.path == f.dir) {
            continue;
        }
        let job = &plan.jobs[f.jobs[0]];
        let at = |e: String| {
            usage(format!(
                "{}: [{}] puts its files in {}: {e}",
                job.pos,
                job.section,
                f.dir.display()
            ))
        };
        let (base, missing) = crate::disk::made_dirs::missing_levels(&f.dir).map_err(&at)?;
        let dir = TestDir::open(&base).map_err(|e| at(e.to_string()))?;
        dirs.push(PlanDir {
            path: f.dir.clone(),
            dir,
            missing: !missing.is_empty(),
        });
    }
    for job in &plan.jobs {
        if plan.files[job.threads[0].0].device.is_some() {
            continue;
        }
        let dir = &dirs[dir_index(&dirs, &plan.files[job.threads[0].0].dir)].dir;
        let align = dir.direct_alignment();
        if !job.spec.direct {
            continue;
        }
        let sizes = job.spec.sizes();
        let mut need: Vec<(String, u64)> = Vec::new();
        for s in &sizes {
            match s {
                BlockSizes::Fixed(b) => need.push(("block size".into(), *b)),
                BlockSizes::Split(v) => {
                    need.extend(v.iter().map(|(b, _)| ("block size".to_string(), *b)))
                }
                BlockSizes::Range(lo, _) => need.push(("block size".into(), *lo)),
            }
        }
        need.push(("alignment (ba)".into(), job.spec.unit()));
        for (_, start, _) in &job.threads {
            need.push(("offset".into(), *start));
        }
        if let Some((what, v)) = need.iter().find(|(_, v)| v % align != 0) {
            return Err(usage(format!(
                "{}: [{}] uses direct=1 with a {what} of {v} bytes, not a multiple of the {align}-byte O_DIRECT alignment of {}",
                job.pos,
                job.section,
                dir.path().display()
            )));
        }
    }
    // Room per filesystem: directories made below one ancestor share it.
    let mut seen: Vec<&Path> = Vec::new();
    for d in &dirs {
        let dir = &d.dir;
        if seen.contains(&dir.path()) {
            continue;
        }
        seen.push(dir.path());
        let align = dir.direct_alignment();
        let on_it = |f: &lower::FileUse| {
            dirs.iter()
                .any(|o| o.path == f.dir && o.dir.path() == dir.path())
        };
        let total: u64 = plan
            .files
            .iter()
            .filter(|f| f.device.is_none() && on_it(f) && needed(plan, f))
            .map(|f| f.size.div_ceil(align) * align)
            .sum();
        let margin = crate::disk::space_margin(dir.total_bytes());
        let free = dir.free_bytes_now();
        if total.saturating_add(margin) > free {
            return Err(usage(format!(
                "{}: its files need {} in {}: {} free, and candor leaves {} free",
                file.path,
                crate::units::fmt_bytes(total),
                dir.path().display(),
                crate::units::fmt_bytes(free),
                crate::units::fmt_bytes(margin)
            )));
        }
    }
    Ok(dirs)
}

/// What the Run keeps of the job file.
pub fn record(file: &JobFile, plan: &lower::LoweredJobs, sections: &[String]) -> JobFileRecord {
    JobFileRecord {
        path: file.path.clone(),
        sha256: file.files[0].sha256.clone(),
        files: file
            .files
            .iter()
            .map(|f| JobFileText {
                path: f.path.clone(),
                sha256: f.sha256.clone(),
                text: f.text.clone(),
            })
            .collect(),
        sections: sections.to_vec(),
        ignored: plan.ignored.clone(),
        diskspd: None,
    }
}

/// What the Run records of each device the jobs use, before any is opened:
/// `writable` when a job writes it.
pub fn device_records(plan: &lower::LoweredJobs) -> Vec<DeviceRecord> {
    plan.files
        .iter()
        .filter_map(|f| {
            let g = f.device.as_ref()?;
            Some(DeviceRecord {
                path: g.path.display().to_string(),
                dev: crate::fio::jobfile::device::major_minor(g.rdev),
                size_bytes: g.size,
                logical_block_size: g.logical_block_size,
                writable: g.writable && written(plan, f),
                written_bytes: 0,
                jobs: Vec::new(),
            })
        })
        .collect()
}

/// The job file and its includes: inputs of the Run, never its outputs.
pub fn inputs(file: &JobFile) -> Vec<PathBuf> {
    file.files.iter().map(|f| PathBuf::from(&f.path)).collect()
}

/// True when some job that uses file `f` writes it (a device is then
/// recorded, checked and opened as written).
fn written(plan: &lower::LoweredJobs, f: &lower::FileUse) -> bool {
    f.jobs.iter().any(|&j| plan.jobs[j].spec.writes_target())
}

/// True when some job that uses file `f` does I/O (the null engine needs no file).
fn needed(plan: &lower::LoweredJobs, f: &lower::FileUse) -> bool {
    f.jobs
        .iter()
        .any(|&j| plan.jobs[j].spec.engine != EngineChoice::Exact(EngineKind::Null))
}
