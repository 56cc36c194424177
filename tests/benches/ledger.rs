//! Issue 41: what the cache ledger costs per request, against a warm
//! assembly of the held-out shape (32 Stable layers of ~850 B, 10 Dynamic
//! layers of ~200 B: `warm`'s shape `10`).
//!
//! In one criterion group, so that the ratios of one run compare:
//! - `warm`: `PromptSession::build_cached`, the turn context built per call;
//! - `ledger`: `sent` + `received` of a prompt of that session, one
//!   conversation (the target: at most 5% of `warm`);
//! - `warm+ledger`: both, as an agent calls them;
//! - `ledger, 1,000 conversations`: a server's ledger, the conversations in turn;
//! - `ledger + 20 messages`: with the history (20 messages of ~500 B) hashed;
//! - `ledger + log`: with a JSON line written per verdict (to `io::sink`);
//! - `ledger, prefix changed`: every call's prefix differs from the last
//!   (two sessions in turn): the diff, the first differing byte and line.
//!
//! `cargo bench -p prompt-tests --bench ledger` (docs/BENCHMARKS.md, issue 41).
//!
//! With `LEDGER_BENCH_PROFILE=ledger` (or `=warm`) the binary runs no
//! criterion: 100,000 requests through the ledger (or warm calls), for
//! callgrind's instruction counts, which do not depend on the machine's load.

// The hand-written way of the shared workload is not run here.
#[allow(dead_code)]
mod workload;

use std::hint::black_box;

use criterion::Criterion;
use jiff::{SignedDuration, Timestamp};
use prompt_core::{
    AssembledPrompt, Context, LayerInput, LayerWriter, PromptBuilder, PromptSession, Render,
};
use prompt_providers::observe::{CacheLedger, CacheUsage, Provider, Sent};
use workload::Turn;

/// A Dynamic layer of ~200 B reading the turn value (as `warm`'s).
struct DynamicText {
    head: String,
    tail: String,
}

impl Render for DynamicText {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(Turn(turn)) = input.get::<Turn>() {
            out.push_str(&self.head);
            let _ = write!(out, "{turn}");
            out.push_str(&self.tail);
        }
    }
}

fn dynamic() -> impl Iterator<Item = DynamicText> {
    (0..10).map(|i| DynamicText {
        head: format!("Turn facts {i}: "),
        tail: workload::filler(100 + i, 170),
    })
}

fn warm(session: &PromptSession<'_>, turn: u64) -> AssembledPrompt {
    let turn = Context::new().with(Turn(turn));
    session.build_cached(black_box(&turn)).unwrap()
}

const MODEL: &str = "claude-sonnet-4-5";

fn main() {
    let pipeline = workload::pipeline(32, 850, dynamic());
    let other = workload::pipeline(33, 850, dynamic());
    let session = PromptBuilder::new(&pipeline).session(Context::new());
    let changed = PromptBuilder::new(&other).session(Context::new());
    let prompt = warm(&session, 1);
    let prompts = [prompt.clone(), warm(&changed, 1)];
    // The session's fingerprint is computed once, by its first sent.
    let at = Timestamp::from_second(1_800_000_000).unwrap();
    let usage = CacheUsage::new(40, 7000, 0).output(200);
    let messages: Vec<String> = (0..20).map(|i| workload::filler(200 + i, 500)).collect();
    let conversations: Vec<String> = (0..1000).map(|i| format!("conversation-{i}")).collect();

    if let Ok(what) = std::env::var("LEDGER_BENCH_PROFILE") {
        // For callgrind: the ledger alone (or `warm` alone), no criterion.
        if what == "warm" {
            for i in 0..100_000 {
                black_box(warm(&session, i));
            }
            return;
        }
        let mut ledger = CacheLedger::new();
        for i in 0..100_000 {
            let sent = Sent::new(
                Provider::Anthropic,
                MODEL,
                at + SignedDuration::from_secs(i),
            );
            let id = ledger.sent(&prompt, sent);
            black_box(ledger.received(id, &usage).unwrap());
        }
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("ledger");
    let mut turn = 0u64;
    group.bench_function("warm", |b| {
        b.iter(|| {
            turn += 1;
            warm(&session, turn)
        })
    });
    let mut ledger = CacheLedger::new();
    let mut seconds = 0i64;
    let mut tick = || {
        seconds += 1;
        at + SignedDuration::from_secs(seconds)
    };
    group.bench_function("ledger", |b| {
        b.iter(|| {
            let id = ledger.sent(
                black_box(&prompt),
                Sent::new(Provider::Anthropic, MODEL, tick()),
            );
            ledger.received(id, black_box(&usage)).unwrap()
        })
    });
    group.bench_function("warm+ledger", |b| {
        b.iter(|| {
            turn += 1;
            let prompt = warm(&session, turn);
            let id = ledger.sent(&prompt, Sent::new(Provider::Anthropic, MODEL, tick()));
            ledger.received(id, black_box(&usage)).unwrap()
        })
    });
    let mut server = CacheLedger::new();
    let mut next = 0usize;
    group.bench_function("ledger, 1,000 conversations", |b| {
        b.iter(|| {
            next = (next + 1) % conversations.len();
            let sent =
                Sent::new(Provider::Anthropic, MODEL, tick()).conversation(&conversations[next]);
            let id = server.sent(&prompt, sent);
            server.received(id, black_box(&usage)).unwrap()
        })
    });
    group.bench_function("ledger + 20 messages", |b| {
        b.iter(|| {
            let sent = Sent::new(Provider::Anthropic, MODEL, tick()).messages(&messages);
            let id = ledger.sent(&prompt, sent);
            ledger.received(id, black_box(&usage)).unwrap()
        })
    });
    let mut logged = CacheLedger::new().log(std::io::sink());
    group.bench_function("ledger + log", |b| {
        b.iter(|| {
            let id = logged.sent(&prompt, Sent::new(Provider::Anthropic, MODEL, tick()));
            logged.received(id, black_box(&usage)).unwrap()
        })
    });
    let mut flip = 0usize;
    group.bench_function("ledger, prefix changed", |b| {
        b.iter(|| {
            flip ^= 1;
            let id = ledger.sent(
                &prompts[flip],
                Sent::new(Provider::Anthropic, MODEL, tick()),
            );
            ledger.received(id, black_box(&usage)).unwrap()
        })
    });
    group.finish();
    c.final_summary();
}
