//! fio's value grammar, as fio 3.33 reads it (parse.c), for the values
//! candor lowers: numbers with size units under `kb_base`, times with their
//! units, booleans, per-direction lists (`bs=4k,64k`), ranges
//! (`bsrange=4k-16k`) and block-size splits (`bssplit=4k/10:64k/90`).
//!
//! Where fio would silently read something other than what the text seems
//! to say (`size=1.5g` is 1 byte to fio, `runtime=10sec` is 10
//! microseconds, `bs= 16k` is 16 bytes), candor refuses the value and says
//! what fio would have done, instead of copying the surprise.

use std::fmt;

/// Why a value could not be read (the caller adds the file, line and option).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueError(pub String);

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(message: impl Into<String>) -> Result<T, ValueError> {
    Err(ValueError(message.into()))
}

/// fio's `kb_base`: what `k` means. 1024 (fio's default, "compatibility
/// mode": k = 1024 and, oddly, KiB = 1000) or 1000 (k = 1000, KiB = 1024).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KbBase {
    Binary,
    Decimal,
}

impl KbBase {
    pub fn parse(text: &str) -> Result<KbBase, ValueError> {
        match text {
            "1024" => Ok(KbBase::Binary),
            "1000" => Ok(KbBase::Decimal),
            other => err(format!("'{other}' is not a kb_base (1024 or 1000)")),
        }
    }

    fn base(self) -> u64 {
        match self {
            KbBase::Binary => 1024,
            KbBase::Decimal => 1000,
        }
    }
}

/// One of the three directions fio's per-direction values address, in
/// fio's order: reads, writes, trims.
pub type Dirs<T> = [Option<T>; 3];

/// The number at the start of `text` and the rest: an optional `0x`
/// (hexadecimal) prefix, then digits. Refuses what fio would misread.
fn leading_integer(text: &str) -> Result<(u64, &str), ValueError> {
    if text.starts_with(char::is_whitespace) {
        // fio skips the blanks before the digits but then looks for the
        // unit from the start of the text, finds a blank, and uses none:
        // ' 8' is 8, but ' 16k' is 16 bytes and ' 2m' is 2 seconds.
        let (value, rest) = leading_integer(text.trim_start())?;
        if !rest.is_empty() {
            return err(format!(
                "'{text}' starts with a space, so fio ignores its unit ('{rest}') and reads {value}; remove the space"
            ));
        }
        return Ok((value, rest));
    }
    if text.starts_with('-') {
        return err(format!("'{text}' is negative"));
    }
    if text.starts_with('(') {
        return err(format!(
            "'{text}': fio evaluates parenthesised arithmetic only when built with its expression parser (Debian's fio 3.33 is not); write the value out"
        ));
    }
    let (radix, digits) = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => (16, hex),
        None => (10, text.strip_prefix('+').unwrap_or(text)),
    };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    if end == 0 {
        return err(format!("'{text}' is not a number"));
    }
    let value = u64::from_str_radix(&digits[..end], radix)
        .map_err(|_| ValueError(format!("'{text}' is too large")))?;
    let rest = &digits[end..];
    if rest.starts_with('.') && rest[1..].starts_with(|c: char| c.is_ascii_digit()) {
        return err(format!(
            "'{text}' has a fraction: fio reads only the whole part ({value} with no unit); write it in a smaller unit"
        ));
    }
    Ok((value, rest))
}

/// A quantity of data (or a plain count), as fio reads sizes: `4096`,
/// `4k`, `4KB`, `1m`, `0x1000`; under `kb_base=1024` the three-letter IEC
/// forms (`4KiB`) mean powers of 1000, the other way round under 1000.
/// Percentages are refused (candor makes its own files, so there is no
/// existing size to take a share of).
pub fn number(text: &str, kb: KbBase) -> Result<u64, ValueError> {
    if text.is_empty() {
        return err("no value");
    }
    let (value, suffix) = leading_integer(text)?;
    let lower = suffix.to_ascii_lowercase();
    if lower.starts_with('%') {
        return err(format!(
            "'{text}' is a percentage of an existing file or device; candor creates its own files, so give a size"
        ));
    }
    let (power, iec) = match unit_power(&lower) {
        Some(p) => p,
        None => {
            return err(format!(
                "'{text}' has an unknown unit '{suffix}' (fio knows k, m, g, t, p, with an optional i and b)"
            ))
        }
    };
    let mult = if iec {
        // fio's compatibility rule: the IEC spelling means the other base.
        match kb {
            KbBase::Binary => 1000,
            KbBase::Decimal => 1024,
        }
    } else {
        kb.base()
    };
    let mut factor: u64 = 1;
    for _ in 0..power {
        factor = factor.saturating_mul(mult);
    }
    value
        .checked_mul(factor)
        .ok_or_else(|| ValueError(format!("'{text}' is too large")))
}

