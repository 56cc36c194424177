//! The tools of one assembled prompt: those whose documenting layer spoke.

use super::AssembledPrompt;
use crate::tools::{RequestTools, Tool, ToolError, ToolSet};

impl ToolSet {
    /// The tools to send with `prompt` ([`select`](Self::select)): a tool
    /// documented by a layer goes only when that layer wrote text in
    /// `prompt`, and a documented slot whose layer wrote must be filled.
    /// `session` and `turn` are the tools this session and this call supply
    /// for the pipeline's slots (empty when it declares none).
    ///
    /// # Errors
    /// As [`select`](Self::select).
    pub fn for_prompt(
        &self,
        prompt: &AssembledPrompt,
        session: &[Tool],
        turn: &[Tool],
    ) -> Result<RequestTools, ToolError> {
        let trace = prompt.trace();
        self.select(
            |layer| trace.layer(layer).is_some_and(|l| !l.silent),
            session,
            turn,
        )
    }
}
