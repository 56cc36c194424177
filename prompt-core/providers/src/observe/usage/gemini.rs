//! Gemini's usage, from either API:
//!
//! - `generateContent`'s `usageMetadata`: `cachedContentTokenCount` inside
//!   `promptTokenCount`; `toolUsePromptTokenCount` (results of tools the API
//!   ran) beside it, and input too.
//! - The Interactions API's `usage` (an `Interaction`, or the `interaction`
//!   of an `interaction.completed` stream event): `total_cached_tokens`
//!   inside `total_input_tokens`, `total_tool_use_tokens` beside it; the
//!   output is `total_output_tokens` and `total_thought_tokens`, as
//!   `candidatesTokenCount` and `thoughtsTokenCount` are.
//!
//! Shapes from the API reference and `google-genai` 3.6.1's
//! `GenerateContentResponseUsageMetadata` and its Interactions `Usage`
//! (`google/genai/_gaos/types/interactions/usage.py`).

use serde_json::Value;

use super::json::{count, error_body, member, required, sum, text};
use super::{CacheUsage, UsageError};
use crate::observe::Provider;

const P: Provider = Provider::Gemini;

/// A `generateContent` response or one chunk of its stream that carries
/// `usageMetadata`; or an Interactions API `Interaction` or stream event.
pub(super) fn read(body: &Value) -> Result<CacheUsage, UsageError> {
    error_body(P, body)?;
    if let Some(interaction) = interaction(body)? {
        return interactions(interaction);
    }
    let usage = member(body, "usageMetadata").ok_or(UsageError::NoUsage {
        provider: P,
        what: "no `usageMetadata` (in a stream, the chunks that carry it are cumulative: read \
               the last, or fold the stream with CacheUsage::from_stream)",
    })?;
    let prompt = required(
        P,
        usage,
        "promptTokenCount",
        "usageMetadata.promptTokenCount",
    )?;
    let cached = count(
        P,
        usage,
        "cachedContentTokenCount",
        "usageMetadata.cachedContentTokenCount",
    )?
    .unwrap_or(0);
    let tools = count(
        P,
        usage,
        "toolUsePromptTokenCount",
        "usageMetadata.toolUsePromptTokenCount",
    )?
    .unwrap_or(0);
    let uncached = prompt.checked_sub(cached).ok_or_else(|| UsageError::Inconsistent {
        provider: P,
        message: format!(
            "`cachedContentTokenCount` {cached} exceeds `promptTokenCount` {prompt}, which holds it"
        ),
    })?;
    let candidates = count(
        P,
        usage,
        "candidatesTokenCount",
        "usageMetadata.candidatesTokenCount",
    )?;
    let thoughts = count(
        P,
        usage,
        "thoughtsTokenCount",
        "usageMetadata.thoughtsTokenCount",
    )?;
    let output = match (candidates, thoughts) {
        (None, None) => None,
        (c, t) => Some(sum(
            P,
            "usageMetadata.candidatesTokenCount + thoughtsTokenCount",
            c.unwrap_or(0),
            t.unwrap_or(0),
        )?),
    };
    Ok(CacheUsage {
        uncached_input: sum(
            P,
            "usageMetadata.promptTokenCount + toolUsePromptTokenCount",
            uncached,
            tools,
        )?,
        read: cached,
        written: 0,
        written_ttl: Vec::new(),
        output,
        response_id: text(body, "responseId"),
        response_model: text(body, "modelVersion"),
        diagnosis: None,
    })
}

/// One chunk into the usage so far: the last chunk with `usageMetadata`
/// (or the last Interactions event whose interaction has `usage`) wins.
pub(super) fn fold(usage: &mut Option<CacheUsage>, chunk: &Value) -> Result<(), UsageError> {
    error_body(P, chunk)?;
    let interaction_usage = match member(chunk, "event_type") {
        Some(_) => member(chunk, "interaction").and_then(|i| member(i, "usage")),
        None => None,
    };
    if member(chunk, "usageMetadata").is_some() || interaction_usage.is_some() {
        *usage = Some(read(chunk)?);
    }
    Ok(())
}

/// The Interactions API's `Interaction` in `body`: `body` itself when it
/// has the Interaction's `usage` (and no `usageMetadata`), or the
/// `interaction` of a stream event (`event_type: "interaction.completed"`).
fn interaction(body: &Value) -> Result<Option<&Value>, UsageError> {
    if let Some(kind) = member(body, "event_type") {
        let interaction = member(body, "interaction").ok_or(UsageError::NoUsage {
            provider: P,
            what: "this Interactions stream event carries no `interaction`: read the usage from \
                   its `interaction.completed` event",
        })?;
        if member(interaction, "usage").is_none() {
            return Err(UsageError::NoUsage {
                provider: P,
                what: match kind.as_str() {
                    Some("interaction.completed") => {
                        "the `interaction.completed` event's interaction has no `usage`: get \
                         the interaction by its id for the full resource"
                    }
                    _ => {
                        "this Interactions stream event has no `usage`: read it from the \
                          `interaction.completed` event"
                    }
                },
            });
        }
        return Ok(Some(interaction));
    }
    if member(body, "usageMetadata").is_some() {
        return Ok(None);
    }
    if member(body, "usage").is_some() {
        return Ok(Some(body));
    }
    match member(body, "status").and_then(Value::as_str) {
        Some("in_progress" | "queued" | "requires_action" | "requires_continuation") => {
            Err(UsageError::NoUsage {
                provider: P,
                what: "the interaction has not finished: read the usage from the completed one",
            })
        }
        _ => Ok(None),
    }
}

/// An Interaction's `usage`: the cached tokens inside the input, the tool-use
/// prompt beside it.
fn interactions(interaction: &Value) -> Result<CacheUsage, UsageError> {
    let usage = member(interaction, "usage").ok_or(UsageError::Missing {
        provider: P,
        field: "usage",
    })?;
    if !usage.is_object() {
        return Err(UsageError::Inconsistent {
            provider: P,
            message: "`usage` of the interaction is not an object".to_owned(),
        });
    }
    let input = required(P, usage, "total_input_tokens", "usage.total_input_tokens")?;
    let cached = count(P, usage, "total_cached_tokens", "usage.total_cached_tokens")?.unwrap_or(0);
    let tools = count(
        P,
        usage,
        "total_tool_use_tokens",
        "usage.total_tool_use_tokens",
    )?
    .unwrap_or(0);
    let uncached = input
        .checked_sub(cached)
        .ok_or_else(|| UsageError::Inconsistent {
            provider: P,
            message: format!(
                "`usage.total_cached_tokens` {cached} exceeds `usage.total_input_tokens` {input}, \
             which holds it"
            ),
        })?;
    let output = count(P, usage, "total_output_tokens", "usage.total_output_tokens")?;
    let thoughts = count(
        P,
        usage,
        "total_thought_tokens",
        "usage.total_thought_tokens",
    )?;
    let output = match (output, thoughts) {
        (None, None) => None,
        (o, t) => Some(sum(
            P,
            "usage.total_output_tokens + total_thought_tokens",
            o.unwrap_or(0),
            t.unwrap_or(0),
        )?),
    };
    Ok(CacheUsage {
        uncached_input: sum(
            P,
            "usage.total_input_tokens + total_tool_use_tokens",
            uncached,
            tools,
        )?,
        read: cached,
        written: 0,
        written_ttl: Vec::new(),
        output,
        response_id: text(interaction, "id"),
        response_model: text(interaction, "model"),
        diagnosis: None,
    })
}
