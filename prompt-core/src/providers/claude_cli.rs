//! Arguments for the `claude` CLI (Claude Code): the assembled prompt as its
//! system prompt.
//!
//! By default the prompt replaces the host's own (`--system-prompt TEXT`).
//! [`ClaudeCli::exclude_host_dynamic_sections`] adds
//! `--exclude-dynamic-system-prompt-sections`, for a prompt that carries its
//! own runtime facts, so the host does not add its per-call sections (which
//! would also break its prompt cache). The legacy form,
//! `--append-system-prompt TEXT`, keeps the host's prompt and appends this one;
//! it is only used when asked for with [`ClaudeCli::append_legacy`].
//!
//! Nothing is spawned: the caller passes the arguments to its own `Command`.
//!
//! ```
//! use prompt_core::providers::claude_cli::ClaudeCli;
//! # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
//! # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
//! # struct DocClaudeCli;
//! # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocClaudeCli)]
//! # struct Persona;
//! # let pipeline = Pipeline::of::<DocClaudeCli>()?;
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
//!
//! let args = ClaudeCli::new().exclude_host_dynamic_sections(true).args(&prompt)?;
//! assert_eq!(
//!     args,
//!     ["--system-prompt", "You are terse.", "--exclude-dynamic-system-prompt-sections"]
//! );
//! // std::process::Command::new("claude").args(&args).arg("-p").arg("Fix the test.")
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::AssembledPrompt;

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

    /// Whether the caller's prompt excludes the host's own dynamic sections
    /// (`--exclude-dynamic-system-prompt-sections`).
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

    /// The arguments, in order: the prompt flag and text, then any switch.
    /// Appending an empty prompt gives no prompt flag.
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
}
