//! The tools of one assembled prompt: those whose documenting layer spoke.

use super::AssembledPrompt;
use crate::context::{SessionContext, TurnContext};
use crate::tools::{RequestTools, ToolError, ToolSet};

impl ToolSet {
    /// The tools to send with `prompt` ([`select`](Self::select)): a tool
    /// documented by a layer goes only when that layer wrote text in
    /// `prompt`, and a documented slot whose layer wrote must be filled.
    /// Pass the contexts `prompt` was built from.
    ///
    /// # Errors
    /// As [`select`](Self::select).
    pub fn for_prompt(
        &self,
        prompt: &AssembledPrompt,
        session: &SessionContext,
        turn: &TurnContext,
    ) -> Result<RequestTools, ToolError> {
        let trace = prompt.trace();
        self.select(
            |layer| trace.layer(layer).is_some_and(|l| !l.silent),
            session,
            turn,
        )
    }
}
