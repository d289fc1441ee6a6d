//! DiskSpd's vocabulary (Microsoft's disk benchmark, the one the Windows
//! write-ups use): its command line read with its meaning (`parse`), run as
//! the fio job that does the same I/O (`lower`), the DiskSpd line that
//! reproduces a candor job (`command`), and its results, text or XML
//! (`result_text`, `result_xml` into `result`), imported as a Run
//! (`import`). Pure: nothing here touches a disk.

pub mod command;
pub mod import;
pub mod lower;
pub mod parse;
pub mod result;
pub mod result_text;
pub mod result_xml;
mod xml;

#[cfg(test)]
mod tests;
