//! Heap allocations per warm call: at most 3 for the whole assembly, not
//! counting the caller's turn context (a warm call is the hot path of an
//! agent loop, so what it allocates is a budget, not a measurement).
//!
//! A counting global allocator in its own binary without the test harness,
//! so nothing else allocates while it counts: the count is deterministic.

use std::alloc::System;

use prompt_core::pipeline::LayerEntry;
use prompt_core::{Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render, Stability};
use prompt_tests::{TEST, spec};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The most a warm call may allocate.
const MAX_ALLOCATIONS: usize = 3;

/// The per-call value the Dynamic layers read.
struct Turn(u64);

impl prompt_core::TurnValue for Turn {}

struct StableText(String);

impl Render for StableText {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_>) {
        out.push_str(&self.0);
    }
}

struct DynamicText(String);

impl Render for DynamicText {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(Turn(turn)) = input.get::<Turn>() {
            let _ = write!(out, "{} {turn}", self.0);
        }
    }
}

/// The bench's workload in small: 4 Stable layers, 3 Dynamic ones that read the turn.
fn pipeline() -> Pipeline {
    const STABLE: [&str; 4] = ["stable_0", "stable_1", "stable_2", "stable_3"];
    const DYNAMIC: [&str; 3] = ["dynamic_0", "dynamic_1", "dynamic_2"];
    let stable = STABLE.iter().enumerate().map(|(i, name)| {
        LayerEntry::new(
            spec(name, 100 + i as u32, Stability::Stable),
            StableText("stable rule ".repeat(70)),
        )
    });
    let dynamic = DYNAMIC.iter().enumerate().map(|(i, name)| {
        LayerEntry::new(
            spec(name, 10_000 + i as u32, Stability::Dynamic),
            DynamicText("turn fact ".repeat(20)),
        )
    });
    Pipeline::from_layers(TEST, stable.chain(dynamic)).expect("valid pipeline")
}

fn main() {
    let pipeline = pipeline();
    let session = PromptBuilder::new(&pipeline).session(Context::new());
    // The first calls render the stable prefix and size the buffers.
    for turn in 0..3 {
        session
            .build_cached(&Context::new().with(Turn(turn)))
            .unwrap();
    }

    let turn = Context::new().with(Turn(1_000));
    let region = Region::new(GLOBAL);
    let prompt = session.build_cached(&turn).unwrap();
    let stats = region.change();
    drop(prompt);

    let count = stats.allocations + stats.reallocations;
    println!(
        "warm PromptSession::build_cached: {} allocations, {} reallocations",
        stats.allocations, stats.reallocations
    );
    assert!(
        count <= MAX_ALLOCATIONS,
        "a warm call allocated {count} times (at most {MAX_ALLOCATIONS}): {stats:?}"
    );
}
