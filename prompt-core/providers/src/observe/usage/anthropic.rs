//! Anthropic's Messages usage: the cache's counts beside `input_tokens`.
//!
//! Shapes from the API reference and `anthropic` 2.15.0's `Usage`,
//! `MessageDeltaUsage`, `CacheCreation` and `Diagnostics`.

use std::time::Duration;

use serde_json::Value;

use super::json::{count, error_body, member, required, sum, text};
use super::{CacheUsage, DiagnosisOutcome, ProviderDiagnosis, TtlTokens, UsageError};
use crate::observe::Provider;

const P: Provider = Provider::Anthropic;

/// A message, a `message_start` event, or a `message_delta` event whose
/// usage carries the input counts.
pub(super) fn read(body: &Value) -> Result<CacheUsage, UsageError> {
    error_body(P, body)?;
    match member(body, "type").and_then(Value::as_str) {
        Some("message_start") => {
            let message = member(body, "message").ok_or(UsageError::Missing {
                provider: P,
                field: "message",
            })?;
            message_usage(message)
        }
        Some("message_delta") => {
            let usage = member(body, "usage").ok_or(UsageError::Missing {
                provider: P,
                field: "usage",
            })?;
            if member(usage, "input_tokens").is_none() {
                return Err(UsageError::NoUsage {
                    provider: P,
                    what: "this message_delta carries no `input_tokens`: read the input counts \
                           from the stream's message_start (or fold the whole stream with \
                           CacheUsage::from_stream)",
                });
            }
            counts(usage)
        }
        _ if member(body, "usage").is_some() => message_usage(body),
        _ => Err(UsageError::NoUsage {
            provider: P,
            what: "not a Messages response, a message_start or a message_delta event \
                   (no `usage`)",
        }),
    }
}

/// One event of a stream into the usage so far.
pub(super) fn fold(usage: &mut Option<CacheUsage>, event: &Value) -> Result<(), UsageError> {
    error_body(P, event)?;
    match member(event, "type").and_then(Value::as_str) {
        Some("message_start") | Some("message") => *usage = Some(read(event)?),
        Some("message_delta") => {
            let delta = member(event, "usage").ok_or(UsageError::Missing {
                provider: P,
                field: "usage",
            })?;
            let output = count(P, delta, "output_tokens", "usage.output_tokens")?;
            let input = count(P, delta, "input_tokens", "usage.input_tokens")?;
            match (usage.as_mut(), input) {
                (Some(so_far), _) => {
                    // Cumulative: a count the delta carries replaces the start's.
                    if let Some(input) = input {
                        so_far.uncached_input = input;
                    }
                    if let Some(read) = count(
                        P,
                        delta,
                        "cache_read_input_tokens",
                        "usage.cache_read_input_tokens",
                    )? {
                        so_far.read = read;
                    }
                    if let Some(write) = count(
                        P,
                        delta,
                        "cache_creation_input_tokens",
                        "usage.cache_creation_input_tokens",
                    )? {
                        if write != so_far.written {
                            // The start's breakdown by TTL no longer adds up.
                            so_far.written_ttl.clear();
                        }
                        so_far.written = write;
                    }
                    if output.is_some() {
                        so_far.output = output;
                    }
                }
                (None, Some(_)) => *usage = Some(counts(delta)?),
                (None, None) => {}
            }
        }
        _ => {}
    }
    Ok(())
}

/// A message object's usage, id, model and diagnostics.
fn message_usage(message: &Value) -> Result<CacheUsage, UsageError> {
    let usage = member(message, "usage").ok_or(UsageError::NoUsage {
        provider: P,
        what: "the message has no `usage`",
    })?;
    let mut out = counts(usage)?;
    out.response_id = text(message, "id");
    out.response_model = text(message, "model");
    out.diagnosis = diagnosis(message)?;
    Ok(out)
}

/// `usage`'s counts: `input_tokens` (required), the two cache counts (absent
/// is none) and the breakdown of writes by TTL.
fn counts(usage: &Value) -> Result<CacheUsage, UsageError> {
    let input = required(P, usage, "input_tokens", "usage.input_tokens")?;
    let read = count(
        P,
        usage,
        "cache_read_input_tokens",
        "usage.cache_read_input_tokens",
    )?;
    let write = count(
        P,
        usage,
        "cache_creation_input_tokens",
        "usage.cache_creation_input_tokens",
    )?;
    let mut ttl = Vec::new();
    let mut by_ttl = None;
    if let Some(creation) = member(usage, "cache_creation") {
        let five = required(
            P,
            creation,
            "ephemeral_5m_input_tokens",
            "usage.cache_creation.ephemeral_5m_input_tokens",
        )?;
        let hour = required(
            P,
            creation,
            "ephemeral_1h_input_tokens",
            "usage.cache_creation.ephemeral_1h_input_tokens",
        )?;
        let sum = sum(P, "usage.cache_creation", five, hour)?;
        if let Some(write) = write.filter(|&w| w != sum) {
            return Err(UsageError::Inconsistent {
                provider: P,
                message: format!(
                    "`usage.cache_creation` holds {five} (5m) + {hour} (1h) = {sum} tokens, but \
                     `usage.cache_creation_input_tokens` is {write}"
                ),
            });
        }
        for (seconds, tokens) in [(300, five), (3600, hour)] {
            if tokens > 0 {
                ttl.push(TtlTokens {
                    ttl: Duration::from_secs(seconds),
                    tokens,
                });
            }
        }
        by_ttl = Some(sum);
    }
    let write = write.or(by_ttl).unwrap_or(0);
    Ok(CacheUsage {
        uncached_input: input,
        read: read.unwrap_or(0),
        written: write,
        written_ttl: ttl,
        output: count(P, usage, "output_tokens", "usage.output_tokens")?,
        response_id: None,
        response_model: None,
        diagnosis: None,
    })
}

/// `diagnostics.cache_miss_reason`: absent or `null` diagnostics is none
/// (not asked for, or no divergence); a `null` reason is a comparison still
/// running.
fn diagnosis(message: &Value) -> Result<Option<ProviderDiagnosis>, UsageError> {
    let Some(diagnostics) = member(message, "diagnostics") else {
        return Ok(None);
    };
    let Some(reason) = member(diagnostics, "cache_miss_reason") else {
        return Ok(Some(ProviderDiagnosis {
            outcome: DiagnosisOutcome::Pending,
            reason: None,
            missed_tokens: None,
            reusable_tokens: None,
        }));
    };
    let kind = member(reason, "type")
        .and_then(Value::as_str)
        .ok_or(UsageError::Missing {
            provider: P,
            field: "diagnostics.cache_miss_reason.type",
        })?;
    let outcome = match kind {
        "previous_message_not_found" => DiagnosisOutcome::PreviousNotFound,
        "unavailable" => DiagnosisOutcome::Unavailable,
        _ => DiagnosisOutcome::Miss,
    };
    Ok(Some(ProviderDiagnosis {
        outcome,
        reason: (outcome == DiagnosisOutcome::Miss).then(|| super::json::bounded(kind)),
        missed_tokens: count(
            P,
            reason,
            "cache_missed_input_tokens",
            "diagnostics.cache_miss_reason.cache_missed_input_tokens",
        )?,
        reusable_tokens: None,
    }))
}
