//! The one piece every request builder shares: the prompt's reminder, held
//! until the request is serialized and then appended to the last user turn.
//!
//! A provider module gives its turn type a [`Turn`] impl (whose turn is the
//! user's, and how a further block of text joins it), keeps a [`Reminder`]
//! made with [`Reminder::of`], and serializes [`Reminder::place`]'s turns.
//! A request with a reminder and no user turn then fails to serialize with
//! [`UndeliveredReminder`], the same way for every provider, rather than
//! dropping text the pipeline meant the model to read.

use std::borrow::Cow;

use super::placement::reminder_block;
use crate::AssembledPrompt;

/// A provider's conversation turn, as far as the reminder needs it.
pub(crate) trait Turn: Clone {
    /// Whether the user wrote it (the reminder goes in the last such turn).
    fn is_user(&self) -> bool;
    /// Appends `block`, a whole `<system-reminder>` block, at the end of the
    /// turn, in the form this provider's API takes a further piece of text.
    fn append(&mut self, block: String);
}

/// The prompt's reminder (trimmed; `None` when absent or blank) and the
/// request's name for the error that says it had nowhere to go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reminder {
    text: Option<String>,
    request: &'static str,
}

impl Reminder {
    /// `prompt`'s reminder, for a request that names itself `request` (e.g.
    /// `"Anthropic Messages request"`).
    pub(crate) fn of(prompt: &AssembledPrompt, request: &'static str) -> Self {
        Self {
            text: prompt
                .reminder()
                .map(str::trim)
                .filter(|r| !r.is_empty())
                .map(str::to_owned),
            request,
        }
    }

    /// No reminder to place: a [`History`](super::History) carries it in
    /// the turn it placed.
    pub(crate) fn carried(&self) -> Self {
        Self {
            text: None,
            request: self.request,
        }
    }

    /// The reminder's text, if there is one.
    pub(crate) fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// `turns` as sent: the reminder block appended to the last user turn
    /// (borrowed unchanged when there is no reminder).
    pub(crate) fn place<'a, T: Turn>(
        &self,
        turns: &'a [T],
    ) -> Result<Cow<'a, [T]>, UndeliveredReminder> {
        let Some(block) = self.text.as_deref().and_then(reminder_block) else {
            return Ok(Cow::Borrowed(turns));
        };
        let last = turns
            .iter()
            .rposition(T::is_user)
            .ok_or_else(|| self.undelivered())?;
        let mut placed = turns.to_vec();
        placed[last].append(block);
        Ok(Cow::Owned(placed))
    }

    /// Whether `turns` have a user turn for the reminder, without placing it.
    pub(crate) fn check<T: Turn>(&self, turns: &[T]) -> Result<(), UndeliveredReminder> {
        match self.text {
            Some(_) if !turns.iter().any(T::is_user) => Err(self.undelivered()),
            _ => Ok(()),
        }
    }

    fn undelivered(&self) -> UndeliveredReminder {
        UndeliveredReminder {
            bytes: self.text.as_ref().map_or(0, String::len),
            request: self.request,
        }
    }
}

/// A prompt's reminder that a request has no user message to carry.
///
/// Every request builder (Anthropic, OpenAI, Gemini) puts the prompt's
/// reminder into the last user message when it is serialized; without one,
/// serializing fails with this error rather than leaving the reminder out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the prompt has a reminder ({bytes} B from `channel = Reminder` layers) and the {request} \
     has no user message to carry it: add the user's turn before sending the request"
)]
#[non_exhaustive]
pub struct UndeliveredReminder {
    /// The reminder's length in bytes.
    pub bytes: usize,
    /// The request type, e.g. `Anthropic Messages request`.
    pub request: &'static str,
}

impl UndeliveredReminder {
    /// A reminder of `bytes` bytes that `request` (e.g. `Anthropic Messages
    /// request`) had no user message to carry.
    pub const fn new(bytes: usize, request: &'static str) -> Self {
        Self { bytes, request }
    }
}
