//! The `delegate` tool of the coordinator workflow as a declared tool
//! ([`prompt_core::tools`]): a session slot documented by the `coordinator`
//! layer, so the framework sends it exactly when the layer speaks.
//!
//! In a file of its own, beside the layer's: the layer's file (and its
//! registration's place in the build) stays as it was.

use super::coordinator::{CoordinatorLayer, DELEGATE_TOOL, SubAgents, ToolSpec};

impl From<ToolSpec> for prompt_core::tools::Tool {
    /// A [`ToolTier::Stable`](prompt_core::tools::ToolTier::Stable) tool of
    /// the same name, description and schema.
    #[track_caller]
    fn from(spec: ToolSpec) -> Self {
        prompt_core::tools::Tool::new(spec.name, spec.description, spec.input_schema)
    }
}

impl SubAgents {
    /// The slot the delegate tool fills on a pipeline that declares its
    /// tools ([`Pipeline::with_tools`](prompt_core::Pipeline::with_tools)),
    /// documented by the `coordinator` layer: the tool is sent exactly when
    /// the layer speaks, and a session whose coordinator speaks without
    /// supplying it ([`SubAgents::session_tools`]) is an error.
    ///
    /// ```
    /// use prompt_core::pipeline::LayerEntry;
    /// use prompt_core::spec::PipelineSpec;
    /// use prompt_core::tools::ToolSet;
    /// use prompt_core::{Context, Pipeline, PromptBuilder};
    /// use prompt_layers::{CoordinatorLayer, SubAgent, SubAgents};
    ///
    /// let layers = [LayerEntry::of::<CoordinatorLayer>().pipelines(&["default"])];
    /// let pipeline = Pipeline::from_layers(PipelineSpec::new("default"), layers)?
    ///     .with_tools(ToolSet::new().slot(SubAgents::tool_slot()))?;
    /// let agents = SubAgents(vec![SubAgent::new("tester", "Runs tests.")]);
    /// let tools = agents.session_tools();
    /// let session = Context::new().with(agents);
    /// let prompt = PromptBuilder::new(&pipeline).build_cached(&session, &Context::new()).unwrap();
    /// let tools = pipeline.tools().for_prompt(&prompt, &tools, &[]).unwrap();
    /// assert_eq!(tools.names().collect::<Vec<_>>(), ["delegate"]);
    /// # Ok::<(), prompt_core::PipelineError>(())
    /// ```
    #[track_caller]
    pub fn tool_slot() -> prompt_core::tools::ToolSlot {
        use prompt_core::PromptLayer;
        prompt_core::tools::ToolSlot::session(DELEGATE_TOOL)
            .documented_by(CoordinatorLayer::SPEC.name)
    }

    /// The session's tools for [`SubAgents::tool_slot`]: the delegate tool
    /// when there is at least one sub-agent. Pass them to
    /// [`ToolSet::for_prompt`](prompt_core::tools::ToolSet::for_prompt).
    pub fn session_tools(&self) -> Vec<prompt_core::tools::Tool> {
        self.tool()
            .map(prompt_core::tools::Tool::from)
            .into_iter()
            .collect()
    }
}
