//! ARM CPUs by name: arm64 and armv7 kernels write no `model name` worth
//! reading (none at all on arm64, "ARMv7 Processor rev 5 (v7l)" on armv7),
//! only the MIDR fields `CPU implementer` and `CPU part`. This is the table
//! the kernel's own cputype.h and util-linux's lscpu use, for the cores of
//! today's cloud and hobbyist hosts; an unknown pair is shown as its numbers.

/// The implementer's name.
pub fn implementer(id: u32) -> Option<&'static str> {
    Some(match id {
        0x41 => "ARM",
        0x42 => "Broadcom",
        0x43 => "Cavium",
        0x46 => "Fujitsu",
        0x48 => "HiSilicon",
        0x4e => "NVIDIA",
        0x50 => "APM",
        0x51 => "Qualcomm",
        0x61 => "Apple",
        0x6d => "Microsoft",
        0xc0 => "Ampere",
        _ => return None,
    })
}

/// The core's name, by implementer and part.
pub fn part(implementer: u32, part: u32) -> Option<&'static str> {
    Some(match (implementer, part) {
        (0x41, 0xc07) => "Cortex-A7",
        (0x41, 0xc08) => "Cortex-A8",
        (0x41, 0xc09) => "Cortex-A9",
        (0x41, 0xc0d) => "Cortex-A12",
        (0x41, 0xc0e) => "Cortex-A17",
        (0x41, 0xc0f) => "Cortex-A15",
        (0x41, 0xd03) => "Cortex-A53",
        (0x41, 0xd04) => "Cortex-A35",
        (0x41, 0xd05) => "Cortex-A55",
        (0x41, 0xd07) => "Cortex-A57",
        (0x41, 0xd08) => "Cortex-A72",
        (0x41, 0xd09) => "Cortex-A73",
        (0x41, 0xd0a) => "Cortex-A75",
        (0x41, 0xd0b) => "Cortex-A76",
        (0x41, 0xd0c) => "Neoverse-N1",
        (0x41, 0xd0d) => "Cortex-A77",
        (0x41, 0xd40) => "Neoverse-V1",
        (0x41, 0xd41) => "Cortex-A78",
        (0x41, 0xd44) => "Cortex-X1",
        (0x41, 0xd46) => "Cortex-A510",
        (0x41, 0xd47) => "Cortex-A710",
        (0x41, 0xd48) => "Cortex-X2",
        (0x41, 0xd49) => "Neoverse-N2",
        (0x41, 0xd4f) => "Neoverse-V2",
        (0x41, 0xd84) => "Neoverse-V3",
        (0x41, 0xd8e) => "Neoverse-N3",
        (0x43, 0x0af) => "ThunderX2",
        (0x46, 0x001) => "A64FX",
        (0x48, 0xd01) => "TaiShan-v110 (Kunpeng 920)",
        (0x50, 0x000) => "X-Gene",
        (0x51, 0x800) | (0x51, 0x801) => "Kryo 2xx",
        (0x61, 0x022) | (0x61, 0x023) => "M1",
        (0x61, 0x032) | (0x61, 0x033) => "M2",
        (0xc0, 0xac3) => "Ampere-1",
        (0xc0, 0xac4) => "Ampere-1a",
        _ => return None,
    })
}

/// The name of one core from its `CPU implementer` and `CPU part` values
/// (`0x41`, `0xd0c`): "ARM Neoverse-N1", or the numbers when unknown.
pub fn core_name(implementer_id: u32, part_id: u32) -> String {
    match (implementer(implementer_id), part(implementer_id, part_id)) {
        (Some(i), Some(p)) => format!("{i} {p}"),
        (Some(i), None) => format!("{i} part {part_id:#05x}"),
        _ => format!("implementer {implementer_id:#04x} part {part_id:#05x}"),
    }
}

/// A hex field of /proc/cpuinfo (`0x41`).
pub fn parse_hex(value: &str) -> Option<u32> {
    u32::from_str_radix(value.trim().strip_prefix("0x")?, 16).ok()
}

/// The model of a whole machine from the name of each CPU in order: one
/// name, or the clusters of a big.LITTLE SoC ("4x ARM Cortex-A53 + 4x ARM
/// Cortex-A73"), in order of first appearance.
pub fn machine_model(cores: &[String]) -> Option<String> {
    let mut clusters: Vec<(&str, usize)> = Vec::new();
    for name in cores {
        match clusters.iter_mut().find(|(n, _)| *n == name.as_str()) {
            Some((_, count)) => *count += 1,
            None => clusters.push((name, 1)),
        }
    }
    match clusters.as_slice() {
        [] => None,
        [(one, _)] => Some(one.to_string()),
        many => Some(
            many.iter()
                .map(|(n, c)| format!("{c}x {n}"))
                .collect::<Vec<_>>()
                .join(" + "),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_known_and_unknown_cores() {
        assert_eq!(core_name(0x41, 0xd0c), "ARM Neoverse-N1");
        assert_eq!(core_name(0x41, 0xd03), "ARM Cortex-A53");
        assert_eq!(core_name(0xc0, 0xac3), "Ampere Ampere-1");
        assert_eq!(core_name(0x41, 0xfff), "ARM part 0xfff");
        assert_eq!(core_name(0x99, 0x001), "implementer 0x99 part 0x001");
        assert_eq!(parse_hex(" 0xd0c"), Some(0xd0c));
        assert_eq!(parse_hex("d0c"), None);
    }

    #[test]
    fn big_little_clusters() {
        let little = "ARM Cortex-A53".to_string();
        let big = "ARM Cortex-A73".to_string();
        let soc = [
            little.clone(),
            little.clone(),
            big.clone(),
            big.clone(),
            big,
        ];
        assert_eq!(
            machine_model(&soc).unwrap(),
            "2x ARM Cortex-A53 + 3x ARM Cortex-A73"
        );
        assert_eq!(
            machine_model(&[little.clone(), little]).unwrap(),
            "ARM Cortex-A53"
        );
        assert_eq!(machine_model(&[]), None);
    }
}
