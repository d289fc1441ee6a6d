//! The groups of the battery, as `--only` and `--skip` name them: the disk
//! tests, the control series, the five compute groups and UnixBench's index.

use serde::{Deserialize, Serialize};

/// One group of tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BatteryGroup {
    /// The disk profiles on the main test file.
    Disk,
    /// The read profiles again on a file larger than RAM (host-cache check).
    Control,
    Cpu,
    Memory,
    Crypto,
    Compress,
    Os,
    /// UnixBench's index tests, 1 copy and one per CPU, once per battery
    /// (they have passes of their own).
    Unixbench,
}

impl BatteryGroup {
    /// Every group, in the order a pass runs them.
    pub const ALL: [BatteryGroup; 8] = [
        BatteryGroup::Disk,
        BatteryGroup::Control,
        BatteryGroup::Cpu,
        BatteryGroup::Memory,
        BatteryGroup::Crypto,
        BatteryGroup::Compress,
        BatteryGroup::Os,
        BatteryGroup::Unixbench,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BatteryGroup::Disk => "disk",
            BatteryGroup::Control => "control",
            BatteryGroup::Cpu => "cpu",
            BatteryGroup::Memory => "memory",
            BatteryGroup::Crypto => "crypto",
            BatteryGroup::Compress => "compress",
            BatteryGroup::Os => "os",
            BatteryGroup::Unixbench => "unixbench",
        }
    }

    pub fn parse(text: &str) -> Option<BatteryGroup> {
        BatteryGroup::ALL
            .into_iter()
            .find(|g| g.as_str() == text.trim().to_ascii_lowercase())
    }

    /// The compute group this is, if it is one.
    pub fn compute(self) -> Option<crate::compute::Group> {
        use crate::compute::Group as C;
        Some(match self {
            BatteryGroup::Disk | BatteryGroup::Control | BatteryGroup::Unixbench => return None,
            BatteryGroup::Cpu => C::Cpu,
            BatteryGroup::Memory => C::Memory,
            BatteryGroup::Crypto => C::Crypto,
            BatteryGroup::Compress => C::Compress,
            BatteryGroup::Os => C::Os,
        })
    }
}

impl From<crate::compute::Group> for BatteryGroup {
    fn from(g: crate::compute::Group) -> BatteryGroup {
        use crate::compute::Group as C;
        match g {
            C::Cpu => BatteryGroup::Cpu,
            C::Memory => BatteryGroup::Memory,
            C::Crypto => BatteryGroup::Crypto,
            C::Compress => BatteryGroup::Compress,
            C::Os => BatteryGroup::Os,
        }
    }
}

/// Parses `disk,cpu` (commas and/or spaces); the error names the flag and the bad word.
pub fn parse_list(flag: &str, text: &str) -> Result<Vec<BatteryGroup>, String> {
    let mut groups = Vec::new();
    for word in text.split([',', ' ']).filter(|w| !w.trim().is_empty()) {
        let g = BatteryGroup::parse(word).ok_or_else(|| {
            format!(
                "{flag}: unknown group '{}' (groups: disk, control, cpu, memory, crypto, compress, os, unixbench)",
                word.trim()
            )
        })?;
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    if groups.is_empty() {
        return Err(format!("{flag}: give at least one group"));
    }
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert_eq!(
            parse_list("--only", "disk,cpu"),
            Ok(vec![BatteryGroup::Disk, BatteryGroup::Cpu])
        );
        assert_eq!(parse_list("--only", "OS, os"), Ok(vec![BatteryGroup::Os]));
        let e = parse_list("--skip", "disk,gpu").unwrap_err();
        assert!(e.starts_with("--skip: unknown group 'gpu'"), "{e}");
        assert!(parse_list("--only", " , ").is_err());
    }
}
