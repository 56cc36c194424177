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
//! shared prefix is the widest scope's part of the stable prefix: its Global
//! layers ([`AssemblyTrace::shared_prefix`](crate::AssemblyTrace::shared_prefix)
//! of [`Scope::Global`](crate::spec::Scope::Global)); when the prompt has no
//! Global layer, its Project part; when neither, the whole stable prefix. So
//! an edit in a narrower scope never moves the routing of a wider one: a
//! changed `AGENTS.md` (Project) or `user.md` (User) keeps the key, and the
//! Global part is still read from the machine that holds it; only a changed
//! Global layer gets a new key. Every session of one agent (pipeline) gets
//! the same key, in every process. For a server of many replicas, or a team,
//! past OpenAI's ~15 requests a minute per key, [`affinity`](crate::affinity)
//! keys each repository separately and shards a busy key; send its key with
//! [`ResponsesRequest::affinity`] or [`ChatRequest::affinity`].
//! The whole prompt, stable prefix first, goes in one instruction string, so the
//! cached prefix is the stable part.
//!
//! The prompt's reminder (the `channel = Reminder` layers) is added to the end
//! of the last user message when a request is serialized, as a
//! `<system-reminder>` block after a blank line; a request with no user message
//! fails to serialize ([`UndeliveredReminder`]) rather than drop it.
//!
//! ## Explicit breakpoints (GPT-5.6 and later)
//!
//! From GPT-5.6 on, OpenAI matches a cached prefix exactly at a breakpoint
//! and charges a cache write 1.25x input ([`cost`](super::cost)). Its own
//! (implicit) breakpoint goes at the end of the newest message, past our
//! dynamic suffix, so the stable prefix needs one of its own: for those
//! models ([`takes_prompt_cache_options`]) both requests send the prompt as
//! text parts with `prompt_cache_breakpoint: {"mode": "explicit"}` at the end
//! of the stable prefix and at the scope boundary the Anthropic request
//! breaks at (one placement rule: [`scope_cuts`](super::anthropic::scope_cuts),
//! with OpenAI's minimum of [`CacheMinimums::openai`](super::minimums::CacheMinimums::openai)),
//! the dynamic suffix unmarked after them, and `prompt_cache_options:
//! {"mode": "implicit", "ttl": "30m"}`. That is at most
//! [`SYSTEM_BREAKPOINTS`](super::anthropic::SYSTEM_BREAKPOINTS) explicit
//! breakpoints plus OpenAI's implicit one, within the
//! [`MAX_BREAKPOINT_WRITES`] a request writes; OpenAI considers the latest 80
//! breakpoints of a conversation when it matches. The Responses request then
//! carries the prompt as a leading `developer` message of `input_text` parts
//! (`instructions` is a string and takes no breakpoint); Chat Completions as
//! the content parts of its `system` (or `developer`) message. Joined, the
//! parts are the instruction text.
//!
//! [`explicit_breakpoints`](ResponsesRequest::explicit_breakpoints) places
//! them for another model, or sets `mode: "explicit"` (OpenAI then writes
//! only ours, and nothing without one);
//! [`without_breakpoints`](ResponsesRequest::without_breakpoints) goes back
//! to one string. [`ResponsesRequest::comparison_response_id`] asks for
//! OpenAI's cache diagnostics against an earlier response (Responses only).
//! Other models' bodies are unchanged: one string, no `prompt_cache_options`.
//!
//! ## How long the cache is kept
//!
//! A request for GPT-5.6 and later says it with `prompt_cache_options.ttl`
//! (a shortest lifetime: `"30m"` by default, `"12h"` on Responses,
//! [`ResponsesRequest::ttl`]); one for an earlier model with the deprecated
//! `prompt_cache_retention` (a longest: `"in_memory"` or `"24h"`,
//! [`ResponsesRequest::retention`]). A body carries one of the two, never
//! both, and never a value the model refuses: GPT-5.5 takes only `"24h"`,
//! Chat Completions only a `"30m"` TTL. The values per model are dated data
//! in [`lifetimes`](super::lifetimes).
//!
//! [`ResponsesRequest::prewarm`] asks OpenAI to write the request's prefix
//! and generate nothing (`prompt_cache_options.prewarm`, Responses only),
//! billed as a cache write.
//!
//! ```
//! use prompt_providers::openai::{prompt_cache_key, CacheRetention, ResponsesRequest};
//! use prompt_providers::Message;
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

use serde::{Serialize, Serializer};

use super::conversation::{Reminder, Turn};
use super::{Message, Role, UndeliveredReminder};
use crate::AssembledPrompt;

/// The cache key for `prompt`: `<pipeline>-<fingerprint, 16 hex>` of its
/// widest scope's part: the Global layers, else the Project ones, else the
/// whole stable prefix. An edit of a narrower scope keeps the key.
///
/// It is [`AffinityKey::widest`](crate::affinity::AffinityKey::widest): one
/// key for every session of the agent. An agent server whose replicas or
/// users send more than about 15 requests a minute under one key sends
/// [`AffinityKey::of`](crate::affinity::AffinityKey::of) instead (one key per
/// repository, sharded past the rate), through
/// [`ResponsesRequest::affinity`] or [`ChatRequest::affinity`].
pub fn prompt_cache_key(prompt: &AssembledPrompt) -> String {
    crate::affinity::AffinityKey::widest(prompt).into()
}

