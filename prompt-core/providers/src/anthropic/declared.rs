//! The tools a pipeline declared, as the Messages API takes them.

use super::MessagesRequest;
use prompt_core::tools::RequestTools;

impl MessagesRequest {
    /// Sets the tool definitions to `tools`, in their canonical order and
    /// key order ([`RequestTools::to_json`]): the same tools give the same
    /// bytes in every process, so the prefix the provider caches (tools,
    /// then system, then messages) holds from the first byte. Replaces
    /// anything [`tools`](Self::tools) set; a breakpoint after the tools is
    /// [`cache_tools`](Self::cache_tools), as with opaque ones.
    ///
    /// ```standalone_crate
    /// use prompt_providers::anthropic::MessagesRequest;
    /// use prompt_core::tools::{RequestTools, Tool};
    /// use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder};
    ///
    /// #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "Be brief.")]
    /// struct Brief;
    ///
    /// let prompt = PromptBuilder::new(&Pipeline::collect()?)
    ///     .build_cached(&Context::new(), &Context::new())
    ///     .unwrap();
    /// let schema = serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}});
    /// let tools = RequestTools::new([Tool::new("read", "Read a file.", schema)]).unwrap();
    /// let request = MessagesRequest::new(&prompt, "claude-sonnet-4-5", 1024).declared_tools(&tools);
    /// assert_eq!(request.tools, tools.to_json());
    /// assert_eq!(request.tools[0]["name"], "read");
    /// # Ok::<(), prompt_core::PipelineError>(())
    /// ```
    #[must_use]
    pub fn declared_tools(self, tools: &RequestTools) -> Self {
        self.tools(tools.to_json())
    }
}