/// (power of the base, spelled the three-letter IEC way) for a size unit.
fn unit_power(lower: &str) -> Option<(u32, bool)> {
    if lower.is_empty() || lower == "b" {
        return Some((0, false));
    }
    let power = match lower.as_bytes()[0] {
        b'k' => 1,
        b'm' => 2,
        b'g' => 3,
        b't' => 4,
        b'p' => 5,
        _ => return None,
    };
    match &lower[1..] {
        "" | "b" | "i" => Some((power, false)),
        "ib" => Some((power, true)),
        _ => None,
    }
}

/// A duration in microseconds, as fio reads times: a bare number is in
/// `default_us` units (seconds for most options, microseconds for a few),
/// else `us`/`usec`, `ms`/`msec`, `s`, `m`, `h`, `d`, in any case.
pub fn time_us(text: &str, default_us: u64) -> Result<u64, ValueError> {
    if text.is_empty() {
        return err("no value");
    }
    let (value, suffix) = leading_integer(text)?;
    let unit: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" => default_us,
        "us" | "usec" => 1,
        "ms" | "msec" => 1_000,
        "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => {
            return err(format!(
                "'{text}' has an unknown time unit '{suffix}': fio would read it as {value} microseconds (it knows us, ms, s, m, h, d)"
            ))
        }
    };
    value
        .checked_mul(unit)
        .ok_or_else(|| ValueError(format!("'{text}' is too large")))
}

/// A boolean as fio reads one: a number, zero or not (`1`, `0`); a bare
/// option name (`direct`) is given as `None` and means 1 where fio allows it.
pub fn boolean(text: &str) -> Result<bool, ValueError> {
    let (value, rest) = leading_integer(text)?;
    if !rest.is_empty() {
        return err(format!("'{text}' is not a boolean (0 or 1)"));
    }
    Ok(value != 0)
}

/// The pieces of a per-direction value as written, split where fio splits
/// it: at commas; without a comma, at the first `:` and then `-` (so
/// `bs=4k-8k` is 4k for reads and 8k for writes to fio, not a range). A
/// leading `-` is a sign, not a separator. At most three pieces.
pub fn pieces(text: &str, split_colon_dash: bool) -> Vec<&str> {
    let mut pieces: Vec<&str> = Vec::new();
    let mut rest = text;
    loop {
        let cut = rest
            .find(',')
            .or_else(|| split_colon_dash.then(|| rest.find(':')).flatten())
            .or_else(|| {
                split_colon_dash
                    .then(|| rest.get(1..).and_then(|r| r.find('-')).map(|i| i + 1))
                    .flatten()
            });
        match cut {
            Some(i) if pieces.len() < 2 => {
                pieces.push(&rest[..i]);
                rest = &rest[i + 1..];
            }
            _ => {
                pieces.push(rest);
                break;
            }
        }
    }
    pieces
}

/// The piece of a per-direction value for reads, writes and trims: an
/// empty piece keeps the default; the last piece also applies to the
/// directions after it unless the text ends with a comma.
pub fn direction_pieces(text: &str, split_colon_dash: bool) -> Dirs<&str> {
    let pieces = pieces(text, split_colon_dash);
    let mut dirs: Dirs<&str> = [None, None, None];
    for (d, slot) in dirs.iter_mut().enumerate() {
        let piece = match pieces.get(d) {
            Some(p) => Some(*p),
            // Not terminated by a comma: the last value carries on.
            None => pieces.last().copied().filter(|p| !p.is_empty()),
        };
        *slot = piece.filter(|p| !p.is_empty());
    }
    dirs
}

/// Per-direction numbers (`bs=8k,32k`, `rate=1m,`, `rate_iops=,50`).
pub fn numbers(text: &str, kb: KbBase) -> Result<Dirs<u64>, ValueError> {
    let pieces = direction_pieces(text, true);
    if pieces.iter().all(Option::is_none) {
        return err(format!("'{text}' holds no value"));
    }
    let mut out: Dirs<u64> = [None, None, None];
    for (d, piece) in pieces.iter().enumerate() {
        if let Some(p) = piece {
            out[d] = Some(number(p, kb)?);
        }
    }
    Ok(out)
}

