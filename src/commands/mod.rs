//! One file per subcommand: parse its flags into a plan, call the library,
//! hand the result to a report. No measuring or formatting logic lives here.

pub mod analyze;
pub mod compare;
pub mod compress;
pub mod compute;
pub mod cpu;
pub mod crypto;
pub mod disk;
pub mod explain;
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

use crate::cli::Command;

/// Runs the subcommand.
pub fn dispatch(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Run(a) => run::execute(a),
        Command::Disk(a) => disk::execute(a),
        Command::Sweep(a) => sweep::execute(a),
        Command::Cpu(a) => cpu::execute(a),
        Command::Memory(a) => memory::execute(a),
        Command::Crypto(a) => crypto::execute(a),
        Command::Compress(a) => compress::execute(a),
        Command::Os(a) => os::execute(a),
        Command::Unixbench(a) => unixbench::execute(a),
        Command::Analyze(a) => analyze::execute(a),
        Command::Explain(a) => explain::execute(a),
        Command::Report(a) => report::execute(a),
        Command::Compare(a) => compare::execute(a),
        Command::Import(a) => import::execute(a),
        Command::History(a) => history::execute(a),
        Command::Fleet(a) => fleet::execute(a),
    }
}
