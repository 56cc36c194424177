//! Google Gemini: `systemInstruction` for implicit caching, or an explicit
//! cached content holding the stable prefix.
//!
//! **Implicit caching.** Gemini caches repeated request prefixes on its own;
//! [`GenerateContentRequest::new`] puts the parts in `systemInstruction`,
//! stable first, so repeated calls share the prefix.
//!
//! **Explicit caching.** [`CreateCachedContent::new`] is the body of
//! `POST /v1beta/cachedContents`: the stable prefix as the cache's
//! `systemInstruction`, with a TTL. Its response names the cache
//! (`cachedContents/...`); [`GenerateContentRequest::with_cached_content`]
//! refers to it. A request that uses a cached content **cannot carry its own
//! `systemInstruction`** (the API rejects it), so the dynamic suffix travels at
//! the head of `contents` instead: as the first part of the first user turn,
//! or as its own user turn when the conversation does not start with one.
//!
//! The prompt's reminder (the `channel = Reminder` layers) is added as the
//! last part of the last user turn when a request is serialized; a request
//! with no user turn fails to serialize ([`UndeliveredReminder`]) rather than
//! drop it.
//!
//! The model is in the URL (`models/{model}:generateContent`), not in the
//! request body; the cached content names it in its body.
//!
//! ```
//! use std::time::Duration;
//! use prompt_providers::gemini::{CreateCachedContent, GenerateContentRequest};
//! use prompt_providers::Message;
//! # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
//! # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
//! # struct DocGemini;
//! # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocGemini)]
//! # struct Persona;
//! # #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], text = "Date: 2026-11-29", pipeline = DocGemini)]
//! # struct Today;
//! # let pipeline = Pipeline::of::<DocGemini>()?;
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
//!
//! let cache = CreateCachedContent::new(&prompt, "gemini-2.5-pro", Duration::from_secs(3600))?;
//! assert_eq!(serde_json::to_value(&cache)?["ttl"], "3600s");
//!
//! // After POST /v1beta/cachedContents answered {"name": "cachedContents/abc123", ..}:
//! let request = GenerateContentRequest::with_cached_content(&prompt, "cachedContents/abc123")
//!     .message(Message::user("Fix the failing test."));
//! let body = serde_json::to_value(&request)?;
//! assert!(body.get("systemInstruction").is_none());
//! assert_eq!(body["contents"][0]["parts"][0]["text"], "Date: 2026-11-29");
//! assert_eq!(body["contents"][0]["parts"][1]["text"], "Fix the failing test.");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;
use std::time::Duration;

use serde::{Serialize, Serializer};

use super::conversation::{Reminder, Turn};
use super::{Message, Role, UndeliveredReminder};
use crate::AssembledPrompt;

/// A text part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Part {
    /// The text.
    pub text: String,
}

/// A turn (or the system instruction): a role and parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Content {
    /// `user` or `model`; absent on a system instruction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'static str>,
    /// The parts, in order; never an empty text.
    pub parts: Vec<Part>,
}

impl Content {
    fn system(texts: impl IntoIterator<Item = String>) -> Option<Self> {
        let parts: Vec<Part> = texts
            .into_iter()
            .filter(|t| !t.is_empty())
            .map(|text| Part { text })
            .collect();
        (!parts.is_empty()).then_some(Self { role: None, parts })
    }

    /// A turn; an empty text gives no part.
    fn turn(message: &Message) -> Self {
        Self {
            role: Some(match message.role {
                Role::User => "user",
                Role::Assistant => "model",
                Role::System => "system",
            }),
            parts: (!message.text.is_empty())
                .then(|| Part {
                    text: message.text.clone(),
                })
                .into_iter()
                .collect(),
        }
    }
}

impl Turn for Content {
    fn is_user(&self) -> bool {
        self.role == Some("user")
    }

    /// The reminder as the turn's last part.
    fn append(&mut self, block: String) {
        self.parts.push(Part { text: block });
    }
}

/// What [`UndeliveredReminder`] calls this request.
const REQUEST: &str = "Gemini generateContent request";

/// `generationConfig`: only what this module sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GenerationConfig {
    /// The most tokens the model may generate.
    pub max_output_tokens: u32,
}

/// A `generateContent` body.
///
/// Serializing adds the prompt's reminder as the last part of the last user
/// turn, or fails with [`UndeliveredReminder`] when there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GenerateContentRequest {
    /// The cached content this request builds on (`cachedContents/...`).
    pub cached_content: Option<String>,
    /// The system prompt; absent with a cached content.
    pub system_instruction: Option<Content>,
    /// The conversation (with a cached content: the dynamic suffix first).
    pub contents: Vec<Content>,
    /// Output limits.
    pub generation_config: Option<GenerationConfig>,
    /// Whether `contents` is only the dynamic suffix's own user turn, which
    /// the first user message joins.
    head_alone: bool,
    /// The prompt's reminder, placed when serialized.
    reminder: Reminder,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GenerateContentBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    cached_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_instruction: Option<&'a Content>,
    contents: Cow<'a, [Content]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    generation_config: Option<GenerationConfig>,
}

