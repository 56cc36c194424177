//! Provider requests: an [`AssembledPrompt`] as each API or CLI agent takes it.
//!
//! Pure functions to typed serde values: no network, no SDK. One file per
//! provider:
//!
//! | module | what it builds | where the cache goes |
//! |---|---|---|
//! | [`anthropic`] | a Messages request body | a `cache_control` breakpoint on the stable block |
//! | [`openai`] | a Responses or Chat Completions body | automatic prefix caching, routed by `prompt_cache_key`; for GPT-5.6 and later explicit breakpoints at the end of the stable prefix and its scope boundary |
//! | [`gemini`] | a `generateContent` body, or a `cachedContents` body plus the request that uses it | implicit, or explicit cached content |
//! | [`claude_cli`] | arguments for the `claude` CLI | the host's own caching of its system block |
//! | [`codex`] | an instructions file written atomically, and the `-c` override for `codex` | the host's own caching of its `developer` item |
//!
//! [`simulation`] prices what the cache saves over a session or for a team,
//! at the prices in [`cost`]; [`minimums`] holds the shortest prefix each
//! model caches, each figure with the day it was read and its source.
//!
//! The request builders carry the prompt's reminder (its `channel = Reminder`
//! layers) into the last user message when they are serialized; a request
//! without a user message fails with [`UndeliveredReminder`] instead of
//! dropping it. The CLI placements ([`claude_cli::invocation`],
//! [`codex::invocation`]) put only the stable prefix in the client's system
//! slot and return the dynamic suffix and the reminder as an
//! [`Invocation::user_prefix`] for the first user message.
//!
//! Each request takes the few fields a caller passes: the model, a token
//! limit, and the conversation as provider-neutral [`Message`]s.
//!
//! ```
//! use prompt_core::providers::{anthropic, openai, Message};
//! # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
//! # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
//! # struct DocProviders;
//! # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocProviders)]
//! # struct Persona;
//! # let pipeline = Pipeline::of::<DocProviders>()?;
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
//!
//! let request = anthropic::MessagesRequest::new(&prompt, "claude-sonnet-4-5", 1024)
//!     .message(Message::user("Fix the failing test."));
//! let body = serde_json::to_value(&request)?;
//! assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
//!
//! let chat = openai::ChatRequest::new(&prompt, "gpt-5").message(Message::user("Hi"));
//! assert_eq!(serde_json::to_value(&chat)?["messages"][0]["role"], "system");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`AssembledPrompt`]: crate::AssembledPrompt

pub mod anthropic;
pub mod claude_cli;
pub mod codex;
pub mod cost;
pub mod gemini;
pub mod minimums;
pub mod openai;
pub mod simulation;

mod conversation;
mod message;
mod placement;

/// Why a prompt file ([`InstructionsFile::write`], Codex's instructions) was not written.
pub use crate::write::WriteError;
pub use conversation::UndeliveredReminder;
pub use message::{Message, Role};
pub use placement::{
    CONTEXT_CLOSE, CONTEXT_OPEN, CONTEXT_PREAMBLE, InstructionsFile, Invocation, context_text,
    reminder_block, system_slot, user_prefix,
};
