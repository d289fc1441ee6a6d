//! candor's integration tests that can run beside one another, one module
//! per file of tests/ (as ripgrep's tests/tests.rs): one binary to build and
//! link instead of one a file, and libtest fills both CPUs across files.
//! The tests that measure the disk or time what they run are tests/quiet.rs.

mod common;

mod battery;
mod block_device;
mod closed_pipe;
mod compute;
mod disk;
mod faults;
mod fleet;
mod fleet_html;
mod golden;
mod history;
mod house;
mod import;
mod import_corpus;
mod inventory;
mod properties;
mod report;
mod unixbench;
