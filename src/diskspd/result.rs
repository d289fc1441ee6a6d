//! What a DiskSpd result holds, read from its text output (`result_text`)
//! or its XML (`-Rxml`, `result_xml`) into one shape that `import` turns
//! into a Run: the targets as DiskSpd describes them, one row per thread
//! and target with its counts, and the latency percentiles where `-L` was
//! given. Counts are DiskSpd's own (bytes, I/Os); rates are computed from
//! them over the test time, as DiskSpd computes its own.

/// One target (file or device) as DiskSpd ran it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiskSpdTarget {
    /// As DiskSpd printed it.
    pub path: String,
    /// Bytes per I/O (`-b`).
    pub block_size: u64,
    /// Random I/O aligned to this many bytes (`-r`); None: sequential.
    pub random_align: Option<u64>,
    /// I/Os each thread keeps in flight on this target (`-o`).
    pub outstanding: u32,
    /// Percent of I/Os that wrote (`-w`).
    pub write_percent: u32,
    /// Threads on this target (`-t`); None with `-F`, where every thread
    /// runs on every target.
    pub threads_per_file: Option<u32>,
    /// False when the OS cache was off (`-Su`, `-Sh`, `-S`).
    pub os_cache: bool,
    /// Writes through the drive's cache (`-Sw`, `-Sh`).
    pub write_through: bool,
    /// The file's size, where DiskSpd printed it.
    pub file_size: Option<u64>,
}

/// One direction of one row: DiskSpd's counts and, with `-L`, the mean and
/// standard deviation of the latency in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counts {
    pub bytes: u64,
    pub ios: u64,
    pub mean_ms: Option<f64>,
    pub stdev_ms: Option<f64>,
}

/// One thread on one target.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThreadRow {
    pub thread: u32,
    /// The target's path, as the row names it.
    pub target: String,
    pub read: Counts,
    pub write: Counts,
}

/// One line of DiskSpd's latency distribution (`-L`): the percentile (0
/// for min, 100 for max) and the latency of reads, writes and both (ms;
/// None where DiskSpd printed N/A or nothing).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Percentile {
    pub pct: f64,
    pub read_ms: Option<f64>,
    pub write_ms: Option<f64>,
}

/// A whole result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiskSpdResult {
    /// `text` or `xml`.
    pub format: &'static str,
    /// DiskSpd's version (the XML's `<Tool><Version>`; the text prints none).
    pub version: Option<String>,
    /// The command line DiskSpd echoed (`Command Line:`), when present.
    pub command: Option<String>,
    pub computer: Option<String>,
    /// DiskSpd's start time, `YYYY/MM/DD HH:MM:SS UTC`.
    pub start: Option<String>,
    /// `-d`, `-W`: seconds asked for.
    pub duration_s: Option<u64>,
    pub warmup_s: Option<u64>,
    /// Whether latency was measured (`-L`).
    pub latency: bool,
    /// The seconds DiskSpd measured, as precisely as the file says them.
    pub seconds: f64,
    pub targets: Vec<DiskSpdTarget>,
    pub rows: Vec<ThreadRow>,
    /// The mean and standard deviation of reads and writes over every
    /// target and thread (ms), as DiskSpd printed them from its merged
    /// histogram: more exact than a combination of the rows' rounded ones.
    pub total_read: Counts,
    pub total_write: Counts,
    /// The distribution over every target, when `-L` was given.
    pub percentiles: Vec<Percentile>,
    /// Per target, when DiskSpd printed one distribution per target.
    pub target_percentiles: Vec<(String, Vec<Percentile>)>,
    /// The Linux port (microsoft/diskspd-for-linux): its own text layout.
    pub linux_port: bool,
    /// What the reader noticed and a Run should say.
    pub notes: Vec<String>,
}

/// The most thread rows, targets and percentile lines candor reads from
/// one result: DiskSpd allows 64 threads per processor group; more is not
/// a result DiskSpd wrote.
pub const MAX_ROWS: usize = 65_536;