/// How long OpenAI keeps a cached prefix at most (`prompt_cache_retention`),
/// for models before GPT-5.6: OpenAI deprecates the field in favour of
/// `prompt_cache_options.ttl` ([`PromptCacheTtl`]), which a request for
/// GPT-5.6 and later sends instead. GPT-5.5 takes only `"24h"`. The
/// values each model takes: [`CacheLifetime::openai`](super::lifetimes::CacheLifetime::openai).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CacheRetention {
    /// `"in_memory"`: minutes, the default.
    #[serde(rename = "in_memory")]
    InMemory,
    /// `"24h"`: extended retention, up to a day.
    #[serde(rename = "24h")]
    Hours24,
}

/// The most explicit breakpoints one OpenAI request writes: the latest 4
/// with `mode: "explicit"`, the latest 3 beside the implicit one otherwise.
pub const MAX_BREAKPOINT_WRITES: usize = 4;

// The prompt's breakpoints and OpenAI's implicit one are all written.
const _: () = assert!(super::anthropic::SYSTEM_BREAKPOINTS < MAX_BREAKPOINT_WRITES);

/// Whether `model` takes `prompt_cache_options` and explicit breakpoints:
/// GPT-5.6 and later (`gpt-5.6`, `gpt-5.6-mini`, `gpt-5.10`, `gpt-6`). Its
/// requests get breakpoints by default, and its cache writes cost 1.25x
/// input.
///
/// ```
/// use prompt_providers::openai::takes_prompt_cache_options;
///
/// assert!(takes_prompt_cache_options("gpt-5.6"));
/// assert!(takes_prompt_cache_options("openai/gpt-6-mini"));
/// assert!(!takes_prompt_cache_options("gpt-5.5"));
/// assert!(!takes_prompt_cache_options("gpt-5-2025-08-07"));
/// assert!(!takes_prompt_cache_options("o3"));
/// ```
pub fn takes_prompt_cache_options(model: &str) -> bool {
    gpt_version(model).is_some_and(|version| version >= (5, 6))
}

/// The version of a GPT model id: `(5, 6)` for `gpt-5.6` or
/// `gpt-5.6-mini-2026-06-27`, `(5, 0)` for `gpt-5` or `gpt-5-mini`, `(4, 0)`
/// for `gpt-4o`; `None` for an id with no `gpt-<major>` in it (`o3`,
/// `claude-sonnet-4-5`). A provider prefix (`openai/`, `azure.`) may come
/// before it.
pub fn gpt_version(model: &str) -> Option<(u32, u32)> {
    let model = model.to_ascii_lowercase();
    let start = model.match_indices("gpt-").map(|(i, _)| i).find(|&i| {
        model[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_ascii_alphanumeric())
    })?;
    let rest = &model[start + "gpt-".len()..];
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let major_len = digits(rest);
    let major = rest[..major_len].parse().ok()?;
    let minor = match rest[major_len..].strip_prefix('.') {
        Some(after) if digits(after) > 0 => after[..digits(after)].parse().ok()?,
        _ => 0,
    };
    Some((major, minor))
}

/// `prompt_cache_options.mode`: whether OpenAI adds its own breakpoint at
/// the newest message beside the request's explicit ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheMode {
    /// `"implicit"`, the API's default: OpenAI's breakpoint at the newest
    /// message, and the latest 3 explicit ones.
    #[default]
    Implicit,
    /// `"explicit"`: only the request's own breakpoints, the latest 4;
    /// without one the request caches nothing.
    Explicit,
}

/// `prompt_cache_options.ttl`: how long at least each breakpoint written by
/// the request is kept (GPT-5.6 and later; the backend may keep it longer).
/// The values each API takes: [`CacheLifetime::openai`](super::lifetimes::CacheLifetime::openai).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub enum PromptCacheTtl {
    /// `"30m"`, the default and the one value both APIs take.
    #[default]
    #[serde(rename = "30m")]
    ThirtyMinutes,
    /// `"12h"`: Responses only; a Chat request with it fails to serialize.
    #[serde(rename = "12h")]
    TwelveHours,
}

impl PromptCacheTtl {
    /// The API's spelling: `"30m"` or `"12h"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ThirtyMinutes => "30m",
            Self::TwelveHours => "12h",
        }
    }
}

impl CacheRetention {
    /// The API's spelling: `"in_memory"` or `"24h"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InMemory => "in_memory",
            Self::Hours24 => "24h",
        }
    }
}

/// The lifetime fields a request for `model` on `api` sends: the TTL of
/// `options`, if the model takes it, and `retention` only for a model that
/// takes no `prompt_cache_options` and a body that carries no TTL (never
/// both). A value the model refuses is an error naming the field.
fn lifetime(
    model: &str,
    api: super::lifetimes::OpenAiApi,
    retention: Option<CacheRetention>,
    options: Option<&PromptCacheOptions>,
) -> Result<Option<CacheRetention>, String> {
    use super::lifetimes::openai_takes;
    let ttl = options.and_then(|o| o.ttl);
    if let Some(ttl) = ttl
        && takes_prompt_cache_options(model)
        && !openai_takes(model, api, ttl.as_str())
    {
        return Err(format!(
            "`prompt_cache_options.ttl: \"{}\"` is not taken by {model} on this API \
             (Chat Completions takes only \"30m\"): use PromptCacheTtl::ThirtyMinutes or send a \
             ResponsesRequest",
            ttl.as_str()
        ));
    }
    let Some(retention) = retention else {
        return Ok(None);
    };
    if takes_prompt_cache_options(model) || ttl.is_some() {
        return Ok(None);
    }
    if !openai_takes(model, api, retention.as_str()) {
        return Err(format!(
            "`prompt_cache_retention: \"{}\"` is refused by {model}, which keeps prompt caches \
             only with \"24h\": leave the retention unset (the API's default) or set \
             CacheRetention::Hours24",
            retention.as_str()
        ));
    }
    Ok(Some(retention))
}

