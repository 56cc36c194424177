//! Tools: the definitions a request sends before its system prompt, declared
//! beside the layers and serialized canonically.
//!
//! A provider caches the request prefix in the order tools, system, messages:
//! a tool that moves, or whose schema keys come out in another order, re-bills
//! everything after it. A [`Tool`] is a name, a description and a JSON Schema,
//! with a [`ToolTier`] saying how long it holds. A pipeline takes its stable
//! tools and the slots of the tools a session or turn supplies with each call
//! ([`Pipeline::with_tools`](crate::Pipeline::with_tools)); a tool may name the
//! layer that documents it, and then the two speak together or not at all.
//! [`RequestTools`] is what one call sends: canonical bytes (object keys
//! sorted at every depth; stable tools first, then session, then turn, each
//! tier sorted by name), the same in every process.
//!
//! ```standalone_crate
//! use prompt_core::tools::{RequestTools, Tool, ToolSet};
//! use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder};
//! use serde_json::json;
//!
//! #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "Use `grep` to search.")]
//! struct Search;
//!
//! let grep = Tool::new("grep", "Search files for a pattern.", json!({
//!     "type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]
//! }))
//! .documented_by("search");
//! let pipeline = Pipeline::collect()?.with_tools(ToolSet::new().tool(grep))?;
//! let (session, turn) = (Context::new(), Context::new());
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&session, &turn).unwrap();
//! let tools = pipeline.tools().for_prompt(&prompt, &[], &[]).unwrap();
//! assert_eq!(tools.names().collect::<Vec<_>>(), ["grep"]);
//! assert!(tools.to_json_string().starts_with(r#"[{"description":"Search files"#));
//! # Ok::<(), prompt_core::PipelineError>(())
//! ```

mod canonical;
mod set;

use std::borrow::Cow;
use std::panic::Location;

use serde::Serialize;
use serde_json::Value;

pub use canonical::{RequestTools, ToolFingerprint, canonical_json};
pub use set::{ToolError, ToolSet, ToolSlot};

/// How long a tool's definition holds, which fixes its place in a request:
/// stable tools first, then the session's, then the turn's, so a tool that
/// changes per turn never moves one that does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolTier {
    /// Fixed with the pipeline: the same in every session.
    Stable,
    /// Fixed for one session (e.g. a tool whose schema lists the session's
    /// sub-agents).
    Session,
    /// May change per call.
    Turn,
}

/// A tool definition: name, description and the JSON Schema of its input.
///
/// ```
/// use prompt_core::tools::{Tool, ToolTier};
///
/// let tool = Tool::new("read", "Read a file.", serde_json::json!({"type": "object"}));
/// assert_eq!(tool.name(), "read");
/// assert_eq!(tool.tier(), ToolTier::Stable);
/// assert_eq!(tool.tier_of(ToolTier::Session).tier(), ToolTier::Session);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    name: Cow<'static, str>,
    description: Cow<'static, str>,
    input_schema: Value,
    tier: ToolTier,
    documented_by: Option<&'static str>,
    location: &'static Location<'static>,
}

impl Tool {
    /// A [`ToolTier::Stable`] tool; the declaration's `file:line` is kept for
    /// errors.
    #[track_caller]
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        input_schema: Value,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            input_schema,
            tier: ToolTier::Stable,
            documented_by: None,
            location: Location::caller(),
        }
    }

    /// The same tool in tier `tier`.
    #[must_use]
    pub fn tier_of(mut self, tier: ToolTier) -> Self {
        self.tier = tier;
        self
    }

    /// The same tool, documented by the layer called `layer`: it is sent only
    /// when that layer speaks, and the pipeline must hold that layer.
    #[must_use]
    pub fn documented_by(mut self, layer: &'static str) -> Self {
        self.documented_by = Some(layer);
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its description.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The JSON Schema of its input, as declared (see [`canonical_json`]
    /// for the bytes sent).
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// Its tier.
    pub fn tier(&self) -> ToolTier {
        self.tier
    }

    /// The layer that documents it, if any.
    pub fn documenting_layer(&self) -> Option<&'static str> {
        self.documented_by
    }

    /// `file:line` of its declaration.
    pub fn location(&self) -> String {
        format!("{}:{}", self.location.file(), self.location.line())
    }
}
