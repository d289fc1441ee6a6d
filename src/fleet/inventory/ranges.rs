//! Ansible's host ranges: `web[01:03].example.com` is web01, web02, web03
//! (leading zeros keep the width), `db-[a:c]` is db-a, db-b, db-c, and
//! `[0:10:5]` steps by 5. Several ranges in one name multiply.

/// The most hosts one name may stand for: a fleet is measured host by
/// host, so a larger product is a typo, and refusing it bounds memory.
pub const MAX_HOSTS: usize = 100_000;

/// Hosts a name with ranges stands for (the name itself when it has none).
pub fn expand(name: &str) -> Result<Vec<String>, String> {
    let Some(open) = name.find('[') else {
        if name.contains(']') {
            return Err(format!("'{name}': ']' without '['"));
        }
        return Ok(vec![name.to_string()]);
    };
    let close = name[open..]
        .find(']')
        .map(|i| open + i)
        .ok_or_else(|| format!("'{name}': '[' without ']'"))?;
    let (head, spec, tail) = (&name[..open], &name[open + 1..close], &name[close + 1..]);
    let parts: Vec<&str> = spec.split(':').collect();
    let bad = || format!("'{name}': '[{spec}]' is not a range like [01:10], [a:f] or [0:20:5]");
    if parts.len() < 2 || parts.len() > 3 {
        return Err(bad());
    }
    let step: usize = match parts.get(2) {
        Some(s) => s.parse().ok().filter(|s| *s > 0).ok_or_else(bad)?,
        None => 1,
    };
    let (start, end) = (parts[0], parts[1]);
    let items: Vec<String> = if let (Ok(a), Ok(b)) = (start.parse::<u64>(), end.parse::<u64>()) {
        if a > b {
            return Err(format!("'{name}': the range [{spec}] runs backwards"));
        }
        if (b - a) / step as u64 >= MAX_HOSTS as u64 {
            return Err(format!(
                "'{name}': the range [{spec}] has more than {MAX_HOSTS} hosts"
            ));
        }
        let width = if start.len() > 1 && start.starts_with('0') {
            start.len()
        } else {
            0
        };
        (a..=b)
            .step_by(step)
            .map(|n| format!("{n:0width$}"))
            .collect()
    } else {
        let one = |s: &str| {
            let mut c = s.chars();
            match (c.next(), c.next()) {
                (Some(ch), None) if ch.is_ascii_alphabetic() => Some(ch),
                _ => None,
            }
        };
        match (one(start), one(end)) {
            (Some(a), Some(b)) if a <= b => (a..=b).step_by(step).map(String::from).collect(),
            (Some(_), Some(_)) => {
                return Err(format!("'{name}': the range [{spec}] runs backwards"))
            }
            _ => return Err(bad()),
        }
    };
    let rests = expand(tail)?;
    if items.len().saturating_mul(rests.len()) > MAX_HOSTS {
        return Err(format!(
            "'{name}': its ranges make more than {MAX_HOSTS} hosts"
        ));
    }
    let mut out = Vec::with_capacity(items.len() * rests.len());
    for item in &items {
        for rest in &rests {
            out.push(format!("{head}{item}{rest}"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_expand_like_ansible() {
        assert_eq!(expand("web").unwrap(), vec!["web"]);
        assert_eq!(
            expand("web[01:03].x").unwrap(),
            vec!["web01.x", "web02.x", "web03.x"]
        );
        assert_eq!(expand("h[8:10]").unwrap(), vec!["h8", "h9", "h10"]);
        assert_eq!(expand("db-[a:c]").unwrap(), vec!["db-a", "db-b", "db-c"]);
        assert_eq!(expand("n[0:10:5]").unwrap(), vec!["n0", "n5", "n10"]);
        assert_eq!(
            expand("r[1:2]c[a:b]").unwrap(),
            vec!["r1ca", "r1cb", "r2ca", "r2cb"]
        );
        let e = expand("w[0:999][0:999]").unwrap_err();
        assert!(e.contains("more than 100000 hosts"), "{e}");
        assert_eq!(expand("w[0:999][0:99]").unwrap().len(), 100_000);
        for bad in ["w[1:", "w[1]", "w[3:1]", "w[a:10]", "w[1:2:0]", "w]"] {
            assert!(expand(bad).is_err(), "{bad}");
        }
    }
}
