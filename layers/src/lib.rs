//! The standard layer library for `prompt_core`: a complete coding-agent
//! prompt from the sources every agent reads.
//!
//! | layer | priority | stability | reads |
//! |---|---|---|---|
//! | `base_prompt` | 1000 | Stable | [`sources::BasePromptText`] |
//! | `user_preferences` | 2000 | Stable | [`sources::UserPreferences`] |
//! | `project_memory` | 3000 | Stable | [`sources::ProjectMemory`] |
//! | `project_context` | 4000 | Stable | [`sources::ProjectDocs`] |
//! | `skills_index` | 5000 | Stable | [`sources::SkillIndex`] |
//! | `facts` | 6000 | Stable | [`sources::Facts`] |
//! | `episodic_recall` | 7000 | Stable | [`sources::Episodes`] |
//! | `coordinator` | 8000 | Stable | [`SubAgents`] |
//! | `runtime_context` | 10000 | Dynamic | [`RuntimeFacts`] |
//! | `scratchpad` | 11000 | Dynamic | [`sources::Scratchpad`] |
//!
//! Every layer is in the `"default"` pipeline. A binary that uses them must
//! name this crate, or the linker drops it and its layers with it:
//!
//! ```standalone_crate
//! use prompt_core::{Context, Pipeline, PromptBuilder};
//! use prompt_layers::{load_session, RuntimeFacts, SessionConfig};
//!
//! let workspace = tempfile::tempdir().unwrap();
//! std::fs::write(workspace.path().join("AGENTS.md"), "Run `make test` before you commit.").unwrap();
//!
//! let session = load_session(&SessionConfig::new("agent", workspace.path())).unwrap();
//! let turn = Context::new().with(RuntimeFacts { model: Some("opus".into()), ..Default::default() });
//! let pipeline = Pipeline::collect().unwrap();
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&session, &turn);
//!
//! assert!(prompt.stable().contains("# Project context\n\n## AGENTS.md\n\nRun `make test`"));
//! assert!(prompt.dynamic().contains("- Model: opus"));
//! ```
//!
//! Layers are pure: [`load_session`] and the loaders in [`sources`] do all
//! the reading, before assembly. Priorities are in [`priorities`], with room
//! between them for a user's own layers.

mod layers;
pub mod priorities;
mod session;
pub mod sources;

pub use layers::*;
pub use session::{ConfigError, SessionConfig, load_session};
pub use sources::DEFAULT_BASE_PROMPT;
