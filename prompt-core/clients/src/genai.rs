//! [genai](https://docs.rs/genai/0.7) 0.7 (from 0.7.2): an assembled prompt as
//! a `ChatRequest` and `ChatOptions` for genai's Anthropic and OpenAI
//! adapters, and genai's `Usage` as [`CacheUsage`]. Feature `genai`.
//!
//! genai takes a cache setting per system message
//! (`ChatMessage::system(..).with_options(CacheControl::..)`), so the prompt
//! goes in as it does in prompt-core's own requests ([`SystemSlot::Blocks`]):
//! the stable prefix as system messages cut at the scope boundary, each
//! cached; the dynamic suffix as a last, uncached system message; the
//! reminder at the end of the latest user message.
//!
//! ```no_run
//! use prompt_clients::genai::{cache_usage_of, chat_options, chat_request};
//! use prompt_providers::observe::CacheLedger;
//! use genai::chat::ChatMessage;
//! # use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder};
//! # #[prompt_core::prompt_pipeline(paths = [Cached])]
//! # struct DocGenai;
//! # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocGenai)]
//! # struct Persona;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! # let pipeline = Pipeline::of::<DocGenai>()?;
//! # let session = PromptBuilder::new(&pipeline).session(Context::new());
//! const MODEL: &str = "claude-sonnet-4-5";
//! let client = genai::Client::new()?;
//! let mut ledger = CacheLedger::new();
//!
//! let prompt = session.build_cached(&Context::new())?;
//! let placed = chat_request(&prompt, MODEL, vec![ChatMessage::user("Fix the failing test.")])?;
//! let id = ledger.sent(&prompt, placed.sent(MODEL, prompt_providers::observe::Timestamp::now()));
//! let response = client.exec_chat(MODEL, placed.request, Some(&chat_options(&prompt))).await?;
//! let verdict = ledger.received(id, &cache_usage_of(&response)?)?;
//! println!("{verdict}");
//! # Ok(())
//! # }
//! ```
//!
//! Per provider, as genai sends it:
//!
//! - **Anthropic**: one `system` block per system message, `cache_control`
//!   on the stable ones (`CacheControl::Ephemeral`: 5 minutes), the scope
//!   breakpoint included.
//! - **OpenAI Chat Completions** (a model genai routes there, or
//!   `openai::<model>`): for GPT-5.6 and later, the stable system messages
//!   carry `prompt_cache_breakpoint` and genai adds `prompt_cache_options:
//!   {"mode": "explicit", "ttl": "30m"}` (only the request's breakpoints are
//!   written, so the conversation after them is not cached); for earlier
//!   models the prompt is one system message, cached by OpenAI on its own.
//!   `prompt_cache_key` comes from [`chat_options`].
//! - **OpenAI Responses** (GPT-5 and later by default): genai sends the
//!   breakpoints and `prompt_cache_options` only to `api.openai.com`; to any
//!   other base URL (a proxy, a gateway) the prompt goes without them, and
//!   OpenAI caches it implicitly. `prompt_cache_key` is sent either way.
//!
//! Other adapters (Gemini, Ollama, ...) are refused with
//! [`PlacementError::UnsupportedProvider`].

use genai::adapter::AdapterKind;
use genai::chat::{
    CacheControl, ChatMessage, ChatOptions, ChatRequest, ChatResponse, ChatRole, ContentPart,
    MessageContent, Usage,
};
use prompt_core::AssembledPrompt;
use prompt_providers::observe::{CacheUsage, Provider};
use prompt_providers::{History, Role, anthropic, openai};
use serde_json::Value;

use crate::Placed;
use crate::placement::{Placement, PlacementError, SystemSlot};
use crate::usage::{UsageError, count, within};

const CLIENT: &str = "genai";

