//! The five compute groups, as the subcommands and the battery name them.

use super::{ComputeOptions, Threads};
use crate::result::{ComputeMeasurement, Measurement};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// A compute group: one subcommand, one kind of measurement in a Run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Group {
    Cpu,
    Memory,
    Crypto,
    Compress,
    Os,
}

impl Group {
    /// Every group, in the order a battery pass runs them.
    pub const ALL: [Group; 5] = [
        Group::Cpu,
        Group::Memory,
        Group::Crypto,
        Group::Compress,
        Group::Os,
    ];

    /// `cpu`, `memory`, `crypto`, `compress` or `os` (also the measurement kind).
    pub fn name(self) -> &'static str {
        match self {
            Group::Cpu => "cpu",
            Group::Memory => "memory",
            Group::Crypto => "crypto",
            Group::Compress => "compress",
            Group::Os => "os",
        }
    }

    /// Default measured time per test of the subcommand: sysbench-like for
    /// the single CPU test, shorter where a group has many tests.
    pub fn default_runtime(self) -> Duration {
        match self {
            Group::Cpu => Duration::from_secs(5),
            _ => Duration::from_secs(3),
        }
    }

    /// Tests the group runs per thread count (for time estimates).
    pub fn tests(self) -> usize {
        match self {
            Group::Cpu => 1,
            Group::Memory => 2 + 4,
            Group::Crypto | Group::Compress | Group::Os => 4,
        }
    }

    /// How many measurements the group makes with `threads`.
    pub fn planned_measurements(self, threads: Threads) -> usize {
        self.tests() * threads.counts().len()
    }

    /// Runs the group's tests.
    pub fn run(self, options: &ComputeOptions) -> anyhow::Result<Vec<ComputeMeasurement>> {
        match self {
            Group::Cpu => super::run_cpu(options),
            Group::Memory => super::run_memory(options),
            Group::Crypto => super::run_crypto(options),
            Group::Compress => super::run_compress(options),
            Group::Os => super::run_os(options),
        }
    }

    /// A measurement of this group, as the Run holds it.
    pub fn wrap(self, m: ComputeMeasurement) -> Measurement {
        match self {
            Group::Cpu => Measurement::Cpu(m),
            Group::Memory => Measurement::Memory(m),
            Group::Crypto => Measurement::Crypto(m),
            Group::Compress => Measurement::Compress(m),
            Group::Os => Measurement::Os(m),
        }
    }
}
