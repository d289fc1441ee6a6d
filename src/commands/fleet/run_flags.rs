//! The `candor run` flags after `fleet run --`, parsed here exactly as the
//! remote candor will parse them, so that a bad one is refused before any
//! host is contacted; the flags the fleet sets itself are refused by name.

use crate::error::usage;

/// Flags of `candor run` that the fleet sets itself, per host.
const FLEET_SETS: [(&str, &str); 7] = [
    (
        "--output",
        "each host's Run goes to a work directory the fleet manages",
    ),
    ("--resume", "a fleet run starts each host afresh"),
    (
        "--force",
        "the fleet writes a new work directory on each host",
    ),
    ("--label", "each host is labelled with its inventory name"),
    ("--fleet-agent", "the fleet sets it"),
    (
        "--no-history",
        "the fleet adds the fetched Runs to this machine's history; give it before --",
    ),
    (
        "--db",
        "the fleet adds the fetched Runs to this machine's history; give it before --",
    ),
];

/// `candor run`'s flags alone, parsed as `candor run` parses them.
#[derive(clap::Parser)]
#[command(name = "candor run", max_term_width = 100)]
struct RunFlags {
    #[command(flatten)]
    args: crate::commands::run::Args,
}

/// Parses the flags after `--` as `candor run` will; returns them and the test directory.
pub fn check_run_flags(flags: &[String]) -> anyhow::Result<(Vec<String>, String)> {
    use clap::Parser;
    let argv = std::iter::once("candor run".to_string()).chain(flags.iter().cloned());
    let run_args = RunFlags::try_parse_from(argv)
        .map_err(|e| {
            let text = e.to_string();
            let first = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("bad flags")
                .trim_start_matches("error: ")
                .to_string();
            usage(format!(
                "after --: {first} (the flags after -- are candor run's; see candor run --help)"
            ))
        })?
        .args;
    for f in flags {
        let name = f.split('=').next().unwrap_or("");
        let name = if name == "-o" { "--output" } else { name };
        if let Some((flag, why)) = FLEET_SETS.iter().find(|(n, _)| *n == name) {
            return Err(usage(format!(
                "after --: {flag} is not for candor fleet: {why}"
            )));
        }
    }
    crate::commands::run::parse_flags(&run_args).map_err(|e| usage(format!("after --: {e}")))?;
    let dir = crate::session::test_dir_or_default(run_args.dir.as_deref())
        .display()
        .to_string();
    Ok((flags.to_vec(), dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(f: &[&str]) -> anyhow::Result<(Vec<String>, String)> {
        check_run_flags(&f.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn run_flags_are_checked_before_any_host() {
        let (f, dir) = flags(&["--preset", "quick", "--dir", "/srv/t"]).unwrap();
        assert_eq!(f.len(), 4);
        assert_eq!(dir, "/srv/t");
        assert_eq!(flags(&[]).unwrap().1, "/var/tmp");
        for (bad, says) in [
            (vec!["--preset", "fast"], "--preset: unknown preset 'fast'"),
            (vec!["--bogus"], "after --: unexpected argument '--bogus'"),
            (vec!["-o", "x.json"], "--output is not for candor fleet"),
            (vec!["--label=a"], "--label is not for candor fleet"),
            (vec!["--runtime", "soon"], "--runtime: 'soon'"),
        ] {
            let e = flags(&bad).unwrap_err();
            assert!(crate::error::is_usage(&e), "{bad:?}");
            assert!(e.to_string().contains(says), "{bad:?}: {e}");
            assert!(!e.to_string().contains('\n'));
        }
    }
}
