//! CrystalDiskMark's saved text (File > Save, or Copy) read line by line,
//! CDM 5 to 8: its version, each result line (the pattern, block size,
//! queue depth and threads, MB/s in 10^6 bytes, IOPS, and from CDM 7 on
//! the mean latency in µs), and the footer (profile, test size and count,
//! measure time, date, OS, comment). The layouts and what each row ran are
//! CrystalDiskMark's own (DiskBench.cpp of 5.1.2 and of today's source:
//! DiskSpd with `-S`, the OS cache off; CDM 5 and 6's `Sequential (Q=..)`
//! rows used 128 KiB blocks, their `Sequential (T= 1)` row 1 MiB at
//! queue depth 1).

/// Which half of the table a row is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Half {
    Read,
    Write,
    /// CDM 8's `[Mix] Read 70%/Write 30%`: reads and writes together.
    Mix,
}

/// One result row.
#[derive(Debug, Clone, PartialEq)]
pub struct CdmRow {
    pub half: Half,
    pub random: bool,
    pub block_size: u64,
    pub queues: u32,
    pub threads: u32,
    /// 10^6 bytes per second, as printed.
    pub mb_per_s: f64,
    /// As printed (CDM 5 and 6 print none for sequential rows).
    pub iops: Option<f64>,
    /// The mean latency in µs (CDM 7 on).
    pub latency_us: Option<f64>,
    /// The line as CDM printed it.
    pub line: String,
}

/// A whole saved result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CdmResult {
    /// `8.0.1 x64`, as printed after the name.
    pub version: String,
    pub rows: Vec<CdmRow>,
    /// `Default`, `Peak`, `Real`, `Demo`, `Default+Mix` ... (CDM 7 and 8).
    pub profile: Option<String>,
    /// The test file's size (`Test: 1 GiB`).
    pub test_size: Option<u64>,
    /// How many passes each row is the best of (`(x5)`).
    pub passes: Option<u32>,
    /// The drive (`E:`), where printed.
    pub drive: Option<String>,
    /// Seconds each pass measured (`Measure 5 sec`, CDM 8).
    pub measure_s: Option<u64>,
    /// `YYYY/MM/DD H:MM:SS`, the host's local time.
    pub date: Option<String>,
    pub os: Option<String>,
    pub comment: Option<String>,
    /// `[Mix] Read 70%/Write 30%`: the read share of the Mix rows.
    pub mix_read_pct: Option<u32>,
}

/// The most result rows a CDM file has: 4 tests x 3 halves, and custom
/// settings of CDM 8 allow a few more.
pub const MAX_ROWS: usize = 64;

/// Whether `text` is a CrystalDiskMark result (by content).
pub fn is_result(text: &str) -> bool {
    let head = &text[..text.len().min(1 << 16)];
    head.lines().any(|l| version_of(l).is_some()) && head.contains("MB/s")
}

