//! Sources: everything that is read from disk, before assembly.
//!
//! Layers are pure; the I/O lives here. Each loader returns its value with
//! any [`SourceError`]s inside (naming the file), never a panic and never a
//! silent cut. [`crate::load_session`] runs them all and puts the results in
//! a session [`Context`](prompt_core::Context) for the layers to read.

mod base_prompt;
mod capped;
mod dated;
mod discover;
mod error;
mod memory;
mod project_docs;
mod scratchpad;
mod skills;
mod templates;

pub use base_prompt::{BasePromptConfig, BasePromptText, DEFAULT_BASE_PROMPT, PromptOrigin};
pub use capped::{CappedText, cut, read_capped};
pub use dated::{Budget, Dated, DatedEntries, Episodes, Facts, approx_tokens};
pub use discover::{find_upward, repo_root};
pub use error::SourceError;
pub use memory::{MemoryFile, ProjectMemory, UserPreferences};
pub use project_docs::{PROJECT_DOC_NAMES, ProjectDoc, ProjectDocs, ProjectDocsConfig};
pub use scratchpad::{SCRATCHPAD_CAP, Scratchpad};
pub use skills::{SKILL_READ_CAP, Skill, SkillIndex, parse_skill};
pub use templates::{SHARED_PREFIX, TEMPLATE_CAP, Templates};
