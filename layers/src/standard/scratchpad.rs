//! `# Scratchpad`: the agent's own notes, per turn.

use prompt_core::{LayerInput, LayerWriter, Render, Stable, prompt_layer};

use crate::priorities;
use crate::sources::Scratchpad;

/// `# Scratchpad`: the turn's [`Scratchpad`] entries as `- key: value`, sorted by key.
#[prompt_layer(
    priority = priorities::SCRATCHPAD,
    stability = Dynamic,
    paths = [Cached],
    modes = [Full, Compact],
    silent = "the turn context holds a non-empty Scratchpad",
    pipeline = []
)]
pub struct ScratchpadLayer;

impl Render for ScratchpadLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        entries(out, input.get::<Scratchpad>(), |note| input.note(note));
    }
}

/// The same section as a Stable layer renders it, for a pipeline that keeps
/// the scratchpad in the session context ([`Scratchpad`] is a
/// [`SessionOrTurnValue`](prompt_core::context::SessionOrTurnValue)): the session's
/// copy only.
impl Render<Stable> for ScratchpadLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        entries(out, input.get::<Scratchpad>(), |note| input.note(note));
    }
}

fn entries(out: &mut LayerWriter<'_>, scratchpad: Option<&Scratchpad>, note: impl Fn(&str)) {
    let Some(Scratchpad(entries)) = scratchpad.filter(|s| !s.0.is_empty()) else {
        note("empty scratchpad");
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
