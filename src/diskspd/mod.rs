//! DiskSpd's vocabulary (Microsoft's disk benchmark, the one the Windows
//! write-ups use): its command line read with its meaning (`parse`), run as
//! the fio job that does the same I/O (`lower`), and the DiskSpd line that
//! reproduces a candor job (`command`). Pure: nothing here touches a disk.

pub mod command;
pub mod lower;
pub mod parse;

#[cfg(test)]
mod tests;
