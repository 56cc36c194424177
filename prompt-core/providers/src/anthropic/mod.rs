//! Anthropic Messages API: the system prompt as text blocks with a cache
//! breakpoint on the stable block.
//!
//! The API caches the request prefix up to each `cache_control` breakpoint, in
//! the order tools -> system -> messages. [`MessagesRequest::new`] turns the
//! parts of an [`AssembledPrompt`] into `system` blocks:
//!
//! - the stable block carries `cache_control: {"type": "ephemeral"}` (plus
//!   `"ttl": "1h"` with [`CacheTtl::OneHour`]), the dynamic block none;
//! - the stable prefix is cut in two where its widest shared
//!   [`Scope`](crate::spec::Scope) group ends (the Global and Project part), with a
//!   breakpoint on each block, when that part alone is long enough for the
//!   model to cache ([`scope_cuts`]); a teammate's first call reads it;
//! - an empty part gives no block (the API rejects empty text blocks): an
//!   empty dynamic suffix leaves one block, an empty stable prefix leaves no
//!   breakpoint;
//! - the Basic path's single uncached part gives one unmarked block.
//!
//! A conversation goes in with [`MessagesRequest::history`]: a
//! [`History`](super::History) kept as sent, the system prompt then the
//! stable prefix alone, and every breakpoint (after the tools, at the scope
//! cut, at the stable end, at the conversation's frontier) placed by the
//! request's [cache plan](super::plan) ([`MessagesRequest::cache_plan`],
//! [`MessagesRequest::plan_breakpoints`]) within the API's limit.
//!
//! [`MessagesRequest::cache_tools`] and [`MessagesRequest::cache_last_user_turn`]
//! place the remaining breakpoints and refuse what the API would reject: more
//! than 4, or a 1-hour breakpoint after a 5-minute one.
//! [`MessagesRequest::automatic_caching`] is the alternative to the last one:
//! a top-level `cache_control` the API moves to the last block as the
//! conversation grows (refused with a reminder, which that block would be).
//! [`MessagesRequest::diagnostics`] asks the API why this request missed the
//! cache of an earlier response, and returns the beta header to send with it.
//! The prompt's reminder (the `channel = Reminder` layers) travels as a
//! trailing `<system-reminder>` block of the last user turn, added when the
//! request is serialized; a request with no user turn to carry it fails to
//! serialize ([`UndeliveredReminder`]) rather than
//! drop it. [`MessagesRequest::with_reminder`] appends a further block, for
//! per-call text of the caller's own that should not break the cached system
//! prompt. [`check_cache_minimum`] warns when the stable prefix is too short for
//! the model to cache at all: below the minimum the API caches nothing and
//! says nothing.
//!
//! ```
//! use prompt_providers::anthropic::{CacheTtl, MessagesRequest};
//! use prompt_providers::Message;
//! # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
//! # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
//! # struct DocAnthropic;
//! # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocAnthropic)]
//! # struct Persona;
//! # #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], text = "Date: 2026-11-29", pipeline = DocAnthropic)]
//! # struct Today;
//! # let pipeline = Pipeline::of::<DocAnthropic>()?;
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
//!
//! let mut request = MessagesRequest::new(&prompt, "claude-opus-4-5", 1024)
//!     .ttl(CacheTtl::OneHour)
//!     .message(Message::user("Fix the failing test."));
//! request.cache_last_user_turn(CacheTtl::FiveMinutes)?;
//! request.with_reminder(Some("The user is on branch fix/login."))?;
//!
//! assert_eq!(
//!     serde_json::to_value(&request)?,
//!     serde_json::json!({
//!         "model": "claude-opus-4-5",
//!         "max_tokens": 1024,
//!         "system": [
//!             {"type": "text", "text": "You are terse.",
//!              "cache_control": {"type": "ephemeral", "ttl": "1h"}},
//!             {"type": "text", "text": "Date: 2026-11-29"}
//!         ],
//!         "messages": [{"role": "user", "content": [
//!             {"type": "text", "text": "Fix the failing test.",
//!              "cache_control": {"type": "ephemeral"}},
//!             {"type": "text",
//!              "text": "<system-reminder>\nThe user is on branch fix/login.\n</system-reminder>"}
//!         ]}]
//!     })
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`AssembledPrompt`]: crate::AssembledPrompt

