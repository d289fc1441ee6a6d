//! The CPU: model, sockets, physical cores, logical CPUs (vCPUs), SMT,
//! clock and frequency governor.
//!
//! Topology comes from /sys/devices/system/cpu (distinct package ids and
//! (package, core) pairs of the online CPUs), which exists on every
//! architecture; /proc/cpuinfo's `physical id` / `core id` are the fallback.
//! Inside a VM these are what the hypervisor presents (a VM may show 10
//! "CPUs" on 5 "cores"): a claim about the virtual machine, not the host.

use super::{arm_cpu, read_trimmed};
use std::collections::BTreeSet;
use std::path::Path;

/// What was read about the CPU.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct CpuFacts {
    pub model: Option<String>,
    pub sockets: Option<u32>,
    pub cores: Option<u32>,
    pub threads: Option<u32>,
    pub smt: Option<bool>,
    pub mhz: Option<f64>,
    pub governor: Option<String>,
    /// Where the topology came from (`sysfs` or `/proc/cpuinfo`).
    pub topology_source: Option<String>,
    /// cpu0's caches from sysfs (`L1d 64K, L1i 64K, L2 1024K, L3 32768K`).
    pub caches: Option<String>,
}

/// Reads this machine's CPU facts on Windows (its own topology calls).
#[cfg(windows)]
pub fn collect() -> CpuFacts {
    super::windows::cpu::collect()
}

/// Reads this machine's CPU facts.
#[cfg(unix)]
pub fn collect() -> CpuFacts {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let parsed = parse_cpuinfo(&cpuinfo);
    let sys = Path::new("/sys/devices/system/cpu");
    let mut facts = CpuFacts {
        model: parsed.model,
        mhz: parsed.mhz,
        governor: read_trimmed(&sys.join("cpu0/cpufreq/scaling_governor")),
        caches: caches(&sys.join("cpu0/cache")),
        ..CpuFacts::default()
    };
    let topology = sysfs_topology(sys)
        .map(|t| (t, "sysfs"))
        .or_else(|| parsed.topology.map(|t| (t, "/proc/cpuinfo")));
    if let Some((t, source)) = topology {
        facts.sockets = Some(t.sockets);
        facts.cores = Some(t.cores);
        facts.threads = Some(t.threads);
        facts.smt = Some(t.threads > t.cores);
        facts.topology_source = Some(source.to_string());
    } else if parsed.processors > 0 {
        facts.threads = Some(parsed.processors);
    }
    facts
}

/// Sockets, physical cores and logical CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Topology {
    pub sockets: u32,
    pub cores: u32,
    pub threads: u32,
}

/// What /proc/cpuinfo says.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct CpuInfo {
    pub model: Option<String>,
    pub mhz: Option<f64>,
    /// `processor` entries.
    pub processors: u32,
    /// Present when every entry has `physical id` and `core id` (x86).
    pub topology: Option<Topology>,
}

/// Parses /proc/cpuinfo. The model is the ARM core named by each entry's
/// `CPU implementer` and `CPU part` (arm64 kernels write no model name, armv7
/// ones a generic "ARMv7 Processor"), else `model name` (x86), else
/// `Processor`, `cpu model` or `Hardware` (some ARM and MIPS kernels).
pub fn parse_cpuinfo(text: &str) -> CpuInfo {
    let mut info = CpuInfo::default();
    let mut fallback_model = None;
    let mut packages = BTreeSet::new();
    let mut cores = BTreeSet::new();
    let mut complete = true;
    let mut arm_cores = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let mut package = None;
        let mut core = None;
        let mut is_processor = false;
        let (mut implementer, mut part) = (None, None);
        for line in block.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let (key, value) = (key.trim(), value.trim());
            match key {
                "processor" => is_processor = value.parse::<u32>().is_ok(),
                "model name" if info.model.is_none() && !value.is_empty() => {
                    info.model = Some(value.to_string())
                }
                "Processor" | "cpu model" | "Hardware"
                    if fallback_model.is_none() && !value.is_empty() =>
                {
                    fallback_model = Some(value.to_string())
                }
                "cpu MHz" if info.mhz.is_none() => info.mhz = value.parse().ok(),
                "physical id" => package = value.parse::<u32>().ok(),
                "core id" => core = value.parse::<u32>().ok(),
                "CPU implementer" => implementer = arm_cpu::parse_hex(value),
                "CPU part" => part = arm_cpu::parse_hex(value),
                _ => {}
            }
        }
        if is_processor {
            info.processors += 1;
            if let (Some(i), Some(p)) = (implementer, part) {
                arm_cores.push(arm_cpu::core_name(i, p));
            }
            match (package, core) {
                (Some(p), Some(c)) => {
                    packages.insert(p);
                    cores.insert((p, c));
                }
                _ => complete = false,
            }
        }
    }
    info.model = arm_cpu::machine_model(&arm_cores)
        .or(info.model)
        .or(fallback_model);
    if complete && info.processors > 0 {
        info.topology = Some(Topology {
            sockets: packages.len() as u32,
            cores: cores.len() as u32,
            threads: info.processors,
        });
    }
    info
}

