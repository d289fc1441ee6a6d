//! The one way candor writes a file: Runs, reports, exports. candor runs as
//! root in shared directories, so every write is made safe against what
//! another user may have planted there:
//!
//! - the content goes to a temporary file beside the target, named after
//!   this process (pid and start time, so that a later candor can remove it
//!   if this one is killed: `leftovers`), created with
//!   `O_CREAT | O_EXCL | O_NOFOLLOW` (a planted file or symlink at that
//!   name is never opened; another name is tried), written and fsynced;
//! - the target is looked at on its own descriptor (`O_PATH | O_NOFOLLOW`,
//!   then fstat: a symlink, device, FIFO, socket or directory is refused
//!   without being opened for reading or writing); it may be replaced only
//!   when it is a regular file that candor may replace: its own earlier
//!   version (a Run rewritten after each measurement: same device, inode
//!   and content as candor last wrote) or any file with `--force`; a
//!   replaced file keeps its owner and mode;
//! - after the work, only what was checked is replaced (`rename`): a target
//!   that was absent is created with `RENAME_NOREPLACE`, one that was there
//!   is swapped with `RENAME_EXCHANGE` and what came out must be the file
//!   checked, else it is swapped back. When another file took the name
//!   during the work, both are kept: the new content is saved beside it
//!   (`r.candor-1.json`) and the error (`Kept`) names both;
//! - an output that is also one of the command's inputs is refused.
//!
//! `check` runs before any measuring, so that a bad `-o` is refused in one
//! line (exit 2) instead of losing a measured result at the end.

use crate::error::usage;

#[cfg(unix)]
mod rename;
#[cfg(windows)]
#[path = "output/rename_windows.rs"]
mod rename;

#[cfg(unix)]
#[path = "output/unix.rs"]
mod os;
#[cfg(windows)]
#[path = "output/windows.rs"]
mod os;
use os::{allocate, found_of, inspect, keep_mode_and_owner, open_regular, Found, TemporaryFlags};
pub use os::{may_write, writable_dir};

