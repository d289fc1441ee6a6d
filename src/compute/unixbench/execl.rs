//! The hidden self-exec of Execl Throughput: `candor --unixbench-execl NS`
//! execs candor again and again, carrying its count and start time in its
//! arguments, until NS nanoseconds have passed; the last one prints the count.
//! Checked in `main` before any flag parsing, so each exec costs what loading
//! candor's binary costs, as UnixBench's execl measures loading its own.

use std::ffi::CString;
use std::time::{SystemTime, UNIX_EPOCH};

/// The hidden first argument.
pub const FLAG: &str = "--unixbench-execl";

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// Runs one link of the chain (`args` after the flag: NS [COUNT START]) and
/// never returns: it execs the next link or prints the count and exits.
pub fn chain(args: &[String]) -> ! {
    let parse = |i: usize| args.get(i).and_then(|a| a.parse::<u128>().ok());
    let Some(duration) = parse(0) else {
        eprintln!("candor: error: {FLAG} needs a duration in nanoseconds");
        std::process::exit(2);
    };
    let count = parse(1).unwrap_or(0) + 1;
    let start = parse(2).unwrap_or_else(now_ns);
    if now_ns().saturating_sub(start) >= duration {
        println!("{count}");
        std::process::exit(0);
    }
    let exe = CString::new("/proc/self/exe").expect("no NUL");
    let argv: Vec<CString> = [
        "candor".to_string(),
        FLAG.to_string(),
        duration.to_string(),
        count.to_string(),
        start.to_string(),
    ]
    .into_iter()
    .map(|a| CString::new(a).expect("digits have no NUL"))
    .collect();
    let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    // SAFETY: a NUL-terminated path and a NULL-terminated argv of live CStrings.
    unsafe { libc::execv(exe.as_ptr(), ptrs.as_ptr()) };
    eprintln!(
        "candor: error: exec failed at link {count}: {}",
        std::io::Error::last_os_error()
    );
    std::process::exit(1);
}

/// How candor's own binary, as Execl Throughput execs it, loaded on the
/// bench machine beside UnixBench's execl (bench/execl-cost.sh,
/// BENCHMARKS.md "UnixBench's index"). Quoted by the execl measurement's
/// notes and by the unixbench-execl finding.
pub const EXEC_COST: &str = "on candor's 2-vCPU bench VM, 2026-12-05, an exec of UnixBench's 24 KiB execl (dynamically linked: libc) cost about 480 us of CPU and 59 page faults; of candor's static build (contrib/build-static.sh, 11.7 MB) about 400 us and 46; of its dynamic release build (4 shared libraries, eager binding, 11,000 relocations) about 930 us and 144, which halves Execl Throughput";

/// The binary Execl Throughput execs: candor's own, as this process has it mapped.
#[derive(Debug, Clone, PartialEq)]
pub struct ExeclBinary {
    pub path: std::path::PathBuf,
    /// Its size on disk.
    pub file_bytes: u64,
    /// What of it is mapped (its loadable segments).
    pub mapped_bytes: u64,
    /// The shared libraries loaded with it (file names; none: static).
    pub shared_libraries: Vec<String>,
}

impl ExeclBinary {
    /// candor's own binary, from /proc/self/exe and /proc/self/maps.
    pub fn own() -> ExeclBinary {
        let path = std::fs::read_link("/proc/self/exe").unwrap_or_default();
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
        let mut b = ExeclBinary::from_maps(&path, &maps);
        b.file_bytes = std::fs::metadata("/proc/self/exe")
            .map(|m| m.len())
            .unwrap_or(0);
        b
    }

