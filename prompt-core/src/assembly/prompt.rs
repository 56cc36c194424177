//! The assembled prompt and its parts.

use std::borrow::Cow;

use serde::{Serialize, Serializer};

use super::text::PromptText;
use super::trace::AssemblyTrace;
use crate::spec::AssemblyPath;

/// One block of a system prompt, as providers take it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SystemPromptPart {
    /// The text: reads as a `str`; shared, not copied, when it is a
    /// session's stable prefix.
    pub content: PromptText,
    /// Whether a provider should put a cache breakpoint after this block.
    pub cache: bool,
}

impl SystemPromptPart {
    /// A part holding `content`, marked for a cache breakpoint when `cache`.
    pub fn new(content: impl Into<String>, cache: bool) -> Self {
        Self {
            content: PromptText::from(content.into()),
            cache,
        }
    }
}

/// The result of one assembly.
///
/// A Cached assembly has two parts, `[stable {cache: true}, dynamic {cache:
/// false}]` (either may be empty); a Basic assembly has one part
/// `{cache: false}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AssembledPrompt {
    #[serde(serialize_with = "serialize_parts")]
    parts: Parts,
    #[serde(skip_serializing_if = "Option::is_none")]
    reminder: Option<String>,
    separator: Cow<'static, str>,
    trace: AssemblyTrace,
}

/// One part (Basic) or two (Cached), held inline: no allocation per prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Parts {
    Basic([SystemPromptPart; 1]),
    Cached([SystemPromptPart; 2]),
}

impl Parts {
    fn as_slice(&self) -> &[SystemPromptPart] {
        match self {
            Parts::Basic(parts) => parts,
            Parts::Cached(parts) => parts,
        }
    }
}

fn serialize_parts<S: Serializer>(parts: &Parts, serializer: S) -> Result<S::Ok, S::Error> {
    parts.as_slice().serialize(serializer)
}

impl AssembledPrompt {
    #[inline]
    pub(crate) fn new(
        parts: Parts,
        reminder: Option<String>,
        separator: Cow<'static, str>,
        trace: AssemblyTrace,
    ) -> Self {
        Self {
            parts,
            reminder,
            separator,
            trace,
        }
    }

    /// The text of the Dynamic layers declared `channel = Reminder`, joined
    /// with the separator; `None` when none of them spoke.
    ///
    /// It is not part of the system prompt (so the whole system prompt stays
    /// cacheable): send it as a trailing `<system-reminder>` block of the last
    /// user message, e.g. with
    /// `prompt_providers::anthropic::MessagesRequest::with_reminder`.
    pub fn reminder(&self) -> Option<&str> {
        self.reminder.as_deref()
    }

    /// The parts, in order.
    pub fn parts(&self) -> &[SystemPromptPart] {
        self.parts.as_slice()
    }

    /// The cacheable prefix: the cached part's text. Empty on the Basic path,
    /// which caches nothing.
    pub fn stable(&self) -> &str {
        self.parts()
            .iter()
            .find(|p| p.cache)
            .map_or("", |p| p.content.as_str())
    }

    /// The uncached text: the dynamic suffix on the Cached path, the whole
    /// prompt on the Basic path.
    pub fn dynamic(&self) -> &str {
        self.parts()
            .iter()
            .find(|p| !p.cache)
            .map_or("", |p| p.content.as_str())
    }

    /// What joins two non-empty layer outputs (and the parts, in [`text`](Self::text)).
    pub fn separator(&self) -> &str {
        &self.separator
    }

    /// The whole prompt as one string: the non-empty parts joined with the
    /// separator. For layers on both paths, a Cached prompt's `text()` equals
    /// the Basic prompt.
    pub fn text(&self) -> String {
        self.parts()
            .iter()
            .filter(|p| !p.content.is_empty())
            .map(|p| p.content.as_str())
            .collect::<Vec<_>>()
            .join(&self.separator)
    }

    /// The path this prompt was assembled on.
    pub fn path(&self) -> AssemblyPath {
        self.trace.path
    }

    /// What the assembly did.
    pub fn trace(&self) -> &AssemblyTrace {
        &self.trace
    }
}
