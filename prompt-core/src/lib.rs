//! Declarative, layered LLM system prompts.
//!
//! A layer is a struct with an attribute. The attribute writes its
//! [`PromptLayer`] impl, registers it at link time, and checks at compile time
//! that its priority lies in its stability's band and that `after`/`before`
//! relations hold. At run time a [`Pipeline`] collects the layers, sorted by
//! priority (so every Stable layer precedes every Dynamic one), and a
//! [`PromptBuilder`] assembles them into a cacheable stable prefix plus a
//! dynamic suffix.
//!
//! ```standalone_crate
//! use prompt_core::{prompt_layer, Context, LayerInput, Pipeline, PromptBuilder, Render};
//!
//! /// Who the agent is.
//! #[prompt_layer(priority = 100, stability = Stable, paths = [Basic, Cached])]
//! pub struct Persona;
//!
//! impl Render for Persona {
//!     fn render(&self, out: &mut String, _input: &LayerInput<'_>) {
//!         out.push_str("You are a careful coding agent.");
//!     }
//! }
//!
//! /// The model answering this call: a per-turn fact.
//! pub struct Model(pub String);
//!
//! /// Runtime facts, rendered per call and never cached.
//! #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached])]
//! pub struct Runtime;
//!
//! impl Render for Runtime {
//!     fn render(&self, out: &mut String, input: &LayerInput<'_>) {
//!         if let Some(Model(model)) = input.get::<Model>() {
//!             out.push_str("Model: ");
//!             out.push_str(model);
//!         }
//!     }
//! }
//!
//! let pipeline = Pipeline::collect()?;
//! let turn = Context::new().with(Model("opus".into()));
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &turn);
//!
//! assert_eq!(prompt.stable(), "You are a careful coding agent.");
//! assert_eq!(prompt.dynamic(), "Model: opus");
//! assert!(prompt.parts()[0].cache && !prompt.parts()[1].cache);
//! # Ok::<(), prompt_core::PipelineError>(())
//! ```
//!
//! A crate that defines layers is only linked when something names it: a
//! binary that uses a layer crate without naming any item writes
//! `use my_layers as _;`. Snapshot [`Pipeline::manifest`] to catch a dropped
//! crate in review.

mod assembly;
mod context;
mod fingerprint;
mod layer;
mod pipeline;
mod registry;
pub mod secrets;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use assembly::{
    AssembledPrompt, AssemblyTrace, DEFAULT_SEPARATOR, LayerTrace, PromptBuilder, PromptSession,
    SystemPromptPart,
};
pub use context::{Context, LayerInput};
pub use fingerprint::Fingerprint;
pub use layer::{
    AssemblyPath, LayerSpec, ParseEnumError, PromptLayer, PromptMode, Render, Stability,
};
pub use pipeline::{DEFAULT_PIPELINE, LayerEntry, LayerRef, Pipeline, PipelineError, Problem};
pub use registry::pipeline_names;

/// The README's example, run as a doctest so it cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// Declares a prompt layer. See the crate docs and `DESIGN.md` for every key.
///
/// ```
/// use prompt_core::{prompt_layer, PromptLayer, Stability};
///
/// #[prompt_layer(priority = 5, stability = Stable, paths = [Cached], text = "Be kind.", pipeline = "doc")]
/// struct Kind;
///
/// assert_eq!(Kind::SPEC.name, "kind");
/// assert_eq!(Kind::SPEC.stability, Stability::Stable);
/// ```
pub use prompt_macros::prompt_layer;
