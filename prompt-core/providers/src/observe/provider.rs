//! Which provider answered: it decides how its usage adds up.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::semconv;

/// The provider whose response a [`CacheUsage`](super::CacheUsage) was read
/// from, and whose cache a [`CacheLedger`](super::CacheLedger) explains.
///
/// Their usage arithmetic differs: Anthropic reports cache reads and writes
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
}

impl Provider {
    /// Every provider, in a fixed order.
    pub const ALL: &'static [Provider] = &[Provider::Anthropic, Provider::OpenAi, Provider::Gemini];

    /// The name used in logs and on the command line: `anthropic`, `openai`, `gemini`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::OpenAi => "openai",
            Self::Gemini => "gemini",
        }
    }

    /// The OpenTelemetry `gen_ai.provider.name` value: `anthropic`,
    /// `openai`, `gcp.gemini`.
    pub const fn otel_name(self) -> &'static str {
        match self {
            Self::Anthropic => semconv::PROVIDER_ANTHROPIC,
            Self::OpenAi => semconv::PROVIDER_OPENAI,
            Self::Gemini => semconv::PROVIDER_GEMINI,
        }
    }

    /// The OpenTelemetry `gen_ai.operation.name` of a request to it: `chat`
    /// (Anthropic's Messages, OpenAI's Responses and Chat Completions) or
    /// `generate_content` (Gemini's `generateContent`).
    pub const fn otel_operation(self) -> &'static str {
        match self {
            Self::Anthropic | Self::OpenAi => semconv::OPERATION_CHAT,
            Self::Gemini => semconv::OPERATION_GENERATE_CONTENT,
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider name that is none of [`Provider::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider `{0}`: expected anthropic, openai or gemini")]
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