/// `prompt_cache_options` (GPT-5.6 and later): the cache mode, the TTL,
/// and the response to diagnose a miss against.
///
/// OpenAI marks `prompt_cache_retention` deprecated in favour of `ttl`
/// here: a request for these models sends the TTL and never the retention
/// (see [`ResponsesRequest::retention`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct PromptCacheOptions {
    /// Whether OpenAI adds its implicit breakpoint; the API's default when
    /// `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<CacheMode>,
    /// The breakpoints' minimum lifetime; the API's default when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<PromptCacheTtl>,
    /// A response whose prefix this request was expected to reuse: the
    /// response then says why it did not (Responses API only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison_response_id: Option<String>,
    /// `prewarm: true`: write the cache and generate nothing (Responses API
    /// only; see [`ResponsesRequest::prewarm`]). Left out when `false`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub prewarm: bool,
}

impl PromptCacheOptions {
    fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// `prompt_cache_breakpoint: {"mode": "explicit"}` on a content part.
#[derive(Debug, Clone, Copy, Serialize)]
struct ExplicitBreakpoint {
    mode: CacheMode,
}

/// A text content part: `input_text` (Responses) or `text` (Chat), marked
/// when a breakpoint ends it.
#[derive(Serialize)]
struct TextPart<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_breakpoint: Option<ExplicitBreakpoint>,
}

/// A message whose content is text parts.
#[derive(Serialize)]
struct PartsMessage<'a> {
    role: &'a str,
    content: Vec<TextPart<'a>>,
}

/// `text` cut at `ends` (ascending byte offsets; any not on a character
/// boundary, not inside `text` or not after the one before is skipped), each
/// piece up to an end marked, the rest unmarked. Joined, the parts are `text`.
fn parts<'a>(text: &'a str, ends: &[usize], kind: &'static str) -> Vec<TextPart<'a>> {
    let mut parts = Vec::with_capacity(ends.len() + 1);
    let mut start = 0;
    for &end in ends {
        if end > start && end <= text.len() && text.is_char_boundary(end) {
            parts.push(TextPart {
                kind,
                text: &text[start..end],
                prompt_cache_breakpoint: Some(ExplicitBreakpoint {
                    mode: CacheMode::Explicit,
                }),
            });
            start = end;
        }
    }
    if start < text.len() {
        parts.push(TextPart {
            kind,
            text: &text[start..],
            prompt_cache_breakpoint: None,
        });
    }
    parts
}

/// A message list sent with a parts message first.
struct Led<'a> {
    lead: Option<PartsMessage<'a>>,
    rest: &'a [InputMessage],
    /// The message of `rest` sent as one part with an explicit breakpoint
    /// (the conversation's frontier), and the part's type.
    frontier: Option<(usize, &'static str)>,
}

impl Serialize for Led<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.rest.len() + 1))?;
        if let Some(lead) = &self.lead {
            seq.serialize_element(lead)?;
        }
        for (index, message) in self.rest.iter().enumerate() {
            match self.frontier {
                Some((at, kind)) if at == index => seq.serialize_element(&PartsMessage {
                    role: message.role,
                    content: parts(&message.content, &[message.content.len()], kind),
                })?,
                _ => seq.serialize_element(message)?,
            }
        }
        seq.end()
    }
}

/// Where `prompt`'s instruction text takes a breakpoint: the scope cuts the
/// Anthropic request makes (with OpenAI's minimum), then the end of the
/// stable prefix; empty on the Basic path and for an empty stable prefix.
fn layout(prompt: &AssembledPrompt, model: &str) -> Vec<usize> {
    if prompt.path() != crate::AssemblyPath::Cached || prompt.stable().is_empty() {
        return Vec::new();
    }
    let mut ends = super::anthropic::scope_cuts(
        prompt,
        model,
        &crate::tokens::ApproxCounter,
        &super::minimums::CacheMinimums::openai(),
    );
    ends.push(prompt.stable().len());
    ends
}

/// Byte offsets in `prompt`'s instruction text where a request for `model`
/// puts an explicit breakpoint by default: for GPT-5.6 and later
/// ([`takes_prompt_cache_options`]) the scope cuts of
/// [`anthropic::breakpoint_offsets`](super::anthropic::breakpoint_offsets)
/// (with OpenAI's minimum) and the end of the stable prefix; empty for
/// other models, on the Basic path and for an empty stable prefix. What
/// [`ResponsesRequest::new`] and [`ChatRequest::new`] send
/// ([`breakpoints`](ChatRequest::breakpoints)), for a client library's
/// integration that builds the client's own request type.
pub fn breakpoint_offsets(prompt: &AssembledPrompt, model: &str) -> Vec<usize> {
    defaults(&layout(prompt, model), model).0
}

