//! Whether io_uring can be used here: the `kernel.io_uring_disabled` sysctl
//! (Linux 6.6+: 0 allowed, 1 only for root or io_uring_group, 2 off) and a
//! real probe (creating a 2-entry ring), because seccomp filters in
//! containers and old kernels refuse it without any sysctl saying so.

use std::path::Path;

/// What was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UringFacts {
    /// `available`, or why io_uring cannot be used.
    pub summary: String,
    /// The sysctl's value when the file exists.
    pub sysctl: Option<u32>,
    /// The probe's error, when it failed.
    pub probe_error: Option<String>,
}

/// Reads the sysctl and probes.
pub fn collect() -> UringFacts {
    let sysctl = super::read_trimmed(Path::new("/proc/sys/kernel/io_uring_disabled"))
        .and_then(|t| t.parse().ok());
    #[cfg(target_os = "linux")]
    let probe = io_uring::IoUring::new(2)
        .map(drop)
        .map_err(|e| e.to_string());
    #[cfg(not(target_os = "linux"))]
    let probe: Result<(), String> =
        Err(format!("Linux only, and this is {}", std::env::consts::OS));
    UringFacts {
        probe_error: probe.clone().err(),
        summary: summarize(sysctl, probe),
        sysctl,
    }
}

/// The verdict under qemu-user, whose io_uring_setup fails whatever the
/// kernel has: the kernel's own io_uring is then not-checked.
pub fn summarize_emulated(probe_error: &str) -> String {
    format!(
        "unavailable under the emulator: qemu-user implements neither io_uring nor libaio (io_uring_setup: {probe_error}); the kernel's io_uring is not-checked"
    )
}

/// The one-line verdict from the sysctl value and the probe's outcome.
pub fn summarize(sysctl: Option<u32>, probe: Result<(), String>) -> String {
    match probe {
        Ok(()) => "available".to_string(),
        Err(e) => match sysctl {
            Some(2) => format!("disabled by kernel.io_uring_disabled=2 (io_uring_setup: {e})"),
            Some(1) => format!(
                "disabled for this user by kernel.io_uring_disabled=1 (io_uring_setup: {e})"
            ),
            _ => format!(
                "unavailable: io_uring_setup failed ({e}); a seccomp filter (containers) or an old kernel"
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        assert_eq!(summarize(Some(0), Ok(())), "available");
        assert!(summarize(Some(2), Err("Operation not permitted".into())).contains("=2"));
        assert!(summarize(None, Err("Function not implemented".into())).contains("seccomp"));
        let emulated = summarize_emulated("Function not implemented (os error 38)");
        assert!(
            emulated.contains("qemu-user implements neither"),
            "{emulated}"
        );
        assert!(!emulated.contains("seccomp"), "{emulated}");
    }
}
