//! The Converse operation's blocks, field for field as botocore's
//! `bedrock-runtime` service model (2023-09-30, botocore 1.44.18) names them:
//! `SystemContentBlock`, `ContentBlock`, `Tool`, `CachePointBlock`. Each
//! union is one serde enum, so a block serializes as the one member it sets
//! (`{"text": ..}`, `{"cachePoint": {..}}`).

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::super::anthropic::CacheTtl;
use super::super::conversation::Turn;
use super::super::{Message, Role};

/// A `CachePointBlock`: `{"type": "default"}` (`CachePointType`'s one
/// value), with `"ttl": "1h"` for the one-hour cache. The 5-minute TTL is
/// the default the service model documents for an absent `ttl`, and is left
/// implicit, as the Anthropic body leaves it (a model that takes no `ttl`
/// still takes the block).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CachePoint {
    /// How long the entry lives (`CacheTTL`: `5m` or `1h`).
    pub ttl: CacheTtl,
}

impl CachePoint {
    /// A cache point of `ttl`.
    pub const fn new(ttl: CacheTtl) -> Self {
        Self { ttl }
    }
}

impl Serialize for CachePoint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let one_hour = self.ttl == CacheTtl::OneHour;
        let mut point =
            serializer.serialize_struct("CachePointBlock", 1 + usize::from(one_hour))?;
        point.serialize_field("type", "default")?;
        if one_hour {
            point.serialize_field("ttl", &self.ttl)?;
        }
        point.end()
    }
}

/// A block of `system` (`SystemContentBlock`): text, or a cache point that
/// caches the request up to here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum SystemBlock {
    /// `{"text": ..}`: never empty (the service model's `NonEmptyString`).
    Text(String),
    /// `{"cachePoint": {..}}`.
    CachePoint(CachePoint),
}

/// A block of a message's `content` (`ContentBlock`): the members this
/// crate sends.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ContentBlock {
    /// `{"text": ..}`.
    Text(String),
    /// `{"cachePoint": {..}}`.
    CachePoint(CachePoint),
    /// `{"toolUse": {..}}`: the model's call of a tool, as it came back.
    ToolUse(ToolUse),
    /// `{"toolResult": {..}}`: what the tool returned, in the user's turn.
    ToolResult(ToolResult),
}

impl ContentBlock {
    /// The bytes the block adds to the request prefix, for the cache plan's
    /// token counts: its text, or its JSON.
    pub(super) fn counted_text(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            Self::CachePoint(_) => String::new(),
            other => serde_json::to_string(other).unwrap_or_default(),
        }
    }
}

/// `ToolUseBlock`: a tool call of the model's.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolUse {
    /// The call's id (`ToolUseId`: 1 to 64 of `[a-zA-Z0-9_.:-]`).
    pub tool_use_id: String,
    /// The tool's name.
    pub name: String,
    /// Its input, a JSON document.
    pub input: Value,
}

impl ToolUse {
    /// The call `tool_use_id` of `name` with `input`.
    pub fn new(tool_use_id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            name: name.into(),
            input,
        }
    }
}

/// `ToolResultBlock`: what a tool returned.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolResult {
    /// The id of the call it answers.
    pub tool_use_id: String,
    /// What the tool returned.
    pub content: Vec<ToolResultContent>,
    /// Whether the call failed (`error`) or not (`success`); absent, the
    /// model reads it as a success.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<ToolResultStatus>,
}

impl ToolResult {
    /// The result of call `tool_use_id`: one text block.
    pub fn text(tool_use_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            content: vec![ToolResultContent::Text(text.into())],
            status: None,
        }
    }

    /// The result of call `tool_use_id`: one JSON document.
    pub fn json(tool_use_id: impl Into<String>, json: Value) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            content: vec![ToolResultContent::Json(json)],
            status: None,
        }
    }

    /// With `status`.
    pub fn status(mut self, status: ToolResultStatus) -> Self {
        self.status = Some(status);
        self
    }
}

/// A block of a tool's result (`ToolResultContentBlock`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ToolResultContent {
    /// `{"text": ..}`.
    Text(String),
    /// `{"json": ..}`.
    Json(Value),
}

/// `ToolResultStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ToolResultStatus {
    /// The tool ran.
    Success,
    /// The tool failed.
    Error,
}

/// A `Message`: a role and its content blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ConverseMessage {
    /// Who wrote it: `user` or `assistant` (a `system` message inside
    /// `messages` is refused when the request is serialized).
    pub role: Role,
    /// Its blocks, in order.
    pub content: Vec<ContentBlock>,
}

impl ConverseMessage {
    /// A message of `role` with `content`.
    pub fn new(role: Role, content: impl IntoIterator<Item = ContentBlock>) -> Self {
        Self {
            role,
            content: content.into_iter().collect(),
        }
    }

    /// The message as one text block; an empty text gives no block.
    pub fn from_message(message: &Message) -> Self {
        Self {
            role: message.role,
            content: (!message.text.is_empty())
                .then(|| ContentBlock::Text(message.text.clone()))
                .into_iter()
                .collect(),
        }
    }
}

impl Turn for ConverseMessage {
    fn is_user(&self) -> bool {
        self.role == Role::User
    }

    /// The reminder as the message's last text block, after any cache point.
    fn append(&mut self, block: String) {
        self.content.push(ContentBlock::Text(block));
    }
}

/// An entry of `toolConfig.tools` (`Tool`): a tool's specification, or a
/// cache point after the tools.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ToolEntry {
    /// `{"toolSpec": {..}}`.
    ToolSpec(ToolSpec),
    /// `{"cachePoint": {..}}`.
    CachePoint(CachePoint),
}

/// `ToolSpecification`: a tool's name, description and input schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolSpec {
    /// Its name (`ToolName`: 1 to 64 of `[a-zA-Z0-9_-]`).
    pub name: String,
    /// What it does; an empty one is left out (`NonEmptyString`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `{"json": schema}`: its input's JSON Schema, an object at the top.
    pub input_schema: InputSchema,
}

impl ToolSpec {
    /// The tool `name`, described by `description` (left out when empty),
    /// taking input of `schema`.
    pub fn new(name: impl Into<String>, description: impl Into<String>, schema: Value) -> Self {
        let description = description.into();
        Self {
            name: name.into(),
            description: (!description.is_empty()).then_some(description),
            input_schema: InputSchema::Json(schema),
        }
    }
}

/// `ToolInputSchema`: a union with one member, `json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum InputSchema {
    /// `{"json": schema}`.
    Json(Value),
}

/// `InferenceConfiguration`: the generation settings this crate sets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InferenceConfig {
    /// The most tokens the model may generate (at least 1; absent, the
    /// model's own maximum).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// The sampling temperature, 0 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
}

impl InferenceConfig {
    /// No settings: the model's defaults.
    pub const fn new() -> Self {
        Self {
            max_tokens: None,
            temperature: None,
        }
    }

    /// With `maxTokens`; 0, which the service refuses, leaves it unset.
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = (tokens > 0).then_some(tokens);
        self
    }

    /// With `temperature`.
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    pub(super) fn is_empty(&self) -> bool {
        self.max_tokens.is_none() && self.temperature.is_none()
    }
}
