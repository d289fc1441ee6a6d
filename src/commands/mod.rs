//! One file per subcommand: its flags (clap `Args`, whose doc comments are
//! the help), parsed into the plain values the library takes, and the
//! library calls that do the work (`plan`, `measure`, `session`, `report`,
//! `history`, `fleet`). No measuring, checking or formatting logic lives
//! here; `cli::Command::dispatch` calls each file's `execute`.

pub mod analyze;
pub mod compare;
pub mod compress;
pub mod compute;
pub mod cpu;
pub mod crypto;
pub mod disk;
pub mod explain;
pub mod flags;
pub mod fleet;
pub mod history;
pub mod import;
pub mod jobfile;
pub mod memory;
pub mod os;
pub mod report;
pub mod run;
pub mod sweep;
pub mod unixbench;
