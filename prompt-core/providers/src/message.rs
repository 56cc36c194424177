//! The conversation, as every provider's request takes it.

use serde::Serialize;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (or a tool result relayed as the user's turn).
    User,
    /// The model.
    Assistant,
    /// A system message inside the conversation: Anthropic's mid-conversation
    /// system messages, for the models that take them
    /// ([`anthropic::takes_system_messages`](super::anthropic::takes_system_messages)).
    /// [`History::context_as_system_message`](super::History::context_as_system_message)
    /// makes them; Gemini takes none (its request fails to serialize with one).
    System,
}

/// One conversation turn in plain text, before a provider shapes it.
///
/// ```
/// use prompt_providers::{Message, Role};
///
/// let turn = Message::user("Fix the failing test.");
/// assert_eq!(turn.role, Role::User);
/// assert_eq!(turn.text, "Fix the failing test.");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// What it says.
    pub text: String,
}

impl Message {
    /// A user turn.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            text: text.into(),
        }
    }

    /// A system message inside the conversation (see [`Role::System`]).
    pub fn system(text: impl Into<String>) -> Self {
        Self {
            role: Role::System,
            text: text.into(),
        }
    }

    /// A model turn.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            text: text.into(),
        }
    }
}
