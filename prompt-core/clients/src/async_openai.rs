//! [async-openai](https://docs.rs/async-openai/0.43) 0.43: an assembled
//! prompt as a `CreateChatCompletionRequest` or a `CreateResponse`, and
//! their usage as [`CacheUsage`]. Feature `async-openai` (it needs only
//! async-openai's types; the client features are yours to choose).
//!
//! async-openai models every field OpenAI's cache takes, so the requests
//! are the ones prompt-core's own [`openai`]
//! builders send: `prompt_cache_key` from the widest scope's part of the
//! prompt (its Global layers); for GPT-5.6 and later, the stable prefix as text parts with
//! `prompt_cache_breakpoint` at the scope boundary and at its end,
//! `prompt_cache_options: {"mode": "implicit", "ttl": "30m"}`, and the
//! dynamic suffix unmarked after them; for earlier models, one instruction
//! string, cached by OpenAI on its own. The reminder goes at the end of the
//! latest user message.
//!
//! ```no_run
//! use async_openai::types::chat::{ChatCompletionRequestMessage, ChatCompletionRequestUserMessage};
//! use prompt_clients::async_openai::{chat_cache_usage_of, chat_request};
//! use prompt_providers::observe::CacheLedger;
//! # use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder};
//! # #[prompt_core::prompt_pipeline(paths = [Cached])]
//! # struct DocAsyncOpenai;
//! # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocAsyncOpenai)]
//! # struct Persona;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! # let pipeline = Pipeline::of::<DocAsyncOpenai>()?;
//! # let session = PromptBuilder::new(&pipeline).session(Context::new());
//! const MODEL: &str = "gpt-5.6";
//! let client = async_openai::Client::new();
//! let mut ledger = CacheLedger::new();
//!
//! let prompt = session.build_cached(&Context::new())?;
//! let user = ChatCompletionRequestUserMessage::from("Fix the failing test.");
//! let placed = chat_request(&prompt, MODEL, vec![ChatCompletionRequestMessage::User(user)])?;
//! let id = ledger.sent(&prompt, placed.sent(MODEL, prompt_providers::observe::Timestamp::now()));
//! let response = client.chat().create(placed.request).await?;
//! println!("{}", ledger.received(id, &chat_cache_usage_of(&response)?)?);
//! # Ok(())
//! # }
//! ```
//!
//! Chat Completions in async-openai has no `prompt_cache_retention`; the
//! Responses request sets none (OpenAI deprecates it for GPT-5.6 in favour
//! of `prompt_cache_options.ttl`): set `request.prompt_cache_retention` on
//! a [`responses_request`] for an earlier model that should keep its prefix
//! for 24 hours.

use async_openai::types::chat::{
    ChatCompletionRequestMessage, ChatCompletionRequestMessageContentPartText,
    ChatCompletionRequestSystemMessage, ChatCompletionRequestSystemMessageContent,
    ChatCompletionRequestSystemMessageContentPart, ChatCompletionRequestUserMessageContent,
    ChatCompletionRequestUserMessageContentPart, CompletionUsage, CreateChatCompletionRequest,
    CreateChatCompletionResponse, PromptCacheBreakpointParam, PromptCacheBreakpointParamMode,
    PromptCacheModeEnum, PromptCacheOptionsParam, PromptCacheTTLEnum,
};
use async_openai::types::responses::{
    CreateResponse, EasyInputContent, EasyInputMessage, InputContent, InputItem, InputParam,
    InputRole, InputTextContent, Item, MessageItem, MessageType, PromptCacheBreakpointConfig,
    PromptCacheBreakpointConfigMode, Response, ResponsePromptCacheOptionsParam, ResponseUsage,
    Role,
};
use prompt_core::AssembledPrompt;
use prompt_providers::observe::{CacheUsage, Provider};
use prompt_providers::{History, openai};

use crate::Placed;
use crate::placement::{Placement, PlacementError, SystemBlock, SystemSlot};
use crate::usage::{UsageError, count, within};

const CLIENT: &str = "async-openai";

