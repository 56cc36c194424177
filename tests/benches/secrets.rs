//! What the secrets guard costs on hostile text (issue 38, item 3): each unit
//! of `tests/fixtures/secrets/hostile.txt` repeated to 1 MiB, and 1 MiB of
//! ordinary prose, scanned with `prompt_checks::secrets::scan`: the median of 3
//! scans, and how many findings. The first scan of the process (which parses
//! and compiles the rules) is timed apart.
//!
//! `cargo bench -p prompt-tests --bench secrets` prints a Markdown table
//! (docs/BENCHMARKS.md). Nothing here asserts a time: speed is measured, never
//! tested.

use std::hint::black_box;
use std::time::{Duration, Instant};

use prompt_checks::secrets::scan;

const MIB: usize = 1024 * 1024;

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn units() -> Vec<String> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/secrets/hostile.txt");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            line.replace("\\\\", "\u{0}")
                .replace("\\n", "\n")
                .replace('\u{0}', "\\")
        })
        .collect()
}

fn main() {
    let started = Instant::now();
    black_box(scan(black_box("warm up: the rules are built here")));
    println!(
        "first scan (rules parsed and compiled): {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    println!();
    println!("| 1 MiB of | median of 3 | findings |");
    println!("|---|---|---|");
    let prose = "The layer reads AGENTS.md and quotes it; keys stay in the vault. ";
    let mut cases: Vec<(String, String)> = vec![("ordinary prose".into(), prose.into())];
    cases.extend(
        units()
            .into_iter()
            .map(|u| (format!("`{}`", u.escape_debug()), u)),
    );
    for (name, unit) in cases {
        let text = unit.repeat(MIB / unit.len());
        let mut runs = Vec::new();
        let mut found = 0;
        for _ in 0..3 {
            let started = Instant::now();
            found = black_box(scan(black_box(&text))).len();
            runs.push(started.elapsed());
        }
        println!(
            "| {name} | {:.1} ms | {found} |",
            median(runs).as_secs_f64() * 1e3
        );
    }
}
