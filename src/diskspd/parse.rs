//! DiskSpd's command line, read with DiskSpd's meaning (its parser,
//! CmdLineParser.cpp of DiskSpd 2.2, is the reference): defaults, size
//! suffixes (`K`, `M`, `G`, `T`, and `b` for blocks of `-b`, which is read
//! first wherever it stands), the `-S` cache letters and their conflicts,
//! `-r`/`-s` and their conflicts, `-t`/`-F`, `-o`/`-O`. What candor cannot
//! run as DiskSpd runs it is refused by name, never read another way.
//!
//! Where DiskSpd itself is lax, candor is strict and says how DiskSpd would
//! read it: DiskSpd reads counts with C's `atoi`, so `-o2x` runs as `-o2`;
//! candor refuses it and names `-o2`.

/// One DiskSpd command: what it measures, on one target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskSpdCommand {
    /// `-b`: bytes per I/O (DiskSpd's default 64 KiB).
    pub block_size: u64,
    /// `-t` (threads per target) or `-F` (threads in all, one target here).
    pub threads: u32,
    /// `-o` (per thread per target) or `-O` (per thread): I/Os in flight.
    pub outstanding: u32,
    /// `-w`: percent of I/Os that write (0: reads only, DiskSpd's default).
    pub write_percent: u32,
    pub access: DiskSpdAccess,
    /// `-d`: measured seconds (default 10).
    pub duration_s: u64,
    /// `-W`: warm-up seconds, I/O not measured (default 5).
    pub warmup_s: u64,
    /// `-C`: cool-down seconds, I/O after the measurement (default 0).
    pub cooldown_s: u64,
    /// False with `-S`, `-Su`, `-Sh`, `-h` (FILE_FLAG_NO_BUFFERING): the
    /// OS cache is bypassed. True by default and with `-Sb`.
    pub os_cache: bool,
    /// `-Sw`, `-Sh`, `-h` (FILE_FLAG_WRITE_THROUGH): a write completes once
    /// it is stable, not when it reaches a volatile cache.
    pub write_through: bool,
    /// `-c`: create the target with this many bytes.
    pub create_size: Option<u64>,
    /// `-B`: first byte of the target that I/O touches.
    pub base_offset: u64,
    /// `-f` or `-B`'s `:length`: I/O stays below this byte.
    pub max_offset: Option<u64>,
    /// `-T`: thread N starts at base + N x this (default 0: every thread
    /// starts at the base).
    pub thread_stride: u64,
    pub write_data: WriteData,
    /// `-z`: the random seed (DiskSpd's default 0); `None` for a bare `-z`
    /// (a seed from the clock).
    pub seed: Option<u64>,
    /// `-g`: each thread's cap on each target.
    pub rate: Option<DiskSpdRate>,
    /// `-n`: threads not pinned to CPUs (DiskSpd pins them round-robin by default).
    pub no_affinity: bool,
    /// `-D`: IOPS per interval of this many ms (DiskSpd's default 1000).
    pub iops_interval_ms: Option<u64>,
    /// The one target: a file's path as written.
    pub target: String,
}

/// Where I/Os go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskSpdAccess {
    /// `-r[align]`: random offsets, multiples of `align` (default `-b`).
    Random { align: u64 },
    /// The default, or `-s[stride]`: each I/O `stride` bytes after the last
    /// (default `-b`), each thread on its own.
    Sequential { stride: u64 },
}

/// What writes carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteData {
    /// DiskSpd's default: a repeating 0, 1, ..., 255 pattern.
    Pattern,
    /// `-Zr`: new random bytes for every write.
    RandomPerWrite,
    /// `-Z<size>`: writes taken from a buffer of this many random bytes.
    RandomBuffer(u64),
}

/// `-g`: per thread per target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskSpdRate {
    /// `-g<n>`: bytes per millisecond.
    BytesPerMs(u64),
    /// `-g<n>i`: I/Os per second.
    Iops(u64),
}