/// `history` (the conversation so far, the latest user turn included) as a
/// Chat Completions request for `model` with `prompt` placed: a leading
/// `system` message (text parts with breakpoints for GPT-5.6 and later, one
/// string otherwise), `prompt_cache_key`, and the reminder after a blank
/// line at the end of the latest user message.
///
/// # Errors
/// [`PlacementError::NoUserTurn`] when the prompt has a reminder and
/// `history` no user message.
pub fn chat_request(
    prompt: &AssembledPrompt,
    model: &str,
    history: Vec<ChatCompletionRequestMessage>,
) -> Result<Placed<CreateChatCompletionRequest>, PlacementError> {
    let placement = Placement::new(prompt, Provider::OpenAi, Some(model), SystemSlot::Blocks);
    let mut messages = Vec::with_capacity(history.len() + 1);
    if let Some(content) = system_content(placement.system()) {
        messages.push(ChatCompletionRequestMessage::System(
            ChatCompletionRequestSystemMessage {
                content,
                name: None,
            },
        ));
    }
    let first_turn = messages.len();
    messages.extend(history);
    if let Some(tail) = placement.user_tail() {
        let latest = messages[first_turn..]
            .iter_mut()
            .rev()
            .find_map(|m| match m {
                ChatCompletionRequestMessage::User(user) => Some(&mut user.content),
                _ => None,
            });
        match latest {
            Some(ChatCompletionRequestUserMessageContent::Text(text)) => append(text, tail),
            Some(ChatCompletionRequestUserMessageContent::Array(parts)) => {
                parts.push(ChatCompletionRequestUserMessageContentPart::Text(
                    ChatCompletionRequestMessageContentPartText {
                        text: tail.to_owned(),
                        prompt_cache_breakpoint: None,
                    },
                ));
            }
            None => placement.no_user_turn(CLIENT)?,
        }
    }
    let breakpoints = placement.breakpoints().to_vec();
    let request = CreateChatCompletionRequest {
        messages,
        model: model.to_owned(),
        prompt_cache_key: placement.prompt_cache_key().map(str::to_owned),
        prompt_cache_options: (!breakpoints.is_empty()).then_some(PromptCacheOptionsParam {
            ttl: Some(PromptCacheTTLEnum::Value30m),
            mode: Some(PromptCacheModeEnum::Implicit),
        }),
        ..CreateChatCompletionRequest::default()
    };
    Ok(Placed::new(request, Provider::OpenAi, breakpoints))
}

/// `history` (the conversation kept as sent, the latest user turn with its
/// per-turn block included: [`History::user_turn`]) as a Chat Completions
/// request for `model`: prompt-core's own
/// [`openai::ChatRequest::history`] carried field for field into
/// async-openai's type, so the system prompt's stable parts, each message
/// exactly as sent, and every breakpoint its [cache plan](prompt_providers::plan)
/// places go as prompt-core would send them, with `prompt_cache_key` and
/// `prompt_cache_options`. For GPT-5.6 and later that is
/// `prompt_cache_breakpoint` at the scope cut and the stable end, and
/// `prompt_cache_options.mode: "implicit"`, whose own breakpoint at the end
/// of the input is the conversation's frontier (the plan keeps one of
/// OpenAI's four writes for it).
///
/// ```
/// use prompt_clients::async_openai::chat_request_with_history;
/// use prompt_providers::History;
/// # use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder};
/// # #[prompt_core::prompt_pipeline(paths = [Cached])]
/// # struct DocOpenaiHistory;
/// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocOpenaiHistory)]
/// # struct Persona;
/// # let pipeline = Pipeline::of::<DocOpenaiHistory>()?;
/// # let session = PromptBuilder::new(&pipeline).session(Context::new());
/// let mut history = History::new();
/// let prompt = session.build_cached(&Context::new())?;
/// history.user_turn(&prompt, "Fix the failing test.");
/// let placed = chat_request_with_history(&prompt, &history, "gpt-5.6")?;
/// let body = serde_json::to_value(&placed.request)?;
/// // The user's turn exactly as the history keeps it, its block included.
/// assert_eq!(body["messages"][1]["content"], history.messages()[0].text.as_str());
/// // The frontier: OpenAI's implicit breakpoint at the end of the input.
/// assert_eq!(body["prompt_cache_options"]["mode"], "implicit");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`PlacementError::EmptyConversation`] for an empty history, and
/// [`PlacementError::Conversion`] should async-openai's type not take a
/// field of prompt-core's request.
pub fn chat_request_with_history(
    prompt: &AssembledPrompt,
    history: &History,
    model: &str,
) -> Result<Placed<CreateChatCompletionRequest>, PlacementError> {
    if history.is_empty() {
        return Err(PlacementError::EmptyConversation { client: CLIENT });
    }
    let request = carried(&openai::ChatRequest::new(prompt, model).history(history))?;
    let placement = Placement::new(prompt, Provider::OpenAi, Some(model), SystemSlot::Blocks);
    Ok(Placed::new(
        request,
        Provider::OpenAi,
        placement.breakpoints().to_vec(),
    ))
}

