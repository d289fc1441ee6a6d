//! Values no measurement can have, refused when a Run is read: a negative
//! rate, size or duration, or a date that is not a date. Such a Run was
//! edited by hand or by another program; reports, findings and the history
//! would otherwise compute from it as if it were measured. The first bad
//! field is named (`measurements[2].iops_mean: -5 is negative`).

use serde_json::Value;

/// Checks a Run's JSON; the first impossible field and why.
pub fn check(run: &Value) -> Result<(), String> {
    for key in ["started_at", "finished_at"] {
        date(run.get(key), key)?;
    }
    if let Some(Value::Array(ms)) = run.get("measurements") {
        for (i, m) in ms.iter().enumerate() {
            if crate::cancel::cancelled() {
                return Err("stopped by a signal".into());
            }
            let at = format!("measurements[{i}]");
            date(m.get("started_at"), &format!("{at}.started_at"))?;
            non_negative(m, &at)?;
            verify(m.get("verify"), &format!("{at}.verify"))?;
        }
    }
    Ok(())
}

/// A key whose numbers are counts, rates, sizes or durations: never below zero.
fn is_magnitude(key: &str) -> bool {
    key.starts_with("iops")
        || key.starts_with("bw")
        || key.ends_with("_ns")
        || key.ends_with("_bytes")
        || matches!(key, "events_per_sec" | "per_thread")
}

/// Every magnitude in a measurement (nested objects and arrays included).
fn non_negative(value: &Value, at: &str) -> Result<(), String> {
    let Value::Object(fields) = value else {
        return Ok(());
    };
    for (key, v) in fields {
        let here = format!("{at}.{key}");
        match v {
            Value::Number(n) if is_magnitude(key) && n.as_f64().is_some_and(|x| x < 0.0) => {
                return Err(format!("{here}: {n} is negative"));
            }
            Value::Number(_) => {}
            Value::Array(items) if is_magnitude(key) => {
                for (j, item) in items.iter().enumerate() {
                    if item.as_f64().is_some_and(|x| x < 0.0) {
                        return Err(format!("{here}[{j}]: {item} is negative"));
                    }
                }
            }
            Value::Object(_) => non_negative(v, &here)?,
            Value::Array(items) => {
                for (j, item) in items.iter().enumerate() {
                    non_negative(item, &format!("{here}[{j}]"))?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A verify record that cannot be: more bad blocks than blocks checked,
/// more bad blocks kept than found, or more kept than candor keeps.
fn verify(value: Option<&Value>, at: &str) -> Result<(), String> {
    let Some(v) = value.filter(|v| !v.is_null()) else {
        return Ok(());
    };
    let n = |key: &str| v.get(key).and_then(Value::as_u64).unwrap_or(0);
    let (checked, bad) = (n("blocks_checked"), n("blocks_bad"));
    if bad > checked {
        return Err(format!(
            "{at}.blocks_bad: {bad} is more than the {checked} blocks checked"
        ));
    }
    let kept = v
        .get("first_bad")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if kept as u64 > bad || kept > super::verify::KEPT_BAD {
        return Err(format!(
            "{at}.first_bad: {kept} blocks kept, of {bad} bad (at most {} are kept)",
            super::verify::KEPT_BAD
        ));
    }
    Ok(())
}

/// Absent, null, or an RFC 3339 time as candor writes it
/// (`2026-01-31T12:00:00Z`; fractions of a second and offsets accepted).
fn date(value: Option<&Value>, key: &str) -> Result<(), String> {
    match value {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(s)) if is_rfc3339(s) => Ok(()),
        Some(other) => Err(format!(
            "{key}: {} is not a time (RFC 3339, e.g. 2026-01-31T12:00:00Z)",
            crate::error::printable(&truncated(&other.to_string()))
        )),
    }
}

fn truncated(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if !(digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
        && matches!(b.get(10), Some(b'T') | Some(b't'))
        && digits(11..13)
        && b.get(13) == Some(&b':')
        && digits(14..16)
        && b.get(16) == Some(&b':')
        && digits(17..19))
    {
        return false;
    }
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    let r = rest.as_bytes();
    matches!(rest, "Z" | "z")
        || (r.len() == 6
            && matches!(r[0], b'+' | b'-')
            && r[1..3].iter().all(u8::is_ascii_digit)
            && r[3] == b':'
            && r[4..6].iter().all(u8::is_ascii_digit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn impossible_values_are_named() {
        let ok = json!({"started_at": "2026-01-31T12:00:00Z", "finished_at": null,
            "measurements": [{"started_at": "2026-01-31T12:00:00.5+01:00", "iops_mean": 5.0,
                              "lat": {"mean_ns": 3}, "findings_delta": -2}]});
        assert_eq!(check(&ok), Ok(()));
        let bad = |v: Value| check(&v).unwrap_err();
        assert_eq!(
            bad(json!({"measurements": [{}, {"read": {"iops_mean": -5}}]})),
            "measurements[1].read.iops_mean: -5 is negative"
        );
        assert!(
            bad(json!({"measurements": [{"per_thread": [1.0, -1.0]}]})).contains("per_thread[1]")
        );
        assert!(bad(json!({"started_at": "last tuesday"}))
            .starts_with("started_at: \"last tuesday\" is not a time"));
        assert!(bad(json!({"finished_at": 5})).contains("is not a time"));
        assert!(
            bad(json!({"measurements": [{"started_at": "2026-01-31T12:00:00"}]}))
                .contains("measurements[0].started_at")
        );
        assert!(!bad(json!({"started_at": "\u{1b}[2J"})).contains('\u{1b}'));
        let verify = |v: Value| json!({"measurements": [{"verify": v}]});
        let bad_block =
            json!({"offset": 0, "len": 4096, "field": "checksum", "wanted": "a", "got": "b"});
        assert_eq!(
            check(&verify(
                json!({"blocks_checked": 4, "blocks_bad": 1, "first_bad": [bad_block]})
            )),
            Ok(())
        );
        assert!(bad(verify(json!({"blocks_checked": 4, "blocks_bad": 5})))
            .starts_with("measurements[0].verify.blocks_bad: 5 is more than"));
        assert!(bad(verify(
            json!({"blocks_checked": 4, "blocks_bad": 0, "first_bad": [bad_block]})
        ))
        .contains("verify.first_bad: 1 blocks kept, of 0 bad"));
        let nine: Vec<Value> = (0..9).map(|_| bad_block.clone()).collect();
        assert!(bad(verify(
            json!({"blocks_checked": 90, "blocks_bad": 9, "first_bad": nine})
        ))
        .contains("at most 8"));
    }
}
