//! What a repository can make the tools spend (issue 31): tokenizing a long
//! single word, and `PrefixCache` lookups over prefixes built to share the
//! old sampled key.
//!
//! `cargo bench -p prompt-tests --bench hostile_costs` prints a Markdown table
//! (docs/RELIABILITY.md, round three, "Bounded costs"). Nothing here asserts a
//! time: speed is measured, never tested.
//!
//! 1. Tokenizing: `O200kBase::count` over 16 KiB of ordinary prose and over
//!    16 KiB single words of several shapes (one lowercase letter repeated,
//!    mixed-case letters, hex, base64, punctuation), the median of 5 counts.
//! 2. `PrefixCache`: 32,768 live sessions whose 4 KiB stable prefixes differ
//!    only in 8 bytes that lie outside the 8 windows of 32 bytes the cache's
//!    key used to sample, against 32,768 prefixes that differ at their
//!    start: the time to create every session (first call included).
//! 3. Tags (`HOSTILE_COSTS=tags`): `text::escape_tags` for `file` and for
//!    `system-reminder` over 16 KiB of ordinary prose, Japanese prose,
//!    mathematical bold letters, `<` alone, `< ` pairs and `<system` before
//!    255 spaces (the longest look-ahead, again and again), the median of 5.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use prompt_core::assembly::PrefixCache;
use prompt_core::tokens::{O200kBase, TokenCounter};
use prompt_core::{PromptBuilder, PromptSession, TurnContext};
use prompt_tests::workspaces::{Turn, Workspace, pipeline, session_context};

const KIB16: usize = 16 * 1024;

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn prose() -> String {
    let sentence =
        "The agent reads AGENTS.md, runs the tests, and fixes what fails before it commits. ";
    sentence.repeat(KIB16 / sentence.len() + 1)[..KIB16].to_owned()
}

/// A deterministic stream of letters, digits and symbols.
fn stream(alphabet: &[u8]) -> String {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..KIB16)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            alphabet[(x % alphabet.len() as u64) as usize] as char
        })
        .collect()
}

fn tokenizing() {
    println!("| 16 KiB of | tokens | median of 5 counts |");
    println!("|---|---|---|");
    let cases = [
        ("ordinary prose", prose()),
        ("one word: `a` repeated", "a".repeat(KIB16)),
        (
            "one word: mixed-case letters",
            stream(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
        ),
        ("one word: hex", stream(b"0123456789abcdef")),
        (
            "one word: base64",
            stream(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"),
        ),
        ("one word: punctuation", stream(b"!#$%&*+-./:;<=>?@^_|~")),
        ("spaces only", " ".repeat(KIB16)),
    ];
    for (name, text) in cases {
        let mut runs = Vec::new();
        let mut tokens = 0;
        for _ in 0..5 {
            let started = Instant::now();
            tokens = black_box(O200kBase.count(black_box(&text)));
            runs.push(started.elapsed());
        }
        println!(
            "| {name} | {tokens} | {:.1} ms |",
            median(runs).as_secs_f64() * 1e3
        );
    }
}

/// 4 KiB prefixes that are equal in the 8 windows of 32 bytes the old key
/// sampled (`at = i * (len - 32) / 7`) and differ in 8 bytes at 64..72.
fn adversarial(i: usize) -> String {
    let mut text = "x".repeat(4096).into_bytes();
    text[64..72].copy_from_slice(format!("{i:08}").as_bytes());
    String::from_utf8(text).unwrap()
}

/// The same, differing in their first 8 bytes (a sampled window).
fn ordinary(i: usize) -> String {
    let mut text = "x".repeat(4096).into_bytes();
    text[..8].copy_from_slice(format!("{i:08}").as_bytes());
    String::from_utf8(text).unwrap()
}

fn prefix_cache() {
    const SESSIONS: usize = 32_768;
    println!();
    println!(
        "| {SESSIONS} live sessions, 4 KiB prefixes | create all (first call included) | distinct prefixes |"
    );
    println!("|---|---|---|");
    let pipeline = pipeline(1, 0);
    let turn = TurnContext::new().with(Turn(0));
    for (name, make) in [
        (
            "differing in a sampled window",
            ordinary as fn(usize) -> String,
        ),
        ("differing only outside the sampled windows", adversarial),
    ] {
        let workspaces: Vec<Arc<Workspace>> = (0..SESSIONS)
            .map(|i| {
                Arc::new(Workspace {
                    sections: vec![make(i)],
                })
            })
            .collect();
        let cache = PrefixCache::new();
        let builder = PromptBuilder::new(&pipeline).prefix_cache(&cache);
        let mut sessions: Vec<PromptSession<'_>> = Vec::with_capacity(SESSIONS);
        let started = Instant::now();
        for workspace in &workspaces {
            let session = builder.clone().session(session_context(workspace));
            black_box(session.build_cached(&turn).unwrap());
            sessions.push(session);
        }
        let elapsed = started.elapsed();
        println!(
            "| {name} | {:.2} s | {} |",
            elapsed.as_secs_f64(),
            cache.len()
        );
        drop(sessions);
    }
}

/// `unit` repeated to 16 KiB (cut on a character boundary).
fn filled(unit: &str) -> String {
    let mut text = unit.repeat(KIB16 / unit.len() + 1);
    let mut end = KIB16;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

fn tags() {
    println!();
    println!(
        "| 16 KiB of | `file`: median of 5 | `system-reminder`: median of 5 | angles escaped |"
    );
    println!("|---|---|---|---|");
    let cases = [
        (
            "ordinary prose with `Vec<u8>`",
            filled("The agent reads AGENTS.md and returns a Vec<u8> of the file. "),
        ),
        (
            "Japanese prose",
            filled("エージェントはリポジトリのファイルを読み、テストを実行する。"),
        ),
        (
            "mathematical bold letters",
            filled("\u{1d41f}\u{1d422}\u{1d425}\u{1d41e} "),
        ),
        ("`<` alone", "<".repeat(KIB16)),
        ("`< ` pairs", "< ".repeat(KIB16 / 2)),
        (
            "`<system` and 255 spaces",
            filled(&format!("<system{}", " ".repeat(255))),
        ),
    ];
    for (name, text) in cases {
        let mut times = Vec::new();
        let mut escaped = 0;
        for tag in ["file", "system-reminder"] {
            let mut runs = Vec::new();
            for _ in 0..5 {
                let started = Instant::now();
                let out = black_box(prompt_core::text::escape_tags(black_box(&text), tag));
                runs.push(started.elapsed());
                escaped = out.matches("&lt;").count();
            }
            times.push(median(runs));
        }
        println!(
            "| {name} | {:.2} ms | {:.2} ms | {escaped} |",
            times[0].as_secs_f64() * 1e3,
            times[1].as_secs_f64() * 1e3
        );
    }
}

fn main() {
    // `HOSTILE_COSTS=tokens`, `=prefix` or `=tags` runs one part only.
    let only = std::env::var("HOSTILE_COSTS").unwrap_or_default();
    if only.is_empty() || only == "tokens" {
        tokenizing();
    }
    if only.is_empty() || only == "prefix" {
        prefix_cache();
    }
    if only.is_empty() || only == "tags" {
        tags();
    }
}
