//! The tools a pipeline declares beside its layers, checked against them.

use std::collections::BTreeMap;

use super::{Pipeline, PipelineError, Problem};
use crate::tools::ToolSet;

impl Pipeline {
    /// The same pipeline with the tools `tools` (replacing any it had),
    /// checked as its layers are: every tool and slot names a layer the
    /// pipeline holds in `documented_by`, and no two share a name. Each
    /// problem names the declaration's `file:line`.
    ///
    /// ```standalone_crate
    /// use prompt_core::tools::{Tool, ToolSet};
    /// use prompt_core::{prompt_layer, Pipeline};
    ///
    /// #[prompt_layer(priority = 1, stability = Stable, paths = [Basic], text = "Delegate with `agent`.")]
    /// struct Coordinator;
    ///
    /// let agent = Tool::new("agent", "Start a worker.", serde_json::json!({"type": "object"}));
    /// let ok = ToolSet::new().tool(agent.clone().documented_by("coordinator"));
    /// assert_eq!(Pipeline::collect()?.with_tools(ok)?.tools().tools().len(), 1);
    /// let wrong = ToolSet::new().tool(agent.documented_by("cordinator"));
    /// let error = Pipeline::collect()?.with_tools(wrong).unwrap_err();
    /// assert!(error.to_string().contains("documented by layer `cordinator`"));
    /// # Ok::<(), prompt_core::PipelineError>(())
    /// ```
    pub fn with_tools(mut self, tools: ToolSet) -> Result<Self, PipelineError> {
        let mut problems = Vec::new();
        for (tool, layer, location) in tools.documented() {
            if self.layer(layer).is_none() {
                problems.push(Problem::ToolLayerMissing {
                    tool: tool.to_owned(),
                    layer: layer.to_owned(),
                    location,
                    known: self.specs().map(|s| s.name.to_owned()).collect(),
                });
            }
        }
        let mut first: BTreeMap<&str, String> = BTreeMap::new();
        for (name, location) in tools.declared() {
            if let Some(earlier) = first.get(name) {
                problems.push(Problem::DuplicateTool {
                    name: name.to_owned(),
                    first: earlier.clone(),
                    second: location,
                });
            } else {
                first.insert(name, location);
            }
        }
        if !problems.is_empty() {
            return Err(PipelineError::new(self.spec.name, problems));
        }
        self.tools = tools;
        Ok(self)
    }

    /// The tools it declares ([`with_tools`](Self::with_tools)); empty by default.
    pub fn tools(&self) -> &ToolSet {
        &self.tools
    }
}