use std::io::{Seek, Write};
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
/// for what the temporary's name adds: `.` before, and
/// `.candor-<pid>-<start time>-<8 hex>.tmp` after (at most 49 bytes).
const MAX_NAME: usize = 255 - 50;

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
    // `out/` (or `out/.`) names a directory whatever is there: said now,
    // not found by the rename after the work.
    let bytes = path.as_os_str().as_encoded_bytes();
    if bytes.ends_with(b"/") || bytes.ends_with(b"/.") || bytes == b"." || path.ends_with("..") {
        return Err(refuse("names a directory; give a file name".into()));
    }
    let dir = parent_dir(path);
    if !dir.is_dir() {
        return Err(refuse(format!(
            "directory {} does not exist",
            dir.display()
        )));
    }
    // A read-only mount, an immutable directory or one this user may not
    // write: the same usage error in every command, before any work, not
    // an I/O error after it.
    if let Err(e) = writable_dir(dir) {
        return Err(refuse(format!(
            "cannot write in directory {}: {e}",
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
    // Whether or not either exists yet: a history's `-journal` is made
    // by the next writer of that history, and would then be this output.
    for input in inputs {
        if same_place(path, input) {
            return Err(refuse(format!(
                "is also an input ({}); candor never overwrites its input",
                input.display()
            )));
        }
    }
    match inspect(path) {
        Ok(None) => {}
        Err(e) => return Err(refuse(format!("cannot look at it: {e}"))),
        Ok(Some(found)) => {
            if found.is_dir() {
                return Err(refuse("is a directory; give a file name".into()));
            }
            if found.is_symlink() {
                return Err(refuse(
                    "is a symbolic link; candor writes only regular files (without -o the output goes to standard output)".into(),
                ));
            }
            if !found.is_file() {
                return Err(refuse(
                    "is not a regular file (a device, FIFO or socket); candor writes only regular files".into(),
                ));
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

/// `check`, then the temporaries that killed candors left beside `path`
/// removed (`recover_beside`): what every command that writes one file does
/// before its work.
pub fn prepare(path: &Path, flag: &str, replace: Replace, inputs: &[&Path]) -> anyhow::Result<()> {
    check(path, flag, replace, inputs)?;
    recover_beside(path);
    Ok(())
}

/// Removes, with one line each on stderr, the temporaries that candors no
/// longer running left beside `path` (see `leftovers`); the lines, for a
/// Run's notes.
pub fn recover_beside(path: &Path) -> Vec<String> {
    let lines = crate::leftovers::recover(parent_dir(path)).lines;
    for line in &lines {
        eprintln!("candor: warning: {line}");
    }
    lines
}

/// True when both paths name the same file: the same existing file
/// (device and inode, through any link), or, when one is not there yet,
/// the same name in the same directory (the directories compared by
/// device and inode, so `./x` and `/abs/x` are one place).
pub fn same_place(a: &Path, b: &Path) -> bool {
    if let Some(same) = os::same_file(a, b) {
        return same;
    }
    let (Some(name_a), Some(name_b)) = (a.file_name(), b.file_name()) else {
        return false;
    };
    if name_a != name_b {
        return false;
    }
    os::same_file(parent_dir(a), parent_dir(b)).unwrap_or(false)
}

/// An I/O error that names its path and keeps the system's error code
/// (`os_error` finds it: a full disk must still be told from the rest).
#[derive(Debug)]
struct Named {
    path: PathBuf,
    source: std::io::Error,
}

impl std::fmt::Display for Named {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for Named {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// An error that names the path.
fn named(path: &Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(
        e.kind(),
        Named {
            path: path.to_path_buf(),
            source: e,
        },
    )
}

/// The system's error code (errno) of an error from this module.
pub fn os_error(e: &std::io::Error) -> Option<i32> {
    e.raw_os_error()
        .or_else(|| e.get_ref()?.downcast_ref::<Named>()?.source.raw_os_error())
}

/// A file as candor wrote it: the inode and a digest of the content. The
/// next save of the same Run may replace only this (`Replace::Own`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    found: Found,
    len: u64,
    digest: u64,
}

impl Written {
    /// The file at `path` as it is now (a Run that `--resume` carries on).
    pub fn of_file(path: &Path) -> std::io::Result<Written> {
        let mut file = open_regular(path)?;
        let found = found_of(&file)?;
        let (len, digest) = digest_of(&mut file)?;
        Ok(Written { found, len, digest })
    }
}

/// Length and a 64-bit FNV-1a digest of what `r` holds (not cryptographic:
/// it tells candor's own file from one rewritten in place, within a run).
fn digest_of(r: &mut dyn std::io::Read) -> std::io::Result<(u64, u64)> {
    let mut hash = Digest::new();
    std::io::copy(r, &mut hash)?;
    Ok((hash.len, hash.value))
}

/// FNV-1a, as a writer so that content can be digested while written.
struct Digest {
    len: u64,
    value: u64,
}

impl Digest {
    fn new() -> Digest {
        Digest {
            len: 0,
            value: 0xcbf2_9ce4_8422_2325,
        }
    }
}

impl Write for Digest {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for b in buf {
            self.value = (self.value ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.len += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The target's name was taken by another file during the work (or the
/// file there is not the one checked): that file was kept as it is, and
/// the new content saved beside it, at `kept`.
#[derive(Debug)]
pub struct Kept {
    pub path: PathBuf,
    pub kept: PathBuf,
    pub written: Written,
    why: String,
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}; candor kept that file as it is and saved its output as {}",
            self.path.display(),
            self.why,
            self.kept.display()
        )
    }
}

impl std::error::Error for Kept {}

/// The `Kept` inside an error from this module, if that is what it is.
pub fn kept(e: &std::io::Error) -> Option<&Kept> {
    let inner = e.get_ref()?;
    inner.downcast_ref::<Kept>().or_else(|| {
        inner
            .downcast_ref::<Named>()?
            .source
            .get_ref()?
            .downcast_ref::<Kept>()
    })
}

/// Writes `bytes` to `path` atomically (see the module comment). The error
/// names the path.
pub fn write_atomic(path: &Path, bytes: &[u8], replace: Replace) -> std::io::Result<()> {
    write_run_file(path, bytes, replace, None).map(|_| ())
}

/// `write_atomic` for a file written again and again (a Run): `last` is what
/// this process wrote there before, the only file `Replace::Own` replaces.
/// Returns what is now at `path`, for the next save.
pub fn write_run_file(
    path: &Path,
    bytes: &[u8],
    replace: Replace,
    last: Option<&Written>,
) -> std::io::Result<Written> {
    let existing = replaceable(path, replace)?;
    let (tmp, mut file) = create_temporary(path).map_err(|e| named(path, e))?;
    commit(
        &tmp,
        &mut file,
        &mut |w| w.write_all(bytes),
        existing,
        last,
        path,
    )
}

/// What fills a file: writes its content to the writer it is given.
pub type Fill<'a> = dyn FnMut(&mut dyn Write) -> std::io::Result<()> + 'a;

/// Writes to `path` atomically what `fill` writes (see the module comment),
/// without holding it all in memory first: an export of a whole history can
/// be hundreds of megabytes. The error names the path.
pub fn write_streamed(path: &Path, replace: Replace, fill: &mut Fill) -> std::io::Result<()> {
    let existing = replaceable(path, replace)?;
    let (tmp, mut file) = create_temporary(path).map_err(|e| named(path, e))?;
    commit(&tmp, &mut file, fill, existing, None, path).map(|_| ())
}

/// What is at the target, if anything, once it is known that `replace`
/// allows replacing it: its identity is checked again after the work, its
/// owner and mode are kept.
fn replaceable(path: &Path, replace: Replace) -> std::io::Result<Option<Found>> {
    match inspect(path).map_err(|e| named(path, e))? {
        Some(found) => {
            if !found.is_file() {
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
            Ok(Some(found))
        }
        None => Ok(None),
    }
}

/// Puts what `fill` writes in the temporary `tmp` (from its start, cut to
/// its length), gives it the owner and mode of the file it replaces, syncs
/// it and puts it at `path` replacing only what was checked (`existing`,
/// and `last` when this process wrote it). On failure the temporary is
/// removed (or the error says it could not be); when another file took the
/// name, the temporary is kept beside it (`Kept`).
fn commit(
    tmp: &Path,
    file: &mut std::fs::File,
    fill: &mut Fill,
    existing: Option<Found>,
    last: Option<&Written>,
    path: &Path,
) -> std::io::Result<Written> {
    let mut conflict: Option<(Written, String)> = None;
    let result = (|| {
        file.seek(std::io::SeekFrom::Start(0))?;
        let mut hash = Digest::new();
        let mut buffered = std::io::BufWriter::new(Tee(&mut *file, &mut hash));
        fill(&mut buffered)?;
        buffered.flush()?;
        drop(buffered);
        let len = file.stream_position()?;
        file.set_len(len)?;
        if let Some(found) = existing {
            keep_mode_and_owner(file, &found)?;
        }
        file.sync_all()?;
        // The name must still be the file just written: in a directory where
        // others may rename files, a swapped name would put theirs in place.
        let written = Written {
            found: found_of(file)?,
            len: hash.len,
            digest: hash.value,
        };
        match inspect(tmp) {
            Ok(Some(now)) if now.same_file(&written.found) => {}
            _ => {
                return Err(std::io::Error::other(format!(
                    "the temporary {} was replaced by another file",
                    tmp.display()
                )))
            }
        }
        match existing {
            None => match rename::no_replace(tmp, path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    conflict = Some((
                        written,
                        "a file was put there during the work (it was absent at the check)".into(),
                    ));
                    return Err(std::io::ErrorKind::AlreadyExists.into());
                }
                Err(e) => return Err(e),
            },
            Some(found) => {
                let expected = last.map(|l| l.found).unwrap_or(found);
                if rename::exchange(tmp, path)? {
                    // `tmp` now names what was at `path`.
                    if let Err(why) = still_the_checked(tmp, &expected, last) {
                        rename::exchange(tmp, path)?;
                        conflict = Some((written, why));
                        return Err(std::io::ErrorKind::AlreadyExists.into());
                    }
                    std::fs::remove_file(tmp)?;
                } else {
                    if let Err(why) = still_the_checked(path, &expected, last) {
                        conflict = Some((written, why));
                        return Err(std::io::ErrorKind::AlreadyExists.into());
                    }
                    std::fs::rename(tmp, path)?;
                }
            }
        }
        // The rename is durable once the directory is synced (best effort).
        if let Ok(d) = std::fs::File::open(parent_dir(path)) {
            let _ = d.sync_all();
        }
        Ok(written)
    })();
    if let Some((written, why)) = conflict {
        return Err(keep_beside(tmp, path, written, why));
    }
    result.map_err(|e| match std::fs::remove_file(tmp) {
        Err(r) if r.kind() != std::io::ErrorKind::NotFound => std::io::Error::new(
            e.kind(),
            format!(
                "{}: {e} (and its temporary {} could not be removed: {r})",
                path.display(),
                tmp.display()
            ),
        ),
        _ => named(path, e),
    })
}

/// A writer that also digests what it writes.
struct Tee<'a>(&'a mut std::fs::File, &'a mut Digest);

impl Write for Tee<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(buf)?;
        self.1.write_all(&buf[..n])?;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Whether the file at `at` is the one checked before the work (`expected`),
/// and, when this process wrote it (`last`), still holds what it wrote; the
/// reason when not.
fn still_the_checked(at: &Path, expected: &Found, last: Option<&Written>) -> Result<(), String> {
    let now = match inspect(at) {
        Ok(Some(now)) => now,
        Ok(None) => return Err("the file checked was removed during the work".into()),
        Err(e) => return Err(format!("cannot look at it: {e}")),
    };
    if !now.same_file(expected) {
        return Err("another file was put there during the work (not the one checked)".into());
    }
    if let Some(last) = last {
        let same = open_regular(at)
            .and_then(|mut f| {
                let inode = found_of(&f)?;
                Ok(inode.same_file(expected) && digest_of(&mut f)? == (last.len, last.digest))
            })
            .unwrap_or(false);
        if !same {
            return Err("the file was changed by another program during the work".into());
        }
    }
    Ok(())
}

/// Saves the temporary beside `path` under a name nothing has
/// (`r.candor-1.json`, `-2`, ...), never replacing a file, and says so.
fn keep_beside(tmp: &Path, path: &Path, written: Written, why: String) -> std::io::Error {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
        _ => (name.to_string(), String::new()),
    };
    for n in 1..=100 {
        let kept = parent_dir(path).join(format!("{stem}.candor-{n}{ext}"));
        match rename::no_replace(tmp, &kept) {
            Ok(()) => {
                return std::io::Error::other(Kept {
                    path: path.to_path_buf(),
                    kept,
                    written,
                    why,
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return std::io::Error::other(format!(
                    "{}: {why}; candor kept that file, and could not save its output beside it ({e}): it is still in {}",
                    path.display(),
                    tmp.display()
                ))
            }
        }
    }
    std::io::Error::other(format!(
        "{}: {why}; candor kept that file, and its output is still in {} (100 names beside it taken)",
        path.display(),
        tmp.display()
    ))
}

/// A new temporary file beside `target`, named after this process
/// (`leftovers::names::temporary`), created exclusively without following
/// links (a planted name is skipped) and held locked while it is open.
fn create_temporary(target: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    let name = target
        .file_name()
        .ok_or_else(|| std::io::Error::other("not a file name"))?;
    let owner = crate::leftovers::Owner::this_process();
    let salt = crate::seed::fresh();
    for attempt in 0..16u64 {
        let tmp = parent_dir(target).join(crate::leftovers::names::temporary(
            name,
            owner,
            salt.wrapping_add(attempt) as u32,
        ));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .temporary_flags()
            .open(&tmp)
        {
            Ok(f) => {
                crate::leftovers::hold(&f);
                return Ok((tmp, f));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(
        "cannot create a temporary file: 16 names taken",
    ))
}

/// Room kept beside a file for its last save: a temporary whose blocks are
/// allocated in advance. When the filesystem fills (another program's
/// files, a log gone wild), a Run can still be saved one last time, with
/// the status that says why it stopped, instead of staying `running`.
/// Removed when dropped unless it became the file.
#[derive(Debug)]
pub struct Reserve {
    path: PathBuf,
    file: std::fs::File,
    size: u64,
    used: bool,
}

impl Reserve {
    /// Keeps `size` bytes beside `target`.
    pub fn new(target: &Path, size: u64) -> std::io::Result<Reserve> {
        let (path, file) = create_temporary(target)?;
        crate::cancel::register(path.clone());
        let reserve = Reserve {
            path,
            file,
            size,
            used: false,
        };
        allocate(&reserve.file, size)?;
        Ok(reserve)
    }

    /// The bytes kept.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Saves `bytes` as `target` in the room kept (the rules of
    /// `write_run_file`); bytes beyond it need free space as any write does.
    pub fn write(
        mut self,
        target: &Path,
        bytes: &[u8],
        replace: Replace,
        last: Option<&Written>,
    ) -> std::io::Result<Written> {
        let existing = replaceable(target, replace)?;
        self.used = true;
        let mut fill = |w: &mut dyn Write| w.write_all(bytes);
        commit(
            &self.path,
            &mut self.file,
            &mut fill,
            existing,
            last,
            target,
        )
    }
}

impl Drop for Reserve {
    fn drop(&mut self) {
        if !self.used {
            if let Err(e) = std::fs::remove_file(&self.path) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    crate::leftovers::removal_failed("reserve file", &self.path, &e);
                }
            }
        }
        crate::cancel::unregister(&self.path);
    }
}

/// Writes text to `path` (a new file, or any file with `force`) or to
/// standard output. A closed pipe (`| head`) is not an error.
pub fn write_text(path: Option<&Path>, text: &str, force: bool) -> anyhow::Result<()> {
    // A command stopped by a signal while it made the text prints nothing
    // (the text may be cut short) and leaves the file as it was.
    crate::cancel::check()?;
    match path {
        None => {
            // Whatever a Run file held, nothing reaches the terminal raw.
            let text = crate::error::terminal_safe(text);
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

/// Writes `size` zeros to `file` and flushes them: blocks the file holds,
/// where the system cannot allocate them otherwise (the platforms' `allocate`).
fn write_zeros(file: &std::fs::File, size: u64) -> std::io::Result<()> {
    use std::io::Write;
    let zeros = vec![0u8; 1 << 16];
    let mut left = size;
    let mut f = file;
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        f.write_all(&zeros[..n])?;
        left -= n as u64;
    }
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    /// Unix: planted symlinks and permission bits (output/windows.rs takes
    /// reparse points as themselves; Windows has no mode bits).
    #[cfg(unix)]
    #[test]
    fn never_follows_a_planted_link_and_keeps_mode() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let out = dir.path().join("out.txt");
        // Planted links at the old temporary name and at each name this
        // process's temporaries could take: none is followed, none removed.
        std::os::unix::fs::symlink(
            &victim,
            dir.path()
                .join(format!(".out.txt.{}.tmp", std::process::id())),
        )
        .unwrap();
        let owner = crate::leftovers::Owner::this_process();
        std::os::unix::fs::symlink(
            &victim,
            dir.path().join(crate::leftovers::names::temporary(
                "out.txt".as_ref(),
                owner,
                0,
            )),
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
        // No temporary file is left: only what the test made is there.
        let left = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(left, 5, "victim, out.txt, link and the two planted links");
    }

    #[test]
    fn a_reserve_becomes_the_file_or_goes() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.json");
        write_atomic(&out, b"first", Replace::Never).unwrap();
        #[cfg(unix)]
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
        let reserve = Reserve::new(&out, 1 << 20).unwrap();
        assert_eq!(reserve.size(), 1 << 20);
        assert_eq!(crate::leftovers::candor_files(dir.path()).len(), 1);
        reserve.write(&out, b"last", Replace::Own, None).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"last");
        let meta = std::fs::metadata(&out).unwrap();
        assert_eq!(meta.len(), 4);
        #[cfg(unix)]
        assert_eq!(meta.mode() & 0o777, 0o640);
        assert!(crate::leftovers::candor_files(dir.path()).is_empty());
        drop(Reserve::new(&out, 4096).unwrap());
        assert!(crate::leftovers::candor_files(dir.path()).is_empty());
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
        // A trailing slash names a directory, there or not.
        for p in ["new/", "new/.", "x.json/", "."] {
            assert!(
                e(&dir.path().join(p), Replace::Force, &[]).contains("names a directory"),
                "{p}"
            );
        }
        let long = dir.path().join("x".repeat(300));
        assert!(e(&long, Replace::Never, &[]).contains("bytes long"));
        assert!(check(&dir.path().join("new.json"), "-o", Replace::Never, &[]).is_ok());
        assert!(check(&file, "-o", Replace::Force, &[]).is_ok());
    }

    /// Runs `f` once with renameat2 and once with the fallbacks of
    /// filesystems without it (link/unlink, check then rename).
    #[cfg(unix)]
    fn both_ways(f: impl Fn(&Path)) {
        for without in [false, true] {
            rename::WITHOUT_RENAMEAT2.with(|w| w.set(without));
            let dir = tempfile::tempdir().unwrap();
            f(dir.path());
            rename::WITHOUT_RENAMEAT2.with(|w| w.set(false));
        }
    }

    /// Runs `f` once: Windows has one way, MoveFileExW without replace.
    #[cfg(windows)]
    fn both_ways(f: impl Fn(&Path)) {
        let dir = tempfile::tempdir().unwrap();
        f(dir.path());
    }

    /// A file of another content put at `path` while the work runs.
    fn plant(path: &Path, content: &str) {
        let other = parent_dir(path).join("other.tmp-by-someone");
        std::fs::write(&other, content).unwrap();
        std::fs::rename(&other, path).unwrap();
    }

    #[test]
    fn a_file_put_in_place_during_the_work_is_kept() {
        both_ways(|dir| {
            let out = dir.join("out.txt");
            let mut fill = |w: &mut dyn Write| {
                plant(&out, "theirs");
                w.write_all(b"ours")
            };
            let e = write_streamed(&out, Replace::Never, &mut fill).unwrap_err();
            let k = kept(&e).expect("Kept");
            assert!(e.to_string().contains("absent at the check"), "{e}");
            assert_eq!(std::fs::read_to_string(&out).unwrap(), "theirs");
            assert_eq!(k.kept, dir.join("out.candor-1.txt"));
            assert_eq!(std::fs::read_to_string(&k.kept).unwrap(), "ours");
            assert!(crate::leftovers::candor_files(dir).is_empty());
        });
    }

    #[test]
    fn a_file_swapped_in_before_a_forced_replace_is_kept() {
        both_ways(|dir| {
            let out = dir.join("r.json");
            std::fs::write(&out, "checked").unwrap();
            let mut fill = |w: &mut dyn Write| {
                plant(&out, "swapped in");
                w.write_all(b"ours")
            };
            let e = write_streamed(&out, Replace::Force, &mut fill).unwrap_err();
            assert!(e.to_string().contains("not the one checked"), "{e}");
            assert_eq!(std::fs::read_to_string(&out).unwrap(), "swapped in");
            let k = kept(&e).unwrap();
            assert_eq!(std::fs::read_to_string(&k.kept).unwrap(), "ours");
            // Without a swap, --force replaces, and nothing is left beside.
            write_atomic(&out, b"forced", Replace::Force).unwrap();
            assert_eq!(std::fs::read_to_string(&out).unwrap(), "forced");
            assert!(crate::leftovers::candor_files(dir).is_empty());
            assert_eq!(
                std::fs::read_dir(dir).unwrap().count(),
                2,
                "r.json and r.candor-1.json"
            );
        });
    }

    #[test]
    fn own_replaces_only_what_this_process_wrote() {
        both_ways(|dir| {
            let out = dir.join("r.json");
            let first = write_run_file(&out, b"v1", Replace::Never, None).unwrap();
            let second = write_run_file(&out, b"v2", Replace::Own, Some(&first)).unwrap();
            assert_eq!(std::fs::read_to_string(&out).unwrap(), "v2");
            // Rewritten in place by another program: same inode, other content.
            std::fs::write(&out, "edited").unwrap();
            let e = write_run_file(&out, b"v3", Replace::Own, Some(&second)).unwrap_err();
            assert!(e.to_string().contains("changed by another program"), "{e}");
            assert_eq!(std::fs::read_to_string(&out).unwrap(), "edited");
            // Replaced by another file before the save began.
            plant(&out, "theirs");
            let e = write_run_file(&out, b"v3", Replace::Own, Some(&second)).unwrap_err();
            assert!(e.to_string().contains("not the one checked"), "{e}");
            assert_eq!(std::fs::read_to_string(&out).unwrap(), "theirs");
            assert_eq!(
                std::fs::read_to_string(dir.join("r.candor-2.json")).unwrap(),
                "v3"
            );
        });
    }
}
