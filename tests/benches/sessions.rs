//! Ten thousand sessions over three workspaces (one `PromptSession` per
//! conversation, as an agent host keeps them): the memory they
//! hold and the time to create them, with a `PrefixCache`, without one, and
//! against one session per workspace.
//!
//! `cargo bench -p prompt-tests --bench sessions` prints a Markdown table
//! (docs/BENCHMARKS.md, "Round two: ten thousand sessions"). Each scenario runs
//! in a child process of its own (this binary again, with
//! `SESSIONS_BENCH_SCENARIO` set), so its resident set starts from the same
//! state and owes nothing to the scenario before it.
//!
//! The workload: the perf bench's shape, 32 Stable layers of ~850 B each
//! (~27 KB of stable prefix) and 10 Dynamic layers, over 3 workspaces that
//! differ in every Stable layer. A workspace is loaded once and held in an
//! `Arc` by the session contexts of its conversations (the host's part);
//! "create" is `PromptBuilder::session` plus the first `build_cached`, which
//! renders the prefix (and, with a cache, fingerprints and interns it).
//! Figures: bytes live by a counting global allocator (every allocation the
//! sessions hold), the growth of `VmRSS` (`/proc/self/status`), the median
//! wall time of 5 rounds of creating every session, and the median time of
//! one warm turn of every session.

use std::alloc::System;
use std::hint::black_box;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use prompt_core::assembly::PrefixCache;
use prompt_core::fingerprint::Fingerprint;
use prompt_core::{PromptBuilder, PromptSession, TurnContext};
use prompt_tests::workspaces::{Turn, Workspace, pipeline, session_context, workspace};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const ENV: &str = "SESSIONS_BENCH_SCENARIO";
const WORKSPACES: usize = 3;
const STABLE: usize = 32;
const SECTION: usize = 850;
const DYNAMIC: usize = 10;
const ROUNDS: usize = 5;

/// What one child process measures.
#[derive(Clone, Copy)]
struct Scenario {
    name: &'static str,
    sessions: usize,
    cached: bool,
}

