//! `# Facts` and `# Episodic recall`: dated entries, newest first.

use prompt_core::{LayerInput, LayerWriter, Render, Stable, prompt_layer};

use crate::priorities;
use crate::sources::{DatedEntries, Episodes, Facts};

/// `# Facts`: remembered facts from [`Facts`], newest first, within their budget.
#[prompt_layer(
    priority = priorities::FACTS,
    stability = Stable,
    scope = User,
    paths = [Basic, Cached],
    modes = [Full, Compact],
    silent = "facts.jsonl (global or workspace) has at least one valid entry",
    pipeline = []
)]
pub struct FactsLayer;

impl Render<Stable> for FactsLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        list(
            out,
            input,
            "# Facts",
            "facts",
            input.get::<Facts>().map(|f| &f.0),
            false,
        );
    }
}

/// `# Episodic recall`: summaries of recent sessions from [`Episodes`], newest first.
#[prompt_layer(
    priority = priorities::EPISODIC_RECALL,
    stability = Stable,
    scope = User,
    paths = [Cached],
    modes = [Full],
    silent = "episodes.jsonl has at least one valid entry",
    pipeline = []
)]
pub struct EpisodicRecallLayer;

impl Render<Stable> for EpisodicRecallLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        list(
            out,
            input,
            "# Episodic recall",
            "episodes",
            input.get::<Episodes>().map(|e| &e.0),
            true,
        );
    }
}

fn list(
    out: &mut LayerWriter<'_>,
    input: &LayerInput<'_, Stable>,
    header: &str,
    what: &str,
    entries: Option<&DatedEntries>,
    dated: bool,
) {
    let Some(entries) = entries else {
        input.note(format!("no {what} in the session context"));
        return;
    };
    for note in entries.notes() {
        input.note(note);
    }
    if entries.entries.is_empty() {
        input.note(format!("no {what}"));
        return;
    }
    out.push_str(header);
    out.push('\n');
    for entry in &entries.entries {
        out.push_str("\n- ");
        if dated {
            let _ = write!(out, "{}", entry.at.strftime("%Y-%m-%d: "));
        }
        out.push_str(&entry.text);
    }
}
