//! `# User preferences` and `# Project memory`.

use prompt_core::{LayerInput, LayerWriter, Render, Stable, prompt_layer};

use super::short_path;

use crate::priorities;
use crate::sources::{MemoryFile, ProjectMemory, UserPreferences};

/// `# User preferences`: how this user likes to work, from [`UserPreferences`].
#[prompt_layer(
    priority = priorities::USER_PREFERENCES,
    stability = Stable,
    scope = User,
    paths = [Basic, Cached],
    silent = "the session has a non-empty ~/.<app>/memory/user.md",
    pipeline = []
)]
pub struct UserPreferencesLayer;

impl Render<Stable> for UserPreferencesLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        section(
            out,
            input,
            "# User preferences",
            input.get::<UserPreferences>().map(|u| &u.0),
            "~/",
        );
    }
}

/// `# Project memory`: what the agent has learned about this project, from [`ProjectMemory`].
#[prompt_layer(
    priority = priorities::PROJECT_MEMORY,
    stability = Stable,
    scope = Project,
    paths = [Basic, Cached],
    modes = [Full, Compact],
    silent = "the session has a non-empty <workspace>/.<app>/memory/project.md",
    pipeline = []
)]
pub struct ProjectMemoryLayer;

impl Render<Stable> for ProjectMemoryLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        section(
            out,
            input,
            "# Project memory",
            input.get::<ProjectMemory>().map(|p| &p.0),
            "",
        );
    }
}

/// A header and a memory file's text, fenced (`<file path="…">…</file>`);
/// notes why it is silent or cut, naming the file under `shown` (`~/` for
/// the user's home, nothing for the workspace).
fn section(
    out: &mut LayerWriter<'_>,
    input: &LayerInput<'_, Stable>,
    header: &str,
    file: Option<&MemoryFile>,
    shown: &str,
) {
    let Some(file) = file else {
        input.note("no memory file in the session context");
        return;
    };
    if let Some(problem) = &file.problem {
        input.note(crate::sources::report(problem));
    }
    let Some(text) = file.fenced() else {
        if file.problem.is_none() {
            input.note(format!(
                "{shown}{}: absent or empty",
                short_path(&file.path, 3)
            ));
        }
        return;
    };
    for note in file.text.iter().flat_map(|t| t.notes()) {
        input.note(note);
    }
    out.push_str(header);
    out.push_str("\n\n");
    out.push_str(&text);
}
