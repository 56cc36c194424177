//! The generated bench workload `perf` and `warm` share (no fixture files):
//! Stable layers of filler text, the per-turn value the Dynamic layers read,
//! the pipeline of both, and the hand-written way of rendering the same.
//! Each bench keeps its own Dynamic layer body.

use std::fmt::Write as _;

use prompt_core::pipeline::LayerEntry;
use prompt_core::{LayerInput, LayerWriter, Pipeline, Render, Stability};
use prompt_tests::{TEST, spec};

/// The per-call value every Dynamic layer reads.
pub struct Turn(pub u64);

impl prompt_core::TurnValue for Turn {}

/// Deterministic filler text of `len` bytes for layer `i`.
pub fn filler(i: usize, len: usize) -> String {
    let mut text = format!("## Section {i}\n\n");
    let mut word = 0usize;
    while text.len() < len {
        let _ = write!(text, "rule{} ", (i * 31 + word * 7) % 97);
        word += 1;
        if word.is_multiple_of(12) {
            text.push('\n');
        }
    }
    text.truncate(len);
    text
}

/// A Stable layer: fixed text.
pub struct StableText(pub String);

impl Render for StableText {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_>) {
        out.push_str(&self.0);
    }
}

/// A layer name for the bench's generated specs (made once, at setup).
pub fn name(name: String) -> &'static str {
    Box::leak(name.into_boxed_str())
}

/// The priority of the `i`th Stable layer.
fn stable_priority(i: usize) -> u32 {
    100 + i as u32 * 10
}

/// The priority of the `i`th Dynamic layer.
fn dynamic_priority(i: usize) -> u32 {
    10_000 + i as u32 * 10
}

/// `stable` Stable layers of `section` bytes, then one Dynamic layer per
/// item of `dynamic`, in one pipeline.
pub fn pipeline<D: Render + Send + Sync + 'static>(
    stable: usize,
    section: usize,
    dynamic: impl IntoIterator<Item = D>,
) -> Pipeline {
    let stable = (0..stable).map(|i| {
        LayerEntry::new(
            spec(
                name(format!("stable_{i}")),
                stable_priority(i),
                Stability::Stable,
            ),
            StableText(filler(i, section)),
        )
    });
    let dynamic = dynamic.into_iter().enumerate().map(|(i, layer)| {
        LayerEntry::new(
            spec(
                name(format!("dynamic_{i}")),
                dynamic_priority(i),
                Stability::Dynamic,
            ),
            layer,
        )
    });
    Pipeline::from_layers(TEST, stable.chain(dynamic)).expect("valid bench pipeline")
}

/// The hand-written way's layers: a priority and a boxed renderer.
pub type HandLayer = (u32, Box<dyn Fn(u64) -> String>);

/// The same layers as [`pipeline`], the hand-written way: each Dynamic layer
/// of `dynamic` written into a fresh `String` by `write`, in reverse order so
/// that the per-call sort has work to do.
pub fn hand_written<D: 'static>(
    stable: usize,
    section: usize,
    dynamic: impl IntoIterator<Item = D>,
    write: impl Fn(&D, &mut String, u64) + Copy + 'static,
) -> Vec<HandLayer> {
    let mut layers: Vec<HandLayer> = Vec::new();
    for i in 0..stable {
        let text = filler(i, section);
        layers.push((stable_priority(i), Box::new(move |_| text.clone())));
    }
    for (i, layer) in dynamic.into_iter().enumerate() {
        layers.push((
            dynamic_priority(i),
            Box::new(move |turn| {
                let mut out = String::new();
                write(&layer, &mut out, turn);
                out
            }),
        ));
    }
    layers.reverse(); // so the per-call sort has work to do
    layers
}

/// The hand-written way: sorted per call, each into a fresh `String`, joined.
pub fn hand_render(layers: &mut [HandLayer], turn: u64) -> String {
    layers.sort_by_key(|(priority, _)| *priority);
    let outputs: Vec<String> = layers.iter().map(|(_, render)| render(turn)).collect();
    outputs.join("\n\n")
}