/// `history` (the conversation so far, the latest user turn included) as a
/// request for `model` with `prompt` placed: the system messages first
/// (cached ones with `CacheControl::Ephemeral`), then `history`, the
/// reminder appended to the latest user message as a text part of its own.
/// Send it with [`chat_options`]. `model` is resolved to an adapter as
/// genai resolves it (`AdapterKind::from_model`); with a model mapper of
/// your own, name the adapter in the model (`anthropic::..`, `openai::..`).
///
/// # Errors
/// [`PlacementError::UnsupportedProvider`] for a model genai sends to
/// neither Anthropic nor OpenAI, [`PlacementError::NoUserTurn`] when the
/// prompt has a reminder and `history` no user message, and
/// [`PlacementError::SystemMessageInHistory`] for a system message in
/// `history`, which would join the system prompt after the cached blocks.
pub fn chat_request(
    prompt: &AssembledPrompt,
    model: &str,
    history: Vec<ChatMessage>,
) -> Result<Placed<ChatRequest>, PlacementError> {
    let provider = provider_of(model)?;
    if let Some(index) = history.iter().position(|m| m.role == ChatRole::System) {
        return Err(PlacementError::SystemMessageInHistory {
            client: CLIENT,
            index,
        });
    }
    let placement = Placement::new(prompt, provider, Some(bare(model)), SystemSlot::Blocks);
    let mut messages: Vec<ChatMessage> = placement
        .system()
        .iter()
        .map(|block| {
            let message = ChatMessage::system(block.text.as_str());
            if block.breakpoint {
                message.with_options(CacheControl::Ephemeral)
            } else {
                message
            }
        })
        .collect();
    let first_turn = messages.len();
    messages.extend(history);
    if let Some(tail) = placement.user_tail() {
        let latest = messages[first_turn..]
            .iter_mut()
            .rev()
            .find(|m| m.role == ChatRole::User);
        match latest {
            Some(message) => message.content.push(ContentPart::Text(tail.to_owned())),
            None => placement.no_user_turn(CLIENT)?,
        }
    }
    Ok(Placed::new(
        ChatRequest::new(messages),
        provider,
        placement.breakpoints().to_vec(),
    ))
}

