//! Human sizes and durations in, human figures out.
//!
//! Sizes follow fio: `4k` is 4096 bytes (binary multiples; `KiB`, `k`, `K`
//! and `kb` all mean 1024). Durations accept `ns`, `us`, `ms`, `s`, `m`, `h`;
//! a bare number is seconds, as in fio. Output always names its unit: MB/s is
//! 10^6 bytes per second and MiB/s is 2^20, because caps hide in one of them.

use crate::error::printable;
use std::time::Duration;

/// Why a size or a duration could not be read. Each holds the text as
/// given, made printable (`error::printable`): a flag's value may hold a
/// line break or a terminal escape.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("'{0}' is not a size (examples: 4096, 4k, 1M, 2G)")]
    BadSize(String),
    #[error("'{0}' is not a duration (examples: 500ms, 30s, 2m, 1h)")]
    BadDuration(String),
    #[error("'{0}' is too large")]
    Overflow(String),
}

/// Parses a size such as `4k`, `1M`, `1.5G` or `4096` into bytes (a
/// fraction of a byte rounds to the nearest).
pub fn parse_size(text: &str) -> Result<u64, ParseError> {
    let bad = || ParseError::BadSize(printable(text));
    let (number, suffix) = split_number(text);
    let multiplier: u128 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        "p" | "pb" | "pib" => 1 << 50,
        _ => return Err(bad()),
    };
    let bytes = scaled(number, multiplier)
        .ok_or_else(bad)?
        .ok_or_else(|| ParseError::Overflow(printable(text)))?;
    u64::try_from(bytes).map_err(|_| ParseError::Overflow(printable(text)))
}

/// Parses a duration such as `500ms`, `30s`, `2m`, `1h` or `10` (seconds),
/// exactly to the nanosecond (`96920071196ms` is not a millisecond short).
pub fn parse_duration(text: &str) -> Result<Duration, ParseError> {
    let bad = || ParseError::BadDuration(printable(text));
    let (number, suffix) = split_number(text);
    let ns_per_unit: u128 = match suffix.trim().to_ascii_lowercase().as_str() {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "" | "s" | "sec" => 1_000_000_000,
        "m" | "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return Err(bad()),
    };
    const LONGEST_NS: u128 = 1_000_000_000 * 1_000_000_000;
    match scaled(number, ns_per_unit).ok_or_else(bad)? {
        Some(ns) if ns <= LONGEST_NS => Ok(Duration::from_nanos(ns as u64)),
        _ => Err(ParseError::Overflow(printable(text))),
    }
}

/// The number at the start of `text` (digits and dots) and what follows.
fn split_number(text: &str) -> (&str, &str) {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    t.split_at(split)
}

/// A decimal `number` (digits with at most one `.`) times `unit`, exactly,
/// rounded to the nearest whole: None when it is not such a number,
/// Some(None) when the result does not fit.
fn scaled(number: &str, unit: u128) -> Option<Option<u128>> {
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) {
        return None;
    }
    let whole: u128 = match whole {
        "" => 0,
        w => match w.parse() {
            Ok(v) => v,
            Err(_) => return Some(None),
        },
    };
    let Some(mut value) = whole.checked_mul(unit) else {
        return Some(None);
    };
    // Digits past the 18th are below a nanosecond or a byte at any unit here.
    let fraction = &fraction[..fraction.len().min(18)];
    if !fraction.is_empty() {
        let numerator: u128 = fraction.parse().ok()?;
        let denominator = 10u128.pow(fraction.len() as u32);
        value = match value.checked_add((numerator * unit + denominator / 2) / denominator) {
            Some(v) => v,
            None => return Some(None),
        };
    }
    Some(Some(value))
}

/// Formats bytes with a binary unit: `4 KiB`, `1 MiB`, `1.50 GiB`.
pub fn fmt_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{} {}", value as u64, UNITS[unit])
    } else {
        format!("{} {}", sig3(value), UNITS[unit])
    }
}

