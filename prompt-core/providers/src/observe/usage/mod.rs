//! Usage read from a provider's own response body, in one shape.
//!
//! | provider | field | inside the input count? |
//! |---|---|---|
//! | Anthropic | `usage.input_tokens`, `cache_read_input_tokens`, `cache_creation_input_tokens` (by TTL in `cache_creation`) | no: the prompt is the three summed |
//! | OpenAI Responses | `usage.input_tokens`, `input_tokens_details.cached_tokens`, `cache_write_tokens` (by TTL in `cache_write_tokens_details`) | yes |
//! | OpenAI Chat Completions | `usage.prompt_tokens`, `prompt_tokens_details.cached_tokens`, `cache_write_tokens` | yes |
//! | Gemini | `usageMetadata.promptTokenCount`, `cachedContentTokenCount` (and `toolUsePromptTokenCount`, beside it) | yes |
//! | Gemini Interactions | `usage.total_input_tokens`, `total_cached_tokens` (and `total_tool_use_tokens`, beside it) | yes |
//! | Bedrock Converse | `usage.inputTokens`, `cacheReadInputTokens`, `cacheWriteInputTokens` (by TTL in `cacheDetails`); ConverseStream's in its `metadata` event | no: the prompt is the three summed |
//!
//! A body that is not one of these, a count that is not a non-negative
//! integer, a count or a sum of counts past [`MAX_REQUEST_TOKENS`], or parts
//! that add up to more than their whole is an error naming the field: a
//! guess here would make every figure after it wrong. Every sum of counts is
//! checked, so no figure read here, or worked out from one, wraps.

mod anthropic;
mod bedrock;
mod gemini;
mod json;
mod openai;

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Provider;

/// The most tokens one request can hold, by this crate's reckoning: one
/// billion, a hundred times the largest context window offered (10 million
/// tokens). A count a provider reports past it, or counts whose sum is past
/// it (the input's three parts, the writes by TTL), is a
/// [`UsageError::TooLarge`] naming the field: such a figure is a broken or
/// hostile body, not a request. Below it, every sum and product of a
/// request's counts fits a `u64` and is exact as an `f64`.
pub const MAX_REQUEST_TOKENS: u64 = 1_000_000_000;

/// What a response says its prompt cost, split by how the cache served it.
///
/// The sum of [`uncached_input`](Self::uncached_input),
/// [`read`](Self::read) and [`written`](Self::written) is
/// every input token, whichever way the provider reports them. Read one from a body with
/// [`from_response`](Self::from_response), or build one from a client
/// library's own usage type with [`new`](Self::new):
///
/// ```
/// use prompt_providers::observe::{CacheUsage, Provider};
///
/// // Anthropic: the cache's tokens are beside `input_tokens`.
/// let body = serde_json::json!({
///     "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
///     "content": [], "stop_reason": "end_turn", "stop_sequence": null,
///     "usage": {"input_tokens": 12, "cache_read_input_tokens": 4096,
///               "cache_creation_input_tokens": 310, "output_tokens": 90}
/// });
/// let usage = CacheUsage::from_response(Provider::Anthropic, &body)?;
/// assert_eq!((usage.uncached_input, usage.read, usage.written), (12, 4096, 310));
/// assert_eq!(usage.input_tokens(), 4418);
///
/// // OpenAI: `cached_tokens` is inside `input_tokens`.
/// let body = serde_json::json!({
///     "id": "resp_01", "object": "response", "model": "gpt-5",
///     "usage": {"input_tokens": 5000, "input_tokens_details": {"cached_tokens": 4864},
///               "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
///               "total_tokens": 5020}
/// });
/// let usage = CacheUsage::from_response(Provider::OpenAi, &body)?;
/// assert_eq!((usage.uncached_input, usage.read), (136, 4864));
///
/// // From plain numbers, e.g. a client crate's usage struct.
/// let usage = CacheUsage::new(136, 4864, 0).output(20);
/// assert_eq!(usage.input_tokens(), 5000);
/// # Ok::<(), prompt_providers::observe::UsageError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CacheUsage {
    /// Input tokens neither read from nor written to the cache.
    pub uncached_input: u64,
    /// Input tokens read from the cache (`cache_read` in the ledger's log,
    /// as the providers' fields say it).
    #[serde(rename = "cache_read")]
    pub read: u64,
    /// Input tokens written to the cache (`cache_write` in the log).
    #[serde(rename = "cache_write")]
    pub written: u64,
    /// Of [`written`](Self::written), how many at each TTL, where
    /// the provider says (Anthropic: 5 minutes and 1 hour; OpenAI: 30
    /// minutes and 12 hours). Empty when it does not.
    #[serde(
        rename = "cache_write_ttl",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub written_ttl: Vec<TtlTokens>,
    /// Output tokens, where the body says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<u64>,
    /// The response's id (`msg_…`, `resp_…`, `chatcmpl-…`, Gemini's `responseId`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// The model that answered, as the response names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_model: Option<String>,
    /// The provider's own diagnosis of the cache, when the request asked for
    /// one and the response carries it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<ProviderDiagnosis>,
}

