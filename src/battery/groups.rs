//! The groups of the battery, as `--only` and `--skip` name them: the disk
//! tests, the control series, and the five compute groups.

use serde::{Deserialize, Serialize};

/// One group of tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Group {
    /// The disk profiles on the main test file.
    Disk,
    /// The read profiles again on a file larger than RAM (host-cache check).
    Control,
    Cpu,
    Memory,
    Crypto,
    Compress,
    Os,
}

impl Group {
    /// Every group, in the order a pass runs them.
    pub const ALL: [Group; 7] = [
        Group::Disk,
        Group::Control,
        Group::Cpu,
        Group::Memory,
        Group::Crypto,
        Group::Compress,
        Group::Os,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Group::Disk => "disk",
            Group::Control => "control",
            Group::Cpu => "cpu",
            Group::Memory => "memory",
            Group::Crypto => "crypto",
            Group::Compress => "compress",
            Group::Os => "os",
        }
    }

    pub fn parse(text: &str) -> Option<Group> {
        Group::ALL
            .into_iter()
            .find(|g| g.as_str() == text.trim().to_ascii_lowercase())
    }

    /// The compute group this is, if it is one.
    pub fn compute(self) -> Option<crate::compute::Group> {
        use crate::compute::Group as C;
        Some(match self {
            Group::Disk | Group::Control => return None,
            Group::Cpu => C::Cpu,
            Group::Memory => C::Memory,
            Group::Crypto => C::Crypto,
            Group::Compress => C::Compress,
            Group::Os => C::Os,
        })
    }
}

impl From<crate::compute::Group> for Group {
    fn from(g: crate::compute::Group) -> Group {
        use crate::compute::Group as C;
        match g {
            C::Cpu => Group::Cpu,
            C::Memory => Group::Memory,
            C::Crypto => Group::Crypto,
            C::Compress => Group::Compress,
            C::Os => Group::Os,
        }
    }
}

/// Parses `disk,cpu` (commas and/or spaces); the error names the flag and the bad word.
pub fn parse_list(flag: &str, text: &str) -> Result<Vec<Group>, String> {
    let mut groups = Vec::new();
    for word in text.split([',', ' ']).filter(|w| !w.trim().is_empty()) {
        let g = Group::parse(word).ok_or_else(|| {
            format!(
                "{flag}: unknown group '{}' (groups: disk, control, cpu, memory, crypto, compress, os)",
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
            Ok(vec![Group::Disk, Group::Cpu])
        );
        assert_eq!(parse_list("--only", "OS, os"), Ok(vec![Group::Os]));
        let e = parse_list("--skip", "disk,gpu").unwrap_err();
        assert!(e.starts_with("--skip: unknown group 'gpu'"), "{e}");
        assert!(parse_list("--only", " , ").is_err());
    }
}
