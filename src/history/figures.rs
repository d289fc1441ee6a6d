//! A Run's figures as the history keeps them: one per workload and metric,
//! the median over passes with min, max and the number of passes, under a
//! stable workload key so that the same test lines up across hosts, dates
//! and the commands that ran it (a battery's `FSYNC4K`, `candor disk --fsync
//! 1` and an imported fio job are one workload when their jobs are the same).
//!
//! The workload key is the normalised job, not its name:
//! - disk: `disk/<rw>/bs=<bytes>/qd=<iodepth>/jobs=<numjobs>[/mix=<rwmixread>]/fsync=<n>/<direct|buffered>/<main|control>/<read|write>`
//!   (`iodepth` as run: a psync fallback runs at 1 and is another workload),
//!   and for a job of a fio job file `/job=<section>/options=<hash>` after it
//!   (the first 16 hex digits of the SHA-256 of its settings in force);
//! - compute: `<kind>/<test>/threads=<n>` (`cpu/primes/threads=1`);
//! - UnixBench's System Benchmarks Index of a Run's `unixbench` tests (candor
//!   unixbench's or an imported report's), one per copy count:
//!   `unixbench/index/copies=<n>` when all 12 index tests are in it, else
//!   `unixbench/index/copies=<n>/of=<test>,<test>,...` (a partial index is
//!   only the same figure as a partial index of the same tests).
//!
//! Pure: no database here.

use crate::result::{median, DirectionStats, DiskMeasurement, FileRole, Measurement, Run};

/// What a figure measures. The names are stored (`series.metric`) and exported: add, never rename.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    Iops,
    BytesPerSec,
    LatMean,
    LatP50,
    LatP99,
    LatP99_9,
    EventsPerSec,
    OpsPerSec,
    /// UnixBench's index (SPARCstation 20-61 = 10), no unit.
    Index,
}

impl Metric {
    pub const ALL: [Metric; 9] = [
        Metric::Iops,
        Metric::BytesPerSec,
        Metric::LatMean,
        Metric::LatP50,
        Metric::LatP99,
        Metric::LatP99_9,
        Metric::EventsPerSec,
        Metric::OpsPerSec,
        Metric::Index,
    ];

