//! OpenAI: the Responses API (`instructions`) and Chat Completions (a leading
//! `system` or `developer` message), routed to one prompt cache.
//!
//! OpenAI caches prompt prefixes of 1,024 tokens and more on its own; what a
//! caller controls is routing. Requests with the same `prompt_cache_key` go
//! to the same cache, so [`prompt_cache_key`] derives it from what makes the
//! prefix what it is:
//!
//! ```text
//! prompt_cache_key = "<pipeline>-<first 16 hex digits of the shared prefix's SHA-256>"
//! ```
//!
//! (the pipeline name cut to 40 bytes, so the key stays within 57 bytes). The
//! shared prefix is the widest-scope part of the stable prefix: its Global
//! and Project layers ([`AssemblyTrace::shared_prefix`](crate::AssemblyTrace::shared_prefix)
//! of [`Scope::Project`](crate::spec::Scope::Project)), so every teammate on one
//! repository routes to the same cache whatever their own `user.md` says;
//! when that part is empty (no layer declares a scope that wide), the whole
//! stable prefix. Every session of one agent (pipeline) over one workspace
//! gets the same key, in every process; a changed Global or Project layer
//! gets a new one.
//! The whole prompt, stable prefix first, goes in one instruction string, so the
//! cached prefix is the stable part.
//!
//! The prompt's reminder (the `channel = Reminder` layers) is added to the end
//! of the last user message when a request is serialized, as a
//! `<system-reminder>` block after a blank line; a request with no user message
//! fails to serialize ([`UndeliveredReminder`]) rather than drop it.
//!
//! ```
//! use prompt_core::providers::openai::{prompt_cache_key, CacheRetention, ResponsesRequest};
//! use prompt_core::providers::Message;
//! # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
//! # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
//! # struct DocOpenai;
//! # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocOpenai)]
//! # struct Persona;
//! # let pipeline = Pipeline::of::<DocOpenai>()?;
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
//!
//! let request = ResponsesRequest::new(&prompt, "gpt-5")
//!     .retention(CacheRetention::Hours24)
//!     .message(Message::user("Fix the failing test."));
//! let body = serde_json::to_value(&request)?;
//! assert_eq!(body["instructions"], "You are terse.");
//! assert_eq!(body["prompt_cache_key"], prompt_cache_key(&prompt));
//! assert!(prompt_cache_key(&prompt).starts_with("doc_openai-"));
//! assert_eq!(body["prompt_cache_retention"], "24h");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;

use serde::{Serialize, Serializer};

use super::conversation::{Reminder, Turn};
use super::{Message, Role, UndeliveredReminder};
use crate::AssembledPrompt;

/// The longest pipeline name kept in a cache key, in bytes.
const KEY_PIPELINE_MAX: usize = 40;

/// The cache key for `prompt`: `<pipeline>-<fingerprint, 16 hex>` of its
/// Global and Project part (the whole stable prefix when that is empty).
pub fn prompt_cache_key(prompt: &AssembledPrompt) -> String {
    let trace = prompt.trace();
    let mut end = trace.pipeline.len().min(KEY_PIPELINE_MAX);
    while !trace.pipeline.is_char_boundary(end) {
        end -= 1;
    }
    let shared = trace.shared_prefix(crate::spec::Scope::Project);
    let fingerprint = match prompt.stable().get(..shared) {
        Some(part) if !part.is_empty() => crate::fingerprint::Fingerprint::of(part),
        _ => trace.stable_fingerprint(),
    };
    format!("{}-{}", &trace.pipeline[..end], fingerprint.short())
}

/// How long OpenAI keeps a cached prefix (`prompt_cache_retention`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CacheRetention {
    /// `"in_memory"`: minutes, the default.
    #[serde(rename = "in_memory")]
    InMemory,
    /// `"24h"`: extended retention, up to a day.
    #[serde(rename = "24h")]
    Hours24,
}

/// A message of a Chat Completions or Responses input: role and text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputMessage {
    /// `system`, `developer`, `user` or `assistant`.
    pub role: &'static str,
    /// The text.
    pub content: String,
}

impl From<&Message> for InputMessage {
    fn from(message: &Message) -> Self {
        Self {
            role: match message.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            },
            content: message.text.clone(),
        }
    }
}

impl Turn for InputMessage {
    fn is_user(&self) -> bool {
        self.role == "user"
    }

    /// The reminder after a blank line: Chat and Responses input messages
    /// here are one string each.
    fn append(&mut self, block: String) {
        if !self.content.is_empty() {
            self.content.push_str("\n\n");
        }
        self.content.push_str(&block);
    }
}

/// A Responses API body (`POST /v1/responses`); the prompt goes in
/// `instructions`.
///
/// Serializing adds the prompt's reminder to the last user message of
/// `input`, or fails with [`UndeliveredReminder`] when there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResponsesRequest {
    /// The model.
    pub model: String,
    /// The whole system prompt, stable prefix first; left out when empty.
    pub instructions: String,
    /// The conversation.
    pub input: Vec<InputMessage>,
    /// The most tokens the model may generate.
    pub max_output_tokens: Option<u32>,
    /// See [`prompt_cache_key`].
    pub prompt_cache_key: String,
    /// Cache retention; the API's default when `None`.
    pub prompt_cache_retention: Option<CacheRetention>,
    /// The prompt's reminder, placed when serialized.
    reminder: Reminder,
}

#[derive(Serialize)]
struct ResponsesBody<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    instructions: &'a str,
    input: Cow<'a, [InputMessage]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
    prompt_cache_key: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_retention: Option<CacheRetention>,
}