/// `history` (kept as sent) as a Responses request for `model`: prompt-core's
/// own [`openai::ResponsesRequest::history`] carried field for field into
/// async-openai's `CreateResponse`, as [`chat_request_with_history`] does
/// for Chat Completions: the history exactly as sent and the plan's
/// breakpoints, the frontier's included.
///
/// # Errors
/// As [`chat_request_with_history`].
pub fn responses_request_with_history(
    prompt: &AssembledPrompt,
    history: &History,
    model: &str,
) -> Result<Placed<CreateResponse>, PlacementError> {
    if history.is_empty() {
        return Err(PlacementError::EmptyConversation { client: CLIENT });
    }
    let request = carried(&openai::ResponsesRequest::new(prompt, model).history(history))?;
    let placement = Placement::new(prompt, Provider::OpenAi, Some(model), SystemSlot::Blocks);
    Ok(Placed::new(
        request,
        Provider::OpenAi,
        placement.breakpoints().to_vec(),
    ))
}

/// prompt-core's request as async-openai's type, through their common wire
/// form.
fn carried<T: serde::de::DeserializeOwned>(
    request: &impl serde::Serialize,
) -> Result<T, PlacementError> {
    let conversion = |e: serde_json::Error| PlacementError::Conversion {
        client: CLIENT,
        reason: e.to_string(),
    };
    serde_json::from_value(serde_json::to_value(request).map_err(conversion)?).map_err(conversion)
}

/// The system message's content: one string for a single unmarked block,
/// text parts otherwise; `None` for an empty prompt.
fn system_content(blocks: &[SystemBlock]) -> Option<ChatCompletionRequestSystemMessageContent> {
    match blocks {
        [] => None,
        [one] if !one.breakpoint => Some(ChatCompletionRequestSystemMessageContent::Text(
            one.text.clone(),
        )),
        blocks => Some(ChatCompletionRequestSystemMessageContent::Array(
            blocks
                .iter()
                .map(|block| {
                    ChatCompletionRequestSystemMessageContentPart::Text(
                        ChatCompletionRequestMessageContentPartText {
                            text: block.text.clone(),
                            prompt_cache_breakpoint: block.breakpoint.then_some(
                                PromptCacheBreakpointParam {
                                    mode: PromptCacheBreakpointParamMode::Explicit,
                                    ttl: None,
                                },
                            ),
                        },
                    )
                })
                .collect(),
        )),
    }
}

/// `history` (input items, the latest user message included) as a
/// Responses request for `model` with `prompt` placed: `instructions` for a
/// model without breakpoints, else a leading `developer` message of
/// `input_text` parts carrying them (`instructions` is one string and takes
/// none) and `prompt_cache_options`; `prompt_cache_key`; the reminder at the
/// end of the latest user message.
///
/// # Errors
/// [`PlacementError::NoUserTurn`] when the prompt has a reminder and
/// `history` no user message.
pub fn responses_request(
    prompt: &AssembledPrompt,
    model: &str,
    history: Vec<InputItem>,
) -> Result<Placed<CreateResponse>, PlacementError> {
    let placement = Placement::new(prompt, Provider::OpenAi, Some(model), SystemSlot::Blocks);
    let breakpoints = placement.breakpoints().to_vec();
    let mut input = Vec::with_capacity(history.len() + 1);
    let mut instructions = None;
    match placement.system() {
        [] => {}
        [one] if !one.breakpoint => instructions = Some(one.text.clone()),
        blocks => input.push(InputItem::EasyMessage(EasyInputMessage {
            r#type: MessageType::Message,
            role: Role::Developer,
            content: EasyInputContent::ContentList(
                blocks
                    .iter()
                    .map(|block| {
                        InputContent::InputText(InputTextContent {
                            text: block.text.clone(),
                            prompt_cache_breakpoint: block.breakpoint.then_some(
                                PromptCacheBreakpointConfig {
                                    mode: PromptCacheBreakpointConfigMode::Explicit,
                                    ttl: None,
                                },
                            ),
                        })
                    })
                    .collect(),
            ),
            phase: None,
        })),
    }
    let first_turn = input.len();
    input.extend(history);
    if let Some(tail) = placement.user_tail() {
        let placed = input[first_turn..]
            .iter_mut()
            .rev()
            .find_map(|item| latest_user(item, tail));
        if placed.is_none() {
            placement.no_user_turn(CLIENT)?;
        }
    }
    let request = CreateResponse {
        input: InputParam::Items(input),
        instructions,
        model: Some(model.to_owned()),
        prompt_cache_key: placement.prompt_cache_key().map(str::to_owned),
        prompt_cache_options: (!breakpoints.is_empty()).then(|| ResponsePromptCacheOptionsParam {
            ttl: Some(PromptCacheTTLEnum::Value30m),
            mode: Some(PromptCacheModeEnum::Implicit),
            ..ResponsePromptCacheOptionsParam::default()
        }),
        ..CreateResponse::default()
    };
    Ok(Placed::new(request, Provider::OpenAi, breakpoints))
}

