//! The Run: candor's result document and the contract between measuring,
//! findings and reports. Owns the schema types, reading (with clear errors
//! for anything that is not a Run) and atomic writing. It must not measure
//! or format.

mod device;
mod file;
pub mod histogram;
#[cfg(unix)]
mod lock;
#[cfg(windows)]
#[path = "lock_windows.rs"]
mod lock;
mod run;
mod sane;
mod spec;
mod stack;
mod stats;
mod verify;

pub use device::{DeviceJobIo, DeviceRecord};
pub use file::{parse_run, read_run, run_json, write_run, ReadRunError};
pub use lock::RunLock;

/// `.NAME.lock` beside the Run at `output`: the lock file's name, the same
/// on every system (`RunLock::path_for`).
fn lock_path_for(output: &std::path::Path) -> std::path::PathBuf {
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "run".into());
    dir.join(format!(".{name}.lock"))
}
pub use run::*;
pub use spec::{subject, BlockSizes, Direction, DiskSpec, Rw};
pub use stack::{
    FioDiskAggregate, FioDiskUtil, LayerCounters, LayerIo, LayerSecond, StackLayer, StackRelation,
};
pub use stats::{median, Spread};
pub use verify::{BadBlock, VerifyRecord, KEPT_BAD as VERIFY_KEPT_BAD};
