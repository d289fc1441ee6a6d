//! The architecture: what the binary was built for, what the kernel calls the
//! machine (`uname -m`), what CPU /proc/cpuinfo describes, and whether these
//! disagree because the binary runs under an emulator.
//!
//! qemu-user reports its target's machine from uname (`aarch64` on an x86_64
//! host) but passes the host's /proc/cpuinfo through: when cpuinfo describes a
//! CPU of another architecture than the binary's, the CPU's facts belong to
//! the emulator's host, and every figure measures the emulator.

/// The architecture family a /proc/cpuinfo text describes, from the fields
/// each kernel port writes: x86 has `vendor_id` and `flags`, ARM has
/// `CPU implementer` (arm64) or `CPU architecture` (both).
pub fn cpuinfo_family(cpuinfo: &str) -> Option<&'static str> {
    let has = |key: &str| {
        cpuinfo
            .lines()
            .any(|l| l.split_once(':').is_some_and(|(k, _)| k.trim() == key))
    };
    if has("vendor_id") && has("flags") {
        Some("x86")
    } else if has("CPU implementer") || has("CPU architecture") {
        Some("arm")
    } else {
        None
    }
}

/// The family of a Rust `target_arch` or a `uname -m` value.
pub fn family(arch: &str) -> Option<&'static str> {
    match arch {
        "x86_64" | "x86" | "i386" | "i686" => Some("x86"),
        "aarch64" | "arm64" | "arm" => Some("arm"),
        a if a.starts_with("armv") => Some("arm"),
        _ => None,
    }
}

/// Why this binary runs emulated, or None when nothing says so: the binary's
/// architecture (`binary`, e.g. `aarch64`) is not the family /proc/cpuinfo
/// describes.
pub fn emulation(binary: &str, cpuinfo: &str) -> Option<String> {
    let ours = family(binary)?;
    let seen = cpuinfo_family(cpuinfo)?;
    (ours != seen).then(|| {
        format!(
            "emulated (qemu-user or similar): the binary is {binary}, /proc/cpuinfo describes an {seen} CPU; \
             the CPU facts are the emulator host's and every figure measures the emulator, not an {ours} CPU"
        )
    })
}

/// Why this process runs emulated (`emulation` of this binary and this
/// machine's /proc/cpuinfo, read once), or None on its own architecture.
/// The disk engines' probes ask it, so that an ENOSYS from qemu-user is
/// not reported as the kernel's.
pub fn here() -> Option<&'static str> {
    static HERE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    HERE.get_or_init(|| {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        emulation(std::env::consts::ARCH, &cpuinfo)
    })
    .as_deref()
}

/// `uname -m`: the machine the kernel (or an emulator) reports.
pub fn kernel_machine() -> String {
    super::uname::machine()
}

#[cfg(test)]
mod tests {
    use super::*;

    const X86: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t\t: fpu sse2\n";
    const NEOVERSE: &str = "processor\t: 0\nBogoMIPS\t: 243.75\nFeatures\t: fp asimd aes pmull sha1 sha2 crc32\n\
        CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n";

    #[test]
    fn families_of_cpuinfo() {
        assert_eq!(cpuinfo_family(X86), Some("x86"));
        assert_eq!(cpuinfo_family(NEOVERSE), Some("arm"));
        assert_eq!(cpuinfo_family("processor : 0\n"), None);
    }

    #[test]
    fn emulation_is_a_mismatch_of_families() {
        assert!(emulation("aarch64", X86)
            .unwrap()
            .contains("the binary is aarch64"));
        assert!(emulation("arm", X86).is_some());
        assert_eq!(emulation("aarch64", NEOVERSE), None);
        assert_eq!(emulation("x86_64", X86), None);
        // An unknown cpuinfo proves nothing.
        assert_eq!(emulation("aarch64", ""), None);
    }

    /// qemu-user reports its target's machine from uname, and a native
    /// kernel its own: either way uname's family is the binary's.
    #[test]
    fn uname_names_the_binarys_family() {
        assert_eq!(family(&kernel_machine()), family(std::env::consts::ARCH));
    }
}
