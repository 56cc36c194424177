//! The tools a session or a turn brings, through its context.

use super::Tool;

/// The tools this session supplies for the pipeline's session slots
/// ([`ToolSlot::session`](super::ToolSlot::session)): put it in the session
/// context.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionTools(pub Vec<Tool>);

impl crate::SessionValue for SessionTools {}

/// The tools this turn supplies for the pipeline's turn slots
/// ([`ToolSlot::turn`](super::ToolSlot::turn)): put it in the turn context.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnTools(pub Vec<Tool>);

impl crate::TurnValue for TurnTools {}