/// Reads a DiskSpd command line (the program's name first is allowed:
/// `diskspd.exe -b4k ...`). Words are split at spaces; double quotes group
/// a path with spaces, as Windows' command line does.
pub fn parse(line: &str) -> Result<DiskSpdCommand, String> {
    let mut words = split(line)?;
    if words.first().is_some_and(|w| is_program(w)) {
        words.remove(0);
    }
    let first_target = words.iter().position(|w| !is_switch(w));
    let (flags, targets) = words.split_at(first_target.unwrap_or(words.len()));
    if let Some(late) = targets.iter().find(|w| is_switch(w)) {
        return Err(format!(
            "{late}: DiskSpd takes its parameters before the targets ({})",
            targets[0]
        ));
    }
    // DiskSpd reads -b first: other sizes may count in blocks of it.
    let mut block_size = 64 * 1024;
    for f in flags {
        if let Some(v) = f.get(1..).and_then(|r| r.strip_prefix('b')) {
            block_size = size(f, v, None)?;
            if block_size == 0 || block_size >= u64::from(u32::MAX) {
                return Err(format!("{f}: invalid block size"));
            }
        }
    }
    let mut c = DiskSpdCommand {
        block_size,
        threads: 1,
        outstanding: 2,
        write_percent: 0,
        access: DiskSpdAccess::Sequential { stride: block_size },
        duration_s: 10,
        warmup_s: 5,
        cooldown_s: 0,
        os_cache: true,
        write_through: false,
        create_size: None,
        base_offset: 0,
        max_offset: None,
        thread_stride: 0,
        write_data: WriteData::Pattern,
        seed: Some(0),
        rate: None,
        no_affinity: false,
        iops_interval_ms: None,
        target: String::new(),
    };
    let mut state = ParseState::default();
    for f in flags {
        flag(&mut c, &mut state, f)?;
    }
    c.target = the_target(targets)?;
    if state.per_target_threads && state.total_threads {
        return Err(
            "-t and -F together: -t sets threads per target, -F threads in all; give one".into(),
        );
    }
    if state.outstanding_per_target && state.outstanding_per_thread {
        return Err("-o and -O together: give one".into());
    }
    if let Some(max) = c.max_offset {
        if max <= c.base_offset {
            return Err(format!(
                "the target's region ends (byte {max}) at or before its base (-B{})",
                c.base_offset
            ));
        }
    }
    Ok(c)
}

/// The one target, or why candor cannot measure it.
fn the_target(targets: &[String]) -> Result<String, String> {
    let target = match targets {
        [] => return Err("no target: DiskSpd needs a file to measure (e.g. testfile.dat)".into()),
        [one] => one.clone(),
        more => {
            return Err(format!(
            "{} targets ({}): candor runs one DiskSpd target; measure each with its own command",
            more.len(),
            more.join(" ")
        ))
        }
    };
    if target.starts_with('#') {
        return Err(format!(
            "target {target}: a physical drive by number; candor writes no whole drive from a DiskSpd line (a device job: candor disk --job with --device)"
        ));
    }
    if target.len() == 2 && target.ends_with(':') {
        return Err(format!(
            "target {target}: a whole partition by drive letter; candor measures a file it creates (give a file path)"
        ));
    }
    Ok(target)
}

/// What a command line has set so far, for DiskSpd's conflicts.
#[derive(Default)]
struct ParseState {
    cache: bool,
    write_through: bool,
    access: bool,
    per_target_threads: bool,
    total_threads: bool,
    outstanding_per_target: bool,
    outstanding_per_thread: bool,
}