/// Tokens written to the cache with one TTL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TtlTokens {
    /// The entry's lifetime.
    #[serde(with = "super::wire::seconds")]
    pub ttl: Duration,
    /// Tokens written with it.
    pub tokens: u64,
}

/// What the provider itself said about the cache (Anthropic's
/// `diagnostics.cache_miss_reason`, OpenAI's `prompt_cache_diagnostics`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProviderDiagnosis {
    /// What it found.
    pub outcome: DiagnosisOutcome,
    /// The reason it gave for a miss, verbatim (`system_changed`,
    /// `input_changed`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its estimate of the tokens the cache would have read had the prefix
    /// matched (Anthropic's `cache_missed_input_tokens`, OpenAI's
    /// `cache_missed_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missed_tokens: Option<u64>,
    /// OpenAI's `comparison_reusable_tokens`: the reusable prefix of the
    /// response compared against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reusable_tokens: Option<u64>,
}

/// The outcome of a provider's diagnosis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DiagnosisOutcome {
    /// The prefix of the compared request was reusable (OpenAI's `cache_hit`).
    Hit,
    /// It diverged; [`ProviderDiagnosis::reason`] says where.
    Miss,
    /// The comparison had not finished when the response was written
    /// (Anthropic's `cache_miss_reason: null`): look at the next turn.
    Pending,
    /// The provider keeps no record of the request it was asked to compare
    /// with (`previous_message_not_found`, `comparison_response_not_found`).
    /// It does not mean this request changed.
    PreviousNotFound,
    /// The provider could not diagnose (`unavailable`).
    Unavailable,
}

impl CacheUsage {
    /// Usage from plain counts: `uncached_input` + `read` +
    /// `written` is every input token.
    pub const fn new(uncached_input: u64, read: u64, written: u64) -> Self {
        Self {
            uncached_input,
            read,
            written,
            written_ttl: Vec::new(),
            output: None,
            response_id: None,
            response_model: None,
            diagnosis: None,
        }
    }

    /// With the output tokens.
    pub fn output(mut self, tokens: u64) -> Self {
        self.output = Some(tokens);
        self
    }

    /// With the response's id.
    pub fn response_id(mut self, id: impl Into<String>) -> Self {
        self.response_id = Some(id.into());
        self
    }

    /// With the model that answered, as the response names it
    /// (`gen_ai.response.model` on the verdict's span).
    pub fn response_model(mut self, model: impl Into<String>) -> Self {
        self.response_model = Some(model.into());
        self
    }

    /// With the provider's own diagnosis.
    pub fn diagnosis(mut self, diagnosis: ProviderDiagnosis) -> Self {
        self.diagnosis = Some(diagnosis);
        self
    }

    /// With `tokens` of the writes at `ttl`.
    pub fn written_ttl(mut self, ttl: Duration, tokens: u64) -> Self {
        self.written_ttl.push(TtlTokens { ttl, tokens });
        self
    }

    /// Every input token: uncached, read and written.
    pub fn input_tokens(&self) -> u64 {
        self.uncached_input
            .saturating_add(self.read)
            .saturating_add(self.written)
    }