mod breakpoints;
mod declared;
mod diagnostics;
mod plan;
mod scopes;

pub use super::mid_conversation::{
    SYSTEM_MESSAGES_CHECKED, SYSTEM_MESSAGES_SOURCE, takes_system_messages,
};
pub use super::minimums::{
    BelowCacheMinimum, CacheMinimum, CacheMinimums, MINIMUMS_CHECKED, MinimumSource, ModelFamily,
    check_cache_minimum,
};
pub use breakpoints::{Breakpoint, BreakpointLocation, MAX_BREAKPOINTS};
pub use diagnostics::{CACHE_DIAGNOSIS_BETA, Diagnostics, Header};
pub use scopes::{SYSTEM_BREAKPOINTS, breakpoint_offsets, scope_cuts, scoped_system_blocks};

use std::borrow::Cow;

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::conversation::{Reminder, Turn};
use super::placement::reminder_block;
use super::{Message, Role, UndeliveredReminder};
use crate::AssembledPrompt;

/// How long a cache entry lives after its last use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum CacheTtl {
    /// 5 minutes, the API's default: a write costs 1.25x input.
    #[default]
    FiveMinutes,
    /// 1 hour: a write costs 2x input. Worth it when calls are more than 5
    /// minutes apart.
    OneHour,
}

impl CacheTtl {
    /// The API's spelling: `"5m"` or `"1h"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::FiveMinutes => "5m",
            Self::OneHour => "1h",
        }
    }

    fn is_default(&self) -> bool {
        *self == Self::FiveMinutes
    }
}

impl std::fmt::Display for CacheTtl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CacheTtl {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A cache breakpoint: `{"type": "ephemeral"}`, with `"ttl": "1h"` for the
/// one-hour cache (the 5-minute default is left implicit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "ephemeral")]
#[non_exhaustive]
pub struct CacheControl {
    /// How long the entry lives.
    #[serde(skip_serializing_if = "CacheTtl::is_default")]
    pub ttl: CacheTtl,
}

impl CacheControl {
    /// A breakpoint with `ttl`.
    pub const fn new(ttl: CacheTtl) -> Self {
        Self { ttl }
    }

    fn to_value(self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A `{"type": "text"}` content block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename = "text")]
#[non_exhaustive]
pub struct TextBlock {
    /// The text; never empty in what this module builds.
    pub text: String,
    /// The breakpoint after this block, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

impl TextBlock {
    /// An unmarked block.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            cache_control: None,
        }
    }
}

/// A message as the API takes it: a role and content blocks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct MessageParam {
    /// Who wrote it.
    pub role: Role,
    /// Its blocks, in order.
    pub content: Vec<TextBlock>,
}

impl MessageParam {
    /// The message as one text block; an empty text gives no block.
    pub fn from_message(message: &Message) -> Self {
        Self {
            role: message.role,
            content: non_empty_block(&message.text).into_iter().collect(),
        }
    }
}

impl Turn for MessageParam {
    fn is_user(&self) -> bool {
        self.role == Role::User
    }

    /// The reminder as the message's last text block, after any breakpoint.
    fn append(&mut self, block: String) {
        self.content.push(TextBlock::new(block));
    }
}

