//! Groups a Run's disk measurements into metrics: one metric is one profile
//! (or, for single jobs, the spec's CrystalDiskMark-style label), on one file
//! (main or control), in one direction (read or write), with one point per
//! pass. Findings compare metrics; this module only groups and summarises.

pub use crate::result::Direction as Dir;
use crate::result::{DirectionStats, DiskMeasurement, FileRole, Run, Spread};

/// One pass of a metric.
#[derive(Debug, Clone, Copy)]
pub struct Point<'a> {
    /// 1-based pass (1 for a job outside a battery).
    pub pass: u32,
    pub job: &'a DiskMeasurement,
    pub stats: &'a DirectionStats,
}

/// One profile on one file in one direction, across passes.
#[derive(Debug, Clone)]
pub struct ProfileSeries<'a> {
    pub label: String,
    pub role: FileRole,
    pub dir: Dir,
    pub points: Vec<Point<'a>>,
}

/// True when the job is random (`randread`, `randwrite`, `randrw`).
pub fn is_random(job: &DiskMeasurement) -> bool {
    job.spec.rw.is_random()
}

/// True when the job did only one direction (not a mixed job).
pub fn is_pure(job: &DiskMeasurement) -> bool {
    job.spec.rw.is_pure()
}

impl<'a> ProfileSeries<'a> {
    /// `RND4K Q32T1 read`, with ` (control file)` for the control series.
    pub fn subject(&self) -> String {
        crate::result::subject(&self.label, self.dir, self.role)
    }

    /// The first pass's job (specs are the same in every pass).
    pub fn job(&self) -> &'a DiskMeasurement {
        self.points[0].job
    }

    /// IOPS per pass, in pass order.
    pub fn iops(&self) -> Vec<f64> {
        self.points.iter().map(|p| p.stats.iops).collect()
    }

    /// Bytes per second per pass, in pass order.
    pub fn bps(&self) -> Vec<f64> {
        self.points.iter().map(|p| p.stats.bytes_per_sec).collect()
    }

    /// Median, min, max of IOPS over passes.
    pub fn iops_spread(&self) -> Spread {
        Spread::of(&self.iops()).expect("a metric has at least one point")
    }

    /// Median, min, max of bytes/s over passes.
    pub fn bps_spread(&self) -> Spread {
        Spread::of(&self.bps()).expect("a metric has at least one point")
    }

    /// Number of distinct passes.
    pub fn passes(&self) -> usize {
        let mut p: Vec<u32> = self.points.iter().map(|p| p.pass).collect();
        p.sort_unstable();
        p.dedup();
        p.len()
    }

    /// True for a job that did only this direction, without fsync.
    pub fn is_plain(&self) -> bool {
        is_pure(self.job()) && self.job().spec.fsync == 0
    }
}

/// Every metric of the Run, in the order first seen.
pub fn metrics(run: &Run) -> Vec<ProfileSeries<'_>> {
    let mut out: Vec<ProfileSeries> = Vec::new();
    // A metadata engine's operations (filecreate, ...) are the
    // filesystem's, not the medium's: no rate, cap or limit of the disk
    // is read from them (`job-metadata` says what they are).
    for job in run.disk().filter(|d| d.spec.metadata.is_none()) {
        let l = job.label();
        for (dir, stats) in [(Dir::Read, &job.read), (Dir::Write, &job.write)] {
            let Some(stats) = stats else { continue };
            if stats.ops == 0 && stats.iops == 0.0 {
                continue;
            }
            let point = Point {
                pass: job.pass.unwrap_or(1),
                job,
                stats,
            };
            match out
                .iter_mut()
                .find(|m| m.label == l && m.role == job.role && m.dir == dir)
            {
                Some(m) => m.points.push(point),
                None => out.push(ProfileSeries {
                    label: l.clone(),
                    role: job.role,
                    dir,
                    points: vec![point],
                }),
            }
        }
    }
    out
}

/// The most passes any main-file metric has (0 without disk measurements).
pub fn max_passes(run: &Run) -> usize {
    metrics(run)
        .iter()
        .filter(|m| m.role == FileRole::Main)
        .map(|m| m.passes())
        .max()
        .unwrap_or(0)
}

/// The rate of one series interval in operations/s and bytes/s; None for
/// an interval too short to mean anything (a trailing partial second).
pub fn interval_rate(p: &crate::result::SeriesPoint) -> Option<(f64, f64)> {
    let dur = if p.dur_ns == 0 {
        1_000_000_000
    } else {
        p.dur_ns
    };
    // Below half a second a single slow I/O swings the rate: skip it.
    if dur < 500_000_000 {
        return None;
    }
    let secs = dur as f64 / 1e9;
    Some((p.ops as f64 / secs, p.bytes as f64 / secs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth::*;

    #[test]
    fn groups_by_profile_role_and_direction() {
        let mut run = run();
        for pass in 1..=3 {
            run.measurements
                .push(job(Some("RND4K Q32T1"), "randread", 4096, 32, pass, 1000.0));
            run.measurements
                .push(job(Some("RND4K Q32T1"), "randwrite", 4096, 32, pass, 900.0));
        }
        run.measurements.push(control(job(
            Some("RND4K Q32T1"),
            "randread",
            4096,
            32,
            1,
            10.0,
        )));
        let m = metrics(&run);
        assert_eq!(m.len(), 3);
        assert_eq!(m[0].subject(), "RND4K Q32T1 read");
        assert_eq!(m[0].passes(), 3);
        assert_eq!(m[2].subject(), "RND4K Q32T1 read (control file)");
        assert_eq!(max_passes(&run), 3);
    }

    #[test]
    fn labels_single_jobs_from_their_spec() {
        let m = disk(job(None, "randread", 8192, 32, 1, 1.0));
        assert_eq!(m.label(), "RND8K Q32T1");
        let m = disk(job(None, "read", 1 << 20, 8, 1, 1.0));
        assert_eq!(m.label(), "SEQ1M Q8T1");
    }
}
