//! `candor run`'s flags lowered into what the battery takes: the preset and
//! its overrides, each bad value one line naming its flag.

use super::Args;
use crate::battery::plan::Overrides;
use crate::battery::{groups, ControlRequest, Preset};
use crate::error::usage;
use crate::units::{parse_duration, parse_size};
use std::time::Duration;

/// The preset and the overrides the flags ask for.
pub fn parse_flags(args: &Args) -> anyhow::Result<(Preset, Overrides)> {
    let preset = match &args.preset {
        None => Preset::Standard,
        Some(p) => Preset::parse(p).ok_or_else(|| {
            usage(format!(
                "--preset: unknown preset '{p}' ({})",
                Preset::NAMES
            ))
        })?,
    };
    let duration = |flag: &str, v: &Option<String>| -> anyhow::Result<Option<Duration>> {
        v.as_deref()
            .map(|t| parse_duration(t).map_err(|e| usage(format!("{flag}: {e}"))))
            .transpose()
    };
    let passes = args
        .passes
        .as_deref()
        .map(|t| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| usage(format!("--passes: '{t}' is not a whole number")))
        })
        .transpose()?;
    let size = args
        .size
        .as_deref()
        .map(|t| parse_size(t).map_err(|e| usage(format!("--size: {e}"))))
        .transpose()?;
    let control = args
        .control_size
        .as_deref()
        .map(|t| ControlRequest::parse(t).map_err(|e| usage(format!("--control-size: {e}"))))
        .transpose()?;
    let only = args
        .only
        .as_deref()
        .map(|t| groups::parse_list("--only", t).map_err(usage))
        .transpose()?;
    let skip = args
        .skip
        .as_deref()
        .map(|t| groups::parse_list("--skip", t).map_err(usage))
        .transpose()?
        .unwrap_or_default();
    Ok((
        preset,
        Overrides {
            passes,
            runtime: duration("--runtime", &args.runtime)?,
            ramp: duration("--ramp", &args.ramp)?,
            pause: duration("--pause", &args.pause)?,
            size,
            control,
            compute_runtime: duration("--compute-runtime", &args.compute_runtime)?,
            only,
            skip,
        },
    ))
}

/// The flags given beside `--resume`, which cannot change the stored plan.
pub fn given_beside_resume(args: &Args) -> Vec<&'static str> {
    [
        ("--preset", args.preset.is_some()),
        ("--dir", args.dir.is_some()),
        ("--passes", args.passes.is_some()),
        ("--runtime", args.runtime.is_some()),
        ("--ramp", args.ramp.is_some()),
        ("--pause", args.pause.is_some()),
        ("--size", args.size.is_some()),
        ("--control-size", args.control_size.is_some()),
        ("--compute-runtime", args.compute_runtime.is_some()),
        ("--only", args.only.is_some()),
        ("--skip", args.skip.is_some()),
        ("--label", args.label.is_some()),
        ("--output", args.output.is_some()),
        ("--force", args.force),
    ]
    .iter()
    .filter(|(_, g)| *g)
    .map(|(f, _)| *f)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::battery::BatteryGroup;
    use crate::battery::{ControlRequest, Preset};
    use std::time::Duration;

    fn args() -> Args {
        Args::default()
    }

    #[test]
    fn flags_parse_into_overrides() {
        let a = Args {
            preset: Some("full".into()),
            passes: Some("5".into()),
            runtime: Some("2s".into()),
            size: Some("256M".into()),
            control_size: Some("off".into()),
            only: Some("disk,cpu".into()),
            ..args()
        };
        let (preset, o) = parse_flags(&a).unwrap();
        assert_eq!(preset, Preset::Full);
        assert_eq!(o.passes, Some(5));
        assert_eq!(o.runtime, Some(Duration::from_secs(2)));
        assert_eq!(o.size, Some(256 << 20));
        assert_eq!(o.control, Some(ControlRequest::Off));
        assert_eq!(o.only, Some(vec![BatteryGroup::Disk, BatteryGroup::Cpu]));
        let (preset, o) = parse_flags(&args()).unwrap();
        assert_eq!(preset, Preset::Standard);
        assert!(o.passes.is_none() && o.only.is_none());
    }

    #[test]
    fn bad_flags_are_usage_errors_naming_the_flag() {
        let cases: Vec<(Args, &str)> = vec![
            (
                Args {
                    preset: Some("fast".into()),
                    ..args()
                },
                "--preset: unknown preset 'fast'",
            ),
            (
                Args {
                    passes: Some("three".into()),
                    ..args()
                },
                "--passes: 'three'",
            ),
            (
                Args {
                    runtime: Some("soon".into()),
                    ..args()
                },
                "--runtime: 'soon' is not a duration",
            ),
            (
                Args {
                    size: Some("big".into()),
                    ..args()
                },
                "--size: 'big' is not a size",
            ),
            (
                Args {
                    control_size: Some("huge".into()),
                    ..args()
                },
                "--control-size: 'huge'",
            ),
            (
                Args {
                    skip: Some("gpu".into()),
                    ..args()
                },
                "--skip: unknown group 'gpu'",
            ),
        ];
        for (a, expected) in cases {
            let e = parse_flags(&a).unwrap_err();
            assert!(crate::error::is_usage(&e));
            assert!(e.to_string().starts_with(expected), "{e}");
            assert!(!e.to_string().contains('\n'));
        }
    }
}