const SCENARIOS: [Scenario; 3] = [
    Scenario {
        name: "one session per workspace",
        sessions: WORKSPACES,
        cached: false,
    },
    Scenario {
        name: "10,000 sessions, no cache",
        sessions: 10_000,
        cached: false,
    },
    Scenario {
        name: "10,000 sessions, `PrefixCache`",
        sessions: 10_000,
        cached: true,
    },
];

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: a
    // smoke run of 300 sessions then, to keep it quick.
    let full = std::env::args().any(|a| a == "--bench");
    if let Ok(index) = std::env::var(ENV) {
        let index: usize = index.parse().expect("scenario index");
        let mut scenario = SCENARIOS[index];
        if !full {
            scenario.sessions = scenario.sessions.min(300);
        }
        child(scenario);
        return;
    }
    println!(
        "{WORKSPACES} workspaces, {STABLE} Stable layers of ~{SECTION} B, {DYNAMIC} Dynamic layers\n"
    );
    println!(
        "| scenario | sessions | distinct prefixes held | bytes live | per session | RSS growth | create all (median of {ROUNDS}) | per session | one warm turn each (median) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let exe = std::env::current_exe().expect("the bench's own path");
    for index in 0..SCENARIOS.len() {
        let mut command = Command::new(&exe);
        command.env(ENV, index.to_string());
        if full {
            command.arg("--bench");
        }
        let output = command.output().expect("run a scenario");
        assert!(
            output.status.success(),
            "scenario {index} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        print!("{}", String::from_utf8_lossy(&output.stdout));
    }
    per_prefix(if full { 200 } else { 5 });
}

/// What a prefix costs once, in this process: its render (a cold build of
/// the same pipeline) and its SHA-256, what a cache adds to a session's
/// first call.
fn per_prefix(runs: usize) {
    let pipeline = pipeline(STABLE, DYNAMIC);
    let workspace = workspace(0, STABLE, SECTION);
    let session = session_context(&workspace);
    let turn = TurnContext::new().with(Turn(0));
    let builder = PromptBuilder::new(&pipeline);
    let prefix = builder
        .build_cached(&session, &turn)
        .unwrap()
        .stable()
        .to_owned();
    let time = |f: &mut dyn FnMut()| {
        let mut times: Vec<Duration> = (0..runs)
            .map(|_| {
                let started = Instant::now();
                f();
                started.elapsed()
            })
            .collect();
        median(&mut times)
    };
    let render = time(&mut || {
        black_box(builder.build_cached(&session, &turn).unwrap());
    });
    let hash = time(&mut || {
        black_box(Fingerprint::of(black_box(&prefix)));
    });
    println!(
        "\nPer prefix ({} B), median of {runs}: render (a cold `build_cached`) {}, SHA-256 (`Fingerprint::of`) {}.",
        prefix.len(),
        duration(render),
        duration(hash),
    );
}

/// Resident set size in KiB, from `/proc/self/status` (0 where there is none).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn child(scenario: Scenario) {
    let pipeline = pipeline(STABLE, DYNAMIC);
    let workspaces: Vec<_> = (0..WORKSPACES)
        .map(|w| workspace(w, STABLE, SECTION))
        .collect();
    let cache = PrefixCache::new();
    let mut builder = PromptBuilder::new(&pipeline);
    if scenario.cached {
        builder = builder.prefix_cache(&cache);
    }
    let turn = TurnContext::new().with(Turn(0));

    let create = || create_sessions(&builder, &workspaces, scenario.sessions, &turn);

    // Round one: memory.
    let rss_before = rss_kib();
    let region = Region::new(GLOBAL);
    let started = Instant::now();
    let sessions = create();
    let mut times = vec![started.elapsed()];
    let change = region.change();
    let rss_after = rss_kib();
    let live = change
        .bytes_allocated
        .saturating_sub(change.bytes_deallocated) as u64;
    let held = if scenario.cached {
        cache.len().to_string()
    } else {
        sessions.len().to_string()
    };

    // One warm turn of every session.
    let mut warm = Vec::with_capacity(ROUNDS);
    for round in 0..ROUNDS as u64 {
        let started = Instant::now();
        warm_turns(&sessions, round + 1);
        warm.push(started.elapsed());
    }
    drop(sessions);

    // Rounds two and on: time only.
    for _ in 1..ROUNDS {
        let started = Instant::now();
        let sessions = create();
        times.push(started.elapsed());
        drop(sessions);
    }
    let create_all = median(&mut times);
    let warm_all = median(&mut warm);
    let n = scenario.sessions as u32;
    println!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        scenario.name,
        scenario.sessions,
        held,
        bytes(live),
        bytes(live / u64::from(n)),
        bytes(rss_after.saturating_sub(rss_before) * 1024),
        duration(create_all),
        duration(create_all / n),
        duration(warm_all),
    );
}

/// `n` sessions over `workspaces` in turn, each after its first call.
/// Not inlined, so that a profiler can count it alone
/// (`valgrind --tool=callgrind --toggle-collect='*create_sessions*'`).
#[inline(never)]
fn create_sessions<'p>(
    builder: &PromptBuilder<'p>,
    workspaces: &[Arc<Workspace>],
    n: usize,
    turn: &TurnContext,
) -> Vec<PromptSession<'p>> {
    let mut sessions = Vec::with_capacity(n);
    for i in 0..n {
        let session = builder
            .clone()
            .session(session_context(&workspaces[i % workspaces.len()]));
        black_box(session.build_cached(turn).expect("first call"));
        sessions.push(session);
    }
    sessions
}

/// One warm call of every session (`--toggle-collect='*warm_turns*'`).
#[inline(never)]
fn warm_turns(sessions: &[PromptSession<'_>], turn: u64) {
    for session in sessions {
        let turn = TurnContext::new().with(Turn(turn));
        black_box(session.build_cached(&turn).expect("warm call"));
    }
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

fn bytes(n: u64) -> String {
    match n {
        n if n >= 10 * 1024 * 1024 => format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0)),
        n if n >= 10 * 1024 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

fn duration(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros >= 10_000.0 {
        format!("{:.1} ms", micros / 1000.0)
    } else {
        format!("{micros:.2} µs")
    }
}
