//! Assembly: rendering a pipeline's layers into a prompt.

mod builder;
mod error;
mod intern;
mod prompt;
mod render;
mod session;
mod text;
mod tools;
mod trace;

pub use builder::PromptBuilder;
pub use error::AssemblyError;
pub use intern::PrefixCache;
pub use prompt::{AssembledPrompt, SystemPromptPart};
pub use session::PromptSession;
pub use text::PromptText;
pub use trace::{AssemblyTrace, LayerTrace, LayerTraces, LayerTracesIter, ScopeGroup, StableTrace};
