//! How long a provider keeps a cached prefix, as the request fields that
//! say so and the values each model takes: dated data with their sources.
//!
//! One row per field and model line: the field (`prompt_cache_options.ttl`,
//! `prompt_cache_retention`, `cache_control.ttl`), the values the API takes
//! there, the one it assumes when the field is left out, the day it was read
//! and where. The OpenAI request builders read it to leave out a value a
//! model refuses ([`openai`](super::openai)); the simulators read the
//! defaults they report.
//!
//! ```
//! use prompt_providers::lifetimes::{CacheLifetime, OpenAiApi};
//!
//! let responses = CacheLifetime::openai("gpt-5.6", OpenAiApi::Responses);
//! assert_eq!(responses.field, "prompt_cache_options.ttl");
//! assert_eq!(responses.values, ["30m", "12h"]);
//! let chat = CacheLifetime::openai("gpt-5.6", OpenAiApi::Chat);
//! assert_eq!(chat.values, ["30m"]);
//! // gpt-5.5 still takes prompt_cache_retention, but only "24h".
//! let gpt_5_5 = CacheLifetime::openai("gpt-5.5", OpenAiApi::Responses);
//! assert_eq!((gpt_5_5.field.as_str(), gpt_5_5.values.as_slice()), ("prompt_cache_retention", &["24h".to_owned()][..]));
//! ```

use serde::Serialize;

/// When the rows below were last checked whole against their sources.
pub const LIFETIMES_CHECKED: &str = "2026-12-07";

/// The pinned OpenAI SDK the field names and values were read from.
const OPENAI_SDK: &str = "openai-python 3.57.0, openai/types/responses/response_create_params.py \
                          and openai/types/chat/completion_create_params.py";

/// One row: a field of one provider's requests for a line of models.
struct Row {
    name: &'static str,
    ids: &'static [&'static str],
    field: &'static str,
    values: &'static [&'static str],
    default: Option<&'static str>,
    read_on: &'static str,
    source: &'static str,
}

/// OpenAI's rows, in the order [`CacheLifetime::openai`] picks from.
/// `prompt_cache_retention` is marked deprecated in favour of
/// `prompt_cache_options.ttl`; the two are independent (the retention a
/// longest, the TTL a shortest lifetime), and the builders send one only.
const OPENAI: &[Row] = &[
    Row {
        name: "OpenAI GPT-5.6 and later, Responses",
        ids: &["gpt-5.6 and later"],
        field: "prompt_cache_options.ttl",
        values: &["30m", "12h"],
        default: Some("30m"),
        read_on: "2026-12-07",
        source: OPENAI_SDK,
    },
    Row {
        name: "OpenAI GPT-5.6 and later, Chat Completions",
        ids: &["gpt-5.6 and later"],
        field: "prompt_cache_options.ttl",
        values: &["30m"],
        default: Some("30m"),
        read_on: "2026-12-07",
        source: OPENAI_SDK,
    },
    Row {
        name: "OpenAI GPT-5.5",
        ids: &["gpt-5.5", "gpt-5.5-pro"],
        field: "prompt_cache_retention",
        values: &["24h"],
        default: Some("24h"),
        read_on: "2026-12-07",
        source: "openai-python 3.57.0, prompt_cache_retention (for gpt-5.5, gpt-5.5-pro and \
                 later models only 24h is supported); \
                 developers.openai.com/api/docs/guides/prompt-caching#prompt-cache-retention",
    },
    Row {
        name: "OpenAI before GPT-5.5",
        ids: &["gpt-4o", "gpt-4.1", "gpt-5", "gpt-5.1 to gpt-5.4"],
        field: "prompt_cache_retention",
        values: &["in_memory", "24h"],
        // The default depends on the organization: 24h without zero data
        // retention, in_memory with it. The simulators report 24h.
        default: Some("24h"),
        read_on: "2026-12-07",
        source: "openai-python 3.57.0, prompt_cache_retention (24h by default, in_memory for \
                 organizations with zero data retention); \
                 developers.openai.com/api/docs/guides/prompt-caching",
    },
];

/// Anthropic's row: one breakpoint TTL per `cache_control`.
const ANTHROPIC: &[Row] = &[Row {
    name: "Claude, every model",
    ids: &["claude*"],
    field: "cache_control.ttl",
    values: &["5m", "1h"],
    default: Some("5m"),
    read_on: "2026-12-07",
    source: "anthropic-sdk-python 2.16.0, anthropic/types/cache_control_ephemeral_param.py; \
             platform.claude.com/docs/en/build-with-claude/prompt-caching",
}];

/// Which OpenAI API a request goes to: their `prompt_cache_options` differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OpenAiApi {
    /// `POST /v1/responses`.
    Responses,
    /// `POST /v1/chat/completions`.
    Chat,
}

/// A cache-lifetime field of one provider's requests for a line of models:
/// a row of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CacheLifetime {
    /// A name for people, e.g. `OpenAI GPT-5.5`.
    pub name: String,
    /// The models of the row, as people name them.
    pub ids: Vec<String>,
    /// The request field, e.g. `prompt_cache_options.ttl`.
    pub field: String,
    /// The values the API takes in it.
    pub values: Vec<String>,
    /// The value the API assumes when the field is left out.
    pub default: Option<String>,
    /// The day it was read from the source (`YYYY-MM-DD`).
    pub read_on: String,
    /// Where it was read.
    pub source: String,
}

impl CacheLifetime {
    fn of(row: &Row) -> Self {
        Self {
            name: row.name.to_owned(),
            ids: row.ids.iter().map(|id| (*id).to_owned()).collect(),
            field: row.field.to_owned(),
            values: row.values.iter().map(|v| (*v).to_owned()).collect(),
            default: row.default.map(str::to_owned),
            read_on: row.read_on.to_owned(),
            source: row.source.to_owned(),
        }
    }

    /// Every row, OpenAI's then Anthropic's, as checked on
    /// [`LIFETIMES_CHECKED`].
    pub fn all() -> Vec<Self> {
        OPENAI.iter().chain(ANTHROPIC).map(Self::of).collect()
    }

    /// The row for an OpenAI `model` on `api`: `prompt_cache_options.ttl`
    /// from GPT-5.6 on
    /// ([`takes_prompt_cache_options`](super::openai::takes_prompt_cache_options)),
    /// `prompt_cache_retention` before (`"24h"` only from GPT-5.5 on).
    pub fn openai(model: &str, api: OpenAiApi) -> Self {
        Self::of(openai_row(model, api))
    }
}

fn openai_row(model: &str, api: OpenAiApi) -> &'static Row {
    if super::openai::takes_prompt_cache_options(model) {
        match api {
            OpenAiApi::Responses => &OPENAI[0],
            OpenAiApi::Chat => &OPENAI[1],
        }
    } else if super::openai::gpt_version(model).is_some_and(|v| v >= (5, 5)) {
        &OPENAI[2]
    } else {
        &OPENAI[3]
    }
}

/// Whether an OpenAI `model` on `api` takes `value` in its lifetime field.
pub(crate) fn openai_takes(model: &str, api: OpenAiApi, value: &str) -> bool {
    openai_row(model, api).values.contains(&value)
}

/// The lifetime an OpenAI `model` gets when the request names none, as the
/// simulators report it: `30m` from GPT-5.6 on, `24h` before.
pub(crate) fn openai_default(model: &str) -> &'static str {
    openai_row(model, OpenAiApi::Responses)
        .default
        .unwrap_or("24h")
}
