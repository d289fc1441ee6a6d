//! CrystalDiskMark's saved results (the text CDM writes with File > Save),
//! CDM 5 to 8: read (`parse`) and imported as a Run whose tests carry the
//! names candor's battery gives the same tests (`import`). Pure: nothing
//! here touches a disk.

pub mod import;
pub mod parse;