/// `CrystalDiskMark 8.0.1 x64 (C) ...` -> `8.0.1 x64`.
fn version_of(line: &str) -> Option<String> {
    let i = line.find("CrystalDiskMark ")?;
    let rest = &line[i + "CrystalDiskMark ".len()..];
    if !rest.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let end = rest.find(" (C)").unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

/// Reads a saved result; the first line it cannot read, in words.
pub fn parse(text: &str) -> Result<CdmResult, String> {
    let mut r = CdmResult::default();
    let mut half: Option<Half> = None;
    for raw in text.lines() {
        let line = raw.trim_end_matches('\r');
        let t = line.trim();
        if r.version.is_empty() {
            if let Some(v) = version_of(t) {
                r.version = v;
            }
            continue;
        }
        if t.starts_with("[Read]") {
            half = Some(Half::Read);
            continue;
        }
        if t.starts_with("[Write]") {
            half = Some(Half::Write);
            continue;
        }
        if let Some(rest) = t.strip_prefix("[Mix]") {
            half = Some(Half::Mix);
            r.mix_read_pct = rest
                .trim()
                .strip_prefix("Read ")
                .and_then(|x| x.split('%').next())
                .and_then(|x| x.trim().parse().ok());
            continue;
        }
        if let Some((key, value)) = footer(t) {
            let v = value.trim().to_string();
            match key {
                "Profile" => r.profile = Some(v),
                "Test" => test_line(&mut r, &v)?,
                "Time" => {
                    r.measure_s = v
                        .strip_prefix("Measure ")
                        .and_then(|x| x.split_whitespace().next())
                        .and_then(|x| x.parse().ok());
                }
                "Date" => r.date = Some(v),
                "OS" => r.os = Some(v),
                "Comment" => r.comment = Some(v).filter(|c| !c.is_empty()),
                _ => {}
            }
            continue;
        }
        if t.contains("MB/s") && t.contains("(") && !t.starts_with('*') {
            let row = row(t, half)?;
            r.rows.push(row);
            if r.rows.len() > MAX_ROWS {
                return Err(format!("more than {MAX_ROWS} result rows"));
            }
        }
    }
    if r.version.is_empty() {
        return Err("no 'CrystalDiskMark N' line".into());
    }
    if r.rows.is_empty() {
        return Err("no result rows".into());
    }
    Ok(r)
}

/// `Profile: Default`, `   Test: 1 GiB (x5) [...]`, `  Test : 1024 MiB ...`.
fn footer(t: &str) -> Option<(&str, &str)> {
    let (key, value) = t.split_once(':')?;
    let key = key.trim();
    matches!(
        key,
        "Profile" | "Test" | "Mode" | "Time" | "Date" | "OS" | "Comment"
    )
    .then_some((key, value))
}

/// `1 GiB (x5) [E: 96% (894/932GiB)]` (CDM 7, 8) or
/// `1024 MiB [I: 11.7% (14.0/119.2 GiB)] (x5)  [Interval=5 sec]` (CDM 5, 6).
fn test_line(r: &mut CdmResult, v: &str) -> Result<(), String> {
    let words: Vec<&str> = v.split_whitespace().collect();
    if words.len() >= 2 {
        let n: u64 = words[0]
            .parse()
            .map_err(|_| format!("test size '{}' is not a number", words[0]))?;
        let unit: u64 = match words[1] {
            "MiB" => 1 << 20,
            "GiB" => 1 << 30,
            "KiB" => 1 << 10,
            "MB" => 1_000_000,
            "GB" => 1_000_000_000,
            u => return Err(format!("test size unit '{u}' is not CrystalDiskMark's")),
        };
        r.test_size = n.checked_mul(unit);
    }
    if let Some(i) = v.find("(x") {
        r.passes = v[i + 2..]
            .split(')')
            .next()
            .and_then(|x| x.trim().parse().ok());
    }
    if let Some(i) = v.find('[') {
        let d = &v[i + 1..];
        if d.len() >= 2 && d.as_bytes()[1] == b':' && d.as_bytes()[0].is_ascii_alphabetic() {
            r.drive = Some(d[..2].to_string());
        }
    }
    Ok(())
}

/// A size as CDM prints a block (`1MiB`, `128KiB`, `4KiB`).
fn block(word: &str) -> Option<u64> {
    let (n, unit) = word.split_at(word.find(|c: char| !c.is_ascii_digit())?);
    let n: u64 = n.parse().ok()?;
    match unit {
        "KiB" => n.checked_mul(1 << 10),
        "MiB" => n.checked_mul(1 << 20),
        _ => None,
    }
}

/// `(Q=  8, T= 1)`, `(Q= 32,T= 1)`, `(T= 1)`: queues (1 when not printed) and threads.
fn qt(inside: &str) -> Option<(u32, u32)> {
    let mut q = None;
    let mut th = None;
    for part in inside.split(',') {
        let (k, v) = part.split_once('=')?;
        let v: u32 = v.trim().parse().ok()?;
        match k.trim() {
            "Q" => q = Some(v),
            "T" => th = Some(v),
            _ => return None,
        }
    }
    Some((q.unwrap_or(1), th?))
}

/// One result row, in any of CDM 5 to 8's layouts.
fn row(t: &str, half: Option<Half>) -> Result<CdmRow, String> {
    let bad = || format!("a result row it cannot read: '{t}'");
    let open = t.find('(').ok_or_else(bad)?;
    let close = open + t[open..].find(')').ok_or_else(bad)?;
    let name: Vec<&str> = t[..open].split_whitespace().collect();
    let (queues, threads) = qt(&t[open + 1..close]).ok_or_else(bad)?;
    let figures = t[close + 1..].trim_start().trim_start_matches(':').trim();
    // CDM 5 and 6 name the direction in the row; CDM 7 and 8 in [Read]/[Write].
    let (kind, block_word, dir) = match name.as_slice() {
        // CDM 8: SEQ 1MiB / RND 4KiB; CDM 7: Sequential 1MiB / Random 4KiB.
        [k @ ("SEQ" | "RND" | "Sequential" | "Random"), b] if block(b).is_some() => (
            *k,
            Some(*b),
            half.ok_or_else(|| format!("'{t}' is under no [Read] or [Write]"))?,
        ),
        // CDM 5, 6: Sequential Read, Random Write 4KiB.
        [k @ ("Sequential" | "Random"), d @ ("Read" | "Write"), rest @ ..] => {
            let b = match rest {
                [] => None,
                [b] if block(b).is_some() => Some(*b),
                _ => return Err(bad()),
            };
            (
                *k,
                b,
                if *d == "Read" {
                    Half::Read
                } else {
                    Half::Write
                },
            )
        }
        _ => return Err(bad()),
    };
    let random = matches!(kind, "RND" | "Random");
    let block_size = match block_word {
        Some(b) => block(b).ok_or_else(bad)?,
        // CDM 5 and 6: no block in the name (DiskBench.cpp: -b128K with a
        // queue depth printed, -b1M for the `(T= 1)` row).
        None if t[open..close].contains("Q=") => 128 << 10,
        None => 1 << 20,
    };
    let mbs_word = figures.split_whitespace().next().ok_or_else(bad)?;
    let mb_per_s: f64 = mbs_word.parse().map_err(|_| bad())?;
    let between = |a: char, b: &str| -> Option<f64> {
        let i = figures.find(a)?;
        let j = i + figures[i..].find(b)?;
        figures[i + 1..j].trim().parse().ok()
    };
    let iops = between('[', "IOPS");
    let latency_us = between('<', "us>");
    for v in [Some(mb_per_s), iops, latency_us].into_iter().flatten() {
        if !(v.is_finite() && (0.0..1e12).contains(&v)) {
            return Err(format!("'{t}': {v} is no figure"));
        }
    }
    Ok(CdmRow {
        half: if half == Some(Half::Mix) {
            Half::Mix
        } else {
            dir
        },
        random,
        block_size,
        queues,
        threads,
        mb_per_s,
        iops,
        latency_us,
        line: t.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_every_layout() {
        let r = row(
            "SEQ    1MiB (Q=  8, T= 1):   531.458 MB/s [    506.8 IOPS] < 15726.77 us>",
            Some(Half::Read),
        )
        .unwrap();
        assert_eq!(
            (r.random, r.block_size, r.queues, r.threads),
            (false, 1 << 20, 8, 1)
        );
        assert_eq!(
            (r.mb_per_s, r.iops, r.latency_us),
            (531.458, Some(506.8), Some(15726.77))
        );
        let r = row(
            "Random 4KiB (Q= 32, T=16):     0.851 MB/s [    207.8 IOPS] <635043.04 us>",
            Some(Half::Write),
        )
        .unwrap();
        assert_eq!(
            (r.random, r.block_size, r.queues, r.threads, r.half),
            (true, 4096, 32, 16, Half::Write)
        );
        let r = row("Sequential Read (Q= 32,T= 1) :    91.559 MB/s", None).unwrap();
        assert_eq!(
            (r.block_size, r.queues, r.half, r.iops),
            (128 << 10, 32, Half::Read, None)
        );
        let r = row("Sequential Write (T= 1)        :   486.142 MB/s", None).unwrap();
        assert_eq!(
            (r.block_size, r.queues, r.threads, r.half),
            (1 << 20, 1, 1, Half::Write)
        );
        let r = row(
            "Random Write 4KiB (Q=  8,T= 8) :     3.173 MB/s [    774.7 IOPS]",
            None,
        )
        .unwrap();
        assert_eq!(
            (r.random, r.block_size, r.queues, r.threads),
            (true, 4096, 8, 8)
        );
        assert!(row("SEQ 1MiB (Q=  8, T= 1): fast MB/s", Some(Half::Read)).is_err());
        assert!(row("SEQ 1MiB (Q=  8, T= 1): 5 MB/s", None)
            .unwrap_err()
            .contains("no [Read]"));
    }

    #[test]
    fn footers_of_cdm_6_and_8() {
        let mut r = CdmResult::default();
        test_line(&mut r, "1 GiB (x5) [E: 96% (894/932GiB)]").unwrap();
        assert_eq!(
            (r.test_size, r.passes, r.drive.as_deref()),
            (Some(1 << 30), Some(5), Some("E:"))
        );
        let mut r = CdmResult::default();
        test_line(
            &mut r,
            "1024 MiB [I: 11.7% (14.0/119.2 GiB)] (x5)  [Interval=5 sec]",
        )
        .unwrap();
        assert_eq!(
            (r.test_size, r.passes, r.drive.as_deref()),
            (Some(1 << 30), Some(5), Some("I:"))
        );
        assert!(test_line(&mut r, "1 TB (x5)").is_err());
    }
}
