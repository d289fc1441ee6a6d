//! Facts about the machine, read before measuring: CPU, memory, OS, clock
//! source, virtualisation, the test directory's storage and io_uring.
//!
//! Owns reading /proc, /sys, cpuid and statfs into `HostFacts`. It must not
//! measure anything (the `steal` sampler only reads counters) and must never
//! guess: a fact that could not be read stays `None`. Every parser takes the
//! text (or a root directory) so tests can feed it sample files.

pub mod arch;
pub mod arm_cpu;
#[cfg(unix)]
pub mod block_device;
#[cfg(windows)]
#[path = "windows/block_device.rs"]
pub mod block_device;
pub mod blockstack;
pub mod cpu;
pub mod memory;
pub mod os;
pub mod steal;
pub mod storage;
pub mod system;
pub mod uname;
pub mod uring;
pub mod virt;
#[cfg(windows)]
pub mod windows;

use crate::result::HostFacts;
use std::path::Path;

/// Reads every fact this module knows about. `test_dir` (the battery's
/// directory) adds its filesystem and block device; without it the storage
/// part is left out.
pub fn collect(test_dir: Option<&Path>) -> HostFacts {
    let mut facts = HostFacts::default();

    let cpu = cpu::collect();
    // Not read on Windows: under Wine it would be the Linux host's file.
    let cpuinfo = if cfg!(windows) {
        String::new()
    } else {
        std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default()
    };
    let emulated = arch::emulation(std::env::consts::ARCH, &cpuinfo);
    facts.extra.insert("arch".into(), arch::kernel_machine());
    facts.cpu_model = cpu.model;
    if let Some(why) = &emulated {
        // The model is the emulator host's CPU, not the one the binary targets.
        facts.extra.insert(
            "cpu_model".into(),
            format!(
                "not-checked: {} is the emulator host's CPU",
                facts.cpu_model.take().unwrap_or_default()
            ),
        );
        facts.extra.insert("emulated".into(), why.clone());
    }
    // Under emulation the caches and the clock are the emulator host's CPU's
    // too; the cores and threads are what the emulated threads run on.
    match (cpu.caches, &emulated) {
        (Some(caches), None) => {
            facts.extra.insert("cpu_caches".into(), caches);
        }
        (Some(caches), Some(_)) => {
            facts.extra.insert(
                "cpu_caches".into(),
                format!("not-checked: {caches} are the emulator host's CPU's"),
            );
        }
        (None, _) => {}
    }
    facts.cpu_sockets = cpu.sockets;
    facts.cpu_cores = cpu.cores;
    facts.cpu_threads = cpu.threads;
    facts.smt = cpu.smt;
    match (cpu.mhz, &emulated) {
        (Some(mhz), Some(_)) => {
            facts.extra.insert(
                "cpu_mhz".into(),
                format!("not-checked: {mhz} MHz is the emulator host's CPU's"),
            );
        }
        (mhz, _) => facts.cpu_mhz = mhz,
    }
    facts.governor = cpu.governor;
    if let Some(source) = cpu.topology_source {
        facts.extra.insert("cpu_topology_source".into(), source);
    }

    let mem = memory::collect();
    facts.mem_total_bytes = mem.total;
    facts.mem_available_bytes = mem.available;
    facts.swap_total_bytes = mem.swap_total;

    let os = os::collect();
    facts.hostname = os.hostname;
    facts.kernel = os.kernel;
    facts.os_release = os.os_release;
    facts.clocksource = os.clocksource;
    if let Some(container) = os.container {
        facts.extra.insert("container".into(), container);
    }

    facts.virtualization = Some(virt::collect());

    if let Some(dir) = test_dir {
        facts.storage = Some(storage::collect(dir));
    }
    #[cfg(windows)]
    windows::disk_properties::add_to(&mut facts);
    facts.nvme_devices = storage::nvme_devices(Path::new("/sys/class/nvme"));

    let uring = uring::collect();
    facts.io_uring = Some(match (&emulated, &uring.probe_error) {
        (Some(_), Some(e)) => uring::summarize_emulated(e),
        _ => uring.summary,
    });
    if let Some(sysctl) = uring.sysctl {
        facts
            .extra
            .insert("kernel.io_uring_disabled".into(), sysctl.to_string());
    }
    facts
}

/// A small file's content with surrounding whitespace trimmed; None when it
/// cannot be read or is empty.
pub(crate) fn read_trimmed(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On the machine the tests run on, the facts every Linux has are there.
    #[test]
    fn collect_reads_this_machine() {
        let dir = std::env::temp_dir();
        let facts = collect(Some(&dir));
        assert!(facts.cpu_threads.unwrap() >= 1);
        assert!(facts.mem_total_bytes.unwrap() > 64 << 20);
        assert!(facts.kernel.is_some());
        assert!(facts.hostname.is_some());
        let storage = facts.storage.unwrap();
        assert!(storage.fs_type.is_some());
        assert!(storage.fs_magic.unwrap().starts_with("0x"));
        assert!(storage.total_bytes.unwrap() > 0);
        assert!(facts.io_uring.is_some());
        assert!(!facts.virtualization.unwrap().sources.is_empty());
    }
}