/// The breakpoints and options a new request for `model` gets: the layout
/// and `{"mode": "implicit", "ttl": "30m"}` for GPT-5.6 and later, nothing
/// otherwise.
fn defaults(layout: &[usize], model: &str) -> (Vec<usize>, Option<PromptCacheOptions>) {
    if takes_prompt_cache_options(model) && !layout.is_empty() {
        (
            layout.to_vec(),
            Some(explicit_options(None, CacheMode::Implicit)),
        )
    } else {
        (Vec::new(), None)
    }
}

/// Where `prompt`'s dynamic suffix starts in its instruction text, when it
/// has one: the stable prefix's length (the separator between them goes too).
fn dynamic_from(prompt: &AssembledPrompt) -> Option<usize> {
    (prompt.path() == crate::AssemblyPath::Cached && !prompt.dynamic().is_empty())
        .then(|| prompt.stable().len())
}

/// The index of the newest user message: the conversation's frontier.
fn frontier(messages: &[InputMessage]) -> Option<usize> {
    messages.iter().rposition(|m| m.role == "user")
}

/// The explicit breakpoints a request with a history keeps, by the
/// [cache plan](super::plan): the prompt's `breakpoints` (scope cuts, then
/// the stable end) and, in explicit mode, the frontier, within
/// [`MAX_BREAKPOINT_WRITES`] (one fewer beside OpenAI's implicit breakpoint,
/// which is then the frontier). Returns the kept offsets and whether the
/// frontier is kept.
fn planned(
    breakpoints: &[usize],
    explicit: bool,
    instructions: &str,
    history: &[InputMessage],
) -> (Vec<usize>, bool) {
    use super::plan::{CachePlan, Candidate, CutAt};
    use crate::tokens::{ApproxCounter, TokenCounter};
    let ttl = super::anthropic::CacheTtl::FiveMinutes;
    let mut candidates: Vec<Candidate> = breakpoints
        .iter()
        .enumerate()
        .map(|(i, &end)| {
            let at = if i + 1 == breakpoints.len() {
                CutAt::StableEnd
            } else {
                CutAt::Scope
            };
            Candidate::new(
                at,
                ApproxCounter.count(instructions.get(..end).unwrap_or("")),
                ttl,
            )
        })
        .collect();
    let newest = frontier(history);
    if explicit && let Some(newest) = newest {
        let tokens = ApproxCounter.count(instructions)
            + history[..=newest]
                .iter()
                .map(|m| ApproxCounter.count(&m.content))
                .sum::<usize>();
        candidates.push(Candidate::new(CutAt::Frontier, tokens, ttl));
    }
    let limit = MAX_BREAKPOINT_WRITES - usize::from(!explicit);
    let plan = CachePlan::new(candidates.iter().copied(), limit);
    let kept = breakpoints
        .iter()
        .zip(&candidates)
        .filter(|(_, c)| plan.cuts().contains(c))
        .map(|(&end, _)| end)
        .collect();
    (
        kept,
        explicit && newest.is_some() && plan.keeps(CutAt::Frontier),
    )
}

fn is_explicit(options: Option<&PromptCacheOptions>) -> bool {
    options.is_some_and(|o| o.mode == Some(CacheMode::Explicit))
}

fn explicit_options(options: Option<PromptCacheOptions>, mode: CacheMode) -> PromptCacheOptions {
    PromptCacheOptions {
        mode: Some(mode),
        ttl: Some(PromptCacheTtl::ThirtyMinutes),
        ..options.unwrap_or_default()
    }
}

fn implicit_only(options: Option<PromptCacheOptions>) -> Option<PromptCacheOptions> {
    let options = PromptCacheOptions {
        mode: None,
        ttl: None,
        ..options?
    };
    (!options.is_empty()).then_some(options)
}

/// A message of a Chat Completions or Responses input: role and text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
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
                Role::System => "system",
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
/// `instructions`, or, with breakpoints (GPT-5.6 and later by default), in
/// a leading `developer` message of `input_text` parts that carry them.
///
/// Serializing adds the prompt's reminder to the last user message of
/// `input`, or fails with [`UndeliveredReminder`] when there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResponsesRequest {
    /// The model.
    pub model: String,
    /// The whole system prompt, stable prefix first; left out when empty.
    /// With [`breakpoints`](Self::breakpoints) it is sent as parts cut at
    /// those offsets: after changing it, call
    /// [`without_breakpoints`](Self::without_breakpoints).
    pub instructions: String,
    /// The conversation.
    pub input: Vec<InputMessage>,
    /// The most tokens the model may generate.
    pub max_output_tokens: Option<u32>,
    /// See [`prompt_cache_key`].
    pub prompt_cache_key: String,
    /// Cache retention; the API's default when `None`. Sent only to a model
    /// before GPT-5.6, beside no TTL ([`retention`](Self::retention)).
    pub prompt_cache_retention: Option<CacheRetention>,
    /// `prompt_cache_options`; left out when `None`.
    pub prompt_cache_options: Option<PromptCacheOptions>,
    /// Byte offsets in `instructions` where an explicit breakpoint ends a part.
    breakpoints: Vec<usize>,
    /// Where the prompt takes breakpoints, whether or not they are on.
    layout: Vec<usize>,
    /// The prompt's reminder, placed when serialized.
    reminder: Reminder,
    /// Where the dynamic suffix starts in the instruction text, when the
    /// prompt has one (a [`History`] carries it in its newest turn instead).
    dynamic_from: Option<usize>,
    /// Whether the newest user message carries an explicit breakpoint.
    frontier: bool,
    /// Tool definitions in this API's shape ([`declared_tools`](Self::declared_tools)).
    tools: Vec<serde_json::Value>,
}

