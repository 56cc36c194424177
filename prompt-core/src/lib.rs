//! Declarative, layered LLM system prompts.
//!
//! A layer is a struct with an attribute. The attribute writes its
//! [`PromptLayer`] impl, registers it at link time, and checks at compile time
//! that its priority lies in its stability's band, that `after`/`before`
//! relations hold and that its pipeline serves every path and mode it lists.
//! At run time a [`Pipeline`] collects the layers, sorted by priority (so
//! every Stable layer precedes every Dynamic one), and a [`PromptBuilder`]
//! assembles them into a cacheable stable prefix plus a dynamic suffix.
//!
//! ```standalone_crate
//! use prompt_core::{prompt_layer, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render, Stable, TurnValue};
//!
//! /// Who the agent is.
//! #[prompt_layer(priority = 100, stability = Stable, paths = [Basic, Cached])]
//! pub struct PersonaLayer;
//!
//! // A Stable layer's band is `Stable`: its input reads session values only.
//! impl Render<Stable> for PersonaLayer {
//!     fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_, Stable>) {
//!         out.push_str("You are a careful coding agent.");
//!     }
//! }
//!
//! /// The model answering this call: a per-turn fact. Declared once, so a
//! /// Stable layer reading it is a compile error, not an empty layer.
//! pub struct Model(pub String);
//! impl TurnValue for Model {}
//!
//! /// Runtime facts, rendered per call and never cached.
//! #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached])]
//! pub struct RuntimeLayer;
//!
//! impl Render for RuntimeLayer {
//!     fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
//!         if let Some(Model(model)) = input.get::<Model>() {
//!             out.push_str("Model: ");
//!             out.push_str(model);
//!         }
//!     }
//! }
//!
//! let pipeline = Pipeline::collect()?;
//! let turn = Context::new().with(Model("opus".into()));
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &turn)?;
//!
//! assert_eq!(prompt.stable(), "You are a careful coding agent.");
//! assert_eq!(prompt.dynamic(), "Model: opus");
//! assert!(prompt.parts()[0].cache && !prompt.parts()[1].cache);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Adding a layer
//!
//! 1. Declare a struct with [`#[prompt_layer(..)]`](macro@prompt_layer) in any
//!    crate that depends on `prompt-core` (the only dependency it needs). Name
//!    it after the prompt section it writes, ending in `Layer`
//!    (`HouseRulesLayer`), so it is never confused with the source it reads.
//! 2. Pick a **stability**: `Stable` if its text is the same for every call of
//!    a session (priority in `0..10_000`), `Dynamic` if it may change per call
//!    (`10_000..20_000`).
//! 3. Give it text: `text = "..."`, `file = "prompts/x.md"`, or a [`Render`]
//!    impl (`Render<Stable>` for a Stable layer) formatting from
//!    `LayerInput::get` into its [`LayerWriter`]; each context value declares
//!    its lifetime once ([`SessionValue`], [`TurnValue`]). Layers are pure: load files before
//!    assembly and put the result in the session [`Context`].
//! 4. Make sure every binary links the crate: name it from the library that
//!    builds your pipeline (`use my_layers as _;`), not only from `main.rs`,
//!    so tests see the same layers as the shipped binary (your package's
//!    own library counts: its `main.rs` must name it too). State the crate
//!    so a dropped one is an error: `#[prompt_pipeline(require_crates = [my_layers])]`
//!    on a pipeline you declare (checked whenever it is collected, and by
//!    `prompt_checks::testing::check_pipelines`, the free test), or
//!    [`Pipeline::require_crates`] on a pipeline you collect at run time.
//! 5. Snapshot [`Pipeline::manifest`] in a test: a dropped, moved or
//!    re-prioritised layer shows up in review.
//!
//! The attribute's every key and every rejection are documented at
//! [`prompt_layer`](macro@prompt_layer); pipelines other than the default are
//! declared with [`prompt_pipeline`](macro@prompt_pipeline).
//!
//! # Features
//!
//! The default build is the runtime: layers, context, registry, pipeline,
//! assembly, budget, tokens and fingerprints. The tools are packages of
//! their own, released on their own, so a crate that only declares and
//! assembles layers compiles none of them (nor `regex`, `serde_json` or the
//! Unicode tables):
//!
//! | package | what it holds |
//! |---|---|
//! | `prompt-layers` | the standard layers and the hardened sources they read |
//! | `prompt-cli` | the `prompt` CLI as a library |
//! | `prompt-providers` | provider requests (Anthropic, OpenAI, Gemini, Claude Code, Codex) with their dated vendor data (minimums, prices), and `observe`: usage read from the providers' responses, the cache ledger and its verdicts |
//! | `prompt-checks` | `testing` (annotated renderings, the free test), `diff` (why two renderings do not share their stable prefix), `contract` (the reference agents' checks and byte ratchets), `secrets` (a scan for credential-shaped strings), `write` (the tools' safe file writes) |
//! | `prompt-clients` | the prompt in rig's, genai's and async-openai's request types |
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `text` | no | `text`: the invisible characters and the tag matcher (NFKC, UTS #39 confusables) file text is cleaned and quoted with; pulls the Unicode tables |
//! | `tiktoken` | no | `tokens::O200kBase`, `tokens::Cl100kBase`: exact OpenAI token counts |

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod spec;

pub mod assembly;
pub mod budget;
mod checks;
pub mod context;
pub mod fingerprint;
mod layer;
mod layer_set;
pub mod pipeline;
mod registry;

// The invisible set, the line separators and the tag matcher: what
// prompt-layers' sources clean and quote file text with, and what the tools
// escape it with (feature `text`; the runtime never folds text).
#[cfg(feature = "text")]
pub mod text;
pub mod tokens;
pub mod tools;

#[doc(hidden)]
#[path = "private_v1.rs"]
pub mod __private_v1;

// The names a layer author writes every day (23 items and the two
// attributes; both bands, `Stable` and `Dynamic`, as a `Render<B>` impl
// names one or the other). The rest lives in the module named by what it holds:
// `context` (`SessionContext`, `SessionOrTurnValue`), `pipeline`
// (`LayerEntry`, `LayerSet`, problems, `pipeline_names`), `spec` (`Scope`,
// `Channel`, `Yields`, `PipelineSpec`, `PromptPipeline`,
// `DefaultPipeline`, links, the default constants), `assembly` (traces,
// `PrefixCache`, `PromptText`), `budget`, `tokens`, `fingerprint`, and the tools.
pub use assembly::{
    AssembledPrompt, AssemblyError, AssemblyTrace, PromptBuilder, PromptSession, SystemPromptPart,
};
pub use budget::TokenBudget;
pub use context::{Context, Dynamic, LayerInput, SessionValue, Stable, TurnContext, TurnValue};
pub use layer::{LayerWriter, PromptLayer, Render};
pub use pipeline::{Pipeline, PipelineError};
pub use spec::{AssemblyPath, LayerSpec, PromptMode, Stability};

/// This package's crates.io README, run as a doctest so it cannot drift from
/// the code. The repository's README and guides are tested by `prompt-tests`,
/// outside this package.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[doc = include_str!("../docs/prompt_layer.md")]
#[doc(inline)]
pub use prompt_macros::prompt_layer;

#[doc = include_str!("../docs/prompt_pipeline.md")]
#[doc(inline)]
pub use prompt_macros::prompt_pipeline;
