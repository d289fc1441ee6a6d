//! `candor history trend`.

use crate::commands::flags::PrintTo;
use crate::report::history_pages::{self, TrendFormat, TrendRequest};
use std::path::Path;

#[derive(Debug, clap::Args)]
pub struct TrendArgs {
    /// The host.
    pub host: String,
    /// The test: a name as reports print it ("RND4K Q32T1 read", "FSYNC4K
    /// write", "cpu primes 1T"), its workload key, or a unique part of a name.
    #[arg(long, value_name = "TEST")]
    pub test: String,
    /// The figure: iops, bytes_per_sec (mbps), lat_p50_ns (p50), lat_p99_ns
    /// (p99), lat_p99_9_ns, lat_mean_ns, events_per_sec, ops_per_sec.
    /// Default: the test's headline (MB/s from 64 KiB blocks, IOPS below).
    #[arg(long, value_name = "METRIC")]
    pub metric: Option<String>,
    /// Only the most recent N Runs.
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: TrendFormat,
    #[command(flatten)]
    pub to: PrintTo,
}

pub fn execute(db: &Path, a: TrendArgs) -> anyhow::Result<()> {
    super::prepare(&a.to, db)?;
    let request = TrendRequest {
        host: &a.host,
        test: &a.test,
        metric: a.metric.as_deref(),
        last: a.last,
        format: a.format,
    };
    a.to.write(&history_pages::trend(db, &request)?)
}
