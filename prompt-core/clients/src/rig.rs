//! [rig-core](https://docs.rs/rig-core/0.44) 0.44: an assembled prompt as a
//! `CompletionRequest` for rig's Anthropic Messages wire, and rig's `Usage`
//! as [`CacheUsage`]. Feature `rig`.
//!
//! rig sends the leading system messages of a request as Anthropic's
//! `system` blocks and, with its static-prefix cache setting, puts one
//! `cache_control` on the **last** of them. So the stable prefix goes in as
//! the one system message, and the dynamic suffix and the reminder go at the
//! head of the latest user turn, in one `<system-reminder>` block
//! ([`SystemSlot::OneBlock`], the placement of the CLI agents): the system
//! block is byte-identical on every call of a session, and its breakpoint
//! is on it.
//!
//! ```no_run
//! use prompt_clients::rig::{cache_prefix, cache_usage_of, completion_request, request_span};
//! use tracing::Instrument;
//! use prompt_providers::observe::CacheLedger;
//! use rig_core::message::Message;
//! use rig_core::providers::anthropic::{self, completion::CacheTtl};
//! # use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder};
//! # #[prompt_core::prompt_pipeline(paths = [Cached])]
//! # struct DocRig;
//! # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocRig)]
//! # struct Persona;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! # let pipeline = Pipeline::of::<DocRig>()?;
//! # let session = PromptBuilder::new(&pipeline).session(Context::new());
//! const MODEL: &str = anthropic::CLAUDE_SONNET_4_6;
//! let model = cache_prefix(anthropic::Anthropic::from_env()?.completion(MODEL), CacheTtl::FiveMinutes);
//! let mut ledger = CacheLedger::new();
//!
//! let prompt = session.build_cached(&Context::new())?;
//! let placed = completion_request(&prompt, [Message::user("Fix the failing test.")])?;
//! let id = ledger.sent(&prompt, placed.sent(MODEL, prompt_providers::observe::Timestamp::now()));
//! // One span for the call: rig records into it, and so does the ledger.
//! let span = request_span(MODEL);
//! let response = model.call(placed.request).instrument(span.clone()).await?;
//! let usage = cache_usage_of(&response)?;
//! let verdict = span.in_scope(|| ledger.received(id, &usage))?;
//! println!("{verdict}");
//! # Ok(())
//! # }
//! ```
//!
//! What rig cannot carry, and what this module does instead:
//!
//! - **Scope breakpoints.** rig marks one system block, so the breakpoint at
//!   the end of the team-shared part (Global and Project layers) that
//!   prompt-core's own Anthropic request sets is lost: a teammate's first
//!   call writes the whole prefix instead of reading the shared part.
//! - **The dynamic suffix in the system prompt.** Sent as a second system
//!   message, it would be the last system block and take the breakpoint, and
//!   every call would write the whole prefix again; it goes in the latest
//!   user turn instead, after the breakpoint.
//! - **No cache setting, no warning.** Without [`cache_prefix`] (or rig's
//!   `with_static_prefix_cache_ttl`) rig sends no `cache_control` at all and
//!   says nothing; [`check_caching`] says so. rig's `with_prompt_caching`
//!   also marks the last user block, which holds this turn's dynamic suffix:
//!   [`cache_prefix`] turns it off.

use prompt_core::AssembledPrompt;
use prompt_providers::observe::{CacheUsage, Provider, semconv};
use rig_core::Model;
use rig_core::completion::{CompletionRequest, CompletionResponse, Usage};
use rig_core::message::{Message, UserContent};
use rig_core::providers::anthropic::Messages;
use rig_core::providers::anthropic::completion::CacheTtl;

use crate::Placed;
use crate::placement::{Placement, PlacementError, SystemSlot};
use crate::usage::{UsageError, within};

const CLIENT: &str = "rig";

