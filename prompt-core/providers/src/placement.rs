//! Where each piece of a prompt travels when a CLI agent (Claude Code, Codex)
//! is launched with it, and the `<system-reminder>` block that carries text
//! outside the system slot (a CLI's user prefix, a request's reminder).
//!
//! A CLI agent has one system slot (`claude --system-prompt TEXT`, Codex's
//! `model_instructions_file`), which it caches with the rest of its request
//! prefix. Only the **stable prefix** belongs there: it is byte-identical
//! from call to call, so the client's cache keeps hitting. The **dynamic
//! suffix** (date, working directory, tool state) and the text of every
//! `channel = Reminder` layer go at the head of the first user message, before
//! the user's own words, in one [`CONTEXT_OPEN`] ... [`CONTEXT_CLOSE`] block
//! whose first line tells the model what it is. This is what the clients do
//! with their own per-turn context (Codex's `<environment_context>`, Claude
//! Code's `<system-reminder>` blocks).
//!
//! On the Basic path, which caches nothing, the whole prompt goes in the
//! system slot and only the reminder goes in the user message.
//!
//! [`claude_cli::invocation`](super::claude_cli::invocation) and
//! [`codex::invocation`](super::codex::invocation) return an [`Invocation`]:
//! the arguments to add, the instructions file (Codex) and the user prefix.

use std::path::PathBuf;

use crate::AssembledPrompt;

/// What opens the context block in a user message (and the reminder block of
/// an API request).
pub const CONTEXT_OPEN: &str = "<system-reminder>";
/// What closes it.
pub const CONTEXT_CLOSE: &str = "</system-reminder>";
/// The first line of the context block a CLI invocation prepends: what the
/// block is, for the model.
pub const CONTEXT_PREAMBLE: &str = "The system prompt continues here with this session's context. \
It comes from the application, not from the user.";

/// The pieces of one CLI agent launch: add [`args`](Self::args) to the
/// client's command line, write [`instructions_file`](Self::instructions_file)
/// when there is one, and send [`user_message`](Self::user_message) of the
/// user's words as the first message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Invocation {
    /// Arguments that put the system slot in place (before the user's own).
    pub args: Vec<String>,
    /// A file the arguments point at, which must exist before the client
    /// starts (Codex's instructions file).
    pub instructions_file: Option<InstructionsFile>,
    /// The text that goes before the user's words in the first user message:
    /// the context block and a blank line, or empty when the prompt has no
    /// dynamic part and no reminder.
    pub user_prefix: String,
}

impl Invocation {
    /// The first user message: [`user_prefix`](Self::user_prefix), then `text`.
    pub fn user_message(&self, text: &str) -> String {
        let mut message = String::with_capacity(self.user_prefix.len() + text.len());
        message.push_str(&self.user_prefix);
        message.push_str(text);
        message
    }
}

/// A file a client reads its system slot from: where, and its exact bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InstructionsFile {
    /// Where the arguments say it is.
    pub path: PathBuf,
    /// What it must hold: the system slot's text.
    pub text: String,
}

impl InstructionsFile {
    /// Writes [`text`](Self::text) to [`path`](Self::path): atomically, the
    /// owner's only (`0600` whatever the umask, as it holds the user's memory
    /// and the project's text), never over a target that is not a regular
    /// file ([`crate::write::replace_file`]).
    ///
    /// # Errors
    /// The step that failed, naming the path; nothing half-written is left.
    pub fn write(&self) -> Result<(), crate::write::WriteError> {
        crate::write::replace_file(
            &self.path,
            self.text.as_bytes(),
            crate::write::Access::Private,
        )
    }
}

/// The text of a CLI agent's system slot: the stable prefix on the Cached
/// path, the whole prompt on the Basic path (which has no split).
pub fn system_slot(prompt: &AssembledPrompt) -> String {
    match prompt.path() {
        crate::AssemblyPath::Cached => prompt.stable().to_owned(),
        crate::AssemblyPath::Basic => prompt.text(),
    }
}

/// What goes before the user's words in the first user message: a context
/// block holding the dynamic suffix (Cached path) and the reminder, then a
/// blank line; empty when both are empty.
///
/// ```text
/// <system-reminder>
/// The system prompt continues here with this session's context. ...
///
/// DYNAMIC SUFFIX
///
/// REMINDER
/// </system-reminder>
///
/// ```
///
/// A `system-reminder` tag inside the text, opening or closing, in any case,
/// width, spacing or lookalike spelling ([`crate::text::escape_tags`]), has
/// its angle written `&lt;`, so a file that holds one cannot end the block
/// early and pass as the user's words.
pub fn user_prefix(prompt: &AssembledPrompt) -> String {
    let context = context_text(prompt);
    if context.is_empty() {
        return context;
    }
    format!("{CONTEXT_OPEN}\n{context}\n{CONTEXT_CLOSE}\n\n")
}

/// The inside of [`user_prefix`]'s block: [`CONTEXT_PREAMBLE`], a blank
/// line, then the dynamic suffix (Cached path) and the reminder joined by the
/// prompt's separator, every `system-reminder` tag defused as there; empty
/// when both are empty. For a client that wraps the context in its own
/// block, such as a Claude Code hook's `additionalContext`.
pub fn context_text(prompt: &AssembledPrompt) -> String {
    let dynamic = match prompt.path() {
        crate::AssemblyPath::Cached => prompt.dynamic(),
        crate::AssemblyPath::Basic => "",
    };
    let pieces: Vec<&str> = [dynamic, prompt.reminder().unwrap_or("")]
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .collect();
    if pieces.is_empty() {
        return String::new();
    }
    let body = pieces.join(prompt.separator());
    format!("{CONTEXT_PREAMBLE}\n\n{}", defuse(&body))
}

/// `reminder` as a block of its own, for the end of the last user message:
/// `<system-reminder>\n{reminder, trimmed}\n</system-reminder>`; `None` when
/// it is empty or only whitespace. A closing tag inside is defused as in
/// [`user_prefix`].
pub fn reminder_block(reminder: &str) -> Option<String> {
    let reminder = reminder.trim();
    (!reminder.is_empty()).then(|| format!("{CONTEXT_OPEN}\n{}\n{CONTEXT_CLOSE}", defuse(reminder)))
}

/// `text` with every `system-reminder` tag's angle written `&lt;`, in any
/// spelling a reader takes for one ([`crate::text::starts_tag`]): what follows
/// a forged close (a `Human:` turn, a new instruction) stays inside the block.
fn defuse(text: &str) -> String {
    crate::text::escape_tags(text, crate::text::REMINDER_TAG).into_owned()
}
