//! Amazon Bedrock's Converse API: the system prompt, tools and conversation
//! as a `Converse` (or `ConverseStream`) request, with `cachePoint` blocks
//! placed by the same [cache plan](super::plan) as the Anthropic body.
//!
//! Bedrock caches a Claude model's request prefix as Anthropic's API does,
//! in the order tools -> system -> messages, up to each cache point; a cache
//! point is a block of its own (`{"cachePoint": {"type": "default"}}`) after
//! the content it caches, not a mark on that content. [`ConverseRequest::new`]
//! turns the parts of an [`AssembledPrompt`] into `system` blocks:
//!
//! - the stable prefix, cut where its widest shared scope group ends when
//!   that part alone is long enough for the model to cache (the same cuts as
//!   [`anthropic::breakpoint_offsets`](super::anthropic::breakpoint_offsets)),
//!   each piece followed by a cache point;
//! - the dynamic suffix after them, with none;
//! - an empty part gives no block (the service refuses empty system text).
//!
//! A conversation goes in with [`ConverseRequest::history`]: a
//! [`History`] kept as sent, the system prompt then the
//! stable prefix alone, and every cache point (after the tools, at the scope
//! cut, at the stable end, at the conversation's frontier) placed by the
//! request's [cache plan](ConverseRequest::cache_plan) within
//! [`MAX_CACHE_POINTS`], TTLs never increasing along the request. A one-hour
//! TTL is kept only on the models that take it ([`takes_one_hour_ttl`]);
//! elsewhere every cache point is the 5-minute default.
//!
//! What Bedrock does not have, this module does not send: no cache
//! diagnostics (the ledger judges Bedrock responses without a provider's
//! diagnosis), no mid-conversation system messages (a history built with
//! [`History::context_as_system_message`](super::History::context_as_system_message)
//! is refused with [`RequestError::SystemMessagesUnsupported`]), no automatic
//! caching. Serializing checks the cache points as the service would (at
//! most [`MAX_CACHE_POINTS`], no `1h` after a `5m`, a `1h` only where the
//! model takes it, none without content before it) and fails rather than
//! produce a body Bedrock refuses.
//!
//! The body is what `POST /model/{modelId}/converse` takes
//! ([`ConverseRequest::uri_path`]); the model id travels in the path, not the
//! body. [`ConverseRequest::sdk_params`] is the same request as the AWS SDKs'
//! `converse` call takes it, `modelId` included.
//!
//! Model ids name Anthropic's families ([`anthropic_model`]): the minimums
//! and prices of `anthropic.claude-sonnet-4-5-20250929-v1:0` (or
//! `us.anthropic…`, `global.anthropic…`) are Claude Sonnet 4.5's.
//!
//! ```
//! use prompt_providers::anthropic::CacheTtl;
//! use prompt_providers::bedrock::ConverseRequest;
//! use prompt_providers::History;
//! # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
//! # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
//! # struct DocBedrock;
//! # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocBedrock)]
//! # struct Persona;
//! # #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], text = "Date: 2026-12-07", pipeline = DocBedrock)]
//! # struct Today;
//! # let pipeline = Pipeline::of::<DocBedrock>()?;
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
//! let mut history = History::new();
//! history.user_turn(&prompt, "Fix the failing test.");
//!
//! let request = ConverseRequest::new(&prompt, "us.anthropic.claude-sonnet-4-5-20250929-v1:0", 1024)
//!     .ttl(CacheTtl::OneHour)
//!     .history(&history)?;
//! assert_eq!(request.uri_path(), "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse");
//! assert_eq!(
//!     serde_json::to_value(&request)?,
//!     serde_json::json!({
//!         "system": [
//!             {"text": "You are terse."},
//!             {"cachePoint": {"type": "default", "ttl": "1h"}}
//!         ],
//!         "messages": [{"role": "user", "content": [
//!             {"text": "<system-reminder>\nThe system prompt continues here with this session's \
//! context. It comes from the application, not from the user.\n\nDate: 2026-12-07\n\
//! </system-reminder>\n\nFix the failing test."},
//!             {"cachePoint": {"type": "default"}}
//!         ]}],
//!         "inferenceConfig": {"maxTokens": 1024}
//!     })
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`AssembledPrompt`]: crate::AssembledPrompt

mod blocks;
mod model;
mod plan;