    /// The stored name: `iops`, `bytes_per_sec`, `lat_p99_ns`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Iops => "iops",
            Metric::BytesPerSec => "bytes_per_sec",
            Metric::LatMean => "lat_mean_ns",
            Metric::LatP50 => "lat_p50_ns",
            Metric::LatP99 => "lat_p99_ns",
            Metric::LatP99_9 => "lat_p99_9_ns",
            Metric::EventsPerSec => "events_per_sec",
            Metric::OpsPerSec => "ops_per_sec",
            Metric::Index => "index",
        }
    }

    /// A stored name, or what people type (`p99`, `mbps`, `MB/s`, `IOPS`).
    pub fn parse(text: &str) -> Option<Metric> {
        let t = text.trim().to_ascii_lowercase();
        Metric::ALL
            .into_iter()
            .find(|m| m.as_str() == t)
            .or(match t.as_str() {
                "mbps" | "mb/s" | "mib/s" | "bandwidth" | "bw" | "bytes" => {
                    Some(Metric::BytesPerSec)
                }
                "p50" | "lat_p50" => Some(Metric::LatP50),
                "p99" | "lat_p99" => Some(Metric::LatP99),
                "p99.9" | "p999" | "lat_p99_9" => Some(Metric::LatP99_9),
                "mean" | "lat" | "latency" | "lat_mean" => Some(Metric::LatMean),
                "events" | "events/s" => Some(Metric::EventsPerSec),
                "ops" | "ops/s" => Some(Metric::OpsPerSec),
                "unixbench" | "score" => Some(Metric::Index),
                _ => None,
            })
    }

    /// The unit of the stored value (raw units, as in a Run).
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::BytesPerSec => "B/s",
            Metric::LatMean | Metric::LatP50 | Metric::LatP99 | Metric::LatP99_9 => "ns",
            Metric::EventsPerSec => "events/s",
            Metric::OpsPerSec => "ops/s",
            Metric::Index => "index",
        }
    }

    /// Rates: higher is better. Latencies: lower is better.
    pub fn higher_is_better(self) -> bool {
        !self.is_latency()
    }

    pub fn is_latency(self) -> bool {
        matches!(
            self,
            Metric::LatMean | Metric::LatP50 | Metric::LatP99 | Metric::LatP99_9
        )
    }

    /// A value of this metric as people read it, with its unit: `40,132 IOPS`,
    /// `526.0 MB/s`, `68.2 us`, `1,234 events/s`.
    pub fn show(self, value: f64) -> String {
        use crate::units::{fmt_count, fmt_ns, mb_per_sec};
        let count = |v: f64| {
            if v.abs() >= 100.0 {
                fmt_count(v)
            } else {
                format!("{v:.1}")
            }
        };
        match self {
            Metric::Iops => format!("{} IOPS", count(value)),
            Metric::BytesPerSec => {
                let mb = mb_per_sec(value);
                if mb.abs() >= 10_000.0 {
                    format!("{} MB/s", fmt_count(mb))
                } else {
                    format!("{mb:.1} MB/s")
                }
            }
            Metric::LatMean | Metric::LatP50 | Metric::LatP99 | Metric::LatP99_9 => fmt_ns(value),
            Metric::EventsPerSec => format!("{} events/s", count(value)),
            Metric::OpsPerSec => format!("{} ops/s", count(value)),
            Metric::Index => format!("{value:.1} index"),
        }
    }

    /// A range with the unit written once when both ends share it:
    /// `1947.0–2032.2 MB/s`, `852 us – 1.02 ms`.
    pub fn show_range(self, lo: f64, hi: f64) -> String {
        let (a, b) = (self.show(lo), self.show(hi));
        match (a.split_once(' '), b.split_once(' ')) {
            (Some((x, ua)), Some((_, ub))) if ua == ub => format!("{x}–{b}"),
            _ => format!("{a} – {b}"),
        }
    }

    /// How people read it: `IOPS`, `MB/s`, `p99`.
    pub fn short(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::BytesPerSec => "MB/s",
            Metric::LatMean => "mean lat",
            Metric::LatP50 => "p50",
            Metric::LatP99 => "p99",
            Metric::LatP99_9 => "p99.9",
            Metric::EventsPerSec => "events/s",
            Metric::OpsPerSec => "ops/s",
            Metric::Index => "index",
        }
    }
}

/// Why a figure matters: tables lead with key figures and drift is judged on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    /// Kept and exported, not judged.
    Other = 0,
    /// The figure a test is quoted by: MB/s for blocks of 64 KiB or more,
    /// IOPS below (as CrystalDiskMark and `candor compare` do); a compute test's rate.
    Headline = 1,
    /// The p99 latency of a QD1 or fsync test: what a dependent chain of
    /// reads or a commit feels. At depth, latency follows from IOPS and the
    /// depth (Little's law) and would only repeat the headline.
    Felt = 2,
}

impl Key {
    pub fn from_i64(v: i64) -> Key {
        match v {
            1 => Key::Headline,
            2 => Key::Felt,
            _ => Key::Other,
        }
    }
}

/// One figure of a Run.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// The normalised job (see the module comment).
    pub workload: String,
    /// `disk`, `cpu`, `memory`, `crypto`, `compress`, `os`.
    pub kind: &'static str,
    /// The name reports use: `RND4K Q32T1 read`, `FSYNC4K write`, `cpu primes 1T`.
    pub test: String,
    /// For a disk figure, the job's spec label with the direction
    /// (`RND4K Q1T1 fsync=1 write`), which `--test` also accepts.
    pub spec_test: Option<String>,
    pub metric: Metric,
    /// Median over passes.
    pub value: f64,
    pub min: f64,
    pub max: f64,
    pub passes: u32,
    pub key: Key,
}

