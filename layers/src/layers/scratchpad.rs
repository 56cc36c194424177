//! `# Scratchpad`: the agent's own notes, per turn.

use std::fmt::Write as _;

use prompt_core::{LayerInput, Render, prompt_layer};

use crate::priorities;
use crate::sources::Scratchpad;

/// `# Scratchpad`: the turn's [`Scratchpad`] entries as `- key: value`, sorted by key.
#[prompt_layer(
    priority = priorities::SCRATCHPAD,
    stability = Dynamic,
    paths = [Cached],
    modes = [Full, Compact],
    silent = "the turn context holds a non-empty Scratchpad"
)]
pub struct ScratchpadLayer;

impl Render for ScratchpadLayer {
    fn render(&self, out: &mut String, input: &LayerInput<'_>) {
        let Some(Scratchpad(entries)) = input.get::<Scratchpad>().filter(|s| !s.0.is_empty())
        else {
            input.note("empty scratchpad");
            return;
        };
        out.push_str("# Scratchpad\n");
        for (key, value) in entries {
            let _ = write!(
                out,
                "\n- {}: {}",
                crate::sources::one_line(key),
                crate::sources::one_line(value)
            );
        }
    }
}