/// Per-direction ranges (`bsrange=1k-4k,2k-8k`): low and high, in order.
pub fn ranges(text: &str, kb: KbBase) -> Result<Dirs<(u64, u64)>, ValueError> {
    let pieces = direction_pieces(text, false);
    let mut out: Dirs<(u64, u64)> = [None, None, None];
    for (d, piece) in pieces.iter().enumerate() {
        let Some(p) = piece else { continue };
        let Some(cut) = p.find(['-', ':']) else {
            return err(format!("'{p}' is not a range (low-high, e.g. 4k-16k)"));
        };
        let (a, b) = (number(&p[..cut], kb)?, number(&p[cut + 1..], kb)?);
        out[d] = Some((a.min(b), a.max(b)));
    }
    if out.iter().all(Option::is_none) {
        return err(format!("'{text}' holds no range"));
    }
    Ok(out)
}

/// One block size of a split and its share in percent (`None`: an equal
/// part of what the others leave, as fio fills blanks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitEntry {
    pub bs: u64,
    pub percent: Option<u32>,
}

/// Per-direction block-size splits (`bssplit=4k/10:64k/90,8k/100`), each
/// with its shares completed to 100 as fio completes them.
pub fn splits(text: &str, kb: KbBase) -> Result<Dirs<Vec<(u64, u32)>>, ValueError> {
    let pieces = direction_pieces(text, false);
    let mut out: Dirs<Vec<(u64, u32)>> = [None, None, None];
    for (d, piece) in pieces.iter().enumerate() {
        let Some(p) = piece else { continue };
        let mut entries = Vec::new();
        for part in p.split(':').filter(|s| !s.is_empty()) {
            let (bs, perc) = match part.split_once('/') {
                Some((bs, perc)) => (bs, perc),
                None => (part, ""),
            };
            let bs = number(bs, kb)?;
            if bs == 0 {
                return err(format!("'{part}': a block size of 0"));
            }
            let percent = if perc.is_empty() {
                None
            } else {
                let (v, rest) = leading_integer(perc)?;
                if !rest.is_empty() || v > 100 {
                    return err(format!("'{part}': '{perc}' is not a percentage"));
                }
                Some(v as u32)
            };
            entries.push(SplitEntry { bs, percent });
        }
        if entries.is_empty() {
            return err(format!("'{p}' holds no block size"));
        }
        if entries.len() > 64 {
            return err(format!("'{p}' has more than fio's 64 block sizes"));
        }
        out[d] = Some(complete_split(&entries).map_err(ValueError)?);
    }
    if out.iter().all(Option::is_none) {
        return err(format!("'{text}' holds no block size"));
    }
    Ok(out)
}

