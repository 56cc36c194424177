//! OpenAI's usage: `cached_tokens` (and `cache_write_tokens`) inside the
//! input count. Responses (`usage.input_tokens`, `input_tokens_details`) and
//! Chat Completions (`usage.prompt_tokens`, `prompt_tokens_details`).
//!
//! Shapes from the API reference and `openai` 3.57.0's `ResponseUsage`,
//! `CompletionUsage` and the response's `PromptCacheDiagnostics`.

use std::time::Duration;

use serde_json::Value;

use super::json::{count, error_body, member, required, sum, text};
use super::{CacheUsage, DiagnosisOutcome, ProviderDiagnosis, TtlTokens, UsageError};
use crate::observe::Provider;

const P: Provider = Provider::OpenAi;

/// A response (Responses or Chat Completions), a `response.completed` (or
/// `.incomplete`, `.failed`) event, or a chunk carrying usage.
pub(super) fn read(body: &Value) -> Result<CacheUsage, UsageError> {
    error_body(P, body)?;
    let kind = member(body, "type").and_then(Value::as_str);
    let response = match kind {
        Some(event) if event.starts_with("response.") => {
            member(body, "response").ok_or(UsageError::NoUsage {
                provider: P,
                what: "this Responses stream event carries no `response`: read the usage from \
                       its `response.completed` event",
            })?
        }
        _ => body,
    };
    let Some(usage) = member(response, "usage") else {
        return Err(UsageError::NoUsage {
            provider: P,
            what: match member(response, "status").and_then(Value::as_str) {
                Some("in_progress") | Some("queued") => {
                    "the response is still in progress: read the usage from the completed one"
                }
                _ => {
                    "`usage` is absent (a Chat Completions stream reports it only with \
                     `stream_options: {\"include_usage\": true}`, in its last chunk)"
                }
            },
        });
    };
    let mut out = if member(usage, "input_tokens").is_some() {
        responses(usage)?
    } else if member(usage, "prompt_tokens").is_some() {
        chat(usage)?
    } else {
        return Err(UsageError::Missing {
            provider: P,
            field: "usage.input_tokens",
        });
    };
    out.response_id = text(response, "id");
    out.response_model = text(response, "model");
    out.diagnosis = diagnosis(response)?;
    Ok(out)
}

/// One event of a stream into the usage so far: the last one with usage wins.
pub(super) fn fold(usage: &mut Option<CacheUsage>, event: &Value) -> Result<(), UsageError> {
    error_body(P, event)?;
    let response = match member(event, "type").and_then(Value::as_str) {
        Some(kind) if kind.starts_with("response.") => member(event, "response"),
        _ => Some(event),
    };
    if response.and_then(|r| member(r, "usage")).is_some() {
        *usage = Some(read(event)?);
    }
    Ok(())
}

fn responses(usage: &Value) -> Result<CacheUsage, UsageError> {
    let input = required(P, usage, "input_tokens", "usage.input_tokens")?;
    let details = member(usage, "input_tokens_details");
    let cached = details
        .map(|d| {
            count(
                P,
                d,
                "cached_tokens",
                "usage.input_tokens_details.cached_tokens",
            )
        })
        .transpose()?
        .flatten();
    let written = details
        .map(|d| {
            count(
                P,
                d,
                "cache_write_tokens",
                "usage.input_tokens_details.cache_write_tokens",
            )
        })
        .transpose()?
        .flatten();
    let mut written = written;
    let ttl = match details.and_then(|d| member(d, "cache_write_tokens_details")) {
        Some(by_ttl) => {
            let field_30m = "usage.input_tokens_details.cache_write_tokens_details.ttl_30m_tokens";
            let field_12h = "usage.input_tokens_details.cache_write_tokens_details.ttl_12h_tokens";
            let short = required(P, by_ttl, "ttl_30m_tokens", field_30m)?;
            let long = required(P, by_ttl, "ttl_12h_tokens", field_12h)?;
            let sum = sum(
                P,
                "usage.input_tokens_details.cache_write_tokens_details",
                short,
                long,
            )?;
            if written.is_some_and(|w| w != sum) {
                return Err(UsageError::Inconsistent {
                    provider: P,
                    message: format!(
                        "`cache_write_tokens_details` holds {short} (30m) + {long} (12h) = {sum} \
                         tokens, but `cache_write_tokens` is {}",
                        written.unwrap_or(0)
                    ),
                });
            }
            // Without the total, the breakdown is the writes.
            written = Some(sum);
            [(1800, short), (43_200, long)]
                .into_iter()
                .filter(|&(_, tokens)| tokens > 0)
                .map(|(seconds, tokens)| TtlTokens {
                    ttl: Duration::from_secs(seconds),
                    tokens,
                })
                .collect()
        }
        None => Vec::new(),
    };
    inside(
        input,
        cached.unwrap_or(0),
        written.unwrap_or(0),
        ttl,
        "usage.input_tokens",
        count(P, usage, "output_tokens", "usage.output_tokens")?,
    )
}

