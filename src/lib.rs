//! candor: an honest server benchmark.
//!
//! The flow runs one way: host facts and the user's flags make a plan; the
//! plan is measured (disk engines, compute kernels) into a Run; findings are
//! pure functions of a Run; reports only render. See docs/ and the README.

pub mod battery;
pub mod cancel;
pub mod cli;
pub mod commands;
pub mod compute;
pub mod disk;
pub mod error;
pub mod findings;
pub mod fio;
pub mod fleet;
pub mod history;
pub mod host;
pub mod input;
pub mod leftovers;
pub mod measure;
pub mod output;
pub mod plan;
pub mod report;
pub mod result;
pub mod seed;
pub mod session;
pub mod units;
