//! Runtime facts: per-turn, never cached.

use prompt_core::{LayerInput, LayerWriter, PromptMode, Render, prompt_layer};

use crate::priorities;

/// Facts about the current call, gathered by the caller (never read from the
/// clock or environment inside a layer). Put it in the turn context.
///
/// Absent facts are left out of the prompt. Build it with the `with_`
/// setters; the facts are public fields, so one the caller may not have can
/// be set as an `Option` (`facts.shell = shell;`).
///
/// ```
/// use prompt_core::{Context, TurnContext};
/// use prompt_layers::RuntimeFacts;
///
/// let facts = RuntimeFacts::default().date("2026-11-29").model("opus");
/// let pairs: Vec<_> = facts.entries().collect();
/// assert_eq!(pairs, [("Date", "2026-11-29"), ("Model", "opus")]);
/// let turn: TurnContext = Context::new().with(facts);
/// assert_eq!(turn.get::<RuntimeFacts>().unwrap().model.as_deref(), Some("opus"));
/// ```
// Grows with every fact: build it with the `with_` setters, so a new fact is
// not a breaking change. Its methods follow the layer, which keeps its line
// (manifests and snapshots name `src/standard/runtime.rs:50`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
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

/// `# Runtime context`: the turn's [`RuntimeFacts`] as a list.
#[prompt_layer(
    priority = priorities::RUNTIME_CONTEXT,
    stability = Dynamic,
    paths = [Basic, Cached],
    modes = [Full, Compact],
    silent = "the turn context holds RuntimeFacts with at least one fact",
    pipeline = []
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

    /// The same facts, with today's [`date`](Self::date), e.g. `2026-11-29`.
    #[must_use]
    pub fn date(mut self, date: impl Into<String>) -> Self {
        self.date = Some(date.into());
        self
    }

    /// The same facts, with the IANA [`time_zone`](Self::time_zone), e.g. `Europe/Berlin`.
    #[must_use]
    pub fn time_zone(mut self, time_zone: impl Into<String>) -> Self {
        self.time_zone = Some(time_zone.into());
        self
    }

    /// The same facts, with the working directory ([`cwd`](Self::cwd)).
    #[must_use]
    pub fn cwd(mut self, cwd: impl Into<String>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// The same facts, with the operating system ([`os`](Self::os)), e.g. `linux`.
    #[must_use]
    pub fn os(mut self, os: impl Into<String>) -> Self {
        self.os = Some(os.into());
        self
    }

    /// The same facts, with the user's [`shell`](Self::shell), e.g. `bash`.
    #[must_use]
    pub fn shell(mut self, shell: impl Into<String>) -> Self {
        self.shell = Some(shell.into());
        self
    }

    /// The same facts, with the [`model`](Self::model) answering this call.
    #[must_use]
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The same facts, with the current [`git_branch`](Self::git_branch).
    #[must_use]
    pub fn git_branch(mut self, git_branch: impl Into<String>) -> Self {
        self.git_branch = Some(git_branch.into());
        self
    }
}