impl Serialize for ResponsesRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let input = self
            .reminder
            .place(&self.input)
            .map_err(serde::ser::Error::custom)?;
        ResponsesBody {
            model: &self.model,
            instructions: &self.instructions,
            input,
            max_output_tokens: self.max_output_tokens,
            prompt_cache_key: &self.prompt_cache_key,
            prompt_cache_retention: self.prompt_cache_retention,
        }
        .serialize(serializer)
    }
}

const RESPONSES: &str = "OpenAI Responses request";
const CHAT: &str = "OpenAI Chat Completions request";

impl ResponsesRequest {
    /// A request with `prompt` as its instructions and no input yet.
    pub fn new(prompt: &AssembledPrompt, model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            instructions: prompt.text(),
            input: Vec::new(),
            max_output_tokens: None,
            prompt_cache_key: prompt_cache_key(prompt),
            prompt_cache_retention: None,
            reminder: Reminder::of(prompt, RESPONSES),
        }
    }

    /// The prompt's reminder this request carries (trimmed), if it has one.
    pub fn reminder(&self) -> Option<&str> {
        self.reminder.text()
    }

    /// Whether the prompt's reminder has a user message to travel in.
    ///
    /// # Errors
    /// [`UndeliveredReminder`] when it has none: serializing would fail so.
    pub fn check_reminder(&self) -> Result<(), UndeliveredReminder> {
        self.reminder.check(&self.input)
    }

    /// Appends one message.
    pub fn message(mut self, message: Message) -> Self {
        self.input.push((&message).into());
        self
    }

    /// Appends messages.
    pub fn messages(mut self, messages: impl IntoIterator<Item = Message>) -> Self {
        self.input.extend(messages.into_iter().map(|m| (&m).into()));
        self
    }

    /// Limits the output.
    pub fn max_output_tokens(mut self, tokens: u32) -> Self {
        self.max_output_tokens = Some(tokens);
        self
    }

    /// Sets `prompt_cache_retention`.
    pub fn retention(mut self, retention: CacheRetention) -> Self {
        self.prompt_cache_retention = Some(retention);
        self
    }
}

/// The role the system prompt takes in Chat Completions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum InstructionRole {
    /// `system`: every chat model takes it.
    #[default]
    System,
    /// `developer`: what reasoning models (o-series, GPT-5) expect.
    Developer,
}

/// A Chat Completions body (`POST /v1/chat/completions`); the prompt is the
/// leading `system` (or `developer`) message.
///
/// Serializing adds the prompt's reminder to the last user message, or fails
/// with [`UndeliveredReminder`] when there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChatRequest {
    /// The model.
    pub model: String,
    /// The instruction message (when the prompt is not empty), then the
    /// conversation.
    pub messages: Vec<InputMessage>,
    /// The most tokens the model may generate.
    pub max_completion_tokens: Option<u32>,
    /// See [`prompt_cache_key`].
    pub prompt_cache_key: String,
    /// Cache retention; the API's default when `None`.
    pub prompt_cache_retention: Option<CacheRetention>,
    /// The prompt's reminder, placed when serialized.
    reminder: Reminder,
}

#[derive(Serialize)]
struct ChatBody<'a> {
    model: &'a str,
    messages: Cow<'a, [InputMessage]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    prompt_cache_key: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_retention: Option<CacheRetention>,
}

impl Serialize for ChatRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let messages = self
            .reminder
            .place(&self.messages)
            .map_err(serde::ser::Error::custom)?;
        ChatBody {
            model: &self.model,
            messages,
            max_completion_tokens: self.max_completion_tokens,
            prompt_cache_key: &self.prompt_cache_key,
            prompt_cache_retention: self.prompt_cache_retention,
        }
        .serialize(serializer)
    }
}

impl ChatRequest {
    /// A request whose first message is `prompt` as `system`.
    pub fn new(prompt: &AssembledPrompt, model: impl Into<String>) -> Self {
        let text = prompt.text();
        Self {
            model: model.into(),
            messages: (!text.is_empty())
                .then_some(InputMessage {
                    role: "system",
                    content: text,
                })
                .into_iter()
                .collect(),
            max_completion_tokens: None,
            prompt_cache_key: prompt_cache_key(prompt),
            prompt_cache_retention: None,
            reminder: Reminder::of(prompt, CHAT),
        }
    }

    /// The prompt's reminder this request carries (trimmed), if it has one.
    pub fn reminder(&self) -> Option<&str> {
        self.reminder.text()
    }

    /// Whether the prompt's reminder has a user message to travel in.
    ///
    /// # Errors
    /// [`UndeliveredReminder`] when it has none: serializing would fail so.
    pub fn check_reminder(&self) -> Result<(), UndeliveredReminder> {
        self.reminder.check(&self.messages)
    }

    /// Sends the prompt as a `developer` message instead of `system`, or back.
    /// Call it before adding messages.
    pub fn instruction_role(mut self, role: InstructionRole) -> Self {
        if let Some(first) = self
            .messages
            .first_mut()
            .filter(|m| matches!(m.role, "system" | "developer"))
        {
            first.role = match role {
                InstructionRole::System => "system",
                InstructionRole::Developer => "developer",
            };
        }
        self
    }

    /// Appends one message.
    pub fn message(mut self, message: Message) -> Self {
        self.messages.push((&message).into());
        self
    }

    /// Appends messages.
    pub fn messages(mut self, messages: impl IntoIterator<Item = Message>) -> Self {
        self.messages
            .extend(messages.into_iter().map(|m| (&m).into()));
        self
    }

    /// Limits the output.
    pub fn max_completion_tokens(mut self, tokens: u32) -> Self {
        self.max_completion_tokens = Some(tokens);
        self
    }

    /// Sets `prompt_cache_retention`.
    pub fn retention(mut self, retention: CacheRetention) -> Self {
        self.prompt_cache_retention = Some(retention);
        self
    }
}
