//! Assembly: rendering a pipeline's layers into a prompt.

mod builder;
mod error;
mod prompt;
mod render;
mod session;
mod text;
mod trace;

pub use builder::PromptBuilder;
pub use error::AssemblyError;
pub use prompt::{AssembledPrompt, SystemPromptPart};
pub use session::PromptSession;
pub use text::PromptText;
pub use trace::{AssemblyTrace, LayerTrace, LayerTraces, LayerTracesIter, ScopeGroup};