    /// The mapped size of `path` and the shared libraries in a maps text.
    pub fn from_maps(path: &std::path::Path, maps: &str) -> ExeclBinary {
        let own = path.to_string_lossy();
        let mut mapped_bytes = 0;
        let mut shared_libraries: Vec<String> = Vec::new();
        for line in maps.lines() {
            // start-end perms offset dev inode [path], the path possibly
            // with spaces (" (deleted)" when the file was replaced).
            let range = line.split_whitespace().next().unwrap_or("");
            let mut file = line;
            for _ in 0..5 {
                file = file.trim_start();
                file = file.split_once(' ').map_or("", |(_, rest)| rest);
            }
            let file = file.trim();
            if file.is_empty() {
                continue;
            }
            if file == own {
                if let Some((a, b)) = range.split_once('-') {
                    let a = u64::from_str_radix(a, 16).unwrap_or(0);
                    let b = u64::from_str_radix(b, 16).unwrap_or(0);
                    mapped_bytes += b.saturating_sub(a);
                }
                continue;
            }
            let name = file.rsplit('/').next().unwrap_or(file);
            let library = file.starts_with('/') && (name.ends_with(".so") || name.contains(".so."));
            if library && !shared_libraries.iter().any(|l| l == name) {
                shared_libraries.push(name.to_string());
            }
        }
        ExeclBinary {
            path: path.to_path_buf(),
            file_bytes: 0,
            mapped_bytes,
            shared_libraries,
        }
    }

    /// "static" or "dynamically linked (libc.so.6, ...)".
    pub fn linking(&self) -> String {
        if self.shared_libraries.is_empty() {
            "static".into()
        } else {
            format!("dynamically linked ({})", self.shared_libraries.join(", "))
        }
    }

    /// The measurement's note: what was exec'd and what one exec cost.
    pub fn note(&self, faults_per_exec: f64) -> String {
        format!(
            "Execl Throughput execs candor's own binary ({}: {} on disk, {} mapped, {}), {faults_per_exec:.0} page faults per exec here, where UnixBench execs a 24 KiB C program: the figure measures how the exec'd binary is built and loaded as much as the kernel's exec ({EXEC_COST}; see `candor explain unixbench-execl`)",
            self.path.display(),
            crate::units::fmt_bytes(self.file_bytes),
            crate::units::fmt_bytes(self.mapped_bytes),
            self.linking()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_and_its_libraries_are_read_from_maps() {
        let maps = "\
55e3847e7000-55e38498a000 r--p 00000000 fe:01 123 /usr/bin/candor
55e38498a000-55e385189000 r-xp 001a3000 fe:01 123 /usr/bin/candor
55e3a1bfa000-55e3a1c1b000 rw-p 00000000 00:00 0 [heap]
7fca880c0000-7fca880e6000 r--p 00000000 fe:01 77 /lib/x86_64-linux-gnu/libc.so.6
7fca880e6000-7fca8823c000 r-xp 00026000 fe:01 77 /lib/x86_64-linux-gnu/libc.so.6
7fca88382000-7fca88385000 r--p 00000000 fe:01 78 /lib/x86_64-linux-gnu/libgcc_s.so.1
7fca883e8000-7fca883ea000 r--p 00000000 fe:01 79                         /lib64/ld-linux-x86-64.so.2
7ffd1000-7ffd3000 r-xp 00000000 00:00 0                          [vdso]
";
        let b = ExeclBinary::from_maps(std::path::Path::new("/usr/bin/candor"), maps);
        assert_eq!(b.mapped_bytes, 0x55e385189000 - 0x55e3847e7000);
        assert_eq!(
            b.shared_libraries,
            ["libc.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2"]
        );
        assert!(b.linking().starts_with("dynamically linked (libc.so.6"));
        let alone = ExeclBinary::from_maps(
            std::path::Path::new("/usr/bin/candor (deleted)"),
            "00400000-00500000 r-xp 00000000 fe:01 123 /usr/bin/candor (deleted)\n",
        );
        assert_eq!(alone.mapped_bytes, 0x100000);
        assert_eq!(alone.linking(), "static");
        assert!(alone.note(52.0).contains("52 page faults per exec"));
    }
}
