//! Directories candor creates because a job file names one that does not
//! exist (fio's `create_work_dirs`: each missing level, mode 0700). Only the
//! levels missing at the time are created, each with `mkdirat` under its
//! parent's descriptor and opened again without following a symbolic link,
//! so that a link planted on the way is refused, never followed. They are
//! removed, innermost first, when the guard is dropped (success, error,
//! unwinding, the first Ctrl-C) or by the second signal (`cancel`); a level
//! that is no longer empty (something else put a file there) is kept and
//! named, so candor never removes what it did not create.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

pub use super::missing_levels::missing_levels;

/// One level candor created: its parent's descriptor and its name in it.
#[derive(Debug)]
struct Level {
    parent: OwnedFd,
    name: CString,
    path: PathBuf,
}

/// The levels created for one directory; removed when dropped.
#[derive(Debug, Default)]
pub struct MadeDirs {
    levels: Vec<Level>,
}

impl MadeDirs {
    /// Creates the levels of `path` that are missing now (mode 0700, as
    /// fio), none when it exists. A level that appears meanwhile as a
    /// directory is used and left alone; as anything else it is refused.
    pub fn create(path: &Path) -> anyhow::Result<MadeDirs> {
        let (base, missing) = missing_levels(path).map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut made = MadeDirs::default();
        let mut dir = open_dir(libc::AT_FDCWD, &cstring(base.as_os_str())?, true)
            .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", base.display()))?;
        let mut at = base;
        for name in missing {
            at.push(&name);
            let cname = cstring(&name)?;
            // SAFETY: a valid directory descriptor and a NUL-terminated name.
            let created = unsafe { libc::mkdirat(dir.as_raw_fd(), cname.as_ptr(), 0o700) } == 0;
            if !created {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EEXIST) {
                    return Err(anyhow::anyhow!(
                        "cannot create the directory {}: {e}",
                        at.display()
                    ));
                }
            }
            let next = open_dir(dir.as_raw_fd(), &cname, false).map_err(|e| {
                anyhow::anyhow!(
                    "{} is not a directory candor may use ({e}): a symbolic link is never followed there",
                    at.display()
                )
            })?;
            if created {
                crate::cancel::register_dir(at.clone());
                made.levels.push(Level {
                    parent: dir,
                    name: cname,
                    path: at.clone(),
                });
            }
            dir = next;
        }
        Ok(made)
    }

    /// The directories created, outermost first.
    pub fn paths(&self) -> Vec<&Path> {
        self.levels.iter().map(|l| l.path.as_path()).collect()
    }
}

impl Drop for MadeDirs {
    fn drop(&mut self) {
        for level in self.levels.iter().rev() {
            // SAFETY: a valid descriptor and name; AT_REMOVEDIR removes only
            // an empty directory and never follows a link.
            let r = unsafe {
                libc::unlinkat(
                    level.parent.as_raw_fd(),
                    level.name.as_ptr(),
                    libc::AT_REMOVEDIR,
                )
            };
            if r != 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::NotFound {
                    crate::leftovers::removal_failed("directory it created", &level.path, &e);
                }
            }
            crate::cancel::unregister_dir(&level.path);
        }
    }
}

fn cstring(name: &std::ffi::OsStr) -> anyhow::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| anyhow::anyhow!("a path with a NUL byte"))
}

/// Opens a directory under `at`; `follow`: whether a link at the last
/// component may be followed (only for the existing base the user named).
fn open_dir(at: i32, name: &CString, follow: bool) -> std::io::Result<OwnedFd> {
    let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
    // SAFETY: a valid descriptor (or AT_FDCWD) and a NUL-terminated name;
    // the descriptor returned is owned below.
    let raw = unsafe {
        libc::openat(
            at,
            name.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC | nofollow,
        )
    };
    if raw < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_only_the_missing_levels_and_removes_them() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("a")).unwrap();
        std::fs::write(tmp.path().join("a/kept"), b"x").unwrap();
        let want = tmp.path().join("a/b/c");
        let (base, missing) = missing_levels(&want).unwrap();
        assert_eq!(base, tmp.path().join("a"));
        assert_eq!(missing, [std::ffi::OsString::from("b"), "c".into()]);
        let made = MadeDirs::create(&want).unwrap();
        assert_eq!(
            made.paths(),
            [tmp.path().join("a/b"), tmp.path().join("a/b/c")]
        );
        assert!(want.is_dir());
        drop(made);
        assert!(!tmp.path().join("a/b").exists());
        assert!(tmp.path().join("a/kept").exists());
    }

    #[test]
    fn a_level_someone_filled_is_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let want = tmp.path().join("x/y");
        let made = MadeDirs::create(&want).unwrap();
        std::fs::write(want.join("theirs"), b"x").unwrap();
        drop(made);
        assert!(want.join("theirs").exists());
    }

    #[test]
    fn a_link_on_the_way_is_refused_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        std::os::unix::fs::symlink(&elsewhere, tmp.path().join("link")).unwrap();
        assert!(missing_levels(&tmp.path().join("link/sub")).is_err());
        assert!(MadeDirs::create(&tmp.path().join("link/sub")).is_err());
        assert!(!elsewhere.exists());
        std::fs::write(tmp.path().join("file"), b"x").unwrap();
        assert!(missing_levels(&tmp.path().join("file/sub")).is_err());
    }
}