#[derive(Serialize)]
struct ResponsesBody<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    instructions: &'a str,
    input: Led<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
    prompt_cache_key: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_retention: Option<CacheRetention>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_options: Option<&'a PromptCacheOptions>,
    #[serde(skip_serializing_if = "<[serde_json::Value]>::is_empty")]
    tools: &'a [serde_json::Value],
}

impl Serialize for ResponsesRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let retention = lifetime(
            &self.model,
            super::lifetimes::OpenAiApi::Responses,
            self.prompt_cache_retention,
            self.prompt_cache_options.as_ref(),
        )
        .map_err(serde::ser::Error::custom)?;
        let input = self
            .reminder
            .place(&self.input)
            .map_err(serde::ser::Error::custom)?;
        let parted = !self.breakpoints.is_empty() && !self.instructions.is_empty();
        ResponsesBody {
            model: &self.model,
            instructions: if parted { "" } else { &self.instructions },
            input: Led {
                lead: parted.then(|| PartsMessage {
                    role: "developer",
                    content: parts(&self.instructions, &self.breakpoints, "input_text"),
                }),
                rest: &input,
                frontier: self
                    .frontier
                    .then(|| frontier(&input))
                    .flatten()
                    .map(|i| (i, "input_text")),
            },
            max_output_tokens: self.max_output_tokens,
            prompt_cache_key: &self.prompt_cache_key,
            prompt_cache_retention: retention,
            prompt_cache_options: self.prompt_cache_options.as_ref(),
            tools: &self.tools,
        }
        .serialize(serializer)
    }
}

const RESPONSES: &str = "OpenAI Responses request";
const CHAT: &str = "OpenAI Chat Completions request";

