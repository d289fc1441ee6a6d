//! Runs a disk plan (`plan/`) on the engine (`disk/`): creates its test
//! files (each removed whatever happens), runs its jobs, and adds each
//! measurement to the Run as it ends, with the fio command that
//! reproduces it (`fio::command`). The plan was checked before: nothing
//! here checks a value again.

pub mod jobfile;
pub mod single;
pub mod sweep;
