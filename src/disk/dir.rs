//! The test directory: what filesystem it is on, what O_DIRECT needs there,
//! how much room it has. Refuses what would measure RAM (tmpfs, ramfs),
//! warns about what changes O_DIRECT's meaning (overlay, FUSE, ZFS, NFS).
//!
//! A directory reached through a symbolic link is measured, and recorded,
//! as the directory it resolves to (the link may point at another disk),
//! with a warning. Opening it also removes what killed candors left there
//! (`leftovers::recover`, one warning each) and warns when another candor
//! is measuring there at the same time.

use crate::error::usage;
use crate::result::StorageFacts;
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

// statfs f_type magics (linux/magic.h). Matched by number, never by path name.
const TMPFS_MAGIC: i64 = 0x0102_1994;
const RAMFS_MAGIC: i64 = 0x8584_58f6;
const OVERLAYFS_MAGIC: i64 = 0x794c_7630;
const FUSE_MAGIC: i64 = 0x6573_5546;
const ZFS_MAGIC: i64 = 0x2fc1_2fc1;
const NFS_MAGIC: i64 = 0x6969;
const SMB2_MAGIC: i64 = 0xfe53_4d42;
const CIFS_MAGIC: i64 = 0xff53_4d42;
const V9FS_MAGIC: i64 = 0x0102_1997;
const BTRFS_MAGIC: i64 = 0x9123_683e;

/// The filesystem name for a statfs magic, where candor knows it.
pub fn fs_name(magic: i64) -> &'static str {
    match magic {
        0xef53 => "ext4",
        0x5846_5342 => "xfs",
        BTRFS_MAGIC => "btrfs",
        0xf2f5_2010 => "f2fs",
        TMPFS_MAGIC => "tmpfs",
        RAMFS_MAGIC => "ramfs",
        OVERLAYFS_MAGIC => "overlay",
        FUSE_MAGIC => "fuse",
        ZFS_MAGIC => "zfs",
        NFS_MAGIC => "nfs",
        SMB2_MAGIC | CIFS_MAGIC => "cifs",
        V9FS_MAGIC => "9p",
        0x6165_676c => "pstorefs",
        0x5346_544e => "ntfs",
        0x4d44 => "vfat",
        0x2011_bab0 => "exfat",
        0x0102_7b34 | 0x6462_6720 => "debugfs",
        _ => "unknown",
    }
}

/// An open, checked test directory.
#[derive(Debug)]
pub struct TestDir {
    path: PathBuf,
    fd: OwnedFd,
    fs_magic: i64,
    free_bytes: u64,
    total_bytes: u64,
    dio_mem_align: Option<u64>,
    dio_offset_align: Option<u64>,
    logical_block_size: Option<u64>,
    warnings: Vec<String>,
    /// The dead candors' files removed (or found and kept) on opening, one line each.
    recovered: Vec<String>,
}

