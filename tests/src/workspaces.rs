//! Many conversations over a few workspaces: the fixture of the prefix-cache
//! tests and of the `sessions` bench.
//!
//! Each workspace is loaded once and held in an `Arc` (the host's part: the
//! session contexts of its conversations point to one copy of the loaded
//! files); what the Stable layers render from it, each session renders on its
//! first call, and a [`PrefixCache`](prompt_core::assembly::PrefixCache)
//! decides whether the sessions keep one copy of it or one each.

use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use prompt_core::pipeline::LayerEntry;
use prompt_core::{
    Context, LayerInput, LayerWriter, Pipeline, Render, SessionValue, Stability, Stable, TurnValue,
};

use crate::{TEST, spec};

/// A loaded workspace: one text per Stable layer.
#[derive(Debug)]
pub struct Workspace {
    /// What each Stable layer writes, in order.
    pub sections: Vec<String>,
}

/// The session context's handle to its workspace.
#[derive(Debug, Clone)]
pub struct InWorkspace(pub Arc<Workspace>);

impl SessionValue for InWorkspace {}

/// The per-call value the Dynamic layers read.
#[derive(Debug, Clone, Copy)]
pub struct Turn(pub u64);

impl TurnValue for Turn {}

/// Stable layer `i`: the workspace's `i`th section.
struct Section(usize);

impl Render<Stable> for Section {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(InWorkspace(workspace)) = input.get::<InWorkspace>() {
            out.push_str(&workspace.sections[self.0]);
        }
    }
}

/// Dynamic layer `i`: a line around the turn number.
struct TurnLine(usize);

impl Render for TurnLine {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(Turn(turn)) = input.get::<Turn>() {
            let _ = write!(out, "Turn fact {}: turn {turn}.", self.0);
        }
    }
}

/// The layers' names: `stable_0..`, `dynamic_0..`, made once per process.
fn names(stability: Stability) -> &'static [&'static str] {
    static NAMES: OnceLock<[Vec<&'static str>; 2]> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let make = |prefix: &str| {
            (0..MAX_LAYERS)
                .map(|i| &*Box::leak(format!("{prefix}{i}").into_boxed_str()))
                .collect()
        };
        [make("stable_"), make("dynamic_")]
    });
    match stability {
        Stability::Stable => &names[0],
        Stability::Dynamic => &names[1],
    }
}

/// The most layers of each stability [`pipeline`] makes.
pub const MAX_LAYERS: usize = 64;

/// A pipeline `"test"` of `stable` Stable layers (each its workspace's
/// section) and `dynamic` Dynamic ones (each a line with the turn number).
///
/// # Panics
/// When `stable` or `dynamic` is over 64.
pub fn pipeline(stable: usize, dynamic: usize) -> Pipeline {
    let stable = (0..stable).map(|i| {
        LayerEntry::new(
            spec(
                names(Stability::Stable)[i],
                100 + i as u32 * 10,
                Stability::Stable,
            ),
            Section(i),
        )
    });
    let dynamic = (0..dynamic).map(|i| {
        LayerEntry::new(
            spec(
                names(Stability::Dynamic)[i],
                10_000 + i as u32 * 10,
                Stability::Dynamic,
            ),
            TurnLine(i),
        )
    });
    Pipeline::from_layers(TEST, stable.chain(dynamic)).expect("valid workspace pipeline")
}

/// Workspace `w` of `sections` sections of about `len` bytes each: different
/// workspaces differ in every section.
pub fn workspace(w: usize, sections: usize, len: usize) -> Arc<Workspace> {
    let sections = (0..sections)
        .map(|i| {
            let mut text = format!("## Workspace {w}, section {i}\n\n");
            let mut word = 0usize;
            while text.len() < len {
                let _ = write!(text, "rule{} ", (w * 131 + i * 31 + word * 7) % 97);
                word += 1;
                if word.is_multiple_of(12) {
                    text.push('\n');
                }
            }
            text
        })
        .collect();
    Arc::new(Workspace { sections })
}

/// A conversation's session context over `workspace`.
pub fn session_context(workspace: &Arc<Workspace>) -> Context {
    Context::new().with(InWorkspace(Arc::clone(workspace)))
}