pub use blocks::{
    CachePoint, ContentBlock, ConverseMessage, InferenceConfig, InputSchema, SystemBlock,
    ToolEntry, ToolResult, ToolResultContent, ToolResultStatus, ToolSpec, ToolUse,
};
pub use model::{
    BEDROCK_CHECKED, BEDROCK_SOURCE, MAX_CACHE_POINTS, anthropic_model, takes_one_hour_ttl,
};
pub use plan::CachePointLocation;

pub(crate) use model::table_id;

use std::borrow::Cow;

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::anthropic::{CacheTtl, breakpoint_offsets, scoped_system_blocks};
use super::conversation::Reminder;
use super::{History, Message, Role, UndeliveredReminder};
use crate::AssembledPrompt;
use prompt_core::tools::{RequestTools, canonical_json};

/// A Converse request: the body of `POST /model/{modelId}/converse` (and of
/// `converse-stream`, which takes the same), with the model id beside it.
///
/// Serialize it with `serde_json` for the body; [`sdk_params`](Self::sdk_params)
/// adds `modelId` for an AWS SDK's `converse` call. Fields are public so a
/// caller can add what this type does not model; serializing checks the
/// cache points whatever put them there
/// ([`check_cache_points`](Self::check_cache_points)).
///
/// The prompt's reminder is not in `messages`: serializing adds it as the
/// last block of the last user message (after any cache point, so it is
/// never cached), and fails with [`UndeliveredReminder`] when there is none.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ConverseRequest {
    /// The model id, inference profile or ARN (`modelId`, in the URI).
    pub model_id: String,
    /// The system prompt's blocks.
    pub system: Vec<SystemBlock>,
    /// The conversation.
    pub messages: Vec<ConverseMessage>,
    /// `toolConfig.tools`: the tool specifications, and a cache point after
    /// them when the plan keeps one.
    pub tools: Vec<ToolEntry>,
    /// `inferenceConfig`.
    pub inference_config: InferenceConfig,
    /// The prompt's reminder, placed when serialized.
    reminder: Reminder,
    /// Whether the last `system` block is the prompt's dynamic suffix (which
    /// a [`History`] carries in its newest turn instead).
    dynamic_block: bool,
    /// The TTL asked for the system prompt's cache points (and the tools').
    ttl: CacheTtl,
}

/// The body as sent: [`ConverseRequest`] with the reminder placed.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConverseBody<'a> {
    #[serde(skip_serializing_if = "<[SystemBlock]>::is_empty")]
    system: &'a [SystemBlock],
    messages: Cow<'a, [ConverseMessage]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_config: Option<ToolConfig<'a>>,
    #[serde(skip_serializing_if = "InferenceConfig::is_empty")]
    inference_config: InferenceConfig,
}

/// `ToolConfiguration`.
#[derive(Serialize)]
struct ToolConfig<'a> {
    tools: &'a [ToolEntry],
}

impl Serialize for ConverseRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        self.check_cache_points().map_err(S::Error::custom)?;
        if let Some(index) = self.messages.iter().position(|m| m.role == Role::System) {
            return Err(S::Error::custom(RequestError::SystemMessage { index }));
        }
        let messages = self
            .reminder
            .place(&self.messages)
            .map_err(S::Error::custom)?;
        ConverseBody {
            system: &self.system,
            messages,
            tool_config: (!self.tools.is_empty()).then_some(ToolConfig { tools: &self.tools }),
            inference_config: self.inference_config,
        }
        .serialize(serializer)
    }
}

impl ConverseRequest {
    /// A request whose system prompt is `prompt`, for `model_id` (a Bedrock
    /// model id, inference profile or ARN), generating at most `max_tokens`
    /// (0 leaves `maxTokens` to the model), with no messages yet.
    ///
    /// The stable prefix is cut and marked as the Anthropic body's is
    /// ([`breakpoint_offsets`] for the model's family, [`anthropic_model`]),
    /// each piece followed by a 5-minute cache point until
    /// [`ttl`](Self::ttl) changes it; the dynamic suffix follows unmarked.
    pub fn new(prompt: &AssembledPrompt, model_id: impl Into<String>, max_tokens: u32) -> Self {
        let model_id = model_id.into();
        let cuts = breakpoint_offsets(prompt, table_id(&model_id));
        let mut system = Vec::new();
        for block in scoped_system_blocks(prompt, CacheTtl::FiveMinutes, &cuts) {
            let marked = block.cache_control.is_some();
            system.push(SystemBlock::Text(block.text));
            if marked {
                system.push(SystemBlock::CachePoint(CachePoint::new(
                    CacheTtl::FiveMinutes,
                )));
            }
        }
        Self {
            model_id,
            system,
            messages: Vec::new(),
            tools: Vec::new(),
            inference_config: InferenceConfig::new().max_tokens(max_tokens),
            reminder: Reminder::of(prompt, "Bedrock Converse request"),
            dynamic_block: prompt.path() == crate::AssemblyPath::Cached
                && !prompt.dynamic().is_empty(),
            ttl: CacheTtl::FiveMinutes,
        }
    }

