//! Issue 52: the shared ledger on a loopback Redis. 10,000 conversations of
//! 10 turns over 8 tokio tasks, each turn through one of two replicas
//! (`SharedLedger`s over one `RedisStore` address, turn k through replica
//! k mod 2, so most previous requests are the other replica's): the time
//! of `sent` + `received` per request (p50, p99) and the requests per
//! second over the whole run. It starts its own `redis-server` (Debian's
//! `redis-server`; `apt-get install redis-server`).
//!
//! `cargo bench -p prompt-tests --bench ledger_shared` (docs/BENCHMARKS.md).
//! `LEDGER_SHARED_CONVERSATIONS=N` runs fewer conversations.

use std::sync::Arc;
use std::time::{Duration, Instant};

use prompt_checks::diff::StablePrefix;
use prompt_core::spec::{AssemblyPath, PromptMode, Scope};
use prompt_providers::observe::{
    CacheLedger, CacheUsage, GivenPrefix, Provider, RedisStore, Sent, SharedLedger, SignedDuration,
    Timestamp,
};
use prompt_tests::redis::{self, RedisServer};

const TURNS: usize = 10;
const TASKS: usize = 8;

fn prefix(repository: usize) -> GivenPrefix {
    GivenPrefix::new(&StablePrefix {
        pipeline: String::new(),
        path: AssemblyPath::Cached,
        mode: PromptMode::Full,
        layers: vec![
            (
                "persona".into(),
                "You are a careful coding agent. ".repeat(100),
            ),
            (
                "rules".into(),
                format!("Repository {repository}: run make check.\n").repeat(100),
            ),
            (
                "memory".into(),
                "The user prefers small commits.\n".repeat(20),
            ),
        ],
        scopes: vec![Some(Scope::Global), Some(Scope::Project), Some(Scope::User)],
        separator: "\n\n".into(),
    })
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

fn main() {
    if !redis::installed() {
        println!(
            "ledger_shared: not run: needs redis-server on PATH ({})",
            redis::INSTALL
        );
        return;
    }
    // `cargo test` runs benches once with `--bench` absent: nothing to do.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let conversations: usize = std::env::var("LEDGER_SHARED_CONVERSATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let server = RedisServer::start();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let replicas: Arc<Vec<SharedLedger>> = Arc::new(
            (0..2)
                .map(|_| {
                    let store = RedisStore::open(&server.url()).expect("a redis address");
                    SharedLedger::new(CacheLedger::with_capacity(conversations + 1), store)
                        .timeout(Duration::from_secs(1))
                })
                .collect(),
        );
        let prefixes: Arc<Vec<GivenPrefix>> = Arc::new((0..3).map(prefix).collect());
        let start = Instant::now();
        let tasks: Vec<_> = (0..TASKS)
            .map(|task| {
                let replicas = Arc::clone(&replicas);
                let prefixes = Arc::clone(&prefixes);
                tokio::spawn(async move {
                    let t0 = Timestamp::from_second(1_800_000_000).expect("a time");
                    let names: Vec<String> = (task..conversations)
                        .step_by(TASKS)
                        .map(|c| format!("conversation-{c}"))
                        .collect();
                    let mut times = Vec::with_capacity(names.len() * TURNS);
                    let mut unknown = 0usize;
                    for turn in 0..TURNS {
                        for (i, name) in names.iter().enumerate() {
                            let at = t0 + SignedDuration::from_secs((turn * 20) as i64);
                            let sent = Sent::new(Provider::Anthropic, "claude-sonnet-4-5", at)
                                .conversation(name);
                            let usage = if turn == 0 {
                                CacheUsage::new(40, 0, 1900)
                            } else {
                                CacheUsage::new(40, 1900, 0)
                            };
                            let began = Instant::now();
                            let ledger = &replicas[turn % 2];
                            let id = ledger.sent_given(&prefixes[i % 3], sent).await;
                            let verdict = ledger.received(&id, &usage).await.expect("a verdict");
                            times.push(began.elapsed());
                            unknown += usize::from(verdict.previous_unknown);
                        }
                    }
                    (times, unknown)
                })
            })
            .collect();
        let mut times = Vec::new();
        let mut unknown = 0;
        for task in tasks {
            let (t, u) = task.await.expect("a task");
            times.extend(t);
            unknown += u;
        }
        let wall = start.elapsed();
        times.sort_unstable();
        let requests = times.len();
        println!(
            "ledger_shared: {conversations} conversations x {TURNS} turns over {TASKS} tasks, \
             two replicas, loopback redis-server"
        );
        println!(
            "  sent + received per request: p50 {:?}, p99 {:?}, max {:?}",
            percentile(&times, 0.5),
            percentile(&times, 0.99),
            times.last().copied().unwrap_or_default()
        );
        println!(
            "  throughput: {requests} requests in {wall:.2?}: {:.0} requests/s",
            requests as f64 / wall.as_secs_f64()
        );
        println!("  verdicts with the previous request unknown: {unknown}");
        let memory = server.command(&[b"MEMORY", b"USAGE", b"prompt:ledger:conversation-0"]);
        println!("  Redis memory of one conversation's entry (MEMORY USAGE): {memory}");
        let info = server.command(&[b"DBSIZE"]);
        println!("  keys: {info}");
    });
}