/// Appends `tail` to `item` when it is a user message; `Some` when it was.
fn latest_user(item: &mut InputItem, tail: &str) -> Option<()> {
    let text = || {
        InputContent::InputText(InputTextContent {
            text: tail.to_owned(),
            prompt_cache_breakpoint: None,
        })
    };
    match item {
        InputItem::EasyMessage(message) if message.role == Role::User => {
            match &mut message.content {
                EasyInputContent::Text(words) => append(words, tail),
                EasyInputContent::ContentList(parts) => parts.push(text()),
            }
            Some(())
        }
        InputItem::Item(Item::Message(MessageItem::Input(message)))
            if message.role == InputRole::User =>
        {
            message.content.push(text());
            Some(())
        }
        _ => None,
    }
}

/// `tail` after a blank line at the end of `text`, as prompt-core's OpenAI
/// requests append the reminder to a one-string message.
fn append(text: &mut String, tail: &str) {
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(tail);
}

/// Chat Completions usage as [`CacheUsage`]: `prompt_tokens` holds
/// `prompt_tokens_details.cached_tokens` and `cache_write_tokens`.
/// It carries no response id or model: for a whole response,
/// [`chat_cache_usage_of`] does.
///
/// # Errors
/// [`UsageError::Negative`] for a write count below zero, and
/// [`UsageError::Inconsistent`] when reads and writes exceed the prompt.
pub fn chat_cache_usage(usage: &CompletionUsage) -> Result<CacheUsage, UsageError> {
    let details = usage.prompt_tokens_details.as_ref();
    let read = details.and_then(|d| d.cached_tokens).unwrap_or(0);
    let written = match details.and_then(|d| d.cache_write_tokens) {
        Some(tokens) => count(CLIENT, "PromptTokensDetails::cache_write_tokens", tokens)?,
        None => 0,
    };
    let out = within(CLIENT, usage.prompt_tokens.into(), read.into(), written)?;
    Ok(out.output(usage.completion_tokens.into()))
}

/// Responses usage as [`CacheUsage`]: `input_tokens` holds
/// `input_tokens_details.cached_tokens` and `cache_write_tokens`.
/// It carries no response id or model: for a whole response,
/// [`response_cache_usage_of`] does.
///
/// # Errors
/// As [`chat_cache_usage`].
pub fn response_cache_usage(usage: &ResponseUsage) -> Result<CacheUsage, UsageError> {
    let details = &usage.input_tokens_details;
    let written = match details.cache_write_tokens {
        Some(tokens) => count(CLIENT, "InputTokenDetails::cache_write_tokens", tokens)?,
        None => 0,
    };
    let out = within(
        CLIENT,
        usage.input_tokens.into(),
        details.cached_tokens.into(),
        written,
    )?;
    Ok(out.output(usage.output_tokens.into()))
}

/// A Chat Completions response as [`CacheUsage`]: [`chat_cache_usage`] of
/// its `usage`, with its `id` and `model`, which the verdict's span carries
/// as `gen_ai.response.id` and `gen_ai.response.model`.
///
/// # Errors
/// [`UsageError::Missing`] when the response has no `usage` (a stream that
/// did not ask for it), and as [`chat_cache_usage`].
pub fn chat_cache_usage_of(
    response: &CreateChatCompletionResponse,
) -> Result<CacheUsage, UsageError> {
    let usage = response.usage.as_ref().ok_or(UsageError::Missing {
        client: CLIENT,
        field: "CreateChatCompletionResponse::usage",
    })?;
    Ok(chat_cache_usage(usage)?
        .response_id(response.id.as_str())
        .response_model(response.model.as_str()))
}

/// A Responses response as [`CacheUsage`]: [`response_cache_usage`] of its
/// `usage`, with its `id` and `model`, as [`chat_cache_usage_of`].
///
/// # Errors
/// [`UsageError::Missing`] when the response has no `usage`, and as
/// [`response_cache_usage`].
pub fn response_cache_usage_of(response: &Response) -> Result<CacheUsage, UsageError> {
    let usage = response.usage.as_ref().ok_or(UsageError::Missing {
        client: CLIENT,
        field: "Response::usage",
    })?;
    Ok(response_cache_usage(usage)?
        .response_id(response.id.as_str())
        .response_model(response.model.as_str()))
}
