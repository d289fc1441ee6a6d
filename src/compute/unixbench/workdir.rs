//! The private work directory of File Copy and Shell Scripts: made new under
//! the test directory (mkdir fails if the name exists, so nothing of anyone
//! else's is used), holding only files created here (create-exclusive, no
//! symlink followed, each registered for a second Ctrl-C) and those candor's
//! own shell scripts make in it, removed with them when dropped: on success,
//! on error, and after Ctrl-C or SIGTERM (the loops stop and return).

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub struct WorkDir {
    path: PathBuf,
    files: Mutex<Vec<PathBuf>>,
    /// Held locked while the directory is in use, so that no other candor
    /// takes it for a killed one's leftover (`leftovers::recover`).
    _held: File,
}

impl WorkDir {
    /// Makes `candor-unixbench-PID-START` (`leftovers::names::work_dir`) in
    /// `parent`, mode 0700, after removing the work directories candors
    /// killed with SIGKILL left there (one warning each).
    pub fn create(parent: &Path) -> anyhow::Result<WorkDir> {
        use std::os::unix::fs::DirBuilderExt;
        for line in crate::leftovers::recover(parent).lines {
            eprintln!("candor: warning: {line}");
        }
        let name =
            crate::leftovers::names::work_dir("unixbench", crate::leftovers::Owner::this_process());
        let path = parent.join(name);
        let cannot = |e: std::io::Error| {
            crate::error::usage(format!(
                "cannot make the work directory {}: {e}",
                path.display()
            ))
        };
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(cannot)?;
        let held = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
            .map_err(cannot)?;
        crate::leftovers::hold(&held);
        Ok(WorkDir {
            path,
            files: Mutex::new(Vec::new()),
            _held: held,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A new file in the directory, read-write; fails if the name exists.
    pub fn file(&self, name: &str) -> anyhow::Result<File> {
        let p = self.path.join(name);
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&p)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", p.display()))?;
        crate::cancel::register(p.clone());
        self.files.lock().unwrap_or_else(|e| e.into_inner()).push(p);
        Ok(f)
    }
}

impl WorkDir {
    /// Removes a file `file` created, at once (each pass's files go when it ends).
    pub fn remove(&self, name: &str) -> anyhow::Result<()> {
        let p = self.path.join(name);
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = files.iter().position(|f| *f == p) {
            std::fs::remove_file(&p)
                .map_err(|e| anyhow::anyhow!("cannot remove {}: {e}", p.display()))?;
            crate::cancel::unregister(&p);
            files.remove(i);
        }
        Ok(())
    }

    /// Removes `name` if one of candor's shell scripts, stopped half-way,
    /// left it (each script removes its files when it runs to its end).
    /// Only a plain file of exactly that name: unlink never follows a link.
    pub fn remove_left_by_script(&self, name: &str) -> anyhow::Result<()> {
        let p = self.path.join(name);
        match std::fs::remove_file(&p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(anyhow::anyhow!("cannot remove {}: {e}", p.display()))
            }
            _ => Ok(()),
        }
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let files = std::mem::take(&mut *self.files.lock().unwrap_or_else(|e| e.into_inner()));
        for f in files {
            crate::cancel::unregister(&f);
            if let Err(e) = std::fs::remove_file(&f) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    crate::leftovers::removal_failed("unixbench file", &f, &e);
                }
            }
        }
        // remove_dir removes only an empty directory: a file the scripts
        // left (they remove their own) is reported, never deleted blindly.
        if let Err(e) = std::fs::remove_dir(&self.path) {
            crate::leftovers::removal_failed("unixbench work directory", &self.path, &e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_new_and_removed() {
        let parent = std::env::temp_dir().join(format!("candor-wd-test-{}", std::process::id()));
        std::fs::create_dir(&parent).unwrap();
        let path;
        {
            let d = WorkDir::create(&parent).unwrap();
            path = d.path().to_path_buf();
            d.file("a").unwrap();
            d.remove("a").unwrap();
            d.file("a").unwrap();
            assert!(d.file("a").is_err(), "create is exclusive");
            assert!(
                WorkDir::create(&parent).is_err(),
                "the directory is exclusive"
            );
        }
        assert!(!path.exists());
        std::fs::remove_dir(&parent).unwrap();
    }
}
