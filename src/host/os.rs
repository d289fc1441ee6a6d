//! The operating system: hostname, kernel release, distribution
//! (/etc/os-release), clock source, and whether we run in a container.
//!
//! The clock source matters because every latency is timed with it: `tsc`
//! is cheap, `hpet` or `acpi_pm` make each timestamp cost microseconds.

#[cfg(unix)]
use super::read_trimmed;
#[cfg(unix)]
use std::path::Path;

/// What was read about the OS.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct OsFacts {
    pub hostname: Option<String>,
    pub kernel: Option<String>,
    pub os_release: Option<String>,
    pub clocksource: Option<String>,
    /// The container manager if one was detected, with the file that said so
    /// (`docker (/.dockerenv)`): an image built with Docker keeps that file.
    pub container: Option<String>,
}

/// Reads this machine's OS facts.
pub fn collect() -> OsFacts {
    OsFacts {
        hostname: super::uname::hostname(),
        kernel: super::uname::kernel_release(),
        ..linux_files()
    }
}

/// os-release, the clock source and container markers: Linux's files.
#[cfg(unix)]
fn linux_files() -> OsFacts {
    let os_release = ["/etc/os-release", "/usr/lib/os-release"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| parse_os_release(&t));
    OsFacts {
        os_release,
        clocksource: read_trimmed(Path::new(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        )),
        container: detect_container(),
        ..OsFacts::default()
    }
}

/// Not looked for on Windows: under Wine a rooted path reaches the Linux
/// host's own files, whose facts are not the Windows one's.
#[cfg(windows)]
fn linux_files() -> OsFacts {
    OsFacts::default()
}

/// PRETTY_NAME from os-release (else NAME VERSION_ID), unquoted.
pub fn parse_os_release(text: &str) -> Option<String> {
    let mut name = None;
    let mut version = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = unquote(value.trim());
        if value.is_empty() {
            continue;
        }
        match key.trim() {
            "PRETTY_NAME" => return Some(value),
            "NAME" => name = Some(value),
            "VERSION_ID" => version = Some(value),
            _ => {}
        }
    }
    match (name, version) {
        (Some(n), Some(v)) => Some(format!("{n} {v}")),
        (n, _) => n,
    }
}

fn unquote(value: &str) -> String {
    let v = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .unwrap_or(value);
    v.replace("\\\"", "\"").replace("\\\\", "\\")
}

/// The container manager, from the files container runtimes leave
/// (systemd's detect-virt --container reads the same ones).
#[cfg(unix)]
fn detect_container() -> Option<String> {
    if let Some(c) = read_trimmed(Path::new("/run/systemd/container")) {
        return Some(format!("{c} (/run/systemd/container)"));
    }
    if Path::new("/run/.containerenv").exists() {
        return Some("podman (/run/.containerenv)".into());
    }
    if Path::new("/.dockerenv").exists() {
        return Some("docker (/.dockerenv)".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_release() {
        let debian = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n";
        assert_eq!(
            parse_os_release(debian).as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
        let no_pretty = "NAME=Alpine\nVERSION_ID=3.19.1\n";
        assert_eq!(
            parse_os_release(no_pretty).as_deref(),
            Some("Alpine 3.19.1")
        );
        assert_eq!(parse_os_release("ID=x\n"), None);
    }
}