/// The workload key of one direction of a disk job.
pub fn disk_workload(d: &DiskMeasurement, direction: crate::result::Direction) -> String {
    let s = &d.spec;
    let mix = match (s.rw.is_mixed(), s.rwmixread) {
        (true, Some(m)) => format!("/mix={m}"),
        _ => String::new(),
    };
    // A job of a fio job file is only the same workload as the same job:
    // its rate, block sizes, size bound and the jobs beside it change what
    // it measures, so its section and settings join the key.
    let job = match &d.job {
        Some(j) => format!(
            "/job={}/options={}",
            j.section,
            &crate::fio::jobfile::source::sha256_hex(j.options.join("\n").as_bytes())[..16]
        ),
        None => String::new(),
    };
    format!(
        "disk/{}/bs={}/qd={}/jobs={}{mix}/fsync={}/{}/{}/{}{job}",
        s.rw.as_str(),
        s.bs,
        s.iodepth,
        s.numjobs,
        s.fsync,
        if s.direct { "direct" } else { "buffered" },
        match d.role {
            FileRole::Main => "main",
            FileRole::Control => "control",
        },
        direction.as_str()
    )
}

/// Every figure of a Run, in the order its tests first appear.
pub fn figures(run: &Run) -> Vec<Figure> {
    // (workload, kind, test, spec_test, key metric context, values per metric)
    struct KeyGroup {
        workload: String,
        kind: &'static str,
        test: String,
        spec_test: Option<String>,
        bandwidth_bound: bool,
        felt: bool,
        values: Vec<(Metric, Vec<f64>)>,
    }
    let mut groups: Vec<KeyGroup> = Vec::new();
    let mut push = |g: KeyGroup| match groups.iter_mut().find(|x| x.workload == g.workload) {
        Some(x) => {
            for (metric, vs) in g.values {
                match x.values.iter_mut().find(|(m, _)| *m == metric) {
                    Some((_, list)) => list.extend(vs),
                    None => x.values.push((metric, vs)),
                }
            }
        }
        None => groups.push(g),
    };
    for m in &run.measurements {
        match m {
            Measurement::Disk(d) => {
                for direction in crate::result::Direction::BOTH {
                    let Some(st) = direction.of(d) else { continue };
                    if st.ops == 0 && st.iops == 0.0 {
                        continue;
                    }
                    push(KeyGroup {
                        workload: disk_workload(d, direction),
                        kind: "disk",
                        test: d.subject(direction),
                        spec_test: Some(crate::result::subject(&d.spec.label(), direction, d.role)),
                        bandwidth_bound: d.spec.bs >= 64 * 1024,
                        felt: d.spec.is_qd1() || d.spec.fsync > 0,
                        values: disk_values(st),
                    });
                }
            }
            other => {
                let Some(c) = other.as_compute() else {
                    continue;
                };
                let (metric, value) = if let Some(v) = c.events_per_sec {
                    (Metric::EventsPerSec, v)
                } else if let Some(v) = c.bytes_per_sec {
                    (Metric::BytesPerSec, v)
                } else if let Some(v) = c.ops_per_sec {
                    (Metric::OpsPerSec, v)
                } else {
                    continue;
                };
                push(KeyGroup {
                    workload: format!(
                        "{}/{}/threads={}",
                        other.kind(),
                        c.spec.test,
                        c.spec.threads
                    ),
                    kind: other.kind(),
                    test: format!("{} {} {}T", other.kind(), c.spec.test, c.spec.threads),
                    spec_test: None,
                    bandwidth_bound: true,
                    felt: false,
                    values: vec![(metric, vec![value])],
                });
            }
        }
    }
    for (workload, test, index) in unixbench_indexes(run) {
        push(KeyGroup {
            workload,
            kind: "unixbench",
            test,
            spec_test: None,
            bandwidth_bound: true,
            felt: false,
            values: vec![(Metric::Index, vec![index])],
        });
    }
    let mut out = Vec::new();
    for g in groups {
        for (metric, values) in g.values {
            let values: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
            let Some(value) = median(&values) else {
                continue;
            };
            // A compute test has one figure; a disk test is quoted by MB/s or IOPS.
            let headline = g.kind != "disk"
                || (metric == Metric::BytesPerSec && g.bandwidth_bound)
                || (metric == Metric::Iops && !g.bandwidth_bound);
            let key = if headline {
                Key::Headline
            } else if metric == Metric::LatP99 && g.felt {
                Key::Felt
            } else {
                Key::Other
            };
            // A latency of 0 means "not recorded" (an import without percentiles).
            if metric.is_latency() && value <= 0.0 {
                continue;
            }
            out.push(Figure {
                workload: g.workload.clone(),
                kind: g.kind,
                test: g.test.clone(),
                spec_test: g.spec_test.clone(),
                metric,
                value,
                min: values.iter().copied().fold(f64::INFINITY, f64::min),
                max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                passes: values.len() as u32,
                key,
            });
        }
    }
    out
}