    /// The share of input tokens read from the cache, 0.0 to 1.0 (0.0 for
    /// an empty prompt).
    pub fn hit_ratio(&self) -> f64 {
        match self.input_tokens() {
            0 => 0.0,
            total => self.read as f64 / total as f64,
        }
    }

    /// The usage in `body`, a response of `provider`: the whole response, or
    /// the streaming event that carries its usage (Anthropic's
    /// `message_start`, or a `message_delta` whose usage has its input
    /// counts; OpenAI's `response.completed`, or the last Chat Completions
    /// chunk of a stream with `include_usage`; any Gemini chunk with
    /// `usageMetadata`; Bedrock's Converse response, or ConverseStream's
    /// `metadata` event, as an SDK yields it or as its payload).
    ///
    /// # Errors
    /// [`UsageError`] for a body that is not such a response (an API error
    /// body included), a count that is missing or not a non-negative
    /// integer, or parts that exceed their whole.
    pub fn from_response(provider: Provider, body: &Value) -> Result<Self, UsageError> {
        if !body.is_object() {
            return Err(UsageError::NotAnObject { provider });
        }
        let usage = match provider {
            Provider::Anthropic => anthropic::read(body),
            Provider::OpenAi => openai::read(body),
            Provider::Gemini => gemini::read(body),
            Provider::Bedrock => bedrock::read(body),
        }?;
        usage.check(provider)?;
        Ok(usage)
    }

    /// The usage of a whole stream of `provider`'s events, in order: each
    /// event that carries usage replaces the counts it carries (the
    /// providers report them cumulatively), the rest are skipped.
    ///
    /// ```
    /// use prompt_providers::observe::{CacheUsage, Provider};
    ///
    /// let events = [
    ///     serde_json::json!({"type": "message_start", "message": {
    ///         "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    ///         "content": [], "stop_reason": null, "stop_sequence": null,
    ///         "usage": {"input_tokens": 3, "cache_read_input_tokens": 2048,
    ///                   "cache_creation_input_tokens": 0, "output_tokens": 1}}}),
    ///     serde_json::json!({"type": "content_block_stop", "index": 0}),
    ///     serde_json::json!({"type": "message_delta", "delta": {"stop_reason": "end_turn",
    ///         "stop_sequence": null}, "usage": {"output_tokens": 57}}),
    /// ];
    /// let usage = CacheUsage::from_stream(Provider::Anthropic, &events)?;
    /// assert_eq!((usage.read, usage.output), (2048, Some(57)));
    /// # Ok::<(), prompt_providers::observe::UsageError>(())
    /// ```
    ///
    /// # Errors
    /// [`UsageError::NoUsage`] when no event carries the input counts, and
    /// every error of [`from_response`](Self::from_response) for an event
    /// that carries usage badly.
    pub fn from_stream<'a>(
        provider: Provider,
        events: impl IntoIterator<Item = &'a Value>,
    ) -> Result<Self, UsageError> {
        let mut usage: Option<CacheUsage> = None;
        for event in events {
            if !event.is_object() {
                return Err(UsageError::NotAnObject { provider });
            }
            match provider {
                Provider::Anthropic => anthropic::fold(&mut usage, event)?,
                Provider::OpenAi => openai::fold(&mut usage, event)?,
                Provider::Gemini => gemini::fold(&mut usage, event)?,
                Provider::Bedrock => bedrock::fold(&mut usage, event)?,
            }
        }
        let usage = usage.ok_or(UsageError::NoUsage {
            provider,
            what: "no event of the stream carries the input counts",
        })?;
        // Deltas replace counts one at a time: their sum is checked whole.
        usage.check(provider)?;
        Ok(usage)
    }

    /// Whether every count is one a request of `provider` can hold: each
    /// count, the three parts of the input together, and the writes by TTL
    /// together at most [`MAX_REQUEST_TOKENS`]. What
    /// [`from_response`](Self::from_response) and
    /// [`from_stream`](Self::from_stream) return passes; the
    /// [`CacheLedger`](super::CacheLedger) checks a usage built with
    /// [`new`](Self::new) before it judges it.
    ///
    /// ```
    /// use prompt_providers::observe::{CacheUsage, Provider, UsageError};
    ///
    /// assert!(CacheUsage::new(12, 4096, 310).check(Provider::Anthropic).is_ok());
    /// let error = CacheUsage::new(3, u64::MAX, 0).check(Provider::Anthropic).unwrap_err();
    /// assert!(matches!(error, UsageError::TooLarge { field: "cache_read", .. }), "{error}");
    /// ```
    ///
    /// # Errors
    /// [`UsageError::TooLarge`] naming the first count, or sum, past the ceiling.
    pub fn check(&self, provider: Provider) -> Result<(), UsageError> {
        let diagnosis = self.diagnosis.as_ref();
        let counts = [
            ("uncached_input", Some(self.uncached_input)),
            ("cache_read", Some(self.read)),
            ("cache_write", Some(self.written)),
            ("output", self.output),
            (
                "diagnosis.missed_tokens",
                diagnosis.and_then(|d| d.missed_tokens),
            ),
            (
                "diagnosis.reusable_tokens",
                diagnosis.and_then(|d| d.reusable_tokens),
            ),
        ];
        for (field, count) in counts {
            within(provider, field, count.map_or(0, u128::from))?;
        }
        let input =
            u128::from(self.uncached_input) + u128::from(self.read) + u128::from(self.written);
        within(provider, "uncached_input + cache_read + cache_write", input)?;
        // At most two TTLs from a body; a hand-built usage may hold more.
        let mut by_ttl: u128 = 0;
        for part in &self.written_ttl {
            by_ttl = by_ttl.saturating_add(u128::from(part.tokens));
        }
        within(provider, "cache_write_ttl", by_ttl)?;
        Ok(())
    }
}

