//! Arguments for the `claude` CLI (Claude Code).
//!
//! **[`invocation`]** is the placement to use: the stable prefix as
//! `--system-prompt TEXT` (Claude Code sends it as one `system` block with a
//! cache breakpoint, byte-exact), and the dynamic suffix and the reminder as
//! [`Invocation::user_prefix`], to go before the user's words in the first
//! user message. The cached system block is then byte-identical from call to
//! call, whatever the date or the working directory.
//!
//! [`ClaudeCli::args`] is the older form: the **whole** prompt, dynamic suffix
//! included, as `--system-prompt`, so every change of dynamic data rewrites
//! the cached block. What the switches do, as Claude Code 2.1.328 does it:
//!
//! - `--exclude-dynamic-system-prompt-sections` moves Claude Code's **own**
//!   per-machine sections (cwd, environment, memory paths, git status) from
//!   its default system prompt into the first user message. It applies only
//!   to the default system prompt: **with `--system-prompt` it does nothing**
//!   (Claude Code adds none of those sections then anyway).
//! - `--append-system-prompt TEXT` keeps the host's prompt and appends this
//!   one ([`ClaudeCli::append_legacy`]). Given with `--system-prompt`, it is
//!   joined into the **same** system block (`"STABLE\n\nDYNAMIC"`), so it
//!   cannot keep a dynamic part out of the cached block.
//!
//! **[`invocation_with_file`]** is the same placement with the stable prefix
//! in a file (`--system-prompt-file FILE`, which Claude Code sends as the same
//! cached block, byte for byte): the prompt stays out of the process's
//! command line, where every local user can read it (`/proc/PID/cmdline`),
//! and has no length limit. Prefer it when you spawn `claude` yourself;
//! `prompt exec -- claude ...` uses it, and sends each turn's context through
//! a hook (docs/delivery.md).
//!
//! Nothing is spawned: the caller passes the arguments to its own `Command`.
//!
//! ```
//! use prompt_providers::claude_cli;
//! # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
//! # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
//! # struct DocClaudeCli;
//! # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocClaudeCli)]
//! # struct Persona;
//! # #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], text = "Date: 2026-11-29", pipeline = DocClaudeCli)]
//! # struct Today;
//! # let pipeline = Pipeline::of::<DocClaudeCli>()?;
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
//!
//! let invocation = claude_cli::invocation(&prompt)?;
//! assert_eq!(invocation.args, ["--system-prompt", "You are terse."]);
//! let message = invocation.user_message("Fix the test.");
//! assert!(message.starts_with("<system-reminder>\n"));
//! assert!(message.contains("Date: 2026-11-29\n</system-reminder>\n\nFix the test."));
//! // std::process::Command::new("claude").args(&invocation.args).arg("-p").arg(message)
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};

use super::placement::{InstructionsFile, Invocation, system_slot, user_prefix};
use crate::AssembledPrompt;
use crate::fingerprint::Fingerprint;

/// The `claude` placement of `prompt`: `--system-prompt STABLE` as the
/// arguments, the dynamic suffix and the reminder as the user prefix (see the
/// [module docs](self)). On the Basic path the whole prompt is the system
/// prompt and only the reminder goes in the user message.
///
/// # Errors
/// [`ClaudeCliError::Nul`] or [`ClaudeCliError::TooLong`] for a system prompt
/// no argument can carry.
pub fn invocation(prompt: &AssembledPrompt) -> Result<Invocation, ClaudeCliError> {
    invocation_for_text(&system_slot(prompt), user_prefix(prompt))
}

/// The `claude` placement of a system prompt that is already text, and a
/// user prefix (see [`user_prefix`]): for a prompt that
/// an agent finishes after assembly. [`invocation`] is this with the
/// assembled prompt's pieces.
///
/// # Errors
/// As [`invocation`].
pub fn invocation_for_text(
    system: &str,
    user_prefix: String,
) -> Result<Invocation, ClaudeCliError> {
    Ok(Invocation {
        args: ClaudeCli::new().args_for_text(system)?,
        instructions_file: None,
        user_prefix,
    })
}