    /// The prompt's reminder this request carries (trimmed), if it has one.
    pub fn reminder(&self) -> Option<&str> {
        self.reminder.text()
    }

    /// Whether the prompt's reminder has a user message to travel in.
    ///
    /// # Errors
    /// [`UndeliveredReminder`] when the prompt has a reminder and the request
    /// no user message: serializing it would fail the same way.
    pub fn check_reminder(&self) -> Result<(), UndeliveredReminder> {
        self.reminder.check(&self.messages)
    }

    /// Sets the TTL of the system prompt's cache points (and of the tools'
    /// one the plan places). [`CacheTtl::OneHour`] on a model not known to
    /// take it ([`takes_one_hour_ttl`]) keeps the 5-minute default: the
    /// request never carries a TTL its model may refuse.
    #[must_use]
    pub fn ttl(mut self, ttl: CacheTtl) -> Self {
        let ttl = self.allowed(ttl);
        self.ttl = ttl;
        for block in &mut self.system {
            if let SystemBlock::CachePoint(point) = block {
                point.ttl = ttl;
            }
        }
        self
    }

    /// `ttl`, or the 5-minute TTL when the model is not known to take it.
    fn allowed(&self, ttl: CacheTtl) -> CacheTtl {
        if takes_one_hour_ttl(&self.model_id) {
            ttl
        } else {
            CacheTtl::FiveMinutes
        }
    }

    /// Appends one message. A message with empty text is left out (Bedrock
    /// merges nothing and refuses empty turns).
    #[must_use]
    pub fn message(mut self, message: Message) -> Self {
        self.push(&message);
        self
    }

    /// Appends messages, as [`message`](Self::message) does.
    #[must_use]
    pub fn messages(mut self, messages: impl IntoIterator<Item = Message>) -> Self {
        for message in messages {
            self.push(&message);
        }
        self
    }

    /// Appends a message of Converse's own blocks: a tool call the model
    /// made ([`ToolUse`]), or the user's turn carrying its result
    /// ([`ToolResult`]). A message without blocks is left out.
    #[must_use]
    pub fn converse_message(mut self, message: ConverseMessage) -> Self {
        if !message.content.is_empty() {
            self.messages.push(message);
        }
        self
    }

    fn push(&mut self, message: &Message) {
        let message = ConverseMessage::from_message(message);
        if !message.content.is_empty() {
            self.messages.push(message);
        }
    }