/// UnixBench's System Benchmarks Index of the Run's unixbench tests, per
/// copy count: (workload, test name, index). A partial index (fewer than
/// the 12 tests) names its tests in the workload and the name.
fn unixbench_indexes(run: &Run) -> Vec<(String, String, f64)> {
    use crate::compute::unixbench::{self, TESTS};
    let (ms, copies) = unixbench::measurements_of(run);
    copies
        .into_iter()
        .filter_map(|c| {
            let index = unixbench::index_of(&ms, c)?;
            let mut tests: Vec<&str> = TESTS
                .iter()
                .map(|t| t.name)
                .filter(|n| ms.iter().any(|m| m.spec.threads == c && m.spec.test == *n))
                .collect();
            tests.dedup();
            let copies = if c == 1 {
                "1 copy".to_string()
            } else {
                format!("{c} copies")
            };
            Some(if tests.len() == TESTS.len() {
                (
                    format!("unixbench/index/copies={c}"),
                    format!("unixbench index {copies}"),
                    index,
                )
            } else {
                (
                    format!("unixbench/index/copies={c}/of={}", tests.join(",")),
                    format!(
                        "unixbench partial index ({} of {}) {copies}",
                        tests.len(),
                        TESTS.len()
                    ),
                    index,
                )
            })
        })
        .collect()
}