/// The `claude` placement of `prompt` with the system slot in a file in
/// `dir`: `--system-prompt-file FILE` as the arguments, the file
/// (`system-prompt-<SHA-256 of its text>.md`, holding the stable prefix, or
/// the whole prompt on the Basic path, with no newline added) as
/// [`Invocation::instructions_file`], and the dynamic suffix and the reminder
/// as the user prefix. Nothing is written: call
/// [`InstructionsFile::write`] before starting `claude`. Equal prefixes share
/// a file name, so sessions over one prefix share one file.
///
/// ```
/// use prompt_providers::claude_cli;
/// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
/// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
/// # struct DocClaudeFile;
/// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocClaudeFile)]
/// # struct Persona;
/// # #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], text = "Date: 2026-11-29", pipeline = DocClaudeFile)]
/// # struct Today;
/// # let pipeline = Pipeline::of::<DocClaudeFile>()?;
/// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
///
/// let dir = tempfile::tempdir()?;
/// let invocation = claude_cli::invocation_with_file(&prompt, dir.path())?;
/// let file = invocation.instructions_file.as_ref().expect("claude reads a file");
/// file.write()?; // 0600, atomic
/// assert_eq!(invocation.args, ["--system-prompt-file", file.path.to_str().unwrap()]);
/// assert_eq!(std::fs::read_to_string(&file.path)?, "You are terse.");
/// assert!(invocation.user_message("Fix it.").contains("Date: 2026-11-29"));
/// // std::process::Command::new("claude").args(&invocation.args).arg("-p").arg(message)
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`ClaudeCliError::NotUtf8`] when `dir` is not valid UTF-8.
pub fn invocation_with_file(
    prompt: &AssembledPrompt,
    dir: &Path,
) -> Result<Invocation, ClaudeCliError> {
    let text = system_slot(prompt);
    let path = dir.join(format!("system-prompt-{}.md", Fingerprint::of(&text)));
    let shown = path
        .to_str()
        .ok_or_else(|| ClaudeCliError::NotUtf8 { path: path.clone() })?
        .to_owned();
    Ok(Invocation {
        args: vec!["--system-prompt-file".to_owned(), shown],
        instructions_file: Some(InstructionsFile { path, text }),
        user_prefix: user_prefix(prompt),
    })
}

/// The longest single argument Linux passes to a program (`MAX_ARG_STRLEN`,
/// 32 pages of 4 KiB), in bytes including the terminating NUL.
pub const MAX_ARG_BYTES: usize = 131_072;

/// How the `claude` arguments are built.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClaudeCli {
    exclude_dynamic: bool,
    append: bool,
}

impl ClaudeCli {
    /// Replace the host's system prompt; keep its dynamic sections.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `--exclude-dynamic-system-prompt-sections`: Claude Code moves its
    /// own per-machine sections out of its **default** system prompt. With
    /// `--system-prompt` (every form here but [`append_legacy`](Self::append_legacy))
    /// Claude Code ignores it.
    pub fn exclude_host_dynamic_sections(mut self, exclude: bool) -> Self {
        self.exclude_dynamic = exclude;
        self
    }

    /// Use the legacy `--append-system-prompt`: the host's prompt stays and
    /// this one follows it.
    pub fn append_legacy(mut self, append: bool) -> Self {
        self.append = append;
        self
    }

    /// The arguments, in order: the prompt flag and the **whole** prompt's
    /// text, then any switch. Appending an empty prompt gives no prompt flag.
    ///
    /// The dynamic suffix travels inside the system prompt here; [`invocation`]
    /// keeps it out of the cached block.
    ///
    /// # Errors
    /// [`ClaudeCliError::Nul`] when the prompt holds a NUL byte, which no
    /// argument can carry; [`ClaudeCliError::TooLong`] when it exceeds
    /// [`MAX_ARG_BYTES`], which the OS refuses to pass.
    pub fn args(&self, prompt: &AssembledPrompt) -> Result<Vec<String>, ClaudeCliError> {
        self.args_for_text(&prompt.text())
    }

    /// The arguments for a system prompt that is already text, such as a
    /// persona sent on its own with the legacy form; [`args`](Self::args)
    /// is this with the assembled prompt's text.
    ///
    /// # Errors
    /// As [`args`](Self::args).
    pub fn args_for_text(&self, text: &str) -> Result<Vec<String>, ClaudeCliError> {
        if let Some(offset) = text.find('\0') {
            return Err(ClaudeCliError::Nul { offset });
        }
        if text.len() >= MAX_ARG_BYTES {
            return Err(ClaudeCliError::TooLong { bytes: text.len() });
        }
        let mut args = Vec::with_capacity(3);
        if self.append {
            if !text.is_empty() {
                args.extend(["--append-system-prompt".to_owned(), text.to_owned()]);
            }
        } else {
            args.extend(["--system-prompt".to_owned(), text.to_owned()]);
        }
        if self.exclude_dynamic {
            args.push("--exclude-dynamic-system-prompt-sections".to_owned());
        }
        Ok(args)
    }
}

/// Why a prompt cannot be passed as a `claude` argument.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClaudeCliError {
    /// A NUL byte in the prompt.
    #[error(
        "the prompt has a NUL byte at offset {offset}, which no command-line argument can carry: remove it from the layer or source that wrote it"
    )]
    Nul {
        /// Its byte offset in the prompt.
        offset: usize,
    },
    /// A prompt over the OS's argument limit.
    #[error("the prompt is {bytes} bytes; the OS passes at most {} bytes in one argument: shorten it (a token budget, smaller source caps)", MAX_ARG_BYTES - 1)]
    TooLong {
        /// Its length in bytes.
        bytes: usize,
    },
    /// A folder for the system-prompt file whose path is not UTF-8, which an
    /// argument here cannot carry.
    #[error("{} is not valid UTF-8: put the system-prompt file in a folder whose path is", path.display())]
    NotUtf8 {
        /// The file's path.
        path: PathBuf,
    },
}
