//! The real `Backend`: the disk engine on the battery's test files, and the
//! compute groups. It owns the two test files: the main one (made once per
//! run and used by every disk test of every pass) and the control one (made
//! for the control series); dropping a `TestFile` removes it, so an error
//! or an interruption anywhere leaves no file behind.

use super::plan::BatteryPlan;
use super::profiles::DiskTest;
use super::runner::Backend;
use crate::compute::{self, ComputeOptions, Threads};
use crate::disk::{JobSpec, TestDir, TestFile};
use crate::result::{ComputeMeasurement, DiskMeasurement, FileRole};
use anyhow::Context;

/// The disk engine and compute kernels on one test directory.
pub struct Engines {
    dir: TestDir,
    main: Option<TestFile>,
    control: Option<TestFile>,
    /// Where the next sequential control read starts (bytes): each one
    /// continues where the previous stopped, across tests and passes.
    control_cursor: u64,
    /// Why the control file is smaller than planned (free space shrank
    /// before it was made): the note its measurements carry.
    control_note: Option<String>,
}

impl Engines {
    pub fn new(dir: TestDir) -> Engines {
        Engines {
            dir,
            main: None,
            control: None,
            control_cursor: 0,
            control_note: None,
        }
    }

    /// Continues the control cursor of a resumed Run after its last sequential control read.
    pub fn continuing(mut self, run: &crate::result::Run) -> Engines {
        if let Some(span) = run
            .disk()
            .filter(|d| d.role == FileRole::Control)
            .filter_map(|d| d.span)
            .last()
        {
            self.control_cursor = span.end();
        }
        self
    }

    fn slot(&mut self, role: FileRole) -> &mut Option<TestFile> {
        match role {
            FileRole::Main => &mut self.main,
            FileRole::Control => &mut self.control,
        }
    }
}

/// The job of a battery test on a file of `size` bytes (checked before the
/// battery starts, by `plan::battery::check`).
pub fn job_for(test: &DiskTest, plan: &BatteryPlan, size: u64, seed: u64) -> JobSpec {
    let mut job = JobSpec::new(test.rw.clone(), test.bs, test.iodepth);
    job.numjobs = test.numjobs;
    if let Some(mix) = test.rwmixread {
        job.rwmixread = mix;
    }
    job.fsync = test.fsync;
    job.size = size;
    job.runtime = plan.runtime();
    job.ramp = plan.ramp();
    job.settle_ramp = true;
    job.seed = seed;
    job
}

impl Backend for Engines {
    fn prepare(&mut self, plan: &BatteryPlan, role: FileRole) -> anyhow::Result<()> {
        let (purpose, size, seed) = match role {
            FileRole::Main => ("main", plan.size, plan.seed),
            FileRole::Control => {
                let planned = plan
                    .control
                    .size
                    .context("the plan has no control file size")?;
                let margin = crate::disk::file::space_margin(self.dir.total_bytes());
                let room = self.dir.free_bytes_now().saturating_sub(margin);
                let align = self.dir.direct_alignment();
                let (size, note) = super::plan::control::size_now(planned, plan.size, room, align)
                    .map_err(|e| anyhow::anyhow!(e))?;
                self.control_note = note;
                ("control", size, plan.seed ^ 0xC0_u64)
            }
        };
        let file = TestFile::create(&self.dir, purpose, size, seed)
            .with_context(|| format!("creating the {purpose} test file"))?;
        *self.slot(role) = Some(file);
        Ok(())
    }

    fn disk(
        &mut self,
        plan: &BatteryPlan,
        test: &DiskTest,
        role: FileRole,
        seed: u64,
    ) -> anyhow::Result<DiskMeasurement> {
        let file = match role {
            FileRole::Main => self.main.as_ref(),
            FileRole::Control => self.control.as_ref(),
        }
        .context("test file not prepared")?;
        let mut job = job_for(test, plan, file.size(), seed);
        let carry = role == FileRole::Control && !job.rw.is_random();
        if carry {
            let threads = u64::from(job.numjobs.max(1));
            job.seq_start = self.control_cursor / threads;
            job.byte_limit = plan.control.seq_share.map(|share| {
                // A control file made smaller than planned shares less.
                let share = match plan.control.size {
                    Some(planned) if planned > file.size() => {
                        (u128::from(share) * u128::from(file.size()) / u128::from(planned)) as u64
                    }
                    _ => share,
                };
                share / threads
            });
        }
        let started = crate::units::now_rfc3339();
        let mut m = crate::measure::on_file(&self.dir, file, &job)?;
        if let Some(span) = m.span.filter(|_| carry) {
            self.control_cursor = span.end() * u64::from(job.numjobs.max(1));
        }
        let measured_ops: u64 = [&m.read, &m.write]
            .iter()
            .flat_map(|d| d.iter())
            .map(|d| d.ops)
            .sum();
        if carry && measured_ops == 0 {
            // The share ended before the measured interval began: no figure,
            // never a rate of 0 over nothing.
            m.read = None;
            m.write = None;
            m.notes.push(format!(
                "nothing measured: its share of the control file ({}) was read before the measured interval began",
                crate::units::fmt_bytes(job.byte_limit.unwrap_or(0))
            ));
        } else if carry && m.measured_ns < job.runtime.as_nanos() as u64 {
            m.notes.push(format!(
                "stopped after {} of the file (its share, so that no read repeats bytes): measured over {} instead of {}",
                crate::units::fmt_bytes(job.byte_limit.unwrap_or(0)),
                crate::units::fmt_duration(std::time::Duration::from_nanos(m.measured_ns)),
                crate::units::fmt_duration(job.runtime)
            ));
        }
        if m.started_at.is_none() {
            m.started_at = Some(started);
        }
        if let Some(note) = self
            .control_note
            .as_ref()
            .filter(|_| role == FileRole::Control)
        {
            m.notes.push(note.clone());
        }
        Ok(m)
    }

    fn compute(
        &mut self,
        plan: &BatteryPlan,
        group: compute::Group,
    ) -> anyhow::Result<Vec<ComputeMeasurement>> {
        group.run(&ComputeOptions {
            threads: Threads::All,
            runtime: plan.compute_runtime(),
        })
    }

    fn unixbench(&mut self, plan: &BatteryPlan) -> anyhow::Result<super::runner::UnixbenchResult> {
        let options = compute::unixbench::battery_options(&plan.dir, plan.unixbench_pass());
        let (measured, not_run) = compute::unixbench::run(&options)?;
        let not_run = not_run
            .into_iter()
            .map(|n| (n.test.name.to_string(), n.cause))
            .collect();
        Ok((measured, not_run))
    }

    fn release(&mut self, role: FileRole) {
        // Dropping the TestFile removes it.
        *self.slot(role) = None;
    }
}
