//! `# Sub-agents`: the coordinator workflow, and the tool it names.
//!
//! The layer and the tool are enabled by one context value, [`SubAgents`], so
//! the prompt never advertises a tool the session does not have.

use prompt_core::{Context, LayerInput, LayerWriter, Render, Stable, prompt_layer};
use serde::Serialize;

use crate::priorities;

/// The name of the delegation tool the coordinator workflow refers to.
pub const DELEGATE_TOOL: &str = "delegate";

/// A sub-agent the main agent may delegate to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SubAgent {
    /// Its name, as the tool's `agent` argument takes it.
    pub name: String,
    /// What it is good at.
    pub description: String,
}

/// The sub-agents of a session. Put it in the session context to enable both
/// the `coordinator` layer and [`SubAgents::tool`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubAgents(pub Vec<SubAgent>);

// The session declares its sub-agents: the coordinator layer is Stable.
impl prompt_core::SessionValue for SubAgents {}

/// A tool definition, as providers take it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolSpec {
    /// The tool's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of its input.
    pub input_schema: serde_json::Value,
}

impl SubAgents {
    /// The delegation tool, when there is at least one sub-agent: exactly when
    /// the `coordinator` layer speaks.
    pub fn tool(&self) -> Option<ToolSpec> {
        if self.0.is_empty() {
            return None;
        }
        let names: Vec<&str> = self.0.iter().map(|a| a.name.as_str()).collect();
        Some(ToolSpec {
            name: DELEGATE_TOOL.to_owned(),
            description: "Hand a self-contained task to a sub-agent and get its result back."
                .to_owned(),
            input_schema: serde_json::json!({
                "type": "object",
                "properties": {
                    "agent": { "type": "string", "enum": names },
                    "task": { "type": "string", "description": "The whole task: the sub-agent sees nothing else." }
                },
                "required": ["agent", "task"]
            }),
        })
    }

    /// The tools the session's sub-agents enable: [`SubAgents::tool`] of the
    /// session context's value, if any.
    pub fn tools_for(session: &Context) -> Vec<ToolSpec> {
        session
            .get::<SubAgents>()
            .and_then(SubAgents::tool)
            .into_iter()
            .collect()
    }
}

/// `# Sub-agents`: when and how to delegate, naming each sub-agent.
#[prompt_layer(
    priority = priorities::COORDINATOR,
    stability = Stable,
    scope = Session,
    paths = [Cached],
    modes = [Full, Compact],
    silent = "the session context declares SubAgents (then the delegate tool is enabled too)",
    pipeline = []
)]
pub struct CoordinatorLayer;

impl Render<Stable> for CoordinatorLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        let Some(agents) = input.get::<SubAgents>().filter(|a| a.tool().is_some()) else {
            input.note("no sub-agents declared");
            return;
        };
        out.push_str("# Sub-agents\n\n");
        let _ = writeln!(
            out,
            "Use the `{DELEGATE_TOOL}` tool for self-contained work that would crowd your context: \
             give the sub-agent the whole task, since it sees nothing else, then check its result \
             before you rely on it. Do the work yourself when it is small or needs this conversation."
        );
        for agent in &agents.0 {
            let _ = write!(
                out,
                "\n- {}: {}",
                crate::sources::one_line(&agent.name),
                crate::sources::one_line(&agent.description)
            );
        }
    }
}

impl SubAgent {
    /// A sub-agent the coordinator may start: its `name` and what it does.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
        }
    }
}

impl ToolSpec {
    /// A tool named `name`, described by `description`, taking input of
    /// JSON Schema `input_schema`.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: serde_json::Value,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            input_schema,
        }
    }
}