impl TestDir {
    /// Opens and checks a directory for test files. Refuses a missing or
    /// unwritable directory and RAM-backed filesystems (usage errors, exit 2).
    pub fn open(given: &Path) -> anyhow::Result<TestDir> {
        let shown = given.display();
        let meta = std::fs::metadata(given).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => usage(format!("--dir {shown}: no such directory")),
            _ => usage(format!("--dir {shown}: {e}")),
        })?;
        if !meta.is_dir() {
            return Err(usage(format!("--dir {shown}: not a directory")));
        }
        let mut warnings = Vec::new();
        // The directory itself, not the links on the way to it: the Run
        // names what was measured.
        let path = std::fs::canonicalize(given)
            .map_err(|e| usage(format!("--dir {shown}: cannot resolve: {e}")))?;
        if std::path::absolute(given).is_ok_and(|a| a != path) {
            warnings.push(format!(
                "--dir {shown} resolves to {} (a symbolic link on the way): candor measures that directory, and the Run records it",
                path.display()
            ));
        }
        let path = path.as_path();
        let shown = path.display();
        let cpath = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| usage(format!("--dir {shown}: path contains a NUL byte")))?;
        // SAFETY: cpath is a valid NUL-terminated string; the fd returned is owned below.
        let raw = unsafe {
            libc::open(
                cpath.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if raw < 0 {
            let e = std::io::Error::last_os_error();
            return Err(usage(format!("--dir {shown}: cannot open: {e}")));
        }
        // SAFETY: raw is a freshly opened descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: cpath is valid; access() only reads it.
        if unsafe { libc::access(cpath.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
            return Err(usage(format!(
                "--dir {shown}: not writable by this user (choose a directory you may write to)"
            )));
        }
        // SAFETY: statfs is plain data; fstatfs fills it for a valid fd.
        let mut sfs: libc::statfs64 = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstatfs64(fd.as_raw_fd(), &mut sfs) } != 0 {
            let e = std::io::Error::last_os_error();
            return Err(usage(format!("--dir {shown}: statfs failed: {e}")));
        }
        // f_type is 32 bits on 32-bit ARM: a magic with the high bit set (CIFS
        // 0xff534d42) must not become negative.
        let fs_magic = (sfs.f_type as u64 & 0xffff_ffff) as i64;
        if fs_magic == TMPFS_MAGIC || fs_magic == RAMFS_MAGIC {
            return Err(usage(format!(
                "--dir {shown} is on {} (RAM, not a disk): its figures would measure memory; use a directory on a disk, such as /var/tmp",
                fs_name(fs_magic)
            )));
        }
        let frsize = sfs.f_frsize as u64;
        let free_bytes = (sfs.f_bavail as u64).saturating_mul(frsize);
        let total_bytes = (sfs.f_blocks as u64).saturating_mul(frsize);

        let (dio_mem_align, dio_offset_align, dev) = statx_dio(fd.as_raw_fd());
        let logical_block_size = dev.and_then(|(maj, min)| logical_block_size(maj, min));
        // What was removed is said at once, whatever the command does next
        // (a candor refused for another reason still removed the files).
        let found = crate::leftovers::recover(path);
        for line in &found.lines {
            eprintln!("candor: warning: {line}");
        }
        warnings.extend(crate::leftovers::sharing_warning(path, &found.running));
        match fs_magic {
            OVERLAYFS_MAGIC => warnings.push(format!(
                "{shown} is on overlayfs (a container layer): O_DIRECT reaches the filesystem below only on recent kernels; figures may include the page cache"
            )),
            FUSE_MAGIC => warnings.push(format!(
                "{shown} is on a FUSE filesystem: O_DIRECT is passed to a user-space daemon that may ignore it; figures may be the daemon's cache"
            )),
            ZFS_MAGIC => warnings.push(format!(
                "{shown} is on ZFS: before OpenZFS 2.3 O_DIRECT is accepted but served through the ARC (RAM); figures may be cache, not disks"
            )),
            BTRFS_MAGIC => warnings.push(format!(
                "{shown} is on btrfs (copy-on-write): candor makes its test files No_COW (chattr +C) so that overwrites land in place, as on other filesystems; files of applications that keep copy-on-write pay for a new extent and its checksum on every overwrite"
            )),
            NFS_MAGIC | SMB2_MAGIC | CIFS_MAGIC | V9FS_MAGIC => warnings.push(format!(
                "{shown} is on a network filesystem ({}): figures include the network and the server's cache",
                fs_name(fs_magic)
            )),
            _ => {}
        }
        Ok(TestDir {
            path: path.to_path_buf(),
            fd,
            fs_magic,
            free_bytes,
            total_bytes,
            dio_mem_align,
            dio_offset_align,
            logical_block_size,
            warnings,
            recovered: found.lines,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    /// Bytes available to this user, read when the directory was opened.
    pub fn free_bytes(&self) -> u64 {
        self.free_bytes
    }

    /// The filesystem's size in bytes.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// Free bytes as of now (re-read: other files may have come and gone).
    pub fn free_bytes_now(&self) -> u64 {
        // SAFETY: as in open().
        let mut sfs: libc::statfs64 = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstatfs64(self.fd.as_raw_fd(), &mut sfs) } != 0 {
            return self.free_bytes;
        }
        (sfs.f_bavail as u64).saturating_mul(sfs.f_frsize as u64)
    }

    /// Warnings for the user: what O_DIRECT means on this filesystem, a
    /// symlinked path, another candor measuring here. The command prints
    /// them (once it knows it will run) and keeps them in the Run.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Everything the Run's notes keep about the directory: the files of
    /// dead candors removed on opening (already said on stderr), then the
    /// warnings.
    pub fn notes(&self) -> impl Iterator<Item = &String> {
        self.recovered.iter().chain(&self.warnings)
    }

    /// True on a copy-on-write filesystem whose files can be made No_COW (btrfs).
    pub fn copy_on_write(&self) -> bool {
        self.fs_magic == BTRFS_MAGIC
    }

    /// The filesystem type name (`ext4`, `xfs`, ...).
    pub fn fs_type(&self) -> &'static str {
        fs_name(self.fs_magic)
    }

    /// The offset and length alignment O_DIRECT needs here: statx's DIO
    /// alignment, else the device's logical block size, else 4096.
    pub fn direct_alignment(&self) -> u64 {
        self.dio_offset_align
            .or(self.logical_block_size)
            .unwrap_or(4096)
            .max(1)
    }

    /// Refuses (usage error) a block size that O_DIRECT cannot use here.
    pub fn check_block_size(&self, bs: u64, direct: bool) -> anyhow::Result<()> {
        let align = self.direct_alignment();
        if direct && bs % align != 0 {
            return Err(usage(format!(
                "--bs {bs} is not a multiple of the {align}-byte O_DIRECT alignment of {}",
                self.path.display()
            )));
        }
        Ok(())
    }

    /// The memory alignment for O_DIRECT buffers (at least a page, which is always enough).
    pub fn buffer_alignment(&self) -> usize {
        let page = 4096u64;
        self.dio_mem_align.unwrap_or(page).max(page) as usize
    }

    /// What candor itself learned about the directory's storage (the host
    /// facts add the device's details).
    pub fn storage_facts(&self) -> StorageFacts {
        StorageFacts {
            dir: self.path.display().to_string(),
            fs_type: Some(self.fs_type().to_string()),
            fs_magic: Some(format!("{:#x}", self.fs_magic)),
            dio_mem_align: self.dio_mem_align,
            dio_offset_align: self.dio_offset_align,
            logical_block_size: self.logical_block_size,
            free_bytes: Some(self.free_bytes),
            total_bytes: Some(self.total_bytes),
            ..StorageFacts::default()
        }
    }
}

/// statx STATX_DIOALIGN on the directory (kernel 6.1+; zero means "unknown"
/// or "O_DIRECT unsupported"), plus the device number for the sysfs fallback.
fn statx_dio(fd: i32) -> (Option<u64>, Option<u64>, Option<(u32, u32)>) {
    // SAFETY: statx is plain data; the kernel fills it for a valid fd and an empty path with AT_EMPTY_PATH.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    let rc = unsafe {
        libc::statx(
            fd,
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_BASIC_STATS | libc::STATX_DIOALIGN,
            &mut stx,
        )
    };
    if rc != 0 {
        return (None, None, None);
    }
    let dev = Some((stx.stx_dev_major, stx.stx_dev_minor));
    if stx.stx_mask & libc::STATX_DIOALIGN != 0 && stx.stx_dio_offset_align != 0 {
        (
            Some(stx.stx_dio_mem_align as u64),
            Some(stx.stx_dio_offset_align as u64),
            dev,
        )
    } else {
        (None, None, dev)
    }
}