fn disk_values(st: &DirectionStats) -> Vec<(Metric, Vec<f64>)> {
    let l = &st.lat_ns;
    vec![
        (Metric::Iops, vec![st.iops]),
        (Metric::BytesPerSec, vec![st.bytes_per_sec]),
        (Metric::LatMean, vec![l.mean]),
        (Metric::LatP50, vec![l.p50 as f64]),
        (Metric::LatP99, vec![l.p99 as f64]),
        (Metric::LatP99_9, vec![l.p99_9 as f64]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::synth;

    #[test]
    fn a_job_file_job_is_its_own_workload() {
        let mut m = synth::job(Some("seq"), "randread", 4096, 32, 1, 1000.0);
        let plain = disk_workload(synth::dm(&mut m), crate::result::Direction::Read);
        synth::dm(&mut m).job = Some(crate::result::JobInfo {
            section: "seq".into(),
            options: vec!["rw=randread".into(), "rate_iops=500".into()],
            ..Default::default()
        });
        let a = disk_workload(synth::dm(&mut m), crate::result::Direction::Read);
        assert!(
            a.starts_with(&plain) && a.contains("/job=seq/options="),
            "{a}"
        );
        synth::dm(&mut m).job.as_mut().unwrap().options[1] = "rate_iops=1000".into();
        let b = disk_workload(synth::dm(&mut m), crate::result::Direction::Read);
        assert_ne!(a, b, "another rate is another workload");
    }

    #[test]
    fn passes_become_one_figure_with_their_spread() {
        let mut run = synth::run();
        for (pass, iops) in [(1, 1000.0), (2, 1200.0), (3, 1100.0)] {
            run.measurements.push(synth::job(
                Some("RND4K Q32T1"),
                "randread",
                4096,
                32,
                pass,
                iops,
            ));
        }
        let f = figures(&run);
        let iops = f.iter().find(|f| f.metric == Metric::Iops).unwrap();
        assert_eq!(
            iops.workload,
            "disk/randread/bs=4096/qd=32/jobs=1/fsync=0/direct/main/read"
        );
        assert_eq!(iops.test, "RND4K Q32T1 read");
        assert_eq!(
            (iops.value, iops.min, iops.max, iops.passes),
            (1100.0, 1000.0, 1200.0, 3)
        );
        assert_eq!(iops.key, Key::Headline);
        let bw = f.iter().find(|f| f.metric == Metric::BytesPerSec).unwrap();
        assert_eq!(bw.key, Key::Other, "4 KiB blocks are quoted in IOPS");
    }

    #[test]
    fn same_job_under_another_name_is_the_same_workload() {
        let mut run = synth::run();
        let mut fsync = synth::job(Some("FSYNC4K"), "randwrite", 4096, 1, 1, 2000.0);
        synth::dm(&mut fsync).spec.fsync = 1;
        synth::dm(&mut fsync).write.as_mut().unwrap().lat_ns.p99 = 900_000;
        run.measurements.push(fsync);
        let f = figures(&run);
        let p99 = f.iter().find(|f| f.metric == Metric::LatP99).unwrap();
        assert_eq!(
            p99.workload,
            "disk/randwrite/bs=4096/qd=1/jobs=1/fsync=1/direct/main/write"
        );
        assert_eq!(p99.test, "FSYNC4K write");
        assert_eq!(p99.spec_test.as_deref(), Some("RND4K Q1T1 fsync=1 write"));
        assert_eq!(p99.key, Key::Felt);
    }

    #[test]
    fn unixbench_index_is_a_figure_per_copy_count() {
        let mut run = synth::run();
        for t in &crate::compute::unixbench::TESTS {
            run.measurements.push(synth::unixbench(t.name, 1, 100.0));
            run.measurements.push(synth::unixbench(t.name, 2, 400.0));
        }
        let f = figures(&run);
        let index: Vec<_> = f.iter().filter(|f| f.metric == Metric::Index).collect();
        assert_eq!(index.len(), 2, "{index:?}");
        assert_eq!(index[0].workload, "unixbench/index/copies=1");
        assert_eq!(index[0].test, "unixbench index 1 copy");
        assert!((index[0].value - 100.0).abs() < 1e-9);
        assert_eq!(index[1].workload, "unixbench/index/copies=2");
        assert!((index[1].value - 400.0).abs() < 1e-9);
        assert_eq!(index[1].key, Key::Headline);
        // Each test's score stays a figure of its own.
        assert!(f
            .iter()
            .any(|f| f.workload == "unixbench/syscall/threads=1"));

        // Two tests only: a partial index, under a key that names them.
        let mut run = synth::run();
        run.measurements.push(synth::unixbench("pipe", 1, 10.0));
        run.measurements
            .push(synth::unixbench("syscall", 1, 1000.0));
        let f = figures(&run);
        let p = f.iter().find(|f| f.metric == Metric::Index).unwrap();
        assert_eq!(p.workload, "unixbench/index/copies=1/of=pipe,syscall");
        assert!(p.test.contains("partial index (2 of 12)"), "{}", p.test);
        assert!((p.value - 100.0).abs() < 1e-9);
        assert_eq!(Metric::Index.show(1234.56), "1234.6 index");
    }

    #[test]
    fn metric_names_round_trip_and_aliases_parse() {
        for m in Metric::ALL {
            assert_eq!(Metric::parse(m.as_str()), Some(m));
        }
        assert_eq!(Metric::parse("MB/s"), Some(Metric::BytesPerSec));
        assert_eq!(Metric::parse("p99"), Some(Metric::LatP99));
        assert_eq!(Metric::parse("speed"), None);
        assert!(!Metric::LatP99.higher_is_better() && Metric::Iops.higher_is_better());
        assert_eq!(
            Metric::BytesPerSec.show_range(1947e6, 2032.2e6),
            "1947.0–2032.2 MB/s"
        );
        assert_eq!(Metric::LatP99.show_range(852e3, 1.02e6), "852 us – 1.02 ms");
        assert_eq!(Metric::Iops.show_range(7050.0, 7358.0), "7,050–7,358 IOPS");
    }
}
