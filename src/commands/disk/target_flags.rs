//! `candor disk`'s flags for where it runs: --dir, --job, --diskspd and a
//! job file's sections and devices.

use std::path::PathBuf;

/// Where `candor disk` runs: its directory, or a fio job file or a DiskSpd
/// line and the devices they may read or write.
#[derive(Debug, clap::Args)]
pub struct TargetFlags {
    /// Directory for the test file (never a tmpfs: that would measure RAM).
    /// Default /var/tmp; with --job, the current directory, as fio, for jobs
    /// whose file names no directory.
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Run the jobs of a fio job file: one measurement per job, named after
    /// its section, the jobs in fio's order (together unless a stonewall or
    /// wait_for orders them). candor creates its own test files beside the
    /// ones the job file names; options it cannot run faithfully are refused
    /// by name with their file and line.
    #[arg(long, value_name = "FILE.fio", conflicts_with_all = [
        "rw", "rwmixread", "bs", "iodepth", "iodepth_batch", "numjobs", "size",
        "runtime", "ramp", "engine", "fsync", "buffered", "random_distribution"
    ])]
    pub job: Option<PathBuf>,
    /// Run a DiskSpd command line with DiskSpd's meaning (as one quoted
    /// argument: "-t8 -w0 -b4k -W10 -o2 -d10 -Suw -D -L testfile.dat"):
    /// candor runs it as the fio job that does the same I/O, on a test
    /// file it creates in --dir (of -c's size, else --size); what DiskSpd
    /// does differently is said in the Run's notes, and what candor cannot
    /// run as DiskSpd does is refused by name. --parse-only shows the job.
    #[arg(long, value_name = "LINE", allow_hyphen_values = true, conflicts_with_all = [
        "job", "rw", "rwmixread", "bs", "iodepth", "iodepth_batch", "numjobs",
        "runtime", "ramp", "engine", "fsync", "buffered", "random_distribution"
    ])]
    pub diskspd: Option<String>,
    /// With --job: run only this section (fio's --section); repeat for several.
    #[arg(long, value_name = "NAME", requires = "job")]
    pub section: Vec<String>,
    /// With --job: run jobs without the options candor cannot run
    /// faithfully, recording a warning for each in the Run, instead of
    /// refusing the job file.
    #[arg(long, requires = "job")]
    pub ignore_unsupported: bool,
    /// With --job or --diskspd: print the jobs as candor reads them, with
    /// the files it would create, and exit without creating anything (fio's
    /// --parse-only).
    #[arg(long)]
    pub parse_only: bool,
    /// With --job: let jobs whose filename= is this block device READ it
    /// (compared by device number: a symlink to it is the same device).
    /// Repeat for several. Without it, a job naming a device is refused.
    #[arg(long, value_name = "DEVICE", requires = "job")]
    pub device: Vec<PathBuf>,
    /// With --job: also let jobs WRITE this device, which destroys the data
    /// on it. It must be named by --device too, and is refused while it, a
    /// partition of it or anything stacked on it is in use (mounted, swap,
    /// held); candor holds it exclusively while the jobs run.
    #[arg(long, value_name = "DEVICE", requires = "job")]
    pub overwrite_device: Vec<PathBuf>,
}
