//! The compression corpus: fixed, seeded, realistic. Random bytes do not
//! compress and zeros compress absurdly well; both make compressors look like
//! something they are not on real data. This generates the kind of text a
//! server compresses (web-server log lines, English-like prose, JSON records)
//! from a seeded xoshiro256++ stream with integer arithmetic only, so every
//! host and every build produces the same bytes (a test pins their SHA-256).

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::fmt::Write;

/// The corpus size in bytes.
pub const CORPUS_BYTES: usize = 1 << 20;
/// The seed; changing it changes every compression figure.
pub const SEED: u64 = 0x00ca_4d04_2026;

const WORDS: [&str; 128] = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "had",
    "they",
    "you",
    "were",
    "their",
    "one",
    "all",
    "we",
    "can",
    "her",
    "has",
    "there",
    "been",
    "if",
    "more",
    "when",
    "will",
    "would",
    "who",
    "so",
    "no",
    "server",
    "disk",
    "memory",
    "request",
    "cache",
    "latency",
    "database",
    "query",
    "index",
    "page",
    "write",
    "read",
    "network",
    "storage",
    "kernel",
    "process",
    "thread",
    "queue",
    "buffer",
    "file",
    "system",
    "client",
    "response",
    "error",
    "value",
    "table",
    "record",
    "update",
    "commit",
    "transaction",
    "replica",
    "cluster",
    "node",
    "volume",
    "block",
    "sector",
    "throughput",
    "benchmark",
    "measure",
    "result",
    "number",
    "machine",
    "virtual",
    "host",
    "provider",
    "instance",
    "region",
    "zone",
    "service",
    "account",
    "customer",
    "order",
    "invoice",
    "payment",
    "product",
    "price",
    "shipping",
    "address",
    "city",
    "country",
    "morning",
    "evening",
    "summer",
    "winter",
    "river",
    "mountain",
    "garden",
    "window",
    "history",
    "language",
    "science",
    "music",
    "library",
    "letter",
    "question",
    "answer",
    "reason",
    "example",
    "problem",
];
const PATHS: [&str; 8] = [
    "/",
    "/index.html",
    "/api/v1/users",
    "/api/v1/orders",
    "/static/app.js",
    "/static/style.css",
    "/login",
    "/search",
];
const AGENTS: [&str; 4] = [
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
    "curl/7.88.1",
    "Prometheus/2.45.0",
];

struct Gen(Xoshiro256PlusPlus);

impl Gen {
    /// Uniform in 0..n.
    fn below(&mut self, n: u64) -> u64 {
        ((self.0.next_u64() >> 32) * n) >> 32
    }

    /// Skewed towards small indices (roughly Zipf-like word frequencies).
    fn skewed(&mut self, n: u64) -> usize {
        let x = self.below(n);
        (x * x / n) as usize
    }

    fn word(&mut self) -> &'static str {
        WORDS[self.skewed(WORDS.len() as u64)]
    }
}

/// The corpus bytes (`CORPUS_BYTES` long, always the same).
pub fn corpus() -> Vec<u8> {
    generate(CORPUS_BYTES)
}

/// `size` bytes of the seeded corpus text.
pub fn generate(size: usize) -> Vec<u8> {
    let mut g = Gen(Xoshiro256PlusPlus::seed_from_u64(SEED));
    let mut out = String::with_capacity(size + 512);
    let mut seconds: u64 = 6 * 3600;
    let mut id: u64 = 100_000;
    while out.len() < size {
        match g.below(100) {
            0..=49 => {
                seconds += g.below(3);
                let _ = writeln!(
                    out,
                    "2026-11-30T{:02}:{:02}:{:02}.{:03}Z web-{:02} nginx[{}]: 10.{}.{}.{} \"{} {}{} HTTP/1.1\" {} {} {}ms \"{}\"",
                    seconds / 3600 % 24,
                    seconds / 60 % 60,
                    seconds % 60,
                    g.below(1000),
                    g.below(4) + 1,
                    2300 + g.below(8),
                    g.below(4),
                    g.below(256),
                    g.below(256),
                    ["GET", "GET", "GET", "POST"][g.below(4) as usize],
                    PATHS[g.skewed(PATHS.len() as u64)],
                    if g.below(3) == 0 { format!("/{}", g.below(100_000)) } else { String::new() },
                    [200, 200, 200, 200, 304, 404, 500][g.below(7) as usize],
                    g.below(50_000),
                    g.below(900) + 1,
                    AGENTS[g.skewed(AGENTS.len() as u64)],
                );
            }
            50..=84 => {
                let words = 8 + g.below(13);
                let mut sentence = String::new();
                for i in 0..words {
                    let w = g.word();
                    if i == 0 {
                        let mut c = w.chars();
                        if let Some(f) = c.next() {
                            sentence.extend(f.to_uppercase());
                            sentence.push_str(c.as_str());
                        }
                    } else {
                        sentence.push(' ');
                        sentence.push_str(w);
                    }
                    if i + 1 < words && g.below(12) == 0 {
                        sentence.push(',');
                    }
                }
                sentence.push_str([".", ".", ".", "?", "!"][g.below(5) as usize]);
                out.push_str(&sentence);
                out.push(if g.below(4) == 0 { '\n' } else { ' ' });
            }
            _ => {
                id += 1 + g.below(5);
                let _ = writeln!(
                    out,
                    "{{\"id\":{},\"user\":\"{}_{}\",\"email\":\"{}{}@example.com\",\"score\":{}.{:02},\"tags\":[\"{}\",\"{}\"],\"active\":{}}}",
                    id,
                    g.word(),
                    g.word(),
                    g.word(),
                    g.below(1000),
                    g.below(100),
                    g.below(100),
                    g.word(),
                    g.word(),
                    g.below(2) == 0,
                );
            }
        }
    }
    let mut bytes = out.into_bytes();
    bytes.truncate(size);
    bytes
}
