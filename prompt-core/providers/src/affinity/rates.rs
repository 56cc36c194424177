//! How many requests a minute one routing key carries before the provider
//! spreads it over machines that do not hold its cache: dated data, each row
//! with the day it was read and its source.

use std::fmt;

use serde::Serialize;

/// When the rows below were last checked whole against their sources.
pub const KEY_RATES_CHECKED: &str = "2026-12-07";

/// A provider that routes requests to a cache by a key the caller sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum KeyedProvider {
    /// OpenAI: `prompt_cache_key` (Responses and Chat Completions).
    #[serde(rename = "openai")]
    OpenAi,
    /// xAI: `prompt_cache_key` (Responses), the `x-grok-conv-id` header
    /// (Chat Completions).
    Xai,
    /// Mistral: `prompt_cache_key`.
    Mistral,
}

impl KeyedProvider {
    /// Every provider of the table, in its order.
    pub const ALL: &'static [KeyedProvider] = &[Self::OpenAi, Self::Xai, Self::Mistral];

    /// The lowercase name: `openai`, `xai`, `mistral`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Xai => "xai",
            Self::Mistral => "mistral",
        }
    }
}

impl fmt::Display for KeyedProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One provider's per-key rate: the requests a minute one key (with one
/// prefix) is served from one machine before the rest spill to others,
/// `None` where the provider publishes no figure (then nothing is sharded).
///
/// ```
/// use prompt_providers::affinity::{KeyRate, KeyedProvider};
///
/// assert_eq!(KeyRate::of(KeyedProvider::OpenAi).per_minute, Some(15));
/// assert_eq!(KeyRate::of(KeyedProvider::Xai).per_minute, None);
/// assert!(KeyRate::of(KeyedProvider::Mistral).source.contains("docs.mistral.ai"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct KeyRate {
    /// The provider.
    pub provider: KeyedProvider,
    /// Requests a minute per key, where documented.
    pub per_minute: Option<u32>,
    /// The day the figure (or its absence) was read, `YYYY-MM-DD`.
    pub read_on: &'static str,
    /// Where it was read.
    pub source: &'static str,
    /// What the source says, and what is unsure about it.
    pub note: &'static str,
}

/// The table, one row per provider.
const RATES: &[KeyRate] = &[
    KeyRate {
        provider: KeyedProvider::OpenAi,
        per_minute: Some(15),
        read_on: "2026-12-07",
        source: "developers.openai.com/api/docs/guides/prompt-caching (\"Cache routing\"), as \
                 quoted in microsoft/vscode-copilot-chat#4608 (2026-03-23); OpenAI staff on \
                 community.openai.com/t/prompt-cache-routing-the-user-parameter/1267103 \
                 (\"spillover to more machines ~15 RPM\")",
        note: "approximate: requests with the same prefix and prompt_cache_key past about 15 a \
               minute may overflow to other machines. Routing hashes the key with the first \
               ~256 tokens. The figure was published before GPT-5.6's explicit breakpoints and \
               is kept for every model; the Prompt Caching 201 cookbook says its routing notes \
               apply to models before GPT-5.6. Measured effect of affinity on an \
               OpenAI-compatible backend: 0.085% to 99.4% hits (vectorize-io/hindsight#3271).",
    },
    KeyRate {
        provider: KeyedProvider::Xai,
        per_minute: None,
        read_on: "2026-12-07",
        source: "docs.x.ai/developers/advanced-api-usage/prompt-caching/maximizing-cache-hits",
        note: "x-grok-conv-id (Chat Completions) or prompt_cache_key (Responses) routes \
               requests to the same server; no per-key rate is published, so keys are not \
               sharded.",
    },
    KeyRate {
        provider: KeyedProvider::Mistral,
        per_minute: None,
        read_on: "2026-12-07",
        source: "docs.mistral.ai/studio-api/conversations/advanced/prompt-caching",
        note: "prompt_cache_key raises the chance of a hit without guaranteeing one; no \
               per-key rate is published, so keys are not sharded.",
    },
];

impl KeyRate {
    /// Every row, in [`KeyedProvider::ALL`]'s order.
    pub const ALL: &'static [KeyRate] = RATES;

    /// `provider`'s row.
    pub fn of(provider: KeyedProvider) -> KeyRate {
        RATES
            .iter()
            .copied()
            .find(|row| row.provider == provider)
            .unwrap_or(KeyRate {
                provider,
                per_minute: None,
                read_on: KEY_RATES_CHECKED,
                source: "",
                note: "no row: not sharded",
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_provider_has_one_dated_sourced_row() {
        for &provider in KeyedProvider::ALL {
            let rows: Vec<_> = RATES.iter().filter(|r| r.provider == provider).collect();
            assert_eq!(rows.len(), 1, "{provider}");
            let row = rows[0];
            assert!(
                row.read_on.parse::<jiff::civil::Date>().is_ok(),
                "{provider}"
            );
            assert!(row.read_on <= KEY_RATES_CHECKED, "{provider}");
            assert!(!row.source.is_empty() && !row.note.is_empty(), "{provider}");
            assert_ne!(row.per_minute, Some(0), "{provider}: 0 would shard forever");
        }
        assert_eq!(
            KeyRate::ALL.iter().map(|r| r.provider).collect::<Vec<_>>(),
            KeyedProvider::ALL
        );
    }
}
