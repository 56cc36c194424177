//! The standard layers, in prompt order (see [`crate::priorities`]).
//!
//! Naming rule: a layer type is named after the prompt section it writes and
//! ends in `Layer` (`SkillsIndexLayer`); the source type it reads never does
//! (`SkillIndex`). The layer's name is the type's without `Layer`, in snake_case.

use std::path::{Component, Path};

mod base;
mod coordinator;
mod coordinator_tools;
mod dated;
mod memory;
mod project_context;
mod quoted_files;
mod runtime;
mod scratchpad;
mod skills;

pub use base::BasePromptLayer;
pub use coordinator::{CoordinatorLayer, DELEGATE_TOOL, SubAgent, SubAgents, ToolSpec};
pub use dated::{EpisodicRecallLayer, FactsLayer};
pub use memory::{ProjectMemoryLayer, UserPreferencesLayer};
pub use project_context::ProjectContextLayer;
pub use quoted_files::{QUOTED_FILES_RULE, QuotedFilesLayer};
pub use runtime::{RuntimeContextLayer, RuntimeFacts};
pub use scratchpad::ScratchpadLayer;
pub use skills::SkillsIndexLayer;

/// The last `n` components of `path` (`.agent/memory/project.md`): enough to
/// name a file in a note, and the same on every machine.
fn short_path(path: &Path, n: usize) -> String {
    let parts: Vec<String> = path
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts[parts.len().saturating_sub(n)..].join("/")
}