    /// Sets the tool definitions to `tools`, in their canonical order and
    /// with their schemas' keys sorted ([`RequestTools`]): the same tools
    /// give the same bytes in every process, so the prefix Bedrock caches
    /// (tools, then system, then messages) holds from the first byte. The
    /// plan puts a cache point after them.
    ///
    /// ```
    /// use prompt_providers::bedrock::{ConverseRequest, ToolEntry};
    /// use prompt_core::tools::{RequestTools, Tool};
    /// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
    /// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
    /// # struct DocBedrockTools;
    /// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "Be brief.", pipeline = DocBedrockTools)]
    /// # struct Brief;
    /// # let pipeline = Pipeline::of::<DocBedrockTools>()?;
    /// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
    /// let schema = serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}});
    /// let tools = RequestTools::new([Tool::new("read", "Read a file.", schema)])?;
    /// let request = ConverseRequest::new(&prompt, "anthropic.claude-sonnet-4-5-20250929-v1:0", 1024)
    ///     .declared_tools(&tools);
    /// let body = serde_json::to_value(&request)?;
    /// assert_eq!(body["toolConfig"]["tools"][0]["toolSpec"]["name"], "read");
    /// assert_eq!(body["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"]["type"], "object");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn declared_tools(mut self, tools: &RequestTools) -> Self {
        self.tools = tools
            .tools()
            .iter()
            .map(|tool| {
                ToolEntry::ToolSpec(ToolSpec::new(
                    tool.name(),
                    tool.description(),
                    canonical_json(tool.input_schema()),
                ))
            })
            .collect();
        self
    }

    /// Sets the tool specifications, as the caller built them.
    #[must_use]
    pub fn tools(mut self, tools: impl IntoIterator<Item = ToolSpec>) -> Self {
        self.tools = tools.into_iter().map(ToolEntry::ToolSpec).collect();
        self
    }

    /// This request with `history` as its messages, exactly as sent, and its
    /// cache points placed by its [cache plan](Self::cache_plan), one at
    /// the conversation's frontier included.
    ///
    /// The history carries each turn's per-turn block (the prompt's dynamic
    /// suffix and reminder, placed by [`History::user_turn`]), so the system
    /// prompt keeps only its stable blocks and the request adds no reminder
    /// of its own. Messages already added are replaced.
    ///
    /// # Errors
    /// [`RequestError::SystemMessagesUnsupported`] when the history holds a
    /// mid-conversation system message: Bedrock takes none for Claude.
    pub fn history(mut self, history: &History) -> Result<Self, RequestError> {
        if history.has_system_messages() {
            return Err(RequestError::SystemMessagesUnsupported {
                model_id: self.model_id.clone(),
            });
        }
        if std::mem::take(&mut self.dynamic_block)
            && matches!(self.system.last(), Some(SystemBlock::Text(_)))
        {
            self.system.pop();
        }
        self.reminder = self.reminder.carried();
        self.messages.clear();
        for message in history.messages() {
            self.push(message);
        }
        self.plan_cache_points();
        Ok(self)
    }

    /// The keep-alive refresh of this request (a ping, see
    /// [`keepalive`](crate::keepalive)): its cached part exactly as sent,
    /// tools, system and messages up to and including the last `cachePoint`
    /// block, asking for `max_tokens` (at least 1: the service refuses 0)
    /// output. What follows the last cache point (the reminder, a block after
    /// it, later messages) is left out: the cache never held it. A request
    /// without a cache point in its messages keeps its messages whole, as
    /// the service takes no request without one. Other inference settings
    /// are kept.
    ///
    /// Bedrock reads the cache up to each cache point as Anthropic's API
    /// does, so this is [`MessagesRequest::refresh`](super::anthropic::MessagesRequest::refresh)
    /// for the Converse body.
    ///
    /// ```
    /// use prompt_providers::bedrock::ConverseRequest;
    /// use prompt_providers::Message;
    /// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
    /// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
    /// # struct DocConverseRefresh;
    /// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocConverseRefresh)]
    /// # struct Persona;
    /// # let pipeline = Pipeline::of::<DocConverseRefresh>()?;
    /// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
    /// let mut turn = ConverseRequest::new(&prompt, "anthropic.claude-sonnet-4-5-20250929-v1:0", 1024)
    ///     .message(Message::user("Fix the failing test."));
    /// turn.plan_cache_points();
    /// let ping = turn.refresh(0);
    /// let (turn, ping) = (serde_json::to_value(&turn)?, serde_json::to_value(&ping)?);
    /// assert_eq!(ping["inferenceConfig"]["maxTokens"], 1);
    /// assert_eq!((&ping["system"], &ping["messages"]), (&turn["system"], &turn["messages"]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn refresh(&self, max_tokens: u32) -> Self {
        let mut ping = self.clone();
        ping.inference_config = ping.inference_config.max_tokens(max_tokens.max(1));
        ping.reminder = ping.reminder.carried();
        let is_point = |b: &ContentBlock| matches!(b, ContentBlock::CachePoint(_));
        let frontier = ping
            .messages
            .iter()
            .rposition(|m| m.content.iter().any(is_point));
        if let Some(index) = frontier {
            ping.messages.truncate(index + 1);
            if let Some(last) = ping.messages.last_mut() {
                let end = last
                    .content
                    .iter()
                    .rposition(is_point)
                    .map_or(last.content.len(), |i| i + 1);
                last.content.truncate(end);
            }
        }
        ping
    }

    /// The path of the Converse operation for this request's model:
    /// `/model/{modelId}/converse`, the id percent-encoded as a URI label
    /// (`:` as `%3A`, an ARN's `/` as `%2F`).
    pub fn uri_path(&self) -> String {
        format!("/model/{}/converse", encode_label(&self.model_id))
    }

    /// The path of the ConverseStream operation, which takes the same body:
    /// `/model/{modelId}/converse-stream`.
    pub fn stream_uri_path(&self) -> String {
        format!("/model/{}/converse-stream", encode_label(&self.model_id))
    }

    /// The request as an AWS SDK's `converse` (or `converse_stream`) call
    /// takes its parameters: the body's members and `modelId`.
    ///
    /// # Errors
    /// What serializing the body refuses: a cache point Bedrock would refuse
    /// ([`check_cache_points`](Self::check_cache_points)), a system message
    /// inside `messages`, or the prompt's reminder with no user message.
    pub fn sdk_params(&self) -> Result<Value, serde_json::Error> {
        let mut body = serde_json::to_value(self)?;
        if let Value::Object(members) = &mut body {
            let mut params = serde_json::Map::with_capacity(members.len() + 1);
            params.insert("modelId".to_owned(), Value::String(self.model_id.clone()));
            params.append(members);
            return Ok(Value::Object(params));
        }
        Ok(body)
    }
}

