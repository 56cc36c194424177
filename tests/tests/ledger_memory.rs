//! The cache ledger's memory: bounded per conversation (it does not grow
//! with the conversation's requests) and small per conversation (the stable
//! prefix is held by reference, not copied). Its own binary, without the
//! test harness: it replaces the global allocator to count what stays
//! allocated, and nothing else may allocate while it counts.

use std::alloc::System;

use jiff::{SignedDuration, Timestamp};
use prompt_core::{Context, PromptBuilder, Stability};
use prompt_providers::observe::{CacheLedger, CacheUsage, Provider, Sent};
use prompt_tests::fixed;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Bytes still allocated since `region` began.
fn live(region: &Region<'_, System>) -> i64 {
    let change = region.change();
    change.bytes_allocated as i64 - change.bytes_deallocated as i64
}

fn main() {
    let text = "Rule: read the code before you change it.\n".repeat(600);
    let pipeline = fixed(&[
        ("persona", 1, Stability::Stable, &text),
        ("runtime", 10_000, Stability::Dynamic, "Now."),
    ]);
    let session = PromptBuilder::new(&pipeline).session(Context::new());
    let prompt = session.build_cached(&Context::new()).unwrap();
    let at = Timestamp::from_second(1_800_000_000).unwrap();
    let usage = CacheUsage::new(40, 6000, 0);
    let sent = |i: i64| {
        Sent::new(
            Provider::Anthropic,
            "claude-sonnet-4-5",
            at + SignedDuration::from_secs(i),
        )
    };

    // One conversation, many requests: what it holds does not grow.
    let mut ledger = CacheLedger::new();
    for i in 0..100 {
        let id = ledger.sent(&prompt, sent(i));
        ledger.received(id, &usage).unwrap();
    }
    let region = Region::new(GLOBAL);
    for i in 100..10_100 {
        let id = ledger.sent(&prompt, sent(i));
        ledger.received(id, &usage).unwrap();
    }
    let grown = live(&region);
    assert!(grown <= 0, "10,000 more requests kept {grown} more bytes");
    drop(ledger);

    // Many conversations: a few hundred bytes each, the prefix never copied.
    const CONVERSATIONS: usize = 10_000;
    let names: Vec<String> = (0..CONVERSATIONS)
        .map(|i| format!("conversation-{i:05}"))
        .collect();
    let region = Region::new(GLOBAL);
    let mut ledger = CacheLedger::with_capacity(CONVERSATIONS);
    for (i, name) in names.iter().enumerate() {
        let id = ledger.sent(&prompt, sent(i as i64).conversation(name));
        ledger.received(id, &usage).unwrap();
    }
    let per = live(&region) / CONVERSATIONS as i64;
    let prefix = prompt.stable().len() as i64;
    println!(
        "ledger memory: {per} bytes per conversation ({CONVERSATIONS} conversations over one \
         {prefix}-byte prefix); none grows with its requests"
    );
    assert!(per < 1024, "{per} bytes per conversation");
    assert!(
        per < prefix / 10,
        "the prefix ({prefix} B) was copied: {per} B a conversation"
    );
    drop(ledger);
}
