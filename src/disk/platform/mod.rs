//! What the disk engine needs from the operating system, one file per OS
//! with the same names: the handle a worker does its I/O on, a positioned
//! read (verify's read-back), the fadvise hint, and CPU time of a thread
//! and of the process. Everything above these names is one code for every OS.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;
