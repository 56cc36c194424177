//! Gemini's `usageMetadata`: `cachedContentTokenCount` inside
//! `promptTokenCount`; `toolUsePromptTokenCount` (results of tools the API
//! ran) beside it, and input too.
//!
//! Shapes from the API reference and `google-genai` 3.6.1's
//! `GenerateContentResponseUsageMetadata`.

use serde_json::Value;

use super::json::{count, error_body, member, required, sum, text};
use super::{CacheUsage, UsageError};
use crate::observe::Provider;

const P: Provider = Provider::Gemini;

/// A `generateContent` response, or one chunk of a stream that carries
/// `usageMetadata`.
pub(super) fn read(body: &Value) -> Result<CacheUsage, UsageError> {
    error_body(P, body)?;
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

/// One chunk into the usage so far: the last chunk with `usageMetadata` wins.
pub(super) fn fold(usage: &mut Option<CacheUsage>, chunk: &Value) -> Result<(), UsageError> {
    error_body(P, chunk)?;
    if member(chunk, "usageMetadata").is_some() {
        *usage = Some(read(chunk)?);
    }
    Ok(())
}
