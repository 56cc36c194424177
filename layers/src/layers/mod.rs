//! The standard layers, in prompt order (see [`crate::priorities`]).

mod base;
mod coordinator;
mod dated;
mod memory;
mod project_context;
mod runtime;
mod scratchpad;
mod skills;

pub use base::BasePrompt;
pub use coordinator::{Coordinator, DELEGATE_TOOL, SubAgent, SubAgents, ToolSpec};
pub use dated::{EpisodicRecall, FactsLayer};
pub use memory::{ProjectMemoryLayer, UserPreferencesLayer};
pub use project_context::ProjectContext;
pub use runtime::{RuntimeContext, RuntimeFacts};
pub use scratchpad::ScratchpadLayer;
pub use skills::SkillsIndex;
