//! The standard layer library for `prompt_core`.
//!
//! Each layer is a `#[prompt_layer]` struct in the `"default"` pipeline. A
//! binary that uses these layers must name this crate, or the linker drops it
//! and its layers with it:
//!
//! ```standalone_crate
//! use prompt_layers as _;
//!
//! let pipeline = prompt_core::Pipeline::collect().unwrap();
//! assert!(pipeline.spec("base_prompt").is_some());
//! ```
//!
//! Layers read their input from the contexts: the session context for
//! Stable layers ([`BasePromptText`]), the turn context for Dynamic ones
//! ([`RuntimeFacts`]). Priorities are in [`priorities`], with room between
//! them for a user's own layers.

mod base;
pub mod priorities;
mod runtime;

pub use base::{BasePrompt, BasePromptText, DEFAULT_BASE_PROMPT};
pub use runtime::{RuntimeContext, RuntimeFacts};