fn flag(c: &mut DiskSpdCommand, seen: &mut ParseState, f: &str) -> Result<(), String> {
    let body = &f[1..];
    let Some(letter) = body.chars().next() else {
        return Err(format!("{f}: a switch without a letter"));
    };
    let v = &body[letter.len_utf8()..];
    let refuse = |why: &str| Err(format!("{f}: {why}"));
    match letter {
        'b' => {} // read first, above
        't' => {
            c.threads = positive(f, v)?;
            seen.per_target_threads = true;
        }
        'F' => {
            c.threads = positive(f, v)?;
            seen.total_threads = true;
        }
        'o' => {
            c.outstanding = positive(f, v)?;
            seen.outstanding_per_target = true;
        }
        'O' => {
            c.outstanding = positive(f, v)?;
            seen.outstanding_per_thread = true;
        }
        'w' => {
            if v.is_empty() {
                return refuse("no write ratio (DiskSpd refuses a bare -w): -w0 reads only, -w100 writes only");
            }
            c.write_percent = count(f, v)?;
            if c.write_percent > 100 {
                return refuse("the write ratio is a percentage, 0 to 100");
            }
        }
        'd' => c.duration_s = count(f, v)?,
        'W' => c.warmup_s = count(f, v)?,
        'C' => c.cooldown_s = count(f, v)?,
        'r' => {
            if v.starts_with('s') {
                return refuse("mixed random and sequential I/O is not run by candor");
            }
            if v.starts_with('d') {
                return refuse("DiskSpd's random distributions are not run by candor");
            }
            if seen.access {
                return refuse("-r or -s given twice, or together (DiskSpd refuses that too)");
            }
            seen.access = true;
            let align = if v.is_empty() {
                c.block_size
            } else {
                size(f, v, Some(c.block_size))?
            };
            if align == 0 {
                return refuse("invalid alignment (0)");
            }
            c.access = DiskSpdAccess::Random { align };
        }
        's' => {
            if v.starts_with('i') {
                return refuse("interlocked sequential I/O (threads sharing one offset) is not run by candor");
            }
            if seen.access {
                return refuse("-r or -s given twice, or together (DiskSpd refuses that too)");
            }
            seen.access = true;
            let stride = if v.is_empty() {
                c.block_size
            } else {
                size(f, v, Some(c.block_size))?
            };
            c.access = DiskSpdAccess::Sequential { stride };
        }
        'S' => cache_letters(c, seen, f, v)?,
        'h' if v.is_empty() => set_cache(c, seen, f, false, true)?,
        'L' | 'D' | 'v' | 'R' | 'P' => {
            // Output only: candor always keeps latency and per-second figures.
            if letter == 'D' && !v.is_empty() {
                c.iops_interval_ms = Some(positive(f, v)?.into());
            }
            if letter == 'R' && !matches!(v, "text" | "xml") {
                return refuse("DiskSpd's results formats are -Rtext and -Rxml (-Rp only prints the profile: nothing would run)");
            }
        }
        'n' if v.is_empty() => c.no_affinity = true,
        'a' if v.is_empty() || v == "g" => {} // DiskSpd's default affinity
        'a' => return refuse("pinning threads to chosen CPUs is not run by candor"),
        'c' => c.create_size = Some(size(f, v, Some(c.block_size))?),
        'B' => {
            let (base, len) = match v.split_once(':') {
                Some((b, l)) => (b, Some(l)),
                None => (v, None),
            };
            c.base_offset = size(f, base, Some(c.block_size))?;
            if let Some(l) = len {
                let l = size(f, l, Some(c.block_size))?;
                c.max_offset = Some(c.base_offset.checked_add(l).ok_or(format!("{f}: too large"))?);
            }
        }
        'f' if v.starts_with(|ch: char| ch.is_ascii_digit()) => {
            c.max_offset = Some(size(f, v, Some(c.block_size))?)
        }
        'f' => return refuse("file access hints (-fr, -fs, -ft) are not run by candor"),
        'T' => {
            c.thread_stride = size(f, v, Some(c.block_size))?;
            if c.thread_stride == 0 {
                return refuse("invalid thread stride (0)");
            }
        }
        'z' => {
            c.seed = if v.is_empty() { None } else { Some(count::<u32>(f, v)?.into()) };
        }
        'Z' => {
            c.write_data = match v {
                "" => return refuse("zero-filled writes are not run by candor: on storage that compresses or deduplicates they measure that, not the medium"),
                "r" => WriteData::RandomPerWrite,
                _ if v.contains(',') => return refuse("a write buffer read from a file is not run by candor"),
                _ => {
                    let n = size(f, v, Some(c.block_size))?;
                    if n == 0 {
                        return refuse("invalid write buffer size (0)");
                    }
                    WriteData::RandomBuffer(n)
                }
            }
        }
        'g' => {
            c.rate = Some(match v.strip_suffix('i') {
                Some(n) => DiskSpdRate::Iops(positive(f, n)?.into()),
                None => DiskSpdRate::BytesPerMs(positive(f, v)?.into()),
            })
        }
        'X' => return refuse("an XML profile is not read: give its settings as flags"),
        'x' => return refuse("I/O completion routines are not run by candor (DiskSpd's default, completion ports, is)"),
        'p' => return refuse("parallel I/Os at one offset are not run by candor"),
        'i' | 'j' => return refuse("bursts with think time (-i, -j) are not run by candor"),
        'I' => return refuse("I/O priority hints are not run by candor"),
        'l' => return refuse("large-page buffers are not run by candor"),
        'N' => return refuse("flush modes are not run by candor"),
        'e' => return refuse("ETW tracing is Windows's and not run by candor"),
        'y' => return refuse("synchronisation events are not run by candor"),
        ':' => return refuse("DiskSpd's experiment flags are not run by candor"),
        _ => return refuse("not a DiskSpd 2.2 parameter"),
    }
    Ok(())
}