/// The logical block size of a device (or of a partition's parent) from sysfs.
fn logical_block_size(major: u32, minor: u32) -> Option<u64> {
    let base = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    for candidate in [
        base.join("queue/logical_block_size"),
        base.join("../queue/logical_block_size"),
    ] {
        if let Ok(text) = std::fs::read_to_string(&candidate) {
            if let Ok(v) = text.trim().parse() {
                return Some(v);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn var_tmp_is_usable_and_aligned() {
        let dir = TestDir::open(Path::new("/var/tmp")).unwrap();
        assert!(dir.direct_alignment().is_power_of_two());
        assert!(dir.buffer_alignment() >= 4096);
        assert!(dir.free_bytes() > 0);
    }

    #[test]
    fn missing_dir_is_a_usage_error() {
        let err = TestDir::open(Path::new("/nonexistent/candor")).unwrap_err();
        assert!(err.to_string().contains("no such directory"));
        assert!(crate::error::is_usage(&err));
    }

    #[test]
    fn a_symlinked_dir_is_resolved_and_named() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let opened = TestDir::open(&link).unwrap();
        let real = std::fs::canonicalize(&real).unwrap();
        assert_eq!(opened.path(), real);
        assert_eq!(opened.storage_facts().dir, real.display().to_string());
        let w = opened.warnings().join("\n");
        assert!(
            w.contains("resolves to") && w.contains(&real.display().to_string()),
            "{w}"
        );
        assert!(TestDir::open(&real).unwrap().warnings().is_empty());
    }

    #[test]
    fn a_file_is_not_a_dir() {
        let err = TestDir::open(Path::new("/etc/hostname")).unwrap_err();
        assert!(err.to_string().contains("not a directory"));
    }
}
