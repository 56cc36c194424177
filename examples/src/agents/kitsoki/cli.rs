//! The system-prompt arguments of the `claude` and `codex` command lines.
//!
//! Both delegate to `prompt_core::providers` ([`claude_cli`](prompt_core::providers::claude_cli), [`codex`]), the
//! one implementation of these command lines: kitsoki only decides which form
//! a call gets (composed or legacy, with or without Claude Code's dynamic
//! sections) and where the Codex instructions file lives.

use std::path::Path;

use prompt_core::providers::claude_cli::{ClaudeCli, ClaudeCliError};
use prompt_core::providers::codex::{self, CodexError};

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
