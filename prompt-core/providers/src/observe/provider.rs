//! Which provider answered: it decides how its usage adds up.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::semconv;

/// The provider whose response a [`CacheUsage`](super::CacheUsage) was read
/// from, and whose cache a [`CacheLedger`](super::CacheLedger) explains.
///
/// Their usage arithmetic differs: Anthropic (and Bedrock) report cache reads and writes
/// *beside* `input_tokens` (the prompt is the three summed), OpenAI's
/// `cached_tokens` and Gemini's `cachedContentTokenCount` are *inside* the
/// input count. [`CacheUsage`](super::CacheUsage) holds them in one shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Provider {
    /// Anthropic's Messages API (`POST /v1/messages`).
    Anthropic,
    /// OpenAI's Responses API or Chat Completions.
    #[serde(rename = "openai")]
    OpenAi,
    /// Google's Gemini API (`generateContent`).
    Gemini,
    /// Amazon Bedrock's Converse API (`Converse`, `ConverseStream`), for
    /// Claude models: cache reads and writes beside `inputTokens`, as
    /// Anthropic's, and no cache diagnostics.
    Bedrock,
}

impl Provider {
    /// Every provider, in a fixed order.
    pub const ALL: &'static [Provider] = &[
        Provider::Anthropic,
        Provider::OpenAi,
        Provider::Gemini,
        Provider::Bedrock,
    ];

    /// The name used in logs and on the command line: `anthropic`, `openai`,
    /// `gemini`, `bedrock`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::OpenAi => "openai",
            Self::Gemini => "gemini",
            Self::Bedrock => "bedrock",
        }
    }

    /// The OpenTelemetry `gen_ai.provider.name` value: `anthropic`,
    /// `openai`, `gcp.gemini`, `aws.bedrock`.
    pub const fn otel_name(self) -> &'static str {
        match self {
            Self::Anthropic => semconv::PROVIDER_ANTHROPIC,
            Self::OpenAi => semconv::PROVIDER_OPENAI,
            Self::Gemini => semconv::PROVIDER_GEMINI,
            Self::Bedrock => semconv::PROVIDER_BEDROCK,
        }
    }

    /// The OpenTelemetry `gen_ai.operation.name` of a request to it: `chat`
    /// (Anthropic's Messages, OpenAI's Responses and Chat Completions, Bedrock's Converse) or
    /// `generate_content` (Gemini's `generateContent`).
    pub const fn otel_operation(self) -> &'static str {
        match self {
            Self::Anthropic | Self::OpenAi | Self::Bedrock => semconv::OPERATION_CHAT,
            Self::Gemini => semconv::OPERATION_GENERATE_CONTENT,
        }
    }

    /// Whether the provider caches the request prefix up to the request's
    /// own breakpoints (Anthropic's `cache_control`, Bedrock's `cachePoint`),
    /// rather than the whole prompt as it came (OpenAI, Gemini): its prefix
    /// through the last breakpoint must reach the model's minimum, and what a
    /// response read and wrote is what the next one can read.
    ///
    /// ```
    /// use prompt_providers::observe::Provider;
    ///
    /// assert!(Provider::Bedrock.caches_at_breakpoints());
    /// assert!(!Provider::Gemini.caches_at_breakpoints());
    /// ```
    pub const fn caches_at_breakpoints(self) -> bool {
        matches!(self, Self::Anthropic | Self::Bedrock)
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider name that is none of [`Provider::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider `{0}`: expected anthropic, openai, gemini or bedrock")]
pub struct UnknownProvider(String);

impl FromStr for Provider {
    type Err = UnknownProvider;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Provider::ALL
            .iter()
            .copied()
            .find(|p| p.as_str().eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownProvider(name.chars().take(40).collect()))
    }
}