/// Formats a size the way fio's options spell it: `4k`, `1m`, `3g`, or bytes.
pub fn fio_size(bytes: u64) -> String {
    for (shift, suffix) in [(40, "t"), (30, "g"), (20, "m"), (10, "k")] {
        if bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return format!("{}{}", bytes >> shift, suffix);
        }
    }
    bytes.to_string()
}

/// Formats a block size in CrystalDiskMark style: `4K`, `128K`, `1M`.
pub fn block_label(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{}M", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes % (1 << 10) == 0 {
        format!("{}K", bytes >> 10)
    } else {
        format!("{bytes}B")
    }
}

/// Bytes per second in MB/s (10^6).
pub fn mb_per_sec(bytes_per_sec: f64) -> f64 {
    bytes_per_sec / 1e6
}

/// Bytes per second in MiB/s (2^20).
pub fn mib_per_sec(bytes_per_sec: f64) -> f64 {
    bytes_per_sec / 1048576.0
}

/// Formats a nanosecond latency with a fitting unit: `850 ns`, `68.2 us`, `4.10 ms`, `1.20 s`.
pub fn fmt_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{} ns", ns.round() as u64)
    } else if ns < 1e6 {
        format!("{} us", sig3(ns / 1e3))
    } else if ns < 1e9 {
        format!("{} ms", sig3(ns / 1e6))
    } else {
        format!("{} s", sig3(ns / 1e9))
    }
}

/// Formats a duration for people: `850ms`, `30s`, `2m05s`, `1h02m`.
pub fn fmt_duration(d: Duration) -> String {
    let secs = d.as_secs();
    if secs == 0 {
        format!("{}ms", d.as_millis())
    } else if secs < 60 {
        format!("{secs}s")
    } else if secs < 3600 {
        format!("{}m{:02}s", secs / 60, secs % 60)
    } else {
        format!("{}h{:02}m", secs / 3600, (secs % 3600) / 60)
    }
}

/// Formats a duration in fio's option syntax (`30s`, `500ms`).
pub fn fio_duration(ns: u64) -> String {
    if ns % 1_000_000_000 == 0 {
        format!("{}s", ns / 1_000_000_000)
    } else if ns % 1_000_000 == 0 {
        format!("{}ms", ns / 1_000_000)
    } else {
        format!("{}us", ns / 1_000)
    }
}

/// Three significant digits, without scientific notation: 1234 -> "1234", 12.345 -> "12.3".
pub fn sig3(value: f64) -> String {
    let a = value.abs();
    if a >= 100.0 || a == 0.0 {
        format!("{:.0}", value)
    } else if a >= 10.0 {
        format!("{:.1}", value)
    } else if a >= 1.0 {
        format!("{:.2}", value)
    } else {
        format!("{:.3}", value)
    }
}