/// Reads the topology of the online CPUs under `root`
/// (/sys/devices/system/cpu); None when it is not there.
pub fn sysfs_topology(root: &Path) -> Option<Topology> {
    let online = parse_cpu_list(&read_trimmed(&root.join("online"))?)?;
    let mut packages = BTreeSet::new();
    let mut cores = BTreeSet::new();
    for cpu in &online {
        let topo = root.join(format!("cpu{cpu}/topology"));
        let package: i64 = read_trimmed(&topo.join("physical_package_id"))?
            .parse()
            .ok()?;
        let core: i64 = read_trimmed(&topo.join("core_id"))?.parse().ok()?;
        packages.insert(package);
        cores.insert((package, core));
    }
    Some(Topology {
        sockets: packages.len() as u32,
        cores: cores.len() as u32,
        threads: online.len() as u32,
    })
}

/// The caches of one CPU from its sysfs `cache` directory: each `indexN`'s
/// level, type and size, in index order; None when there are none (many
/// ARM boards' kernels publish no cache topology).
pub fn caches(dir: &Path) -> Option<String> {
    let mut found = Vec::new();
    for index in 0..16 {
        let entry = dir.join(format!("index{index}"));
        let (Some(level), Some(size)) = (
            read_trimmed(&entry.join("level")),
            read_trimmed(&entry.join("size")),
        ) else {
            continue;
        };
        let kind = match read_trimmed(&entry.join("type")).as_deref() {
            Some("Data") => "d",
            Some("Instruction") => "i",
            _ => "",
        };
        found.push(format!("L{level}{kind} {size}"));
    }
    (!found.is_empty()).then(|| found.join(", "))
}