/// `history` (the conversation kept as sent, the latest user turn with its
/// per-turn block included: [`History::user_turn`]) as a request for
/// `model`, with every breakpoint where prompt-core's own request puts it
/// through its [cache plan](prompt_providers::plan): the stable system
/// blocks cached as in [`chat_request`], each message of `history` exactly
/// as it was sent, and a breakpoint on the newest one (the conversation's
/// frontier), so the next turn reads the whole history from the cache.
/// Send it with [`chat_options`].
///
/// The plan is prompt-core's: for Anthropic,
/// [`anthropic::MessagesRequest::history`](prompt_providers::anthropic::MessagesRequest::history);
/// for OpenAI, [`openai::ChatRequest::history`](prompt_providers::openai::ChatRequest::history)
/// in explicit mode on GPT-5.6 and later (genai sends `mode: "explicit"`
/// whenever a message is marked, so the frontier's breakpoint is the plan's).
/// genai takes one cache setting per message and puts it on the message's
/// last part, which is where the plan puts the frontier's.
///
/// ```
/// use prompt_clients::genai::chat_request_with_history;
/// use prompt_providers::History;
/// # use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder};
/// # #[prompt_core::prompt_pipeline(paths = [Cached])]
/// # struct DocGenaiHistory;
/// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocGenaiHistory)]
/// # struct Persona;
/// # let pipeline = Pipeline::of::<DocGenaiHistory>()?;
/// # let session = PromptBuilder::new(&pipeline).session(Context::new());
/// let mut history = History::new();
/// let prompt = session.build_cached(&Context::new())?;
/// history.user_turn(&prompt, "Fix the failing test.");
/// let placed = chat_request_with_history(&prompt, &history, "claude-sonnet-4-5")?;
/// // The system block, then the user's turn as sent, marked as the frontier.
/// let last = placed.request.messages.last().expect("the user's turn");
/// assert!(last.options.as_ref().is_some_and(|o| o.cache_control.is_some()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`PlacementError::UnsupportedProvider`] as [`chat_request`],
/// [`PlacementError::EmptyConversation`] for an empty history, and
/// [`PlacementError::SystemMessageInHistory`] for a history whose context
/// goes as mid-conversation system messages
/// ([`History::context_as_system_message`]): genai moves every system
/// message into the system prompt, so it cannot send one inside the
/// conversation.
pub fn chat_request_with_history(
    prompt: &AssembledPrompt,
    history: &History,
    model: &str,
) -> Result<Placed<ChatRequest>, PlacementError> {
    let provider = provider_of(model)?;
    if let Some(index) = history
        .messages()
        .iter()
        .position(|m| m.role == Role::System)
    {
        return Err(PlacementError::SystemMessageInHistory {
            client: CLIENT,
            index,
        });
    }
    if history.is_empty() {
        return Err(PlacementError::EmptyConversation { client: CLIENT });
    }
    let conversion = |reason: String| PlacementError::Conversion {
        client: CLIENT,
        reason,
    };
    let body = match provider {
        Provider::Anthropic => serde_json::to_value(
            anthropic::MessagesRequest::new(prompt, bare(model), 1024)
                .history(history)
                .map_err(|e| conversion(e.to_string()))?,
        ),
        // genai sends `prompt_cache_options.mode: "explicit"` whenever a
        // message is marked: OpenAI's own breakpoint at the end of the input
        // is then gone, and the plan must place the frontier's itself.
        _ if openai::takes_prompt_cache_options(bare(model)) => serde_json::to_value(
            openai::ChatRequest::new(prompt, bare(model))
                .explicit_breakpoints(openai::CacheMode::Explicit)
                .history(history),
        ),
        _ => serde_json::to_value(openai::ChatRequest::new(prompt, bare(model)).history(history)),
    }
    .map_err(|e| conversion(e.to_string()))?;
    let mut messages = Vec::new();
    // Anthropic's system blocks; OpenAI's system prompt is its first message.
    for block in body
        .get("system")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (text, control) = part(block);
        messages.push(with_control(ChatMessage::system(text), control));
    }
    for message in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let parts: Vec<(String, Option<CacheControl>)> = match message.get("content") {
            Some(Value::Array(parts)) => parts.iter().map(part).collect(),
            Some(content) => vec![part(content)],
            None => Vec::new(),
        };
        let control = parts.iter().find_map(|(_, control)| control.clone());
        match message.get("role").and_then(Value::as_str) {
            Some("system" | "developer") => {
                for (text, control) in parts {
                    messages.push(with_control(ChatMessage::system(text), control));
                }
            }
            Some(role) => {
                let content: Vec<ContentPart> = parts
                    .into_iter()
                    .map(|(text, _)| ContentPart::Text(text))
                    .collect();
                let message = match role {
                    "assistant" => ChatMessage::assistant(MessageContent::from_parts(content)),
                    _ => ChatMessage::user(MessageContent::from_parts(content)),
                };
                messages.push(with_control(message, control));
            }
            None => return Err(conversion(format!("a message without a role: {message}"))),
        }
    }
    let placement = Placement::new(prompt, provider, Some(bare(model)), SystemSlot::Blocks);
    Ok(Placed::new(
        ChatRequest::new(messages),
        provider,
        placement.breakpoints().to_vec(),
    ))
}

/// A content part's (or string content's) text and genai's cache setting
/// for its `cache_control` or `prompt_cache_breakpoint`.
fn part(value: &Value) -> (String, Option<CacheControl>) {
    let text = value
        .get("text")
        .and_then(Value::as_str)
        .or(value.as_str())
        .unwrap_or_default()
        .to_owned();
    let marker = value
        .get("cache_control")
        .or_else(|| value.get("prompt_cache_breakpoint"))
        .filter(|m| !m.is_null());
    let control = marker.map(|m| match m.get("ttl").and_then(Value::as_str) {
        Some("1h") => CacheControl::Ephemeral1h,
        _ => CacheControl::Ephemeral,
    });
    (text, control)
}

fn with_control(message: ChatMessage, control: Option<CacheControl>) -> ChatMessage {
    match control {
        Some(control) => message.with_options(control),
        None => message,
    }
}

