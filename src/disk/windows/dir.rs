//! The directory the test files go to, on Windows: its volume's file
//! system (`GetVolumeInformationW`), sector size (`GetDiskFreeSpaceW`: the
//! alignment `FILE_FLAG_NO_BUFFERING` demands of offsets, lengths and
//! buffers) and free space (`GetDiskFreeSpaceExW`), read once when opened.
//! The same names as Linux's `dir.rs`, so the plan is one code.

use crate::error::usage;
use crate::host::windows::volume::{fs_name_of, geometry, space, volume_root};
use crate::result::StorageFacts;
use std::path::{Path, PathBuf};

/// A directory opened for test files.
#[derive(Debug)]
pub struct TestDir {
    path: PathBuf,
    /// The volume's root (`C:\`), as GetVolumePathNameW names it.
    volume: Option<String>,
    /// The file system as the volume names it, lower case (`ntfs`, `refs`).
    fs_name: Option<String>,
    sector: Option<u64>,
    cluster: Option<u64>,
    free_bytes: u64,
    total_bytes: u64,
    warnings: Vec<String>,
}

impl TestDir {
    /// Opens `given`: it must be a directory; its volume's facts are read
    /// now. A file system that cannot be named stays unnamed (a fact lost,
    /// never a figure).
    pub fn open(given: &Path) -> anyhow::Result<TestDir> {
        let shown = given.display();
        let meta = std::fs::metadata(given).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => usage(format!("--dir {shown}: no such directory")),
            _ => usage(format!("--dir {shown}: {e}")),
        })?;
        if !meta.is_dir() {
            return Err(usage(format!("--dir {shown}: not a directory")));
        }
        let path = std::fs::canonicalize(given)
            .map_err(|e| usage(format!("--dir {shown}: cannot resolve: {e}")))?;
        let mut warnings = Vec::new();
        if std::path::absolute(given).is_ok_and(|a| a != path) && !same_but_verbatim(given, &path) {
            warnings.push(format!(
                "--dir {shown} resolves to {} (a link on the way): candor measures that directory, and the Run records it",
                path.display()
            ));
        }
        // Another candor's files: each said at once (left in place on
        // Windows), and candors still measuring here warned of.
        let found = crate::leftovers::recover(&path);
        for line in &found.lines {
            eprintln!("candor: warning: {line}");
        }
        warnings.extend(crate::leftovers::sharing_warning(&path, &found.running));
        let (free_bytes, total_bytes) = space(&path)
            .map_err(|e| usage(format!("--dir {}: free space unknown: {e}", path.display())))?;
        let volume = volume_root(&path);
        let fs_name = volume.as_deref().and_then(fs_name_of);
        let (sector, cluster) = match volume.as_deref().and_then(geometry) {
            Some((s, c)) => (Some(s), Some(c)),
            None => (None, None),
        };
        Ok(TestDir {
            path,
            volume,
            fs_name,
            sector,
            cluster,
            free_bytes,
            total_bytes,
            warnings,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn free_bytes(&self) -> u64 {
        self.free_bytes
    }

    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// Free space now (a fill checks it just before it starts).
    pub fn free_bytes_now(&self) -> u64 {
        space(&self.path).map_or(self.free_bytes, |(free, _)| free)
    }

    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    pub fn notes(&self) -> impl Iterator<Item = &String> {
        self.warnings.iter()
    }

    /// No copy-on-write file system that candor adjusts (btrfs's No_COW) on Windows.
    pub fn copy_on_write(&self) -> bool {
        false
    }

    /// The file system's name (`ntfs`, `refs`), `unknown` when unread.
    pub fn fs_type(&self) -> &str {
        self.fs_name.as_deref().unwrap_or("unknown")
    }

    /// The volume's cluster size (bytes), when read.
    pub fn cluster_bytes(&self) -> Option<u64> {
        self.cluster
    }

    /// The alignment of unbuffered I/O: the volume's sector size (512 when unread, as Windows's smallest).
    pub fn direct_alignment(&self) -> u64 {
        self.sector.unwrap_or(512).max(1)
    }

    /// An unbuffered job's block size must be a multiple of the sector size.
    pub fn check_block_size(&self, bs: u64, direct: bool) -> anyhow::Result<()> {
        let align = self.direct_alignment();
        if direct && bs % align != 0 {
            return Err(usage(format!(
                "--bs {bs} is not a multiple of the {align}-byte sector size of {} (unbuffered I/O needs whole sectors)",
                self.path.display()
            )));
        }
        Ok(())
    }

    /// Buffers are page-aligned at least (and sector-aligned, which a page is).
    pub fn buffer_alignment(&self) -> usize {
        self.direct_alignment().max(4096) as usize
    }

    pub fn storage_facts(&self) -> StorageFacts {
        StorageFacts {
            dir: self.path.display().to_string(),
            fs_type: self.fs_name.clone(),
            mount_point: self.volume.clone(),
            logical_block_size: self.sector,
            dio_mem_align: Some(self.buffer_alignment() as u64),
            dio_offset_align: self.sector,
            free_bytes: Some(self.free_bytes),
            total_bytes: Some(self.total_bytes),
            ..StorageFacts::default()
        }
    }
}

/// canonicalize names `C:\x` as `\\?\C:\x`: the same directory, no link.
fn same_but_verbatim(given: &Path, resolved: &Path) -> bool {
    let plain = resolved.display().to_string();
    let plain = plain.strip_prefix(r"\\?\").unwrap_or(&plain);
    std::path::absolute(given).is_ok_and(|a| a.display().to_string().eq_ignore_ascii_case(plain))
}
