//! The one way candor writes a file: Runs, reports, exports. candor runs as
//! root in shared directories, so every write is made safe against what
//! another user may have planted there:
//!
//! - the content goes to a temporary file beside the target, created with
//!   `O_CREAT | O_EXCL | O_NOFOLLOW` (a planted file or symlink at that
//!   name is never opened; another name is tried), written and fsynced;
//! - it is renamed over the target only when the target is absent, or is a
//!   regular file (never a symlink, device, FIFO or directory) that candor
//!   may replace: its own earlier version (a Run rewritten after each
//!   measurement) or any file with `--force`; a replaced file keeps its
//!   owner and mode;
//! - an output that is also one of the command's inputs is refused.
//!
//! `check` runs before any measuring, so that a bad `-o` is refused in one
//! line (exit 2) instead of losing a measured result at the end.

use crate::error::usage;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Whether an existing target may be replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    /// Only a target that does not exist yet (the default for every `-o`).
    Never,
    /// This process's own earlier version of the file (a Run saved after each measurement).
    Own,
    /// Any regular file (`--force`, `analyze --write`).
    Force,
}

impl Replace {
    /// `Force` with `--force`, else `Never`.
    pub fn from_force(force: bool) -> Replace {
        if force {
            Replace::Force
        } else {
            Replace::Never
        }
    }
}

/// The longest file name most Linux filesystems take (NAME_MAX), less room
/// for the temporary name's prefix and suffix.
const MAX_NAME: usize = 255 - 40;

/// Text made safe as part of a file name: anything but ASCII letters,
/// digits, `-`, `_` and `.` becomes `_` (`web 1/a` → `web_1_a`).
pub fn file_name_part(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The directory a path's file lives in (`.` for a bare name).
pub fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Checks, before any work, that `path` can be written as `flag` asks:
/// its directory exists, its name is usable, and whatever is there may be
/// replaced. `inputs` are the files the command reads (never overwritten).
/// Errors are usage errors naming the flag and the path.
pub fn check(path: &Path, flag: &str, replace: Replace, inputs: &[&Path]) -> anyhow::Result<()> {
    let refuse = |why: String| usage(format!("{flag} {}: {why}", path.display()));
    let dir = parent_dir(path);
    if !dir.is_dir() {
        return Err(refuse(format!(
            "directory {} does not exist",
            dir.display()
        )));
    }
    let Some(name) = path.file_name() else {
        return Err(refuse("not a file name".into()));
    };
    if name.len() > MAX_NAME {
        return Err(refuse(format!(
            "the file name is {} bytes long; the limit is {MAX_NAME}",
            name.len()
        )));
    }
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(refuse(format!("cannot look at it: {e}"))),
        Ok(meta) => {
            let kind = meta.file_type();
            if kind.is_dir() {
                return Err(refuse("is a directory; give a file name".into()));
            }
            if kind.is_symlink() {
                return Err(refuse(
                    "is a symbolic link; candor writes only regular files (without -o the output goes to standard output)".into(),
                ));
            }
            if !kind.is_file() {
                return Err(refuse(
                    "is not a regular file (a device, FIFO or socket); candor writes only regular files".into(),
                ));
            }
            for input in inputs {
                if same_file(path, input) {
                    return Err(refuse(format!(
                        "is also an input ({}); candor never overwrites its input",
                        input.display()
                    )));
                }
            }
            if replace == Replace::Never {
                return Err(refuse(
                    "the file exists; candor never overwrites a file (choose another name, or --force)".into(),
                ));
            }
        }
    }
    Ok(())
}

/// True when both paths name the same existing file (device and inode).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Writes `bytes` to `path` atomically (see the module comment). The error
/// names the path.
pub fn write_atomic(path: &Path, bytes: &[u8], replace: Replace) -> std::io::Result<()> {
    write_streamed(path, replace, &mut |w| w.write_all(bytes))
}

