//! What the disk under a volume says of itself, through
//! `IOCTL_STORAGE_QUERY_PROPERTY` on the volume (no administrator needed):
//! its bus (`StorageDeviceProperty`), vendor and product, and its write
//! cache (`StorageDeviceWriteCacheProperty`). Claims, like Linux's sysfs
//! model and write_cache; when Windows (or Wine) does not answer, the fact
//! is None and the reason is kept.

use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::io::AsRawHandle;
use windows_sys::Win32::Storage::FileSystem::{FILE_SHARE_READ, FILE_SHARE_WRITE};
use windows_sys::Win32::System::Ioctl::{
    PropertyStandardQuery, StorageDeviceProperty, StorageDeviceWriteCacheProperty,
    WriteCacheDisabled, WriteCacheEnabled, IOCTL_STORAGE_QUERY_PROPERTY, STORAGE_DEVICE_DESCRIPTOR,
    STORAGE_PROPERTY_QUERY, STORAGE_WRITE_CACHE_PROPERTY,
};
use windows_sys::Win32::System::IO::DeviceIoControl;

/// The disk's answers; each Err says why it was not read.
pub struct DiskProperties {
    /// `NVMe`, `SATA`, `SAS`, `SCSI`, `Virtual`, ... (winioctl.h's STORAGE_BUS_TYPE).
    pub bus: Result<String, String>,
    /// Vendor and product as the device reports them.
    pub model: Option<String>,
    /// `write back` (the cache is on) or `write through`, as on Linux.
    pub write_cache: Result<String, String>,
}

/// Asks the disk under the volume whose root is `root` (`C:\`).
pub fn read(root: &str) -> DiskProperties {
    // The root of a canonical path carries the \\?\ prefix (`\\?\C:\`).
    let bare = root.strip_prefix(r"\\?\").unwrap_or(root);
    let Some(letter) = bare.strip_suffix(":\\").filter(|l| l.len() == 1) else {
        let why = format!("{root} is not a drive letter's root (a mounted folder is not asked)");
        return DiskProperties {
            bus: Err(why.clone()),
            model: None,
            write_cache: Err(why),
        };
    };
    let device = format!(r"\\.\{letter}:");
    // Access 0: the query needs none, so no administrator right either.
    let volume = match std::fs::OpenOptions::new()
        .access_mode(0)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE)
        .open(&device)
    {
        Ok(v) => v,
        Err(e) => {
            let why = format!("cannot open {device}: {e}");
            return DiskProperties {
                bus: Err(why.clone()),
                model: None,
                write_cache: Err(why),
            };
        }
    };
    let mut out = DiskProperties {
        bus: Err(String::new()),
        model: None,
        write_cache: Err(String::new()),
    };
    match query(&volume, StorageDeviceProperty) {
        Ok(bytes) if bytes.len() >= std::mem::size_of::<STORAGE_DEVICE_DESCRIPTOR>() => {
            // SAFETY: Windows wrote a STORAGE_DEVICE_DESCRIPTOR at the start.
            let d = unsafe {
                bytes
                    .as_ptr()
                    .cast::<STORAGE_DEVICE_DESCRIPTOR>()
                    .read_unaligned()
            };
            out.bus = Ok(bus_name(d.BusType));
            let words: Vec<String> = [d.VendorIdOffset, d.ProductIdOffset]
                .iter()
                .filter_map(|&at| c_string(&bytes, at))
                .collect();
            out.model = (!words.is_empty()).then(|| words.join(" "));
        }
        Ok(bytes) => out.bus = Err(format!("a device descriptor of {} bytes", bytes.len())),
        Err(e) => out.bus = Err(format!("IOCTL_STORAGE_QUERY_PROPERTY: {e}")),
    }
    out.write_cache = match query(&volume, StorageDeviceWriteCacheProperty) {
        Ok(bytes) if bytes.len() >= std::mem::size_of::<STORAGE_WRITE_CACHE_PROPERTY>() => {
            // SAFETY: Windows wrote a STORAGE_WRITE_CACHE_PROPERTY at the start.
            let w = unsafe {
                bytes
                    .as_ptr()
                    .cast::<STORAGE_WRITE_CACHE_PROPERTY>()
                    .read_unaligned()
            };
            if w.WriteCacheEnabled == WriteCacheEnabled {
                Ok("write back".into())
            } else if w.WriteCacheEnabled == WriteCacheDisabled {
                Ok("write through".into())
            } else {
                Err("the device does not say whether its write cache is on".into())
            }
        }
        Ok(bytes) => Err(format!("a write-cache answer of {} bytes", bytes.len())),
        Err(e) => Err(format!("IOCTL_STORAGE_QUERY_PROPERTY: {e}")),
    };
    out
}