fn chat(usage: &Value) -> Result<CacheUsage, UsageError> {
    let input = required(P, usage, "prompt_tokens", "usage.prompt_tokens")?;
    let details = member(usage, "prompt_tokens_details");
    let cached = details
        .map(|d| {
            count(
                P,
                d,
                "cached_tokens",
                "usage.prompt_tokens_details.cached_tokens",
            )
        })
        .transpose()?
        .flatten();
    let written = details
        .map(|d| {
            count(
                P,
                d,
                "cache_write_tokens",
                "usage.prompt_tokens_details.cache_write_tokens",
            )
        })
        .transpose()?
        .flatten();
    inside(
        input,
        cached.unwrap_or(0),
        written.unwrap_or(0),
        Vec::new(),
        "usage.prompt_tokens",
        count(P, usage, "completion_tokens", "usage.completion_tokens")?,
    )
}

/// Cached and written tokens taken out of the input count that holds them.
fn inside(
    input: u64,
    cached: u64,
    written: u64,
    ttl: Vec<TtlTokens>,
    field: &str,
    output: Option<u64>,
) -> Result<CacheUsage, UsageError> {
    // Each at most MAX_REQUEST_TOKENS: their sum cannot saturate.
    let cache = cached.saturating_add(written);
    let uncached = input
        .checked_sub(cache)
        .ok_or_else(|| UsageError::Inconsistent {
            provider: P,
            message: format!(
                "{cached} cached + {written} written tokens exceed the {input} of `{field}`, which \
             holds them"
            ),
        })?;
    Ok(CacheUsage {
        uncached_input: uncached,
        read: cached,
        written,
        written_ttl: ttl,
        output,
        response_id: None,
        response_model: None,
        diagnosis: None,
    })
}

/// `prompt_cache_diagnostics`, when the request named a
/// `prompt_cache_options.comparison_response_id`.
fn diagnosis(response: &Value) -> Result<Option<ProviderDiagnosis>, UsageError> {
    let Some(found) = member(response, "prompt_cache_diagnostics") else {
        return Ok(None);
    };
    let kind = member(found, "type")
        .and_then(Value::as_str)
        .ok_or(UsageError::Missing {
            provider: P,
            field: "prompt_cache_diagnostics.type",
        })?;
    let outcome = match kind {
        "cache_hit" => DiagnosisOutcome::Hit,
        "cache_miss" => DiagnosisOutcome::Miss,
        "comparison_response_not_found" => DiagnosisOutcome::PreviousNotFound,
        "unavailable" => DiagnosisOutcome::Unavailable,
        _ => {
            return Err(UsageError::Inconsistent {
                provider: P,
                message: format!(
                    "`prompt_cache_diagnostics.type` is `{}`, which this version does not know",
                    super::json::bounded(kind)
                ),
            });
        }
    };
    let reason = match outcome {
        DiagnosisOutcome::Miss => Some(text(found, "reason").ok_or(UsageError::Missing {
            provider: P,
            field: "prompt_cache_diagnostics.reason",
        })?),
        _ => None,
    };
    Ok(Some(ProviderDiagnosis {
        outcome,
        reason,
        missed_tokens: count(
            P,
            found,
            "cache_missed_tokens",
            "prompt_cache_diagnostics.cache_missed_tokens",
        )?,
        reusable_tokens: count(
            P,
            found,
            "comparison_reusable_tokens",
            "prompt_cache_diagnostics.comparison_reusable_tokens",
        )?,
    }))
}