impl ResponsesRequest {
    /// A request with `prompt` as its instructions and no input yet; for
    /// GPT-5.6 and later ([`takes_prompt_cache_options`]), with explicit
    /// breakpoints and `prompt_cache_options` (see the [module](self) docs).
    pub fn new(prompt: &AssembledPrompt, model: impl Into<String>) -> Self {
        let model = model.into();
        let layout = layout(prompt, &model);
        let (breakpoints, prompt_cache_options) = defaults(&layout, &model);
        Self {
            model,
            instructions: prompt.text(),
            input: Vec::new(),
            max_output_tokens: None,
            prompt_cache_key: prompt_cache_key(prompt),
            prompt_cache_retention: None,
            prompt_cache_options,
            breakpoints,
            layout,
            reminder: Reminder::of(prompt, RESPONSES),
            dynamic_from: dynamic_from(prompt),
            frontier: false,
            tools: Vec::new(),
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

    /// Byte offsets in `instructions` where an explicit breakpoint ends a
    /// part, ascending; empty when the prompt goes as one string.
    pub fn breakpoints(&self) -> &[usize] {
        &self.breakpoints
    }

    /// Explicit breakpoints at the end of the stable prefix and at its scope
    /// boundary, whatever the model, with `prompt_cache_options` of `mode`
    /// and the 30-minute TTL. For a model before GPT-5.6 the API may refuse
    /// the options: this is for a model id this crate does not recognize
    /// (a deployment name, a newer family). The Basic path and an empty
    /// stable prefix take no breakpoint.
    pub fn explicit_breakpoints(mut self, mode: CacheMode) -> Self {
        self.breakpoints = self.layout.clone();
        self.prompt_cache_options = Some(explicit_options(self.prompt_cache_options, mode));
        self
    }

    /// The prompt as one `instructions` string, with no breakpoint, mode or
    /// TTL: the body of a model before GPT-5.6. A comparison response id
    /// stays.
    pub fn without_breakpoints(mut self) -> Self {
        self.breakpoints.clear();
        self.prompt_cache_options = implicit_only(self.prompt_cache_options);
        self
    }

    /// Asks OpenAI's cache diagnostics to compare this request with response
    /// `id` (`resp_...`, a recent response whose prefix this one should
    /// reuse): `prompt_cache_options.comparison_response_id`. The response
    /// then says why its prefix was not reused. Unlike
    /// `previous_response_id`, it carries no conversation over.
    pub fn comparison_response_id(mut self, id: impl Into<String>) -> Self {
        let mut options = self.prompt_cache_options.unwrap_or_default();
        options.comparison_response_id = Some(id.into());
        self.prompt_cache_options = Some(options);
        self
    }

    /// Makes this a prewarm: `prompt_cache_options.prewarm: true`. OpenAI
    /// writes the request's prefix to the cache (every breakpoint it
    /// carries, and the implicit one at the end of the input unless the mode
    /// is explicit) and generates nothing: the response has usage with
    /// written tokens and no output. The write is billed as a cache write
    /// (1.25x input from GPT-5.6 on, [`cost`](super::cost)), so a prewarm
    /// is worth sending only where a later request reads what it wrote
    /// before it lapses. Tell the ledger with
    /// [`Sent::prewarm`](crate::observe::Sent::prewarm): it reads the
    /// response's writes as asked for, never as a miss of the conversation.
    ///
    /// Responses API only, GPT-5.6 and later ([`takes_prompt_cache_options`]):
    /// an older model refuses `prompt_cache_options`. The request keeps its
    /// input, key and breakpoints: build it exactly as the request whose
    /// prefix it keeps warm, then call this.
    ///
    /// ```
    /// use prompt_providers::openai::ResponsesRequest;
    /// use prompt_providers::Message;
    /// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
    /// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
    /// # struct DocPrewarm;
    /// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocPrewarm)]
    /// # struct Persona;
    /// # let pipeline = Pipeline::of::<DocPrewarm>()?;
    /// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
    /// let request = ResponsesRequest::new(&prompt, "gpt-5.6")
    ///     .message(Message::user("Hi"))
    ///     .prewarm();
    /// let body = serde_json::to_value(&request)?;
    /// assert_eq!(body["prompt_cache_options"]["prewarm"], true);
    /// assert_eq!(body["prompt_cache_options"]["ttl"], "30m");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn prewarm(mut self) -> Self {
        let mut options = self.prompt_cache_options.unwrap_or_default();
        options.prewarm = true;
        self.prompt_cache_options = Some(options);
        self
    }

    /// Whether this request is a prewarm ([`prewarm`](Self::prewarm)).
    pub fn is_prewarm(&self) -> bool {
        self.prompt_cache_options
            .as_ref()
            .is_some_and(|o| o.prewarm)
    }

    /// This request with `history` as its input, exactly as sent (see
    /// [`History`](super::History)): the instructions keep only the stable prefix, as the
    /// history's turns carry the per-turn block, and the request adds no
    /// reminder of its own. With explicit breakpoints (GPT-5.6 and later),
    /// they follow the request's [cache plan](super::plan): in
    /// [`CacheMode::Explicit`] one more at the newest user message (the
    /// conversation's frontier); in the implicit mode OpenAI's own
    /// breakpoint is that frontier. Messages already added are replaced.
    ///
    /// ```
    /// use prompt_providers::{History, openai::{CacheMode, ResponsesRequest}};
    /// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
    /// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
    /// # struct DocOpenaiHistory;
    /// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocOpenaiHistory)]
    /// # struct Persona;
    /// # #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], text = "Turn context.", pipeline = DocOpenaiHistory)]
    /// # struct Now;
    /// # let pipeline = Pipeline::of::<DocOpenaiHistory>()?;
    /// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
    /// let mut history = History::new();
    /// history.user_turn(&prompt, "Hi");
    /// let request = ResponsesRequest::new(&prompt, "gpt-5.6")
    ///     .explicit_breakpoints(CacheMode::Explicit)
    ///     .history(&history);
    /// let body = serde_json::to_value(&request)?;
    /// assert_eq!(body["input"][0]["content"][0]["text"], "You are terse.");
    /// let newest = &body["input"][1]["content"][0];
    /// assert!(newest["text"].as_str().is_some_and(|t| t.ends_with("Hi")));
    /// assert_eq!(newest["prompt_cache_breakpoint"]["mode"], "explicit");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn history(mut self, history: &super::History) -> Self {
        if let Some(from) = self.dynamic_from.take() {
            self.instructions.truncate(from);
        }
        self.reminder = self.reminder.carried();
        self.input = history.messages().iter().map(Into::into).collect();
        let explicit = is_explicit(self.prompt_cache_options.as_ref());
        (self.breakpoints, self.frontier) =
            planned(&self.breakpoints, explicit, &self.instructions, &self.input);
        self
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

    /// Sends `tools` as Responses function tools (`type`, `name`,
    /// `description`, `parameters`, `strict: false`), in their canonical
    /// order with every object's keys sorted: the same tools give the same
    /// bytes in every process.
    pub fn declared_tools(mut self, tools: &prompt_core::tools::RequestTools) -> Self {
        self.tools = tools
            .tools()
            .iter()
            .map(|tool| {
                prompt_core::tools::canonical_json(&serde_json::json!({
                    "type": "function",
                    "name": tool.name(),
                    "description": tool.description(),
                    "parameters": tool.input_schema(),
                    "strict": false,
                }))
            })
            .collect();
        self
    }

    /// The tool definitions this request sends, in the API's shape.
    pub fn tools(&self) -> &[serde_json::Value] {
        &self.tools
    }

    /// Limits the output.
    pub fn max_output_tokens(mut self, tokens: u32) -> Self {
        self.max_output_tokens = Some(tokens);
        self
    }

    /// Sets `prompt_cache_retention`, the longest OpenAI keeps the prefix,
    /// for a model before GPT-5.6. It is sent only to those models, and
    /// only when the body carries no `prompt_cache_options.ttl` (never
    /// both): GPT-5.6 and later take the TTL instead ([`ttl`](Self::ttl)),
    /// and the retention is left out. GPT-5.5 takes only `"24h"`: a request
    /// for it with [`CacheRetention::InMemory`] fails to serialize.
    ///
    /// ```
    /// use prompt_providers::openai::{CacheRetention, PromptCacheTtl, ResponsesRequest};
    /// use prompt_providers::Message;
    /// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
    /// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
    /// # struct DocRetention;
    /// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocRetention)]
    /// # struct Persona;
    /// # let pipeline = Pipeline::of::<DocRetention>()?;
    /// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
    /// let body = |model: &str| {
    ///     let request = ResponsesRequest::new(&prompt, model)
    ///         .retention(CacheRetention::Hours24)
    ///         .message(Message::user("Hi"));
    ///     serde_json::to_value(&request)
    /// };
    /// assert_eq!(body("gpt-5")?["prompt_cache_retention"], "24h");
    /// let newer = body("gpt-5.6")?;
    /// assert!(newer.get("prompt_cache_retention").is_none());
    /// assert_eq!(newer["prompt_cache_options"]["ttl"], "30m");
    ///
    /// let refused = ResponsesRequest::new(&prompt, "gpt-5.5")
    ///     .retention(CacheRetention::InMemory)
    ///     .message(Message::user("Hi"));
    /// assert!(serde_json::to_value(&refused).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn retention(mut self, retention: CacheRetention) -> Self {
        self.prompt_cache_retention = Some(retention);
        self
    }