/// One standard property query; the bytes Windows returned.
fn query(volume: &std::fs::File, property: i32) -> std::io::Result<Vec<u8>> {
    let q = STORAGE_PROPERTY_QUERY {
        PropertyId: property,
        QueryType: PropertyStandardQuery,
        AdditionalParameters: [0],
    };
    let mut buf = vec![0u8; 1024];
    let mut returned = 0u32;
    // SAFETY: an open handle, the query's bytes in, a buffer of the length
    // given out; synchronous (no OVERLAPPED).
    let ok = unsafe {
        DeviceIoControl(
            volume.as_raw_handle(),
            IOCTL_STORAGE_QUERY_PROPERTY,
            (&q as *const STORAGE_PROPERTY_QUERY).cast(),
            std::mem::size_of::<STORAGE_PROPERTY_QUERY>() as u32,
            buf.as_mut_ptr().cast(),
            buf.len() as u32,
            &mut returned,
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        return Err(std::io::Error::last_os_error());
    }
    buf.truncate(returned as usize);
    Ok(buf)
}

/// The NUL-terminated string at `at` in a descriptor (0: none), trimmed.
fn c_string(bytes: &[u8], at: u32) -> Option<String> {
    let tail = bytes.get(at as usize..).filter(|_| at != 0)?;
    let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
    let s = String::from_utf8_lossy(&tail[..end]).trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// winioctl.h's STORAGE_BUS_TYPE names.
fn bus_name(bus: i32) -> String {
    let name = match bus {
        0x01 => "SCSI",
        0x02 => "ATAPI",
        0x03 => "ATA",
        0x04 => "1394",
        0x05 => "SSA",
        0x06 => "Fibre Channel",
        0x07 => "USB",
        0x08 => "RAID",
        0x09 => "iSCSI",
        0x0A => "SAS",
        0x0B => "SATA",
        0x0C => "SD",
        0x0D => "MMC",
        0x0E => "Virtual",
        0x0F => "File-backed virtual",
        0x10 => "Storage Spaces",
        0x11 => "NVMe",
        0x12 => "SCM",
        0x13 => "UFS",
        _ => return format!("unknown ({bus})"),
    };
    name.to_string()
}

/// Adds the disk's answers to a Run's facts: the model and write cache to
/// its storage, the bus to `storage_bus`; each unanswered one is said in
/// `extra` as `not-checked: <why>`.
pub fn add_to(facts: &mut crate::result::HostFacts) {
    let Some(storage) = facts.storage.as_mut() else {
        return;
    };
    let Some(root) = storage.mount_point.clone() else {
        facts.extra.insert(
            "storage_bus".into(),
            "not-checked: the test directory's volume was not found".into(),
        );
        return;
    };
    let p = read(&root);
    storage.device_model = p.model;
    match p.write_cache {
        Ok(cache) => storage.write_cache = Some(cache),
        Err(why) => {
            facts
                .extra
                .insert("write_cache".into(), format!("not-checked: {why}"));
        }
    }
    let bus = p.bus.unwrap_or_else(|why| format!("not-checked: {why}"));
    facts.extra.insert("storage_bus".into(), bus);
}
