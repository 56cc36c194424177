//! Runtime facts: per-turn, never cached.

use prompt_core::{LayerInput, LayerWriter, PromptMode, Render, prompt_layer};

use crate::priorities;

/// Facts about the current call, gathered by the caller (never read from the
/// clock or environment inside a layer). Put it in the turn context.
///
/// Absent facts are left out of the prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuntimeFacts {
    /// Today's date, e.g. `2026-11-29`.
    pub date: Option<String>,
    /// The IANA time zone, e.g. `Europe/Berlin`.
    pub time_zone: Option<String>,
    /// The working directory.
    pub cwd: Option<String>,
    /// The operating system, e.g. `linux`.
    pub os: Option<String>,
    /// The user's shell, e.g. `bash`.
    pub shell: Option<String>,
    /// The model answering this call.
    pub model: Option<String>,
    /// The current git branch.
    pub git_branch: Option<String>,
}

// Per call: the date, the cwd, the model.
impl prompt_core::TurnValue for RuntimeFacts {}

impl RuntimeFacts {
    /// The facts as `(label, value)` pairs, in prompt order, absent ones skipped.
    pub fn entries(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            ("Date", &self.date),
            ("Time zone", &self.time_zone),
            ("Working directory", &self.cwd),
            ("OS", &self.os),
            ("Shell", &self.shell),
            ("Model", &self.model),
            ("Git branch", &self.git_branch),
        ]
        .into_iter()
        .filter_map(|(label, value)| value.as_deref().map(|v| (label, v)))
    }
}

/// `# Runtime context`: the turn's [`RuntimeFacts`] as a list.
#[prompt_layer(
    priority = priorities::RUNTIME,
    stability = Dynamic,
    paths = [Basic, Cached],
    modes = [Full, Compact],
    silent = "the turn context holds RuntimeFacts with at least one fact"
)]
pub struct RuntimeContextLayer;

impl Render for RuntimeContextLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        let Some(facts) = input.get::<RuntimeFacts>() else {
            return;
        };
        let mut entries = facts.entries().peekable();
        if entries.peek().is_none() {
            return;
        }
        out.push_str("# Runtime context\n");
        for (label, value) in entries {
            // A fact is one line: a newline in a branch or path must not forge structure.
            let _ = write!(out, "\n- {label}: {}", crate::sources::one_line(value));
        }
        if input.mode() == PromptMode::Full {
            out.push_str("\n\nThese facts are current for this message only.");
        }
    }
}