/// Byte offsets in `prompt.stable()` where a request for `model_id` puts a
/// cache point: the Anthropic body's ([`breakpoint_offsets`]) for the family
/// the id names. What [`Sent::breakpoints`](crate::providers::observe::Sent::breakpoints)
/// takes, so the ledger knows where the cache can still be read after a
/// change.
pub fn cache_point_offsets(prompt: &AssembledPrompt, model_id: &str) -> Vec<usize> {
    breakpoint_offsets(prompt, table_id(model_id))
}

/// A URI label as the AWS SDKs encode one: every byte but the unreserved
/// (`A-Z a-z 0-9 - _ . ~`) as `%XX`.
fn encode_label(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    for byte in label.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Why a Converse request cannot be built or sent as it is. Each message
/// says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// More cache points than a request takes.
    #[error(
        "the cache point at {at} is number {count}; Bedrock takes at most {MAX_CACHE_POINTS} per \
         request for a Claude model: remove one, or let `plan_cache_points` place them"
    )]
    TooManyCachePoints {
        /// Where the first one past the limit is.
        at: CachePointLocation,
        /// How many the request holds.
        count: usize,
    },
    /// A 1-hour cache point after a 5-minute one.
    #[error(
        "the 1-hour cache point at {one_hour} comes after the 5-minute one at {five_minutes}; \
         longer TTLs must come first (order: tools, system, messages): give {five_minutes} the \
         1-hour TTL or {one_hour} the 5-minute one"
    )]
    TtlOrder {
        /// The earlier, 5-minute cache point.
        five_minutes: CachePointLocation,
        /// The later, 1-hour cache point.
        one_hour: CachePointLocation,
    },
    /// A 1-hour cache point for a model not known to take one.
    #[error(
        "the cache point at {at} asks for a 1-hour TTL, and model `{model_id}` is not known to \
         take one (see `takes_one_hour_ttl`): use the 5-minute TTL"
    )]
    OneHourUnsupported {
        /// The request's model id.
        model_id: String,
        /// Where the cache point is.
        at: CachePointLocation,
    },
    /// A cache point with nothing before it to cache, or right after another.
    #[error(
        "the cache point at {at} follows no content of its own (it opens its list or follows \
         another cache point): remove it"
    )]
    CachePointWithoutContent {
        /// Where it is.
        at: CachePointLocation,
    },
    /// A history with mid-conversation system messages.
    #[error(
        "the history has a system message inside `messages`, and Bedrock takes none for \
         `{model_id}`: build the history with `History::new()`, which keeps the per-turn context \
         in the user turn"
    )]
    SystemMessagesUnsupported {
        /// The request's model id.
        model_id: String,
    },
    /// A system message added to `messages` by hand.
    #[error(
        "message {index} has the role `system`, which Bedrock does not take inside `messages`: put \
         the text in `system` or in the user's turn"
    )]
    SystemMessage {
        /// Its index in `messages`.
        index: usize,
    },
}