/// A response body the usage cannot be read from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UsageError {
    /// Not a JSON object.
    #[error("the {provider} response is not a JSON object: pass the body the API returned, parsed")]
    NotAnObject {
        /// Whose response.
        provider: Provider,
    },
    /// The body is the API's error, not a response.
    #[error("the {provider} response is an error, with no usage: {message}")]
    ErrorBody {
        /// Whose response.
        provider: Provider,
        /// The API's message, escaped and cut to 200 characters.
        message: String,
    },
    /// No usage in it.
    #[error("the {provider} response has no usage: {what}")]
    NoUsage {
        /// Whose response.
        provider: Provider,
        /// What was looked for.
        what: &'static str,
    },
    /// A count it must carry is absent.
    #[error("the {provider} response has no `{field}`: it is not a complete usage object")]
    Missing {
        /// Whose response.
        provider: Provider,
        /// The field's path, e.g. `usage.input_tokens`.
        field: &'static str,
    },
    /// A count that is not a non-negative integer.
    #[error("the {provider} response's `{field}` is {found}, not a count of tokens")]
    NotACount {
        /// Whose response.
        provider: Provider,
        /// The field's path.
        field: &'static str,
        /// What it holds, shortly (`a string`, `-3`, `1.5`).
        found: String,
    },
    /// A count, or a sum of counts, past [`MAX_REQUEST_TOKENS`]: more than
    /// one request can hold.
    #[error(
        "the {provider} response's `{field}` is {found}, more than the {max} tokens one request \
         can hold",
        max = MAX_REQUEST_TOKENS
    )]
    TooLarge {
        /// Whose response.
        provider: Provider,
        /// The field's path, or the fields summed (`a + b`).
        field: &'static str,
        /// What it holds, or what they add up to (exact: a sum of counts
        /// may be past `u64::MAX`).
        found: u128,
    },
    /// Parts that exceed their whole, or breakdowns that disagree with their sum.
    #[error("the {provider} response does not add up: {message}")]
    Inconsistent {
        /// Whose response.
        provider: Provider,
        /// What does not add up.
        message: String,
    },
}

/// `found` (the count, or sum, at `field`) if at most [`MAX_REQUEST_TOKENS`].
pub(crate) fn within(
    provider: Provider,
    field: &'static str,
    found: u128,
) -> Result<u64, UsageError> {
    u64::try_from(found)
        .ok()
        .filter(|&n| n <= MAX_REQUEST_TOKENS)
        .ok_or(UsageError::TooLarge {
            provider,
            field,
            found,
        })
}