/// Writes to `path` atomically what `fill` writes (see the module comment),
/// without holding it all in memory first: an export of a whole history can
/// be hundreds of megabytes. The error names the path.
pub fn write_streamed(
    path: &Path,
    replace: Replace,
    fill: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let named =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other(format!("{}: not a file name", path.display())))?;
    // What is at the target decides whether the rename may happen, and what
    // owner and mode the new file keeps.
    let existing = match std::fs::symlink_metadata(path) {
        Ok(meta) => {
            let kind = meta.file_type();
            if !kind.is_file() {
                return Err(std::io::Error::other(format!(
                    "{}: not a regular file; candor does not replace it",
                    path.display()
                )));
            }
            if replace == Replace::Never {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    format!(
                        "{}: the file exists; candor never overwrites a file",
                        path.display()
                    ),
                ));
            }
            Some(meta)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(named(e)),
    };
    let (tmp, file) = create_temporary(dir, &name.to_string_lossy()).map_err(named)?;
    let result = (|| {
        let mut buffered = std::io::BufWriter::new(file);
        fill(&mut buffered)?;
        let file = buffered.into_inner().map_err(|e| e.into_error())?;
        if let Some(meta) = &existing {
            // Keep the replaced file's mode and (as root) its owner.
            file.set_permissions(std::fs::Permissions::from_mode(meta.mode() & 0o7777))?;
            // SAFETY: geteuid has no preconditions.
            if unsafe { libc::geteuid() } == 0 {
                std::os::unix::fs::fchown(&file, Some(meta.uid()), Some(meta.gid()))?;
            }
        }
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        // The rename is durable once the directory is synced (best effort).
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(named)
}

/// A new temporary file beside the target: `.<name>.<pid>.<n>.tmp`,
/// created exclusively without following links (a planted name is skipped).
fn create_temporary(dir: &Path, name: &str) -> std::io::Result<(PathBuf, std::fs::File)> {
    let salt = crate::seed::fresh();
    for attempt in 0..16u64 {
        let tmp = dir.join(format!(
            ".{name}.{}.{:08x}.tmp",
            std::process::id(),
            (salt.wrapping_add(attempt)) as u32
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp)
        {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(
        "cannot create a temporary file: 16 names taken",
    ))
}

/// Writes text to `path` (a new file, or any file with `force`) or to
/// standard output. A closed pipe (`| head`) is not an error.
pub fn write_text(path: Option<&Path>, text: &str, force: bool) -> anyhow::Result<()> {
    match path {
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => Ok(other?),
            }
        }
        Some(path) => write_atomic(path, text.as_bytes(), Replace::from_force(force))
            .map_err(|e| anyhow::anyhow!("--output: cannot write: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_follows_a_planted_link_and_keeps_mode() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let out = dir.path().join("out.txt");
        // A planted link at the old temporary name and at the target.
        std::os::unix::fs::symlink(
            &victim,
            dir.path()
                .join(format!(".out.txt.{}.tmp", std::process::id())),
        )
        .unwrap();
        write_atomic(&out, b"report", Replace::Never).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "report");
        assert!(write_atomic(&out, b"again", Replace::Never).is_err());
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&out, b"again", Replace::Force).unwrap();
        let meta = std::fs::metadata(&out).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o600);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(write_atomic(&link, b"x", Replace::Force).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        // No temporary file is left.
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|n| n.ends_with(".tmp") && !n.starts_with(".out.txt."))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn check_names_the_problem() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        std::fs::write(&file, "{}").unwrap();
        let e = |p: &Path, r: Replace, inputs: &[&Path]| {
            check(p, "-o", r, inputs).unwrap_err().to_string()
        };
        assert!(e(&file, Replace::Never, &[]).contains("the file exists"));
        assert!(e(&file, Replace::Force, &[&file]).contains("is also an input"));
        assert!(e(dir.path(), Replace::Force, &[]).contains("is a directory"));
        assert!(e(Path::new("/dev/null"), Replace::Force, &[]).contains("not a regular file"));
        assert!(e(&dir.path().join("no/such"), Replace::Never, &[]).contains("does not exist"));
        let long = dir.path().join("x".repeat(300));
        assert!(e(&long, Replace::Never, &[]).contains("bytes long"));
        assert!(check(&dir.path().join("new.json"), "-o", Replace::Never, &[]).is_ok());
        assert!(check(&file, "-o", Replace::Force, &[]).is_ok());
    }
}
