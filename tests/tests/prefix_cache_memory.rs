//! What ten thousand sessions over three workspaces hold, counted
//! in bytes by a counting global allocator: with a `PrefixCache` the stable
//! prefixes cost three copies whatever the number of sessions; without one,
//! a copy per session.
//!
//! Its own binary without the test harness, so nothing else allocates while
//! it counts: the counts are deterministic. Nothing here is timed.

use std::alloc::System;

use prompt_core::assembly::PrefixCache;
use prompt_core::{PromptBuilder, PromptSession, TurnContext};
use prompt_tests::workspaces::{Turn, pipeline, session_context, workspace};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const SESSIONS: usize = 10_000;
const WORKSPACES: usize = 3;
const STABLE: usize = 4;
const SECTION: usize = 1_000;

/// A session's own bytes, prefix aside, may not pass this: its struct, its
/// session context (a handle to the shared workspace) and its dynamic
/// buffer hint. A session holding its own ~4 KB prefix is far over it.
const PER_SESSION: u64 = 1_024;

/// Bytes live after `SESSIONS` sessions made their first call (the prompts
/// dropped), and the length of one prefix.
fn live_bytes(cache: Option<&PrefixCache>) -> (u64, u64) {
    let pipeline = pipeline(STABLE, 1);
    let workspaces: Vec<_> = (0..WORKSPACES)
        .map(|w| workspace(w, STABLE, SECTION))
        .collect();
    let mut builder = PromptBuilder::new(&pipeline);
    if let Some(cache) = cache {
        builder = builder.prefix_cache(cache);
    }
    let turn = TurnContext::new().with(Turn(0));
    let mut prefix_len = 0;
    let region = Region::new(GLOBAL);
    let mut sessions: Vec<PromptSession<'_>> = Vec::with_capacity(SESSIONS);
    for i in 0..SESSIONS {
        let session = builder
            .clone()
            .session(session_context(&workspaces[i % WORKSPACES]));
        prefix_len = session.build_cached(&turn).unwrap().stable().len() as u64;
        sessions.push(session);
    }
    let change = region.change();
    // `realloc`s are counted into both totals already.
    let live = change.bytes_allocated as i64 - change.bytes_deallocated as i64;
    if let Some(cache) = cache {
        assert_eq!(cache.len(), WORKSPACES, "one prefix per workspace");
    }
    drop(sessions);
    if let Some(cache) = cache {
        assert!(
            cache.is_empty(),
            "the sessions took their entries with them"
        );
    }
    (u64::try_from(live).unwrap(), prefix_len)
}

fn main() {
    let cache = PrefixCache::new();
    let (shared, prefix) = live_bytes(Some(&cache));
    let (own, _) = live_bytes(None);
    println!(
        "{SESSIONS} sessions over {WORKSPACES} workspaces, prefix {prefix} B: \
         {shared} B live with a PrefixCache, {own} B without"
    );
    assert!(prefix > 3_000, "the prefix is the bulk: {prefix} B");
    // Without a cache: a prefix per session.
    assert!(
        own >= SESSIONS as u64 * prefix,
        "{own} B live for {SESSIONS} unshared prefixes of {prefix} B"
    );
    // With one: three prefixes (and their traces), the rest per session.
    let bound = WORKSPACES as u64 * 2 * prefix + SESSIONS as u64 * PER_SESSION;
    assert!(
        shared <= bound,
        "{shared} B live with a PrefixCache, over {bound} B: \
         the prefixes are not shared, or a session's own bytes grew"
    );
    println!("ok");
}