/// The options to send [`chat_request`]'s request with: `prompt_cache_key`
/// (OpenAI's adapters send it; Anthropic's ignores it).
pub fn chat_options(prompt: &AssembledPrompt) -> ChatOptions {
    ChatOptions::default().with_prompt_cache_key(prompt_providers::openai::prompt_cache_key(prompt))
}

/// The provider genai sends `model` to.
fn provider_of(model: &str) -> Result<Provider, PlacementError> {
    let kind = AdapterKind::from_model(model).map_err(|e| PlacementError::UnsupportedProvider {
        client: CLIENT,
        model: model.to_owned(),
        adapter: e.to_string(),
    })?;
    match kind {
        AdapterKind::Anthropic => Ok(Provider::Anthropic),
        AdapterKind::OpenAI | AdapterKind::OpenAIResp => Ok(Provider::OpenAi),
        other => Err(PlacementError::UnsupportedProvider {
            client: CLIENT,
            model: model.to_owned(),
            adapter: other.to_string(),
        }),
    }
}

/// The model's name without genai's adapter namespace (`openai::gpt-5.6`
/// is `gpt-5.6`).
fn bare(model: &str) -> &str {
    model.split_once("::").map_or(model, |(_, name)| name)
}

/// genai's usage as [`CacheUsage`]: genai's `prompt_tokens` holds the
/// cache's reads (`prompt_tokens_details.cached_tokens`) and writes
/// (`cache_creation_tokens`) for every provider (it adds Anthropic's, which
/// the API reports beside the input, into it).
/// It carries no response id or model: for a whole response,
/// [`cache_usage_of`] does.
///
/// # Errors
/// [`UsageError::Missing`] when genai reported no prompt count (a stream
/// without usage captured), [`UsageError::Negative`] for a count below
/// zero, and [`UsageError::Inconsistent`] when reads and writes exceed it.
pub fn cache_usage(usage: &Usage) -> Result<CacheUsage, UsageError> {
    let input = usage.prompt_tokens.ok_or(UsageError::Missing {
        client: CLIENT,
        field: "Usage::prompt_tokens",
    })?;
    let input = count(CLIENT, "Usage::prompt_tokens", input.into())?;
    let details = usage.prompt_tokens_details.as_ref();
    let read = details.and_then(|d| d.cached_tokens).unwrap_or(0);
    let read = count(CLIENT, "PromptTokensDetails::cached_tokens", read.into())?;
    let written = details.and_then(|d| d.cache_creation_tokens).unwrap_or(0);
    let written = count(
        CLIENT,
        "PromptTokensDetails::cache_creation_tokens",
        written.into(),
    )?;
    let out = within(CLIENT, input, read, written)?;
    Ok(match usage.completion_tokens {
        Some(output) => out.output(count(CLIENT, "Usage::completion_tokens", output.into())?),
        None => out,
    })
}

/// genai's response as [`CacheUsage`]: [`cache_usage`] of its `usage`,
/// with the model that answered (`provider_model_iden`, the name the
/// provider reported, or the one asked for when it reported none) and the
/// response's id where genai has it: its `response_id` (OpenAI Responses),
/// else the `id` of the body it captured
/// (`ChatOptions::with_capture_raw_body(true)`); genai keeps no id of an
/// Anthropic or Chat Completions response otherwise. The verdict's span
/// carries them as `gen_ai.response.model` and `gen_ai.response.id`.
///
/// # Errors
/// As [`cache_usage`].
pub fn cache_usage_of(response: &ChatResponse) -> Result<CacheUsage, UsageError> {
    let mut usage = cache_usage(&response.usage)?
        .response_model(bare(response.provider_model_iden.model_name.as_str()));
    let captured = response
        .captured_raw_body
        .as_ref()
        .and_then(|body| body.get("id"))
        .and_then(Value::as_str);
    if let Some(id) = response.response_id.as_deref().or(captured) {
        usage = usage.response_id(id);
    }
    Ok(usage)
}