/// Formats a count with thousands separators: 40132 -> "40,132".
pub fn fmt_count(value: f64) -> String {
    let rounded = value.round() as i64;
    let digits = rounded.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if rounded < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// Seconds since the Unix epoch as an RFC 3339 UTC timestamp (`2026-11-30T06:49:50Z`).
pub fn rfc3339_utc(unix_secs: u64) -> String {
    let days = (unix_secs / 86400) as i64;
    let rem = unix_secs % 86400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// The current time as an RFC 3339 UTC timestamp.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    rfc3339_utc(secs)
}

/// `YYYY/MM/DD H:MM:SS` (DiskSpd's and CrystalDiskMark's dates, with or
/// without a trailing `UTC`) as RFC 3339 in UTC; None for a date that is
/// not one (February 30th, hour 25).
pub fn slashed_date_utc(text: &str) -> Option<String> {
    let t = text.trim().trim_end_matches("UTC").trim();
    let (date, time) = t.split_once(' ')?;
    let d: Vec<u32> = date
        .split('/')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let h: Vec<u32> = time
        .trim()
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    if d.len() != 3 || h.len() != 3 {
        return None;
    }
    let out = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        d[0], d[1], d[2], h[0], h[1], h[2]
    );
    let secs = u64::try_from(parse_rfc3339(&out)?).ok()?;
    (rfc3339_utc(secs) == out).then_some(out)
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)` into Unix seconds.
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !(b[10] == b'T' || b[10] == b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| text.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &text[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(frac.len());
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && (rest.starts_with('+') || rest.starts_with('-')) => {
            let oh: i64 = rest[1..3].parse().ok()?;
            let om: i64 = rest[4..6].parse().ok()?;
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            sign * (oh * 3600 + om * 60)
        }
        _ => return None,
    };
    // Howard Hinnant's days_from_civil.
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    Some(days * 86400 + h * 3600 + mi * 60 + s - offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slashed_dates() {
        assert_eq!(
            slashed_date_utc("2021/04/16 19:03:38 UTC").as_deref(),
            Some("2021-04-16T19:03:38Z")
        );
        assert_eq!(
            slashed_date_utc("2024/01/06 5:41:48").as_deref(),
            Some("2024-01-06T05:41:48Z")
        );
        assert_eq!(slashed_date_utc("2021/02/30 10:00:00"), None);
        assert_eq!(slashed_date_utc("2021/02/03 25:00:00"), None);
        assert_eq!(slashed_date_utc("yesterday"), None);
    }

    #[test]
    fn sizes_follow_fio() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("2g"), Ok(2 << 30));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size(".5k"), Ok(512));
        assert_eq!(parse_size("0.0001k"), Ok(0));
        assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
        assert!(matches!(
            parse_size("18446744073709551616"),
            Err(ParseError::Overflow(_))
        ));
        assert!(parse_size("1.2.3k").is_err());
        // Found by the fuzzer: the message quoted a line break.
        let e = parse_size("\u{1}\0\0\n3300\0").unwrap_err().to_string();
        assert!(!e.contains('\n') && e.contains("\\u{1}"), "{e}");
        assert!(parse_size("").is_err());
        assert!(parse_size("-4k").is_err());
        assert!(parse_size("4q").is_err());
        assert!(parse_size("k").is_err());
        assert!(matches!(
            parse_size("99999999999P"),
            Err(ParseError::Overflow(_))
        ));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("3ms"), Ok(Duration::from_millis(3)));
        assert_eq!(
            parse_duration("96920071196ms"),
            Ok(Duration::from_millis(96920071196))
        );
        assert!(matches!(
            parse_duration("1000000001s"),
            Err(ParseError::Overflow(_))
        ));
        assert!(parse_duration(".").is_err());
        assert!(parse_duration("1.2.3s").is_err());
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("10 parsecs").is_err());
    }

    #[test]
    fn formatting() {
        assert_eq!(fmt_bytes(4096), "4 KiB");
        assert_eq!(fmt_bytes(1536 << 20), "1.50 GiB");
        assert_eq!(fio_size(4096), "4k");
        assert_eq!(fio_size(1 << 20), "1m");
        assert_eq!(fio_size(1000), "1000");
        assert_eq!(block_label(131072), "128K");
        assert_eq!(fmt_ns(68_200.0), "68.2 us");
        assert_eq!(fmt_count(40132.4), "40,132");
        assert_eq!(fmt_count(999.0), "999");
        assert_eq!(fio_duration(30_000_000_000), "30s");
        assert_eq!(fio_duration(500_000_000), "500ms");
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(1_796_021_390), "2026-11-30T06:49:50Z");
    }

    #[test]
    fn rfc3339_round_trips() {
        let t = 1_796_021_390u64;
        assert_eq!(parse_rfc3339(&rfc3339_utc(t)), Some(t as i64));
        assert_eq!(parse_rfc3339("2026-11-30T07:49:50+01:00"), Some(t as i64));
        assert_eq!(parse_rfc3339("2026-11-30T06:49:50.250Z"), Some(t as i64));
        assert_eq!(parse_rfc3339("yesterday"), None);
    }
}