    /// Sends `key` as `prompt_cache_key`: the key every replica derives for
    /// this prefix, sharded for this conversation (see
    /// [`affinity`](crate::affinity)). The default is [`prompt_cache_key`].
    pub fn affinity(mut self, key: &crate::affinity::AffinityKey) -> Self {
        self.prompt_cache_key = key.as_str().to_owned();
        self
    }

    /// Sets `prompt_cache_options.ttl`, the shortest OpenAI keeps each
    /// breakpoint the request writes (GPT-5.6 and later; `"30m"` unless
    /// set, `"12h"` on Responses only). A retention set beside it is then
    /// left out. [`without_breakpoints`](Self::without_breakpoints) clears it.
    pub fn ttl(mut self, ttl: PromptCacheTtl) -> Self {
        let mut options = self.prompt_cache_options.unwrap_or_default();
        options.ttl = Some(ttl);
        self.prompt_cache_options = Some(options);
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
/// leading `system` (or `developer`) message, whose content is text parts
/// carrying the breakpoints when it has them (GPT-5.6 and later by
/// default).
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
    /// Cache retention; the API's default when `None`. Sent only to a model
    /// before GPT-5.6, beside no TTL ([`retention`](Self::retention)).
    pub prompt_cache_retention: Option<CacheRetention>,
    /// `prompt_cache_options`; left out when `None`. Chat Completions takes
    /// no `comparison_response_id`: a request with one fails to serialize.
    pub prompt_cache_options: Option<PromptCacheOptions>,
    /// Byte offsets in the instruction message's text where an explicit
    /// breakpoint ends a part.
    breakpoints: Vec<usize>,
    /// Where the prompt takes breakpoints, whether or not they are on.
    layout: Vec<usize>,
    /// The prompt's reminder, placed when serialized.
    reminder: Reminder,
    /// Where the dynamic suffix starts in the instruction text, when the
    /// prompt has one (a [`History`] carries it in its newest turn instead).
    dynamic_from: Option<usize>,
    /// Whether the newest user message carries an explicit breakpoint.
    frontier: bool,
    /// Tool definitions in this API's shape ([`declared_tools`](Self::declared_tools)).
    tools: Vec<serde_json::Value>,
}

#[derive(Serialize)]
struct ChatBody<'a> {
    model: &'a str,
    messages: Led<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    prompt_cache_key: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_retention: Option<CacheRetention>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_options: Option<&'a PromptCacheOptions>,
    #[serde(skip_serializing_if = "<[serde_json::Value]>::is_empty")]
    tools: &'a [serde_json::Value],
}

impl Serialize for ChatRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self
            .prompt_cache_options
            .as_ref()
            .is_some_and(|o| o.comparison_response_id.is_some())
        {
            return Err(serde::ser::Error::custom(
                "Chat Completions takes no `prompt_cache_options.comparison_response_id`: \
                 OpenAI's cache diagnostics are a Responses API feature; send a ResponsesRequest",
            ));
        }
        if self
            .prompt_cache_options
            .as_ref()
            .is_some_and(|o| o.prewarm)
        {
            return Err(serde::ser::Error::custom(
                "Chat Completions takes no `prompt_cache_options.prewarm`: a prewarm is a \
                 Responses API request; send a ResponsesRequest with `.prewarm()`",
            ));
        }
        let retention = lifetime(
            &self.model,
            super::lifetimes::OpenAiApi::Chat,
            self.prompt_cache_retention,
            self.prompt_cache_options.as_ref(),
        )
        .map_err(serde::ser::Error::custom)?;
        let messages = self
            .reminder
            .place(&self.messages)
            .map_err(serde::ser::Error::custom)?;
        let lead = messages
            .first()
            .filter(|m| !self.breakpoints.is_empty() && is_instruction(m));
        ChatBody {
            model: &self.model,
            messages: Led {
                lead: lead.map(|m| PartsMessage {
                    role: m.role,
                    content: parts(&m.content, &self.breakpoints, "text"),
                }),
                rest: &messages[usize::from(lead.is_some())..],
                frontier: self
                    .frontier
                    .then(|| frontier(&messages[usize::from(lead.is_some())..]))
                    .flatten()
                    .map(|i| (i, "text")),
            },
            max_completion_tokens: self.max_completion_tokens,
            prompt_cache_key: &self.prompt_cache_key,
            prompt_cache_retention: retention,
            prompt_cache_options: self.prompt_cache_options.as_ref(),
            tools: &self.tools,
        }
        .serialize(serializer)
    }
}

