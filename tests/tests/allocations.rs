//! Heap allocations per warm call, not counting the caller's turn context
//! (a warm call is the hot path of an agent loop, so what it allocates is a
//! budget, not a measurement): one, the dynamic text, for a pipeline of up
//! to 16 Dynamic layers (where each layer's text ends is held in place); two
//! past that.
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

/// The bench's workload in small: 4 Stable layers, then `dynamic` Dynamic
/// layers that read the turn.
fn pipeline(dynamic: usize) -> Pipeline {
    const STABLE: [&str; 4] = ["stable_0", "stable_1", "stable_2", "stable_3"];
    let stable = STABLE.iter().enumerate().map(|(i, name)| {
        LayerEntry::new(
            spec(name, 100 + i as u32, Stability::Stable),
            StableText("stable rule ".repeat(70)),
        )
    });
    let dynamic = (0..dynamic).map(|i| {
        let name: &'static str = Box::leak(format!("dynamic_{i}").into_boxed_str());
        LayerEntry::new(
            spec(name, 10_000 + i as u32, Stability::Dynamic),
            DynamicText("turn fact ".repeat(20)),
        )
    });
    Pipeline::from_layers(TEST, stable.chain(dynamic)).expect("valid pipeline")
}

/// Allocations (and reallocations) of one warm call of a session of `pipeline`.
fn warm_call_allocations(pipeline: &Pipeline) -> usize {
    let session = PromptBuilder::new(pipeline).session(Context::new());
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
    // The traces read after the count are whole (and allocate then).
    assert_eq!(
        prompt.trace().layers.dynamic().len(),
        pipeline.len() - 4,
        "every Dynamic layer is traced"
    );
    drop(prompt);
    println!(
        "warm PromptSession::build_cached, {} layers: {} allocations, {} reallocations",
        pipeline.len(),
        stats.allocations,
        stats.reallocations
    );
    stats.allocations + stats.reallocations
}

fn main() {
    // Up to 16 Dynamic layers: the dynamic text is the one allocation.
    for dynamic in [3, 16] {
        let count = warm_call_allocations(&pipeline(dynamic));
        assert!(
            count <= 1,
            "a warm call of {dynamic} Dynamic layers allocated {count} times (at most 1)"
        );
    }
    // Past 16, where each layer's text ends spills to the heap: two.
    let count = warm_call_allocations(&pipeline(20));
    assert!(
        count <= 2,
        "a warm call of 20 Dynamic layers allocated {count} times (at most 2)"
    );
}