impl DiskSpdResult {
    /// The rows of one target.
    pub fn rows_of<'a>(&'a self, path: &'a str) -> impl Iterator<Item = &'a ThreadRow> + 'a {
        self.rows.iter().filter(move |r| r.target == path)
    }

    /// The checks both readers need: counts that fit together, a test time,
    /// every row's target described. The first failure, in words.
    pub fn check(&self) -> Result<(), String> {
        if !(self.seconds.is_finite() && self.seconds > 0.0) {
            return Err(format!(
                "its test time is {} s: DiskSpd measured nothing",
                self.seconds
            ));
        }
        if self.seconds > 366.0 * 86_400.0 {
            return Err(format!("its test time is {} s, over a year", self.seconds));
        }
        if self.rows.is_empty() {
            return Err("it holds no thread rows".into());
        }
        if self.targets.is_empty() {
            return Err("it describes no target (no path in its input parameters)".into());
        }
        for r in &self.rows {
            if !self.targets.iter().any(|t| same_path(&t.path, &r.target)) {
                return Err(format!(
                    "thread {} ran on {}, a target its input parameters do not describe",
                    r.thread, r.target
                ));
            }
            for (dir, c) in [("read", &r.read), ("write", &r.write)] {
                for v in [c.mean_ms, c.stdev_ms].into_iter().flatten() {
                    if !(v.is_finite() && (0.0..1e9).contains(&v)) {
                        return Err(format!("thread {} {dir}: a latency of {v} ms", r.thread));
                    }
                }
                if c.ios > 0 && c.bytes / c.ios > 1 << 32 {
                    return Err(format!(
                        "thread {} {dir}: {} bytes in {} I/Os, over 4 GiB each",
                        r.thread, c.bytes, c.ios
                    ));
                }
                if c.ios == 0 && c.bytes > 0 {
                    return Err(format!(
                        "thread {} {dir}: {} bytes in no I/O",
                        r.thread, c.bytes
                    ));
                }
            }
        }
        for t in &self.targets {
            let mut threads: Vec<u32> = self
                .rows
                .iter()
                .filter(|r| same_path(&r.target, &t.path))
                .map(|r| r.thread)
                .collect();
            threads.sort_unstable();
            threads.dedup();
            if let Some(n) = t.threads_per_file.filter(|n| *n as usize != threads.len()) {
                return Err(format!(
                    "target {}: {n} threads per file, but {} thread rows (rows left out or edited)",
                    t.path,
                    threads.len()
                ));
            }
            if t.block_size == 0 {
                return Err(format!("target {}: a block size of 0", t.path));
            }
            if t.write_percent > 100 {
                return Err(format!(
                    "target {}: a write ratio of {} %",
                    t.path, t.write_percent
                ));
            }
        }
        // An I/O DiskSpd counted was issued after the warm-up began and
        // completed before the measurement ended: no latency is longer.
        let longest_ms = (self.seconds + self.warmup_s.unwrap_or(0) as f64 + 1.0) * 1000.0;
        for r in &self.rows {
            for (dir, c) in [("read", &r.read), ("write", &r.write)] {
                if let Some(m) = c.mean_ms.filter(|m| *m > longest_ms) {
                    return Err(format!(
                        "thread {} {dir}: a mean latency of {m} ms, longer than the whole run ({:.0} s)",
                        r.thread,
                        longest_ms / 1000.0
                    ));
                }
            }
        }
        for p in self
            .percentiles
            .iter()
            .chain(self.target_percentiles.iter().flat_map(|(_, ps)| ps.iter()))
        {
            for v in [p.read_ms, p.write_ms].into_iter().flatten() {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(format!("its {} percentile is {v} ms", p.pct));
                }
                if v > longest_ms {
                    return Err(format!(
                        "its {} percentile latency is {v} ms, longer than the whole run ({:.0} s): not a latency DiskSpd measured",
                        p.pct,
                        longest_ms / 1000.0
                    ));
                }
            }
        }
        Ok(())
    }
}

/// DiskSpd prints a target's path as given; rows and descriptions agree
/// exactly, but a hand-copied file may differ in case on Windows paths.
pub fn same_path(a: &str, b: &str) -> bool {
    a == b || a.eq_ignore_ascii_case(b)
}

/// A DiskSpd size as its text prints it (`4096`, `4KiB`, `1024MiB`,
/// `496GiB`, `67108864B`), in bytes.
pub fn size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let n: u64 = digits.parse().ok()?;
    let mult: u64 = match unit.trim() {
        "" | "B" => 1,
        "KiB" | "KB" | "K" => 1 << 10,
        "MiB" | "MB" | "M" => 1 << 20,
        "GiB" | "GB" | "G" => 1 << 30,
        "TiB" | "TB" | "T" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_diskspd_text() {
        assert_eq!(size("4096"), Some(4096));
        assert_eq!(size("4KiB"), Some(4096));
        assert_eq!(size("1024MiB"), Some(1 << 30));
        assert_eq!(size("496GiB"), Some(496 << 30));
        assert_eq!(size("67108864B"), Some(67108864));
        assert_eq!(size("4 bytes"), None);
        assert_eq!(size(""), None);
    }
}
