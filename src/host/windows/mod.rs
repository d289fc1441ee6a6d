//! Host facts read through Win32 (the Windows rooms of `host`).

pub mod volume;