/// The `system` blocks for `prompt`: one per non-empty part, the cached part
/// marked with a breakpoint of `ttl`.
///
/// ```
/// use prompt_providers::anthropic::{system_blocks, CacheTtl};
/// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
/// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
/// # struct DocSystemBlocks;
/// # #[prompt_layer(priority = 1, stability = Stable, paths = [Basic, Cached], text = "You are terse.", pipeline = DocSystemBlocks)]
/// # struct Persona;
/// # let pipeline = Pipeline::of::<DocSystemBlocks>()?;
/// let cached = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
/// let blocks = system_blocks(&cached, CacheTtl::FiveMinutes);
/// assert_eq!(blocks.len(), 1); // the dynamic suffix is empty: no block for it
/// assert!(blocks[0].cache_control.is_some());
///
/// let basic = PromptBuilder::new(&pipeline).build_basic(&Context::new(), &Context::new())?;
/// assert!(system_blocks(&basic, CacheTtl::FiveMinutes)[0].cache_control.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn system_blocks(prompt: &AssembledPrompt, ttl: CacheTtl) -> Vec<TextBlock> {
    prompt
        .parts()
        .iter()
        .filter(|part| !part.content.is_empty())
        .map(|part| TextBlock {
            text: part.content.to_string(),
            cache_control: part.cache.then_some(CacheControl::new(ttl)),
        })
        .collect()
}

/// A Messages API request body (`POST /v1/messages`).
///
/// Serialize it with `serde_json`; it is the body the official SDKs send.
/// Fields are public so a caller can add what this type does not model; the
/// breakpoint helpers check whatever is there.
///
/// The prompt's reminder is not in `messages`: serializing adds it as the
/// last block of the last user message, and fails with
/// [`UndeliveredReminder`] when there is none
/// ([`check_reminder`](Self::check_reminder) says so beforehand).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MessagesRequest {
    /// The model, e.g. `claude-sonnet-4-5`.
    pub model: String,
    /// The most tokens the model may generate.
    pub max_tokens: u32,
    /// The system prompt's blocks.
    pub system: Vec<TextBlock>,
    /// The conversation.
    pub messages: Vec<MessageParam>,
    /// Tool definitions, as the caller wrote them (JSON objects).
    pub tools: Vec<Value>,
    /// Automatic caching: a top-level `cache_control` the API puts on the
    /// last cacheable block ([`automatic_caching`](Self::automatic_caching)).
    pub cache_control: Option<CacheControl>,
    /// Cache diagnostics against an earlier response
    /// ([`diagnostics`](Self::diagnostics)).
    pub diagnostics: Option<Diagnostics>,
    /// The prompt's reminder, placed when serialized.
    reminder: Reminder,
    /// Whether the last `system` block is the prompt's dynamic suffix (which
    /// a [`History`](super::History) carries in its newest turn instead).
    dynamic_block: bool,
}

/// The body as sent: [`MessagesRequest`] with the reminder placed.
#[derive(Serialize)]
struct MessagesBody<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "<[TextBlock]>::is_empty")]
    system: &'a [TextBlock],
    messages: Cow<'a, [MessageParam]>,
    #[serde(skip_serializing_if = "<[Value]>::is_empty")]
    tools: &'a [Value],
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diagnostics: Option<&'a Diagnostics>,
}

impl Serialize for MessagesRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let messages = self
            .reminder
            .place(&self.messages)
            .map_err(serde::ser::Error::custom)?;
        MessagesBody {
            model: &self.model,
            max_tokens: self.max_tokens,
            system: &self.system,
            messages,
            tools: &self.tools,
            cache_control: self.cache_control,
            diagnostics: self.diagnostics.as_ref(),
        }
        .serialize(serializer)
    }
}

