//! `candor run`: the whole battery on this host. The flags (`args.rs`)
//! lowered into a preset and overrides (`lower.rs`), the battery started or
//! resumed (`battery::launch`), run (`battery::runner`) into a Run file,
//! then the summary printed and the Run added to the history.

mod args;
mod lower;

pub use args::Args;
pub use lower::parse_flags;

use crate::battery::launch::{self, Launched, NewBattery};
use crate::battery::runner::{self, Outcome};
use crate::error::usage;
use std::path::Path;

pub fn execute(args: Args) -> anyhow::Result<()> {
    if args.fleet_agent {
        eprintln!("{}{}", crate::fleet::AGENT_PID_PREFIX, std::process::id());
        crate::cancel::stop_when_stdin_closes();
    }
    // A fleet's hosts keep no history: the controller adds the Runs it fetches.
    let history = (!args.fleet_agent).then_some(&args.history);
    // The session holds the Run's lock: no other candor writes it until we return.
    let Launched {
        plan,
        session,
        test_dir,
    } = match &args.resume {
        Some(file) => {
            let given = lower::given_beside_resume(&args);
            if !given.is_empty() {
                return Err(usage(format!(
                    "--resume carries on with the plan stored in {}; {} cannot change it",
                    file.display(),
                    given.join(", ")
                )));
            }
            launch::resume(file, history)?
        }
        None => {
            let (preset, overrides) = parse_flags(&args)?;
            let new = NewBattery {
                preset,
                overrides,
                dir: args.dir.as_deref(),
                label: args.label.clone(),
                output: args.output.clone(),
                force: args.force,
            };
            // The history database is an input, whether or not this Run goes there.
            launch::start(new, history, &args.history.inputs())?
        }
    };
    let mut session = session.quiet(args.quiet);
    let mut backend =
        crate::battery::engines::Engines::new(test_dir).continuing(session.recorder().run());
    let mut progress = if args.fleet_agent {
        crate::battery::progress::BatteryProgress::new(!args.quiet)
    } else {
        crate::battery::progress::BatteryProgress::for_terminal(args.quiet)
    };
    let outcome = runner::execute(&plan, session.recorder(), &mut backend, &mut progress)?;
    drop(backend);
    let output = session.recorder().output().map(Path::to_path_buf);
    let output = output.unwrap_or_default();
    if !args.quiet {
        let status = session.recorder().run().status.as_str();
        eprintln!("candor: Run saved to {} ({status})", output.display());
    }
    match outcome {
        Outcome::Complete => session.print_and_record(|run| {
            crate::report::render_with(run, args.format, &args.verbose.options())
        }),
        Outcome::Interrupted(i) => {
            if !args.quiet {
                eprintln!(
                    "candor: carry on with: candor run --resume {}",
                    output.display()
                );
            }
            Err(i.into())
        }
        Outcome::Failed(e) => Err(e),
    }
}
