//! `# Project context`: AGENTS.md and CLAUDE.md.

use prompt_core::{LayerInput, LayerWriter, Render, Stable, prompt_layer};

use crate::priorities;
use crate::sources::ProjectDocs;

/// `# Project context`: each [`ProjectDocs`] file quoted in its own fence,
/// `<file path="<path>">…</file>` (see [`fence`](crate::sources::fence)), root first.
#[prompt_layer(
    priority = priorities::PROJECT_CONTEXT,
    stability = Stable,
    scope = Project,
    paths = [Basic, Cached],
    silent = "the workspace has an AGENTS.md, AGENTS.override.md or CLAUDE.md",
    pipeline = []
)]
pub struct ProjectContextLayer;

impl Render<Stable> for ProjectContextLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        let Some(docs) = input.get::<ProjectDocs>() else {
            input.note("no project docs in the session context");
            return;
        };
        for problem in &docs.problems {
            input.note(crate::sources::report(problem));
        }
        for heading in &docs.over_budget {
            input.note(format!(
                "{heading}: left out, the directory-level budget is spent"
            ));
        }
        for note in &docs.limit_notes {
            input.note(note.clone());
        }
        let docs: Vec<_> = docs
            .docs
            .iter()
            .filter(|doc| !doc.text.render().trim().is_empty())
            .collect();
        if docs.is_empty() {
            input.note("no AGENTS.md or CLAUDE.md with text");
            return;
        }
        out.push_str("# Project context");
        for doc in docs {
            for note in doc.text.notes() {
                input.note(note);
            }
            out.push_str("\n\n");
            out.push_str(&doc.text.fenced());
        }
    }
}