impl MessagesRequest {
    /// A request whose system prompt is `prompt` (see [`system_blocks`]; the
    /// breakpoint has the 5-minute TTL until [`ttl`](Self::ttl) changes it),
    /// with no messages yet.
    ///
    /// The stable prefix is cut at the end of its widest shared scope group
    /// when the prefix up to there is long enough for `model` to cache
    /// ([`scope_cuts`], tokens counted with [`ApproxCounter`](crate::tokens::ApproxCounter)),
    /// with a breakpoint there too: a teammate's first call then reads the
    /// Global and Project part from the cache and writes only its own. At
    /// most [`SYSTEM_BREAKPOINTS`] breakpoints go in the system prompt, so the
    /// tools' and the conversation's still fit.
    pub fn new(prompt: &AssembledPrompt, model: impl Into<String>, max_tokens: u32) -> Self {
        let model = model.into();
        let cuts = breakpoint_offsets(prompt, &model);
        Self {
            model,
            max_tokens,
            system: scoped_system_blocks(prompt, CacheTtl::FiveMinutes, &cuts),
            messages: Vec::new(),
            tools: Vec::new(),
            cache_control: None,
            diagnostics: None,
            reminder: Reminder::of(prompt, "Anthropic Messages request"),
            dynamic_block: prompt.path() == crate::AssemblyPath::Cached
                && !prompt.dynamic().is_empty(),
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

    /// Sets the TTL of the system prompt's breakpoint. Tools cached with the
    /// 5-minute TTL cannot precede a 1-hour system breakpoint; the helpers that
    /// place them check this.
    pub fn ttl(mut self, ttl: CacheTtl) -> Self {
        for control in self
            .system
            .iter_mut()
            .filter_map(|b| b.cache_control.as_mut())
        {
            control.ttl = ttl;
        }
        self
    }

    /// Appends one message. A message with empty text is left out: the API
    /// rejects empty text blocks and merges consecutive turns of one role.
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

    /// Sets the tool definitions (JSON objects, as the API takes them).
    pub fn tools(mut self, tools: impl IntoIterator<Item = Value>) -> Self {
        self.tools = tools.into_iter().collect();
        self
    }

    fn push(&mut self, message: &Message) {
        let param = MessageParam::from_message(message);
        if !param.content.is_empty() {
            self.messages.push(param);
        }
    }

    /// Appends `<system-reminder>\n{reminder}\n</system-reminder>` as a new
    /// text block of the last user message.
    ///
    /// This is how per-call text can reach the model without entering the
    /// system prompt, which then stays whole and cacheable. `None`, or a
    /// reminder that is empty or only whitespace, changes nothing. The block
    /// goes after any breakpoint on that message, so the reminder is never
    /// cached. The prompt's own reminder is carried already (see
    /// [`MessagesRequest`]): passing it again adds no second block.
    ///
    /// # Errors
    /// [`RequestError::NoUserTurn`] when the request has no user message yet;
    /// [`RequestError::AutomaticCachingWithReminder`] when it has automatic
    /// caching, which would cache the reminder.
    pub fn with_reminder(&mut self, reminder: Option<&str>) -> Result<(), RequestError> {
        let Some(reminder) = reminder.map(str::trim).filter(|r| !r.is_empty()) else {
            return Ok(());
        };
        let own = self.reminder.text() == Some(reminder);
        if !own && self.cache_control.is_some() {
            return Err(RequestError::AutomaticCachingWithReminder);
        }
        let turn = self
            .last_user_turn()
            .ok_or(RequestError::NoUserTurn { what: "a reminder" })?;
        if !own {
            turn.content
                .extend(reminder_block(reminder).map(TextBlock::new));
        }
        Ok(())
    }

    /// The keep-alive refresh of this request (a ping, see
    /// [`keepalive`](crate::keepalive)): its cached part exactly as sent,
    /// tools, system and messages up to and including the block that
    /// carries the last breakpoint, asking for `max_tokens` (at least 1)
    /// output. What follows the last breakpoint (the reminder, a block
    /// after it) is left out: the cache never held it. A request with
    /// automatic caching (whose breakpoint is its last block) or without a
    /// breakpoint in its messages keeps its messages whole, as the API
    /// takes no request without one. Diagnostics are dropped.
    ///
    /// ```
    /// use prompt_providers::anthropic::MessagesRequest;
    /// use prompt_providers::Message;
    /// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
    /// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
    /// # struct DocRefresh;
    /// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocRefresh)]
    /// # struct Persona;
    /// # let pipeline = Pipeline::of::<DocRefresh>()?;
    /// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
    /// let mut turn = MessagesRequest::new(&prompt, "claude-sonnet-4-5", 1024)
    ///     .message(Message::user("Fix the failing test."));
    /// turn.cache_last_user_turn(Default::default())?;
    /// let ping = turn.refresh(1);
    /// let (turn, ping) = (serde_json::to_value(&turn)?, serde_json::to_value(&ping)?);
    /// assert_eq!(ping["max_tokens"], 1);
    /// assert_eq!((&ping["system"], &ping["messages"]), (&turn["system"], &turn["messages"]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn refresh(&self, max_tokens: u32) -> Self {
        let mut ping = self.clone();
        ping.max_tokens = max_tokens.max(1);
        ping.diagnostics = None;
        ping.reminder = ping.reminder.carried();
        if ping.cache_control.is_some() {
            return ping;
        }
        let frontier = ping
            .messages
            .iter()
            .rposition(|m| m.content.iter().any(|b| b.cache_control.is_some()));
        if let Some(index) = frontier {
            ping.messages.truncate(index + 1);
            if let Some(last) = ping.messages.last_mut() {
                let end = last
                    .content
                    .iter()
                    .rposition(|b| b.cache_control.is_some())
                    .map_or(last.content.len(), |i| i + 1);
                last.content.truncate(end);
            }
        }
        ping
    }

    fn last_user_turn(&mut self) -> Option<&mut MessageParam> {
        self.messages
            .iter_mut()
            .rev()
            .find(|m| m.role == Role::User)
    }
}

/// What opens a reminder block.
pub const REMINDER_OPEN: &str = super::placement::CONTEXT_OPEN;
/// What closes a reminder block.
pub const REMINDER_CLOSE: &str = super::placement::CONTEXT_CLOSE;

/// Why a request cannot take a breakpoint or a reminder. Each message says
/// what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// A breakpoint past the API's limit.
    #[error(
        "a breakpoint on {at} would be cache breakpoint number {count}; the API takes at most \
         {MAX_BREAKPOINTS} per request: remove one (the system prompt's stable block needs its own)"
    )]
    TooManyBreakpoints {
        /// Where the refused breakpoint would have gone.
        at: BreakpointLocation,
        /// How many breakpoints that would have made.
        count: usize,
    },
    /// A 1-hour breakpoint after a 5-minute one, which the API rejects.
    #[error(
        "the 1-hour breakpoint on {one_hour} comes after the 5-minute breakpoint on {five_minutes}; \
         the API requires longer TTLs first (order: tools, system, messages): give {five_minutes} \
         the 1-hour TTL or {one_hour} the 5-minute one"
    )]
    TtlOrder {
        /// The earlier, 5-minute breakpoint.
        five_minutes: BreakpointLocation,
        /// The later, 1-hour breakpoint.
        one_hour: BreakpointLocation,
    },
    /// `cache_tools` on a request without tools.
    #[error("the request has no tools to put a breakpoint on: set them with `tools(..)` first")]
    NoTools,
    /// A tool definition that is not a JSON object.
    #[error(
        "tool {index} is not a JSON object, so it cannot carry `cache_control`: pass each tool as an object"
    )]
    ToolNotObject {
        /// Its index in `tools`.
        index: usize,
    },
    /// Automatic caching on a request whose last block is a reminder: the
    /// API would cache the reminder, which changes every call, and no later
    /// call would read that entry.
    #[error(
        "automatic caching marks the last block of the request, which here is the reminder (per-call \
         text): every call would write a cache entry no later call reads; use \
         `cache_last_user_turn`, which marks the user's own words before the reminder"
    )]
    AutomaticCachingWithReminder,
    /// A history with mid-conversation system messages, for a model not
    /// known to take them.
    #[error(
        "the history has a system message inside `messages` and model `{model}` is not known to \
         take one (see `takes_system_messages`): build the history with `History::new()`, which \
         keeps the per-turn context in the user turn"
    )]
    SystemMessagesUnsupported {
        /// The request's model.
        model: String,
    },
    /// No user message to attach to.
    #[error("the request has no user message to carry {what}: add the user's turn first")]
    NoUserTurn {
        /// What needed it: a breakpoint or a reminder.
        what: &'static str,
    },
}

fn non_empty_block(text: &str) -> Option<TextBlock> {
    (!text.is_empty()).then(|| TextBlock::new(text))
}