impl Serialize for GenerateContentRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.contents.iter().any(|c| c.role == Some("system")) {
            return Err(serde::ser::Error::custom(
                "Gemini takes no system message inside `contents`: keep the history's per-turn \
                 context in the user turn (the default of `History`) for a Gemini request",
            ));
        }
        let contents = self
            .reminder
            .place(&self.contents)
            .map_err(serde::ser::Error::custom)?;
        GenerateContentBody {
            cached_content: self.cached_content.as_deref(),
            system_instruction: self.system_instruction.as_ref(),
            contents,
            generation_config: self.generation_config,
        }
        .serialize(serializer)
    }
}

impl GenerateContentRequest {
    /// Implicit caching: the prompt's non-empty parts as `systemInstruction`
    /// parts, stable first.
    pub fn new(prompt: &AssembledPrompt) -> Self {
        Self {
            cached_content: None,
            system_instruction: Content::system(
                prompt.parts().iter().map(|p| p.content.to_string()),
            ),
            contents: Vec::new(),
            generation_config: None,
            head_alone: false,
            reminder: Reminder::of(prompt, REQUEST),
        }
    }

    /// Explicit caching: refers to `cached_content` (the `name` the create
    /// call returned, `cachedContents/...`, made from [`CreateCachedContent`]
    /// for the same prompt) and carries the dynamic suffix at the head of
    /// `contents`, because such a request cannot have a `systemInstruction`.
    ///
    /// On the Basic path, which caches nothing, the whole prompt is the suffix.
    pub fn with_cached_content(
        prompt: &AssembledPrompt,
        cached_content: impl Into<String>,
    ) -> Self {
        let dynamic = prompt.dynamic();
        let head: Vec<Content> = (!dynamic.is_empty())
            .then(|| Content {
                role: Some("user"),
                parts: vec![Part {
                    text: dynamic.to_owned(),
                }],
            })
            .into_iter()
            .collect();
        Self {
            cached_content: Some(cached_content.into()),
            system_instruction: None,
            head_alone: !head.is_empty(),
            contents: head,
            generation_config: None,
            reminder: Reminder::of(prompt, REQUEST),
        }
    }

    /// The prompt's reminder this request carries (trimmed), if it has one.
    pub fn reminder(&self) -> Option<&str> {
        self.reminder.text()
    }

    /// Whether the prompt's reminder has a user turn to travel in.
    ///
    /// # Errors
    /// [`UndeliveredReminder`] when it has none: serializing would fail so.
    pub fn check_reminder(&self) -> Result<(), UndeliveredReminder> {
        self.reminder.check(&self.contents)
    }

    /// Appends one message; one with empty text is left out, as the API
    /// rejects a turn without parts. With a cached content, the first user message
    /// joins the dynamic suffix's turn, after it.
    pub fn message(mut self, message: Message) -> Self {
        self.push(&message);
        self
    }

    /// Appends messages, as [`message`](Self::message) does.
    pub fn messages(mut self, messages: impl IntoIterator<Item = Message>) -> Self {
        for message in messages {
            self.push(&message);
        }
        self
    }

    fn push(&mut self, message: &Message) {
        let turn = Content::turn(message);
        if turn.parts.is_empty() {
            return; // the API rejects a turn without parts
        }
        match self.contents.first_mut() {
            Some(head) if self.head_alone && turn.role == Some("user") => {
                head.parts.extend(turn.parts);
            }
            _ => self.contents.push(turn),
        }
        self.head_alone = false;
    }

    /// Limits the output.
    pub fn max_output_tokens(mut self, tokens: u32) -> Self {
        self.generation_config = Some(GenerationConfig {
            max_output_tokens: tokens,
        });
        self
    }
}

/// The body of `POST /v1beta/cachedContents`: the stable prefix as a cached
/// system instruction, kept for `ttl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateCachedContent {
    /// `models/{model}`.
    pub model: String,
    /// The stable prefix.
    pub system_instruction: Content,
    /// How long to keep it, as the API spells durations (`"3600s"`).
    pub ttl: String,
}

impl CreateCachedContent {
    /// The cache for `prompt`'s stable prefix on `model` (with or without the
    /// `models/` prefix), kept for `ttl` (whole seconds).
    ///
    /// # Errors
    /// [`GeminiError::NothingToCache`] when the stable prefix is empty (use
    /// [`GenerateContentRequest::new`]); [`GeminiError::ZeroTtl`] when `ttl`
    /// is under a second.
    pub fn new(prompt: &AssembledPrompt, model: &str, ttl: Duration) -> Result<Self, GeminiError> {
        if ttl.as_secs() == 0 {
            return Err(GeminiError::ZeroTtl { ttl });
        }
        let system_instruction =
            Content::system([prompt.stable().to_owned()]).ok_or(GeminiError::NothingToCache)?;
        Ok(Self {
            model: if model.starts_with("models/") {
                model.to_owned()
            } else {
                format!("models/{model}")
            },
            system_instruction,
            ttl: format!("{}s", ttl.as_secs()),
        })
    }
}

/// Why a cached content cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GeminiError {
    /// The stable prefix is empty.
    #[error(
        "the stable prefix is empty, so there is nothing to cache: send `GenerateContentRequest::new` \
         (implicit caching) or give the pipeline Stable layers"
    )]
    NothingToCache,
    /// A TTL under one second.
    #[error("a cached content needs a TTL of at least one second, got {ttl:?}: pass e.g. 300 s")]
    ZeroTtl {
        /// The TTL given.
        ttl: Duration,
    },
}
