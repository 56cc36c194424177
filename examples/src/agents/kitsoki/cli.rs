//! The system-prompt arguments of the `claude` and `codex` command lines.
//!
//! Both delegate to `prompt_providers` ([`claude_cli`](prompt_providers::claude_cli), [`codex`]), the
//! one implementation of these command lines: kitsoki only decides which form
//! a call gets (composed or legacy) and where the Codex instructions file
//! lives.
//!
//! [`claude_invocation`] and [`codex_invocation`] are the placement to use:
//! the library's [`claude_cli::invocation`] and [`codex::invocation`], which
//! put the framework and project layers (the stable prefix) in the system
//! slot and the task layer (the verb's contract and the persona) at the head
//! of the call's user message. [`claude_args`] and [`codex_args`] reproduce
//! upstream kitsoki, which sends the whole composed prompt as the system
//! prompt, so the cached block changes with every verb and persona.

use std::path::Path;

use prompt_providers as providers;
use prompt_providers::claude_cli::{self, ClaudeCli, ClaudeCliError};
use prompt_providers::codex::{self, CodexError};

use super::Invocation;

/// The file name Codex instructions are written under.
pub const INSTRUCTIONS_FILE: &str = "kitsoki-instructions.md";

/// The `claude` arguments that carry the system prompt.
///
/// Composed: `--system-prompt TEXT`, plus
/// `--exclude-dynamic-system-prompt-sections` when the verb excludes Claude
/// Code's dynamic sections. Legacy (`inherit_claude_default`):
/// `--append-system-prompt PERSONA`, only when the persona has text.
///
/// # Errors
/// [`ClaudeCliError`] when the prompt cannot be one argument (a NUL byte, or
/// longer than the OS passes).
pub fn claude_args(invocation: &Invocation) -> Result<Vec<String>, ClaudeCliError> {
    ClaudeCli::new()
        .append_legacy(invocation.legacy)
        .exclude_host_dynamic_sections(!invocation.legacy && invocation.exclude_dynamic)
        .args_for_text(&invocation.system_prompt)
}

/// Writes the invocation's bytes to `dir/kitsoki-instructions.md` and returns
/// the `codex` arguments that point at it:
/// `-c model_instructions_file="PATH"` (a TOML string, as `-c` values are).
///
/// The file is written to a temporary name in `dir` and renamed into place,
/// so a concurrent reader sees the old bytes or the new ones, never half.
///
/// # Errors
/// [`CodexError`] naming the file and the step that failed.
pub fn codex_args(invocation: &Invocation, dir: &Path) -> Result<Vec<String>, CodexError> {
    let path = dir.join(INSTRUCTIONS_FILE);
    codex::write_instructions_text(&invocation.system_prompt, &path)?;
    codex::args(&path)
}

/// The `claude` placement of a call, through [`claude_cli::invocation`]: the
/// stable prefix as `--system-prompt`, the task layer in
/// [`user_prefix`](providers::Invocation::user_prefix). Send
/// `placed.user_message(&invocation.user_message)` as the prompt.
///
/// The legacy path (`inherit_claude_default`) keeps upstream's
/// `--append-system-prompt PERSONA` and has no user prefix.
///
/// `--exclude-dynamic-system-prompt-sections` is not added: Claude Code
/// ignores it with `--system-prompt`.
///
/// # Errors
/// [`ClaudeCliError`] when the system prompt cannot be one argument.
pub fn claude_invocation(invocation: &Invocation) -> Result<providers::Invocation, ClaudeCliError> {
    match &invocation.prompt {
        Some(prompt) if !invocation.legacy => claude_cli::invocation(prompt),
        _ => {
            let mut placed = claude_cli::invocation_for_text("", String::new())?;
            placed.args = ClaudeCli::new()
                .append_legacy(true)
                .args_for_text(&invocation.system_prompt)?;
            Ok(placed)
        }
    }
}

/// The Codex placement of a call, through [`codex::invocation`], with the
/// instructions file (the stable prefix, named by its fingerprint) written
/// atomically into `dir`. Send `placed.user_message(&invocation.user_message)`
/// as the prompt. The legacy path sends the persona as the instructions.
///
/// # Errors
/// [`CodexError`] naming the file and the step that failed.
pub fn codex_invocation(
    invocation: &Invocation,
    dir: &Path,
) -> Result<providers::Invocation, CodexError> {
    let placed = match &invocation.prompt {
        Some(prompt) if !invocation.legacy => codex::invocation(prompt, dir)?,
        _ => codex::invocation_for_text(invocation.system_prompt.clone(), String::new(), dir)?,
    };
    if let Some(file) = &placed.instructions_file {
        codex::write_instructions_text(&file.text, &file.path)?;
    }
    Ok(placed)
}