fn is_instruction(message: &InputMessage) -> bool {
    matches!(message.role, "system" | "developer")
}

impl ChatRequest {
    /// A request whose first message is `prompt` as `system`; for GPT-5.6
    /// and later ([`takes_prompt_cache_options`]), with explicit breakpoints
    /// and `prompt_cache_options` (see the [module](self) docs).
    pub fn new(prompt: &AssembledPrompt, model: impl Into<String>) -> Self {
        let model = model.into();
        let text = prompt.text();
        let layout = if text.is_empty() {
            Vec::new()
        } else {
            layout(prompt, &model)
        };
        let (breakpoints, prompt_cache_options) = defaults(&layout, &model);
        Self {
            model,
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
            prompt_cache_options,
            breakpoints,
            layout,
            reminder: Reminder::of(prompt, CHAT),
            dynamic_from: dynamic_from(prompt),
            frontier: false,
            tools: Vec::new(),
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

    /// Byte offsets in the instruction message's text where an explicit
    /// breakpoint ends a part, ascending; empty when it goes as one string.
    pub fn breakpoints(&self) -> &[usize] {
        &self.breakpoints
    }

    /// As [`ResponsesRequest::explicit_breakpoints`].
    pub fn explicit_breakpoints(mut self, mode: CacheMode) -> Self {
        self.breakpoints = self.layout.clone();
        self.prompt_cache_options = Some(explicit_options(self.prompt_cache_options, mode));
        self
    }

    /// As [`ResponsesRequest::without_breakpoints`].
    pub fn without_breakpoints(mut self) -> Self {
        self.breakpoints.clear();
        self.prompt_cache_options = implicit_only(self.prompt_cache_options);
        self
    }

    /// Sends the prompt as a `developer` message instead of `system`, or back.
    /// Call it before adding messages.
    pub fn instruction_role(mut self, role: InstructionRole) -> Self {
        if let Some(first) = self.messages.first_mut().filter(|m| is_instruction(m)) {
            first.role = match role {
                InstructionRole::System => "system",
                InstructionRole::Developer => "developer",
            };
        }
        self
    }

    /// As [`ResponsesRequest::history`]: `history` after the instruction
    /// message, which keeps only the stable prefix (and goes when that is
    /// empty).
    pub fn history(mut self, history: &super::History) -> Self {
        let instruction = self.messages.first().filter(|m| is_instruction(m)).cloned();
        self.messages = instruction.into_iter().collect();
        if let Some(from) = self.dynamic_from.take()
            && let Some(first) = self.messages.first_mut()
        {
            first.content.truncate(from);
            if first.content.is_empty() {
                self.messages.clear();
            }
        }
        self.reminder = self.reminder.carried();
        let lead = self
            .messages
            .first()
            .map(|m| m.content.clone())
            .unwrap_or_default();
        self.messages
            .extend(history.messages().iter().map(InputMessage::from));
        let explicit = is_explicit(self.prompt_cache_options.as_ref());
        let rest = &self.messages[self.messages.len() - history.len()..];
        (self.breakpoints, self.frontier) = planned(&self.breakpoints, explicit, &lead, rest);
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

    /// Sends `tools` as Chat Completions function tools (`type`,
    /// `function: {name, description, parameters}`), in their canonical
    /// order with every object's keys sorted: the same tools give the same
    /// bytes in every process.
    pub fn declared_tools(mut self, tools: &prompt_core::tools::RequestTools) -> Self {
        self.tools = tools
            .tools()
            .iter()
            .map(|tool| {
                prompt_core::tools::canonical_json(&serde_json::json!({
                    "type": "function",
                    "function": {
                        "name": tool.name(),
                        "description": tool.description(),
                        "parameters": tool.input_schema(),
                    },
                }))
            })
            .collect();
        self
    }

    /// The tool definitions this request sends, in the API's shape.
    pub fn tools(&self) -> &[serde_json::Value] {
        &self.tools
    }

    /// Limits the output.
    pub fn max_completion_tokens(mut self, tokens: u32) -> Self {
        self.max_completion_tokens = Some(tokens);
        self
    }

    /// As [`ResponsesRequest::retention`]: sent only to a model before
    /// GPT-5.6 and beside no TTL; GPT-5.5 takes only `"24h"`.
    pub fn retention(mut self, retention: CacheRetention) -> Self {
        self.prompt_cache_retention = Some(retention);
        self
    }

    /// Sends `key` as `prompt_cache_key`: the key every replica derives for
    /// this prefix, sharded for this conversation (see
    /// [`affinity`](crate::affinity)). The default is [`prompt_cache_key`].
    pub fn affinity(mut self, key: &crate::affinity::AffinityKey) -> Self {
        self.prompt_cache_key = key.as_str().to_owned();
        self
    }

    /// As [`ResponsesRequest::ttl`]; Chat Completions takes only
    /// [`PromptCacheTtl::ThirtyMinutes`]: a request for GPT-5.6 or later
    /// with another fails to serialize.
    pub fn ttl(mut self, ttl: PromptCacheTtl) -> Self {
        let mut options = self.prompt_cache_options.unwrap_or_default();
        options.ttl = Some(ttl);
        self.prompt_cache_options = Some(options);
        self
    }
}