/// Parses a kernel CPU list such as `0-3,8,10-11`.
pub fn parse_cpu_list(text: &str) -> Option<Vec<u32>> {
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                if b < a || b - a > 65536 {
                    return None;
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.trim().parse().ok()?),
        }
    }
    (!cpus.is_empty()).then_some(cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arm64_cores_by_implementer_and_part() {
        let core = |n: u32, part: &str| {
            format!("processor\t: {n}\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid\n\
                CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: {part}\nCPU revision\t: 4\n")
        };
        let graviton2 = [core(0, "0xd0c"), core(1, "0xd0c")].join("\n");
        let info = parse_cpuinfo(&graviton2);
        assert_eq!(info.model.as_deref(), Some("ARM Neoverse-N1"));
        assert_eq!(info.processors, 2);
        assert_eq!(info.topology, None);
        // An Amlogic S922X: two Cortex-A53 and four Cortex-A73.
        let soc: Vec<String> = (0..6)
            .map(|n| core(n, if n < 2 { "0xd03" } else { "0xd09" }))
            .collect();
        let info = parse_cpuinfo(&soc.join("\n"));
        assert_eq!(
            info.model.as_deref(),
            Some("2x ARM Cortex-A53 + 4x ARM Cortex-A73")
        );
        // An armv7 board: the table's name, not "ARMv7 Processor".
        let a20 = "processor\t: 0\nmodel name\t: ARMv7 Processor rev 4 (v7l)\nCPU implementer\t: 0x41\nCPU part\t: 0xc07\n\nHardware\t: Allwinner sun7i (A20) Family\n";
        assert_eq!(parse_cpuinfo(a20).model.as_deref(), Some("ARM Cortex-A7"));
    }

    #[test]
    fn caches_from_sysfs() {
        let dir = tempfile::tempdir().unwrap();
        for (i, level, kind, size) in [
            (0, "1", "Data", "64K"),
            (1, "1", "Instruction", "64K"),
            (2, "2", "Unified", "1024K"),
        ] {
            let e = dir.path().join(format!("index{i}"));
            std::fs::create_dir(&e).unwrap();
            std::fs::write(e.join("level"), level).unwrap();
            std::fs::write(e.join("type"), kind).unwrap();
            std::fs::write(e.join("size"), format!("{size}\n")).unwrap();
        }
        assert_eq!(caches(dir.path()).unwrap(), "L1d 64K, L1i 64K, L2 1024K");
        assert_eq!(caches(&dir.path().join("absent")), None);
    }

    fn entry(n: u32, package: u32, core: u32) -> String {
        format!(
            "processor\t: {n}\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\n\
             cpu MHz\t\t: 2095.078\nphysical id\t: {package}\nsiblings\t: 4\ncore id\t\t: {core}\ncpu cores\t: 2\n"
        )
    }

    #[test]
    fn cpuinfo_with_smt() {
        // One socket, 2 cores, 2 threads each: 4 vCPUs.
        let text = [
            entry(0, 0, 0),
            entry(1, 0, 1),
            entry(2, 0, 0),
            entry(3, 0, 1),
        ]
        .join("\n");
        let info = parse_cpuinfo(&text);
        assert_eq!(
            info.model.as_deref(),
            Some("Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz")
        );
        assert_eq!(info.mhz, Some(2095.078));
        assert_eq!(info.processors, 4);
        assert_eq!(
            info.topology,
            Some(Topology {
                sockets: 1,
                cores: 2,
                threads: 4
            })
        );
    }

    #[test]
    fn cpuinfo_two_sockets_same_core_ids() {
        // Core ids repeat across sockets: cores are (package, core) pairs.
        let text = [entry(0, 0, 0), entry(1, 1, 0)].join("\n");
        let t = parse_cpuinfo(&text).topology.unwrap();
        assert_eq!(
            t,
            Topology {
                sockets: 2,
                cores: 2,
                threads: 2
            }
        );
    }

    #[test]
    fn cpuinfo_arm_without_topology() {
        let text = "processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n\n\
                    processor\t: 1\nBogoMIPS\t: 50.00\n\nHardware\t: Some Board\n";
        let info = parse_cpuinfo(text);
        assert_eq!(info.processors, 2);
        assert_eq!(info.topology, None);
        assert_eq!(info.model.as_deref(), Some("Some Board"));
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0-1"), Some(vec![0, 1]));
        assert_eq!(parse_cpu_list("0-2,5,7-8\n"), Some(vec![0, 1, 2, 5, 7, 8]));
        assert_eq!(parse_cpu_list("0"), Some(vec![0]));
        assert_eq!(parse_cpu_list(""), None);
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("x"), None);
    }

    #[test]
    fn sysfs_tree() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("online"), "0-3\n").unwrap();
        // 4 vCPUs, 2 cores (SMT pairs 0/2 and 1/3), one package.
        for (cpu, core) in [(0, 0), (1, 1), (2, 0), (3, 1)] {
            let t = root.path().join(format!("cpu{cpu}/topology"));
            std::fs::create_dir_all(&t).unwrap();
            std::fs::write(t.join("physical_package_id"), "0\n").unwrap();
            std::fs::write(t.join("core_id"), format!("{core}\n")).unwrap();
        }
        assert_eq!(
            sysfs_topology(root.path()),
            Some(Topology {
                sockets: 1,
                cores: 2,
                threads: 4
            })
        );
        assert_eq!(sysfs_topology(&root.path().join("missing")), None);
    }
}
