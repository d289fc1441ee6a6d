//! A finding held as its compact JSON text. A fleet's comparison holds every
//! host's findings at once: 4,000 battery Runs' findings took 107 MB as
//! parsed values (a map per evidence), about a third of that as text. They
//! are parsed again where a report lays one out.

use crate::result::Finding;
use serde::Serialize;

#[derive(Debug, Clone)]
pub struct KeptFinding(Box<str>);

impl KeptFinding {
    pub fn of(f: &Finding) -> KeptFinding {
        KeptFinding(
            serde_json::to_string(f)
                .expect("a finding always serialises")
                .into_boxed_str(),
        )
    }

    /// The finding, as it was kept (serde_json reads back every number it
    /// wrote exactly: the float_roundtrip feature).
    pub fn get(&self) -> Finding {
        serde_json::from_str(&self.0).expect("a kept finding always reads back")
    }
}

impl Serialize for KeptFinding {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_reads_back_as_it_was_kept() {
        let mut f = crate::findings::checked(
            "host-cache",
            Some("SEQ1M Q8T1 read".into()),
            "a verdict".into(),
            // Numbers whose shortest text is long, and one past 2^53.
            serde_json::json!({"ratio": 0.1 + 0.2, "tiny": 5e-324, "big": 9007199254740993u64, "pi": std::f64::consts::PI}),
        );
        f.meaning.push_str(" \u{2013} and an escape \"here\"");
        let kept = KeptFinding::of(&f);
        assert_eq!(kept.get(), f);
        assert_eq!(
            serde_json::to_string(&kept).unwrap(),
            serde_json::to_string(&f).unwrap()
        );
    }
}
