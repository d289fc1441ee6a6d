//! Host facts read through Win32 (the Windows rooms of `host`).

pub mod cpu;
pub mod disk_properties;
pub mod volume;
