//! The thresholds of the drift findings, `regressed` and `improved`: a Run's
//! key figures against its host's earlier Runs. The rule that applies them
//! reads the history, so it lives there (`history/drift.rs`); the numbers
//! live here with every other finding's, where the catalogue names them.

/// Earlier Runs of a workload needed before drift is judged: with one or
/// two, the odd one out may be one of them, and the range means nothing.
pub const DRIFT_MIN_EARLIER: usize = 3;
/// How many of the host's most recent earlier Runs a figure is compared
/// with. A host followed for years is judged against what it has been
/// lately: a provider that improved threefold last year is not compared
/// with its old self, and a lasting change becomes the usual after ten Runs.
pub const DRIFT_WINDOW: usize = 10;
/// The least noise allowed for a disk figure, as a fraction of the earlier
/// median. A shared VM's disk moves by 10-50 % within minutes
/// (BENCHMARKS.md, alternated pairs); 10 % beyond the earlier range is the
/// smallest change worth a warning when the earlier Runs agreed closely.
pub const DRIFT_FLOOR_DISK: f64 = 0.10;
/// The same floor for compute figures: a CPU, memory or crypto rate of one
/// machine repeats within a few percent unless something changed.
pub const DRIFT_FLOOR_COMPUTE: f64 = 0.05;
/// Robust standard deviations of noise beyond the earlier range.
pub const DRIFT_MAD_K: f64 = 3.0;