/// Completes the shares as fio does: blanks get equal whole parts of what
/// the given shares leave (`4k/50:1k/:32k/` is 50, 25, 25); a total below
/// 100 leaves the rest to the largest share, because fio picks a size by
/// walking the shares in ascending order and falls through to the last.
/// A total above 100 is refused (fio refuses it too when two shares are
/// blank, and otherwise never issues some of the sizes).
fn complete_split(entries: &[SplitEntry]) -> Result<Vec<(u64, u32)>, String> {
    let given: u32 = entries.iter().filter_map(|e| e.percent).sum();
    if given > 100 {
        return Err(format!("the shares add up to {given} %, more than 100"));
    }
    let blanks = entries.iter().filter(|e| e.percent.is_none()).count() as u32;
    let mut out: Vec<(u64, u32)> = entries
        .iter()
        .map(|e| (e.bs, e.percent.unwrap_or((100 - given) / blanks.max(1))))
        .collect();
    let total: u32 = out.iter().map(|(_, p)| p).sum();
    if total < 100 {
        let largest = out.iter().map(|(_, p)| *p).max().unwrap_or(0);
        if let Some(e) = out.iter_mut().rev().find(|(_, p)| *p == largest) {
            e.1 += 100 - total;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use KbBase::*;

    #[test]
    fn sizes_as_fio_reads_them() {
        assert_eq!(number("4096", Binary), Ok(4096));
        assert_eq!(number("4k", Binary), Ok(4096));
        assert_eq!(number("4KB", Binary), Ok(4096));
        assert_eq!(number("1mi", Binary), Ok(1 << 20));
        assert_eq!(number("4KiB", Binary), Ok(4000), "compatibility mode");
        assert_eq!(number("4KiB", Decimal), Ok(4096));
        assert_eq!(number("4k", Decimal), Ok(4000));
        assert_eq!(number("1Ki", Decimal), Ok(1000));
        assert_eq!(number("0x10", Binary), Ok(16));
        assert_eq!(number("2g", Binary), Ok(2 << 30));
        assert_eq!(number("8b", Binary), Ok(8));
        assert!(number("1.5g", Binary).unwrap_err().0.contains("fraction"));
        assert!(number(" 16k", Binary).unwrap_err().0.contains("space"));
        assert_eq!(number(" 8", Binary), Ok(8));
        assert!(time_us(" 2m", 1_000_000).unwrap_err().0.contains("reads 2"));
        assert!(number("4q", Binary).unwrap_err().0.contains("unknown unit"));
        assert!(number("50%", Binary).unwrap_err().0.contains("percentage"));
        assert!(number("-4k", Binary).is_err());
        assert!(number("k", Binary).is_err());
        assert!(number("(2*4)k", Binary)
            .unwrap_err()
            .0
            .contains("arithmetic"));
        assert!(number("99999999999p", Binary).is_err());
    }

    #[test]
    fn times_as_fio_reads_them() {
        assert_eq!(time_us("2", 1_000_000), Ok(2_000_000));
        assert_eq!(time_us("1500ms", 1_000_000), Ok(1_500_000));
        assert_eq!(time_us("2M", 1_000_000), Ok(120_000_000));
        assert_eq!(time_us("3", 1), Ok(3));
        assert_eq!(time_us("10usec", 1_000_000), Ok(10));
        assert_eq!(time_us("1d", 1), Ok(86_400_000_000));
        let e = time_us("10sec", 1_000_000).unwrap_err().0;
        assert!(e.contains("10 microseconds"), "{e}");
        assert!(time_us("1.5s", 1_000_000).is_err());
    }

    #[test]
    fn per_direction_pieces_follow_fio() {
        assert_eq!(direction_pieces("256k", true), [Some("256k"); 3]);
        assert_eq!(
            direction_pieces("8k,32k", true),
            [Some("8k"), Some("32k"), Some("32k")]
        );
        assert_eq!(
            direction_pieces("8k,32k,", true),
            [Some("8k"), Some("32k"), None]
        );
        assert_eq!(
            direction_pieces(",8k", true),
            [None, Some("8k"), Some("8k")]
        );
        assert_eq!(direction_pieces(",8k,", true), [None, Some("8k"), None]);
        assert_eq!(direction_pieces("1m,", true), [Some("1m"), None, None]);
        assert_eq!(
            direction_pieces("4k-8k", true),
            [Some("4k"), Some("8k"), Some("8k")]
        );
        assert_eq!(
            direction_pieces("4k:8k", true),
            [Some("4k"), Some("8k"), Some("8k")]
        );
        assert_eq!(direction_pieces("4k-8k", false), [Some("4k-8k"); 3]);
    }

    #[test]
    fn ranges_and_splits() {
        assert_eq!(
            ranges("1k-4k,2k-8k", Binary).unwrap(),
            [Some((1024, 4096)), Some((2048, 8192)), Some((2048, 8192))]
        );
        assert_eq!(ranges("8k:4k", Binary).unwrap()[0], Some((4096, 8192)));
        assert!(ranges("4k", Binary).is_err());
        let s = splits("4k/10:64k/50:32k/40", Binary).unwrap();
        assert_eq!(s[0], Some(vec![(4096, 10), (65536, 50), (32768, 40)]));
        let s = splits("4k/50:1k/:32k/", Binary).unwrap();
        assert_eq!(s[0], Some(vec![(4096, 50), (1024, 25), (32768, 25)]));
        let s = splits("2k/50:4k/50,4k/90:8k/10", Binary).unwrap();
        assert_eq!(s[1], Some(vec![(4096, 90), (8192, 10)]));
        assert!(splits("4k/60:8k/50", Binary).is_err());
        // Short of 100: the rest goes to the largest share.
        let s = splits("4k/60:8k/30", Binary).unwrap();
        assert_eq!(s[0], Some(vec![(4096, 70), (8192, 30)]));
        let s = splits("4k/60:8k", Binary).unwrap();
        assert_eq!(s[0], Some(vec![(4096, 60), (8192, 40)]));
        let s = splits("1k/:2k/:4k/", Binary).unwrap();
        assert_eq!(s[0], Some(vec![(1024, 33), (2048, 33), (4096, 34)]));
        let s = splits("4k,", Binary).unwrap();
        assert_eq!(
            (s[0].clone(), s[1].clone()),
            (Some(vec![(4096, 100)]), None)
        );
    }

    #[test]
    fn booleans() {
        assert_eq!(boolean("1"), Ok(true));
        assert_eq!(boolean("0"), Ok(false));
        assert_eq!(boolean("2"), Ok(true));
        assert!(boolean("yes").is_err());
    }
}