/// `-S` with its letters (`-S` alone is `-Su`).
fn cache_letters(
    c: &mut DiskSpdCommand,
    seen: &mut ParseState,
    f: &str,
    v: &str,
) -> Result<(), String> {
    if v.is_empty() {
        return set_cache(c, seen, f, false, false);
    }
    for letter in v.chars() {
        match letter {
            'b' => set_cache(c, seen, f, true, false)?,
            'u' => set_cache(c, seen, f, false, false)?,
            'h' => set_cache(c, seen, f, false, true)?,
            'w' => {
                if seen.write_through {
                    return Err(format!(
                        "{f}: write-through given twice (DiskSpd refuses that too)"
                    ));
                }
                seen.write_through = true;
                c.write_through = true;
            }
            'r' => {
                return Err(format!(
                    "{f}: remote caching (-Sr) is for remote file systems; not run by candor"
                ))
            }
            'm' => return Err(format!("{f}: memory-mapped I/O (-Sm) is not run by candor")),
            other => {
                return Err(format!(
                    "{f}: '{other}' is not a -S letter (b, h, m, r, u, w)"
                ))
            }
        }
    }
    Ok(())
}

/// Sets the cache mode once, as DiskSpd does (`-Sb` then `-Su` conflict;
/// `-Sh` sets both the cache mode and write-through).
fn set_cache(
    c: &mut DiskSpdCommand,
    seen: &mut ParseState,
    f: &str,
    os_cache: bool,
    write_through: bool,
) -> Result<(), String> {
    if seen.cache || (write_through && seen.write_through) {
        return Err(format!(
            "{f}: the cache mode given twice, or in conflict with an earlier -S (DiskSpd refuses that too)"
        ));
    }
    seen.cache = true;
    c.os_cache = os_cache;
    if write_through {
        seen.write_through = true;
        c.write_through = true;
    }
    Ok(())
}

/// A size: digits, then nothing (bytes), `K`, `M`, `G`, `T` (binary
/// multiples) or `b` (blocks of `block`, where the flag allows it); the
/// letters in either case, as DiskSpd reads them.
fn size(f: &str, v: &str, block: Option<u64>) -> Result<u64, String> {
    let digits = v.len() - v.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return Err(format!(
            "{f}: '{v}' is not a size (digits, then K, M, G, T or b)"
        ));
    }
    let n: u64 = v[..digits]
        .parse()
        .map_err(|_| format!("{f}: '{v}' is too large"))?;
    let unit = match v[digits..].to_ascii_uppercase().as_str() {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        "B" => block.ok_or(format!("{f}: a block count (b) is not a block size"))?,
        _ => {
            return Err(format!(
                "{f}: '{}' is not a DiskSpd size suffix (K, M, G, T, or b for blocks)",
                &v[digits..]
            ))
        }
    };
    n.checked_mul(unit)
        .ok_or(format!("{f}: '{v}' is too large"))
}

/// A count read as DiskSpd's `atoi` would, but only when `atoi` reads all of it.
fn count<T: std::str::FromStr>(f: &str, v: &str) -> Result<T, String> {
    if let Ok(n) = v.parse::<T>() {
        if v.chars().all(|c| c.is_ascii_digit()) {
            return Ok(n);
        }
    }
    let digits: String = v.chars().take_while(|c| c.is_ascii_digit()).collect();
    let letter = &f[..2];
    if digits.is_empty() || digits.len() == v.len() {
        Err(format!("{f}: '{v}' is not a number"))
    } else {
        Err(format!(
            "{f}: DiskSpd reads this as {letter}{digits} (it stops at the first character that is not a digit); write {letter}{digits}"
        ))
    }
}

fn positive(f: &str, v: &str) -> Result<u32, String> {
    match count::<u32>(f, v)? {
        0 => Err(format!("{f}: must be at least 1")),
        n => Ok(n),
    }
}

/// DiskSpd's switch characters are `-` and `/`; a word that starts with
/// `/` and holds another `/` is a Unix path (a target), not a switch.
fn is_switch(w: &str) -> bool {
    w.starts_with('-') || w.starts_with('/') && !w[1..].contains('/')
}

fn is_program(w: &str) -> bool {
    let name = w
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(w)
        .to_ascii_lowercase();
    name == "diskspd" || name == "diskspd.exe"
}

/// Splits at spaces; `"..."` keeps spaces inside one word.
fn split(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut in_word = false;
    for ch in line.chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quoted {
        return Err("a double quote is not closed".into());
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}
