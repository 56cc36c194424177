//! The standard layer library for `prompt_core`: a complete coding-agent
//! prompt from the sources every agent reads.
//!
//! | layer | type | priority | stability | scope | reads |
//! |---|---|---|---|---|---|
//! | `base_prompt` | [`BasePromptLayer`] | 1000 | Stable | Global | [`sources::BasePromptText`] |
//! | `quoted_files` | [`QuotedFilesLayer`] | 1001 | Stable | Global | nothing: [`QUOTED_FILES_RULE`], the rule on `<file>` quotes, which no base prompt override replaces |
//! | `project_memory` | [`ProjectMemoryLayer`] | 2000 | Stable | Project | [`sources::ProjectMemory`] |
//! | `project_context` | [`ProjectContextLayer`] | 3000 | Stable | Project | [`sources::ProjectDocs`] |
//! | `skills_index` | [`SkillsIndexLayer`] | 4000 | Stable | Project | [`sources::SkillIndex`] |
//! | `user_preferences` | [`UserPreferencesLayer`] | 5000 | Stable | User | [`sources::UserPreferences`] |
//! | `facts` | [`FactsLayer`] | 6000 | Stable | User | [`sources::Facts`] |
//! | `episodic_recall` | [`EpisodicRecallLayer`] | 7000 | Stable | User | [`sources::Episodes`] |
//! | `coordinator` | [`CoordinatorLayer`] | 8000 | Stable | Session | [`SubAgents`] |
//! | `runtime_context` | [`RuntimeContextLayer`] | 10000 | Dynamic | | [`RuntimeFacts`] |
//! | `scratchpad` | [`ScratchpadLayer`] | 11000 | Dynamic | | [`sources::Scratchpad`] |
//!
//! **Naming rule.** A layer type is named after the prompt section it writes
//! and ends in `Layer` (`SkillsIndexLayer`, `ProjectContextLayer`,
//! `FactsLayer`); a source type, which loads what a layer reads, never does
//! (`SkillIndex`, `ProjectDocs`, `Facts`). A layer's name (in traces and the
//! manifest) is its type's without `Layer`, in snake_case (`skills_index`).
//!
//! Every layer is **include-only** (`pipeline = []`): it joins no pipeline
//! until one includes it, so linking this crate (for one source, one set)
//! changes no existing prompt, your default pipeline included. A pipeline
//! takes them with `include = [..]`, all at once ([`Standard`]), by theme
//! ([`MemoryLayers`], [`ProjectLayers`]) or one by one, narrowed where it
//! says so; [`StandardPipeline`] is the pipeline of them all. To replace
//! one, include the others (or `without` and `with_layer` on the collected
//! pipeline). Naming a set or a layer links this crate:
//!
//! ```
//! use prompt_core::{Context, Pipeline, PromptBuilder};
//! use prompt_layers::{load_session, RuntimeFacts, SessionConfig, StandardPipeline};
//!
//! let workspace = tempfile::tempdir().unwrap();
//! std::fs::write(workspace.path().join("AGENTS.md"), "Run `make test` before you commit.").unwrap();
//!
//! let session = load_session(&SessionConfig::new("agent", workspace.path())).unwrap();
//! let turn = Context::new().with(RuntimeFacts::default().model("opus"));
//! let pipeline = Pipeline::of::<StandardPipeline>().unwrap();
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&session, &turn).unwrap();
//!
//! // File text is quoted: `<file path="…">` … `</file>`.
//! assert!(prompt.stable().contains("# Project context\n\n<file path=\"AGENTS.md\">\nRun `make test`"));
//! assert!(prompt.dynamic().contains("- Model: opus"));
//! ```
//!
//! Layers are pure: [`load_session`] and the loaders in [`sources`] do all
//! the reading, before assembly. Priorities are in [`priorities`], with room
//! between them for a user's own layers.

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod priorities;
mod session;
mod sets;
pub mod sources;
mod standard;

pub use session::{ConfigError, SessionConfig, load_session};
pub use sets::{MemoryLayers, ProjectLayers, Standard, StandardPipeline};
pub use standard::{
    BasePromptLayer, CoordinatorLayer, DELEGATE_TOOL, EpisodicRecallLayer, FactsLayer,
    ProjectContextLayer, ProjectMemoryLayer, QUOTED_FILES_RULE, QuotedFilesLayer,
    RuntimeContextLayer, RuntimeFacts, ScratchpadLayer, SkillsIndexLayer, SubAgent, SubAgents,
    ToolSpec, UserPreferencesLayer,
};

/// This package's crates.io README, run as a doctest so it cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
