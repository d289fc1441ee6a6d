//! How much and how long: rate limits, think pauses, size and its limits (`io_size`,
//! `number_ios`, `loops`), runtime, and steady state.

use super::{LoweredJobs, Lowering};
use crate::disk::flow::{Flow, MAX_WEIGHT};
use crate::disk::min_rate::{Floor, MinRate};
use crate::disk::steady::SteadySpec;
use crate::disk::{BlockSizes, JobSpec, Think};
use crate::fio::jobfile::device::DeviceGrant;
use crate::fio::jobfile::parse::Value;
use crate::fio::jobfile::{JobFile, JobFileError};
use std::collections::HashMap;
use std::time::Duration;

impl Lowering<'_> {
    pub(super) fn rate(
        &mut self,
        spec: &mut JobSpec,
        sizes: &[BlockSizes; 2],
    ) -> Result<(), JobFileError> {
        let dirs = |name: &str| match self.get(name).map(|s| &s.value) {
            Some(Value::Numbers(v)) => *v,
            _ => [None, None, None],
        };
        let (bytes, iops) = (dirs("rate"), dirs("rate_iops"));
        let set = |v: &[Option<u64>; 3]| v.iter().any(|x| x.is_some_and(|n| n > 0));
        if set(&bytes) && set(&iops) {
            // fio's fixup_options refuses the job when it starts, whichever
            // directions each names (`--parse-only` does not look).
            if let Some(s) = self.get("rate_iops") {
                return Err(Self::bad(
                    s,
                    "rate and rate_iops are mutually exclusive (fio refuses the job when it starts: give one)",
                ));
            }
        }
        self.rate_min(spec, &bytes, &iops)?;
        for d in 0..2 {
            // An IOPS rate counts the smallest block.
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

    /// `rate_min`/`rate_iops_min` with `rate_cycle`, refused where fio's
    /// fixup_options refuses the job when it starts (`--parse-only` does not
    /// look): a byte and an IOPS minimum together, or a minimum above its cap.
    fn rate_min(
        &mut self,
        spec: &mut JobSpec,
        cap_bytes: &[Option<u64>; 3],
        cap_iops: &[Option<u64>; 3],
    ) -> Result<(), JobFileError> {
        let dirs = |name: &str| match self.get(name).map(|s| (&s.value, s)) {
            Some((Value::Numbers(v), s)) => Some((*v, s)),
            _ => None,
        };
        let (bytes, iops) = (dirs("rate_min"), dirs("rate_iops_min"));
        let any = |v: &[Option<u64>; 3]| v.iter().any(|n| n.unwrap_or(0) > 0);
        if let (Some((b, _)), Some((i, s))) = (bytes, iops) {
            if any(&b) && any(&i) {
                return Err(Self::bad(
                    s,
                    "rate_min and rate_iops_min together: fio refuses the job ('rate and rate_iops are mutually exclusive')",
                ));
            }
        }
        let mut floor = [None, None];
        for (found, cap, ops) in [(bytes, cap_bytes, false), (iops, cap_iops, true)] {
            let Some((v, s)) = found else { continue };
            for d in 0..2 {
                let min = v[d].unwrap_or(0);
                if min == 0 {
                    continue;
                }
                if cap[d].is_some_and(|c| c > 0 && c < min) {
                    return Err(Self::bad(
                        s,
                        "above the job's rate cap: fio refuses the job ('minimum rate exceeds rate')",
                    ));
                }
                floor[d] = Some(if ops {
                    Floor::Ops(min)
                } else {
                    Floor::Bytes(min)
                });
            }
        }
        if floor == [None, None] {
            return Ok(());
        }
        let cycle = match self.number("rate_cycle") {
            Some((0, s)) => return Err(Self::bad(s, "out of range (at least 1 ms)")),
            Some((ms, _)) => Duration::from_millis(ms),
            None => Duration::from_millis(1000),
        };
        spec.rate_min = Some(MinRate { floor, cycle });
        Ok(())
    }

    /// `flow` with `flow_id` and `flow_sleep` (microseconds): nothing unless
    /// `flow` is above 0, as fio (flow_init_job).
    pub(super) fn flow(&mut self, spec: &mut JobSpec) -> Result<(), JobFileError> {
        let Some((weight, s)) = self.number("flow").filter(|(w, _)| *w > 0) else {
            return Ok(());
        };
        if weight > MAX_WEIGHT {
            return Err(Self::bad(
                s,
                format!("out of range (at most {MAX_WEIGHT}, fio's FLOW_MAX_WEIGHT)"),
            ));
        }
        spec.flow = Some(Flow {
            id: self.number("flow_id").map_or(0, |(n, _)| n),
            weight,
            sleep: Duration::from_micros(self.number("flow_sleep").map_or(0, |(n, _)| n)),
        });
        Ok(())
    }

    /// The `thinktime` family, as fio reads it: nothing unless `thinktime`
    /// is above 0 (fio looks at the others only then).
    pub(super) fn think(&mut self, spec: &mut JobSpec) -> Result<(), JobFileError> {
        let Some((pause, _)) = self.time("thinktime").filter(|(us, _)| *us > 0) else {
            return Ok(());
        };
        let spin = self.time("thinktime_spin").map_or(0, |(us, _)| us);
        let blocks = match self.number("thinktime_blocks") {
            Some((0, s)) => return Err(Self::bad(s, "out of range (at least 1)")),
            Some((n, _)) => n,
            None => 1,
        };
        let on_issue = match self.text("thinktime_blocks_type") {
            None | Some(("complete", _)) => false,
            Some(("issue", _)) => true,
            Some((other, s)) => {
                return Err(Self::bad(
                    s,
                    format!("'{other}' is not a thinktime_blocks_type (complete, issue)"),
                ))
            }
        };
        spec.think = Some(Think {
            pause: Duration::from_micros(pause),
            spin: Duration::from_micros(spin),
            blocks,
            on_issue,
        });
        Ok(())
    }

    /// `size`, `io_size`, `number_ios`, `loops`, `runtime`, `time_based`,
    /// `ramp_time`: how long the job runs. Returns each clone's region length.
    pub(super) fn timing_and_size(
        &mut self,
        spec: &mut JobSpec,
        device: Option<&DeviceGrant>,
    ) -> Result<u64, JobFileError> {
        let given = self.number("size");
        let on_device = match (given, device) {
            (None, Some(grant)) => Some(self.device_size(grant, spec.min_bs())?),
            _ => None,
        };
        // The file decides the region: filesize=, or an existing file
        // without size=; size= then bounds the I/O where it is smaller.
        let from_file = match self.filesize(device.is_some())? {
            Some(f) => Some(f),
            None if given.is_none() && device.is_none() => self.sized_by_existing_file()?,
            None => None,
        };
        let (size, size_s, io_default) = match (from_file, given.or(on_device)) {
            (Some(f), Some((n, _))) => (f.region, f.setting, n.min(f.region)),
            (Some(f), None) => (f.region, f.setting, f.region),
            (None, Some((n, s))) => (n, s, n),
            (None, None) => {
                if let Some((path, s)) = self.missing_device() {
                    return Err(Self::bad(
                        s,
                        format!(
                            "{} is not a device on this host, and the job has no size= (fio sizes it from the device): name a device here (granted with --device), or give size= to test a file",
                            path.display()
                        ),
                    ));
                }
                return Err(JobFileError::at(
                    &self.job.pos,
                    format!(
                        "[{}] has no size: candor creates its own files, so the job must say how large (fio asks the same of a file that does not exist)",
                        self.job.section
                    ),
                ));
            }
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
        let mut time_based = self.flag("time_based");
        let runtime = self.time("runtime").map_or(0, |(us, _)| us);
        spec.ramp = Duration::from_micros(self.time("ramp_time").map_or(0, |(us, _)| us));
        if time_based && runtime == 0 {
            // fio (init.c, fixup_options): "time_based requires a
            // runtime/timeout setting", then it turns time_based off and
            // runs the job bounded by its size.
            let s = self.get("time_based").expect("time_based is set");
            self.notes.push(format!(
                "{} without a runtime: fio says 'time_based requires a runtime/timeout setting' and runs the job bounded by its size; so does candor",
                s.spelled()
            ));
            time_based = false;
        }
        spec.runtime = Duration::from_micros(runtime);
        if !time_based {
            let io = self.number("io_size").map_or(io_default, |(n, _)| n).max(1);
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

    pub(super) fn steady(&mut self) -> Result<Option<SteadySpec>, JobFileError> {
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
}

/// fio judges steady state over a whole reporting group when
/// `group_reporting` is set, and per clone otherwise; candor judges one
/// job's threads together, so it runs steady state only where the two agree.
pub(super) fn check_steady_groups(plan: &LoweredJobs, file: &JobFile) -> Result<(), JobFileError> {
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