/// `history` (the conversation so far, the latest user turn included) as a
/// request with `prompt` placed: the stable prefix as the one system
/// message, the dynamic suffix and the reminder at the head of the latest
/// user turn (after any tool results it leads with, which Anthropic wants
/// first). Keep the history as sent: put the latest user turn of the
/// request (`placed.request.chat_history.last()`), block included, back in
/// your history in place of the words alone, so the next request's messages
/// begin with this one's byte for byte and the provider reads them from its
/// cache. Earlier turns are left as they are: only the latest is placed.
///
/// # Errors
/// [`PlacementError::EmptyConversation`] for an empty history,
/// [`PlacementError::NoUserTurn`] when the prompt has a dynamic suffix or a
/// reminder and the history no user message, and
/// [`PlacementError::SystemMessageInHistory`] for a system message in it,
/// which rig would send as the last system block, with the breakpoint.
pub fn completion_request(
    prompt: &AssembledPrompt,
    history: impl IntoIterator<Item = Message>,
) -> Result<Placed<CompletionRequest>, PlacementError> {
    // rig's model names the model, and the breakpoint rule of one block is
    // the same for every Anthropic model.
    let placement = Placement::new(prompt, Provider::Anthropic, None, SystemSlot::OneBlock);
    let mut history: Vec<Message> = history.into_iter().collect();
    if let Some(index) = history
        .iter()
        .position(|m| matches!(m, Message::System { .. }))
    {
        return Err(PlacementError::SystemMessageInHistory {
            client: CLIENT,
            index,
        });
    }
    place_head(&mut history, &placement)?;
    let last = history
        .pop()
        .ok_or(PlacementError::EmptyConversation { client: CLIENT })?;
    let mut request = CompletionRequest::new(last).messages(history);
    if let Some(block) = placement.system().first() {
        request = request.preamble(block.text.clone());
    }
    Ok(Placed::new(
        request,
        Provider::Anthropic,
        placement.breakpoints().to_vec(),
    ))
}

/// The head block at the front of the latest user turn's text.
fn place_head(history: &mut [Message], placement: &Placement) -> Result<(), PlacementError> {
    let Some(head) = placement.user_head() else {
        return Ok(());
    };
    let latest = history.iter_mut().rev().find_map(|message| match message {
        Message::User { content } => Some(content),
        _ => None,
    });
    let Some(content) = latest else {
        return placement.no_user_turn(CLIENT);
    };
    let at = content
        .iter()
        .take_while(|part| matches!(part, UserContent::ToolResult(_)))
        .count();
    content.insert(at, UserContent::text(head));
    Ok(())
}

/// `model` with its system block cached at `ttl` and nothing else marked
/// by rig: rig's static-prefix cache setting on, its `with_prompt_caching`
/// (which also marks the last user block, where this turn's dynamic suffix
/// is) off. The last tool definition is marked with the system block, as
/// tools precede it in Anthropic's prefix.
pub fn cache_prefix<T>(mut model: Model<Messages, T>, ttl: CacheTtl) -> Model<Messages, T> {
    model.wire = model.wire.with_static_prefix_cache_ttl(ttl);
    model.wire.prompt_caching = false;
    model
}

/// Whether rig's Anthropic wire caches the prefix as [`completion_request`]
/// places it.
///
/// # Errors
/// [`CachingError::NoCacheControl`] when rig would send no `cache_control`
/// (no static-prefix TTL, no prompt caching), and
/// [`CachingError::MarksDynamicSuffix`] when rig's prompt caching also
/// marks the last user block; [`cache_prefix`] fixes both.
pub fn check_caching(wire: &Messages) -> Result<(), CachingError> {
    if wire.prompt_caching {
        return Err(CachingError::MarksDynamicSuffix);
    }
    if wire.static_prefix_cache_ttl.is_none() {
        return Err(CachingError::NoCacheControl);
    }
    Ok(())
}

/// A rig wire that would not cache the stable prefix alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CachingError {
    /// Nothing is cached.
    #[error(
        "rig sends no `cache_control` with this wire, and says nothing: every call pays the whole \
         prompt; wrap the model in `prompt_clients::rig::cache_prefix(model, CacheTtl::FiveMinutes)`"
    )]
    NoCacheControl,
    /// The moving breakpoint caches this turn's dynamic suffix.
    #[error(
        "rig's `with_prompt_caching` marks the last user block, which holds this turn's dynamic \
         suffix: each call writes the conversation with it to the cache and the next cannot read \
         it; use `prompt_clients::rig::cache_prefix(model, ttl)` instead"
    )]
    MarksDynamicSuffix,
}

