//! prompt-core's assembled prompts in the request types of the Rust clients
//! agents send with, and those clients' usage back into prompt-core's cache
//! ledger.
//!
//! A Rust agent does not send prompt-core's serde bodies itself: it sends
//! through a client crate, and each client decides where its system prompt
//! goes and where a cache breakpoint lands. Passed naively (the prompt's two
//! parts as two system messages), a client marks the *dynamic* part, and
//! every call writes the whole prefix again. This crate builds each client's
//! own request type with prompt-core's placement ([`Placement`]): the stable
//! prefix cached, breakpoints at scope boundaries where the client can
//! express them, the dynamic suffix outside every cached block, the
//! reminder in the latest user message, `prompt_cache_key` where the
//! provider takes one. It then reads the client's usage type as a
//! [`CacheUsage`](prompt_providers::observe::CacheUsage) for
//! [`CacheLedger::received`](prompt_providers::observe::CacheLedger::received).
//!
//! | feature | client | request | usage | what the client cannot carry |
//! |---|---|---|---|---|
//! | `rig` | rig-core 0.44 | `rig::completion_request` (Anthropic) | `rig::cache_usage` | the scope breakpoint; the dynamic suffix in the system prompt (it goes in the latest user turn); a breakpoint on a message (the conversation's frontier), so the history is never read from the cache |
//! | `genai` | genai 0.7 (from 0.7.2) | `genai::chat_request` or, with a [`History`](prompt_providers::History), `genai::chat_request_with_history`; + `genai::chat_options` (Anthropic, OpenAI) | `genai::cache_usage` | OpenAI Responses breakpoints off `api.openai.com`; a mid-conversation system message |
//! | `async-openai` | async-openai 0.43 | `async_openai::chat_request`, `async_openai::responses_request`, or with a `History` `async_openai::chat_request_with_history`, `async_openai::responses_request_with_history` | `async_openai::chat_cache_usage`, `async_openai::response_cache_usage` | Chat's `prompt_cache_retention` |
//! | `loopback` | — | `loopback::Loopback`: a capture server for your own wire tests | | |
//!
//! No feature is on by default. The clients break often; their types appear
//! only in this crate, whose version moves with theirs (its
//! [changelog](https://github.com/prompt-layers/prompt-layers/blob/main/prompt-core/clients/CHANGELOG.md)
//! names the versions each release supports), never in prompt-core's.
//!
//! A request through rig, in a server holding many sessions:
//!
//! ```no_run
//! # #[cfg(feature = "rig")]
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use prompt_clients::rig::{cache_prefix, cache_usage, completion_request};
//! use prompt_providers::observe::{CacheLedger, Sent};
//! use prompt_core::{Context, Pipeline, PromptBuilder};
//! use rig_core::message::Message;
//! use rig_core::providers::anthropic::{Anthropic, completion::CacheTtl};
//!
//! const MODEL: &str = "claude-sonnet-4-6";
//! let model = cache_prefix(Anthropic::from_env()?.completion(MODEL), CacheTtl::FiveMinutes);
//! let session = PromptBuilder::new(Pipeline::global()?).session(Context::new());
//! let mut ledger = CacheLedger::new();
//!
//! let prompt = session.build_cached(&Context::new())?;
//! let placed = completion_request(&prompt, [Message::user("Fix the failing test.")])?;
//! let id = ledger.sent(&prompt, placed.sent(MODEL, prompt_providers::observe::Timestamp::now()).conversation("c-1"));
//! let response = model.call(placed.request).await?;
//! println!("{}", ledger.received(id, &cache_usage(&response.usage)?)?);
//! # Ok(())
//! # }
//! ```
//!
//! Below the model's minimum cacheable length a provider caches nothing
//! and says nothing: check the prompt with
//! [`check_cache_minimum`](prompt_providers::anthropic::check_cache_minimum)
//! before the first call, whichever client sends it.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod placed;
mod placement;
mod usage;

#[cfg(feature = "async-openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "async-openai")))]
pub mod async_openai;
#[cfg(feature = "genai")]
#[cfg_attr(docsrs, doc(cfg(feature = "genai")))]
pub mod genai;
#[cfg(feature = "loopback")]
#[cfg_attr(docsrs, doc(cfg(feature = "loopback")))]
pub mod loopback;
#[cfg(feature = "rig")]
#[cfg_attr(docsrs, doc(cfg(feature = "rig")))]
pub mod rig;

pub use placed::Placed;
pub use placement::{Placement, PlacementError, SystemBlock, SystemSlot};
pub use usage::UsageError;

/// This package's crates.io README, run as a doctest (against the loopback
/// server) so it cannot drift from the code.
#[cfg(all(doctest, feature = "rig", feature = "loopback"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
