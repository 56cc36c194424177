//! Provider requests: an [`AssembledPrompt`] as each API or CLI agent takes it.
//!
//! Pure functions to typed serde values: no network, no SDK. One file per
//! provider:
//!
//! | module | what it builds | where the cache goes |
//! |---|---|---|
//! | [`anthropic`] | a Messages request body | a `cache_control` breakpoint on the stable block |
//! | [`openai`] | a Responses or Chat Completions body | automatic prefix caching, routed by `prompt_cache_key`; for GPT-5.6 and later explicit breakpoints at the end of the stable prefix and its scope boundary |
//! | [`bedrock`] | an Amazon Bedrock Converse (or ConverseStream) body, for Claude models | a `cachePoint` block after the tools, at the scope cut and the stable end, and at the conversation's frontier, placed by the same [`plan`] as the Anthropic body |
//! | [`gemini`] | a `generateContent` body, or a `cachedContents` body plus the request that uses it | implicit, or explicit cached content |
//! | [`claude_cli`] | arguments for the `claude` CLI | the host's own caching of its system block |
//! | [`codex`] | an instructions file written atomically, and the `-c` override for `codex` | the host's own caching of its `developer` item |
//!
//! A conversation goes in as a [`History`], kept exactly as it was sent (the
//! per-turn block at the head of each user turn included) and only appended
//! to, so each request's messages begin with the previous request's and the
//! whole history is read from the cache; [`plan`] decides every breakpoint of
//! the request (tools, scope cuts, stable end, the conversation's frontier)
//! within the provider's limit.
//!
//! [`affinity`] keys a request's route to the provider's cache by the scopes
//! its prefix shares, the same on every replica, sharded past the provider's
//! per-key rate, and hands the same key to a gateway as a header.
//!
//! [`simulation`] prices what the cache saves over a session or for a team,
//! at the prices in [`cost`]; [`minimums`] holds the shortest prefix each
//! model caches, each figure with the day it was read and its source;
//! [`lifetimes`], the cache-lifetime fields (`prompt_cache_options.ttl`,
//! `prompt_cache_retention`, `cache_control.ttl`) and the values each model
//! takes, dated the same way.
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
//! use prompt_providers::{anthropic, openai, Message};
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
//! [`AssembledPrompt`]: prompt_core::AssembledPrompt
//!
//! [`observe`] reads what came back: usage from the providers' responses, a
//! ledger of what was sent and what came back, a verdict with the cause of
//! each miss, recorded on the request's `tracing` span under the
//! OpenTelemetry GenAI names (and, with feature `otel`, the token metric).
//!
//! This package is released on its own: a new minimum, price or response
//! field is a release of `prompt-providers`, never of `prompt-core`.

#![cfg_attr(docsrs, feature(doc_cfg))]

// The paths these modules were written against inside prompt-core
// (`crate::providers::…`, `crate::spec::…`, `crate::diff::…`), kept so they
// read as they did.
use crate as providers;
use prompt_checks::{diff, write};
#[allow(unused_imports)] // `AssemblyTrace`: for the modules' doc links
use prompt_core::{
    AssembledPrompt, AssemblyPath, AssemblyTrace, assembly, fingerprint, spec, text, tokens,
};

pub mod observe;

pub mod affinity;
pub mod anthropic;
pub mod bedrock;
pub mod claude_cli;
pub mod codex;
pub mod cost;
pub mod gemini;
pub mod keepalive;
pub mod lifetimes;
pub mod minimums;
pub mod openai;
pub mod plan;
pub mod simulation;

mod conversation;
mod history;
mod message;
mod mid_conversation;
mod placement;

/// Why a prompt file ([`InstructionsFile::write`], Codex's instructions) was not written.
pub use crate::write::WriteError;
pub use conversation::UndeliveredReminder;
pub use history::{ContextChannel, History, HistoryError};
pub use message::{Message, Role};
pub use placement::{
    CONTEXT_CLOSE, CONTEXT_OPEN, CONTEXT_PREAMBLE, InstructionsFile, Invocation, context_text,
    reminder_block, system_slot, user_prefix,
};

/// This package's crates.io README, run as a doctest so it cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