/// rig's usage as [`CacheUsage`]: rig's `input_tokens` holds the cache's
/// reads (`cached_input_tokens`) and writes (`cache_creation_input_tokens`).
/// It carries no response id or model: for a whole response,
/// [`cache_usage_of`] does.
///
/// # Errors
/// [`UsageError::Missing`] when rig reported no input count, and
/// [`UsageError::Inconsistent`] when reads and writes exceed it.
pub fn cache_usage(usage: &Usage) -> Result<CacheUsage, UsageError> {
    let input = usage.input_tokens.ok_or(UsageError::Missing {
        client: CLIENT,
        field: "Usage::input_tokens",
    })?;
    let read = usage.cached_input_tokens.unwrap_or(0);
    let written = usage.cache_creation_input_tokens.unwrap_or(0);
    let out = within(CLIENT, input, read, written)?;
    Ok(match usage.output_tokens {
        Some(output) => out.output(output),
        None => out,
    })
}

/// rig's response as [`CacheUsage`]: [`cache_usage`] of its `usage`, with
/// the response's id and the model that answered (rig's
/// `origin.response_id` and `origin.response_model`), which the verdict's
/// span carries as `gen_ai.response.id` and `gen_ai.response.model`.
///
/// # Errors
/// As [`cache_usage`].
pub fn cache_usage_of(response: &CompletionResponse) -> Result<CacheUsage, UsageError> {
    let mut usage = cache_usage(&response.usage)?;
    if let Some(id) = &response.origin.response_id {
        usage = usage.response_id(id.as_str());
    }
    if let Some(model) = &response.origin.response_model {
        usage = usage.response_model(model.as_str());
    }
    Ok(usage)
}

/// The span of one rig call to `model`, which rig's own GenAI telemetry
/// adopts (it declares rig's completion-parent marker and every field rig
/// requires) and the ledger records into (it declares every field of
/// [`semconv::SPAN_FIELDS`]): one span `chat {model}` of kind `client`
/// holding rig's usage, the response's id and model, and the verdict.
///
/// rig 0.44 opens a `chat` span of its own for every call, usage included;
/// a verdict received outside a span with the GenAI fields opens another
/// (see [`prompt_providers::observe::request_span`]), and a backend that
/// sums `gen_ai.usage.*` over spans counts the call twice. With this span
/// current around the call (`.instrument(span.clone())`) and around
/// [`CacheLedger::received`](prompt_providers::observe::CacheLedger::received)
/// (`span.in_scope(..)`), there is one. Message contents stay off unless
/// rig's own content recording is on.
pub fn request_span(model: &str) -> tracing::Span {
    use rig_core::telemetry::Empty;
    let span = rig_core::telemetry::completion_parent_span!(
        target: "prompt_providers::observe",
        name: "chat",
        operation: semconv::OPERATION_CHAT,
        system_instructions: Option::<&str>::None,
        { semconv::OTEL_NAME } = %format_args!("{} {model}", semconv::OPERATION_CHAT),
        { semconv::OTEL_KIND } = "client",
        { semconv::CONVERSATION_ID } = Empty,
        { semconv::PROMPT_NAME } = Empty,
        { semconv::PROMPT_VERSION } = Empty,
        { semconv::MISS_CAUSE } = Empty,
        { semconv::MISS_LAYER } = Empty,
        { semconv::STABLE_FINGERPRINT } = Empty,
        { semconv::EXPECTED_TOKENS } = Empty,
        { semconv::LOST_TOKENS } = Empty,
        { semconv::VERDICT } = Empty,
    );
    span.record(semconv::PROVIDER_NAME, Provider::Anthropic.otel_name());
    span.record(semconv::REQUEST_MODEL, model);
    span
}
