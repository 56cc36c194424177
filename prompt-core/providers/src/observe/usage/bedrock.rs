//! Bedrock's Converse usage: `cacheReadInputTokens` and
//! `cacheWriteInputTokens` beside `inputTokens`, as Anthropic's.
//!
//! Shapes from botocore 1.44.18's `bedrock-runtime` service model:
//! `ConverseResponse.usage` and `ConverseStreamMetadataEvent.usage` are a
//! `TokenUsage` (`inputTokens`, `outputTokens`, `totalTokens` required;
//! `cacheReadInputTokens`, `cacheWriteInputTokens`, and `cacheDetails`, the
//! writes by TTL, optional). `inputTokens` is the input neither read from
//! nor written to the cache (Bedrock's prompt-caching page:
//! `bedrock::BEDROCK_SOURCE`). A Converse response carries no id and no
//! model (those are headers).

use std::time::Duration;

use serde_json::Value;

use super::json::{bounded, count, member, required, sum};
use super::{CacheUsage, TtlTokens, UsageError};
use crate::observe::Provider;

const P: Provider = Provider::Bedrock;

/// A Converse response, or a ConverseStream `metadata` event: as the SDKs
/// yield it (`{"metadata": {"usage": ..}}`) or as its event-stream payload
/// (`{"usage": .., "metrics": ..}`).
pub(super) fn read(body: &Value) -> Result<CacheUsage, UsageError> {
    error_body(body)?;
    let holder = member(body, "metadata").unwrap_or(body);
    let usage = member(holder, "usage").ok_or(UsageError::NoUsage {
        provider: P,
        what: "not a Converse response or a ConverseStream metadata event (no `usage`); in a \
               stream only the metadata event carries it: fold the stream with \
               CacheUsage::from_stream",
    })?;
    counts(usage)
}

/// One event of a ConverseStream into the usage so far: only the metadata
/// event carries usage, whole; the others are skipped.
pub(super) fn fold(usage: &mut Option<CacheUsage>, event: &Value) -> Result<(), UsageError> {
    error_body(event)?;
    if member(event, "metadata").is_some() || member(event, "usage").is_some() {
        *usage = Some(read(event)?);
    }
    Ok(())
}

/// A `TokenUsage`.
fn counts(usage: &Value) -> Result<CacheUsage, UsageError> {
    if !usage.is_object() {
        return Err(UsageError::Inconsistent {
            provider: P,
            message: "`usage` is not an object".to_owned(),
        });
    }
    let input = required(P, usage, "inputTokens", "usage.inputTokens")?;
    let output = required(P, usage, "outputTokens", "usage.outputTokens")?;
    let read = count(
        P,
        usage,
        "cacheReadInputTokens",
        "usage.cacheReadInputTokens",
    )?;
    let write = count(
        P,
        usage,
        "cacheWriteInputTokens",
        "usage.cacheWriteInputTokens",
    )?;
    if let Some(total) = count(P, usage, "totalTokens", "usage.totalTokens")? {
        let parts = sum(P, "usage.inputTokens + usage.outputTokens", input, output)?;
        if total < parts {
            return Err(UsageError::Inconsistent {
                provider: P,
                message: format!(
                    "`usage.totalTokens` is {total}, less than `usage.inputTokens` ({input}) and \
                     `usage.outputTokens` ({output}) together"
                ),
            });
        }
    }
    let (written_ttl, by_ttl) = details(usage)?;
    if let (Some(write), Some(by_ttl)) = (write, by_ttl)
        && write != by_ttl
    {
        return Err(UsageError::Inconsistent {
            provider: P,
            message: format!(
                "`usage.cacheDetails` holds {by_ttl} tokens written, but \
                 `usage.cacheWriteInputTokens` is {write}"
            ),
        });
    }
    Ok(CacheUsage {
        uncached_input: input,
        read: read.unwrap_or(0),
        written: write.or(by_ttl).unwrap_or(0),
        written_ttl,
        output: Some(output),
        response_id: None,
        response_model: None,
        diagnosis: None,
    })
}

/// `usage.cacheDetails`: the writes by TTL (`[{ttl, inputTokens}]`), and
/// their sum; `None` when absent.
fn details(usage: &Value) -> Result<(Vec<TtlTokens>, Option<u64>), UsageError> {
    let Some(details) = member(usage, "cacheDetails") else {
        return Ok((Vec::new(), None));
    };
    let inconsistent = |message: String| UsageError::Inconsistent {
        provider: P,
        message,
    };
    let entries = details
        .as_array()
        .ok_or_else(|| inconsistent("`usage.cacheDetails` is not a list".to_owned()))?;
    let mut out: Vec<TtlTokens> = Vec::new();
    let mut total = 0;
    for (index, entry) in entries.iter().enumerate() {
        let tokens = required(P, entry, "inputTokens", "usage.cacheDetails[].inputTokens")?;
        let ttl = member(entry, "ttl")
            .and_then(Value::as_str)
            .ok_or(UsageError::Missing {
                provider: P,
                field: "usage.cacheDetails[].ttl",
            })?;
        let ttl = duration(ttl).ok_or_else(|| {
            inconsistent(format!(
                "`usage.cacheDetails[{index}].ttl` is `{}`, not a duration such as `5m` or `1h`",
                bounded(ttl)
            ))
        })?;
        total = sum(P, "usage.cacheDetails", total, tokens)?;
        match out.iter_mut().find(|t| t.ttl == ttl) {
            Some(same) => same.tokens = sum(P, "usage.cacheDetails", same.tokens, tokens)?,
            None if tokens > 0 => out.push(TtlTokens { ttl, tokens }),
            None => {}
        }
    }
    // Shortest first, as the Anthropic reader gives them.
    out.sort_by_key(|t| t.ttl);
    Ok((out, Some(total)))
}

/// `5m`, `1h`, `30s`, `1d` as a duration (what `CacheTTL` holds, and what a
/// later value would look like); `None` for anything else.
fn duration(ttl: &str) -> Option<Duration> {
    let unit = ttl.chars().last()?;
    let number = ttl.get(..ttl.len() - unit.len_utf8())?;
    if number.is_empty() || number.len() > 6 || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = number.parse().ok()?;
    let seconds = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        _ => return None,
    };
    Some(Duration::from_secs(n.checked_mul(seconds)?))
}

/// An error instead of a response: the service's error body
/// (`{"message": ..}`, its type in a header) or a ConverseStream exception
/// event (`{"throttlingException": {"message": ..}}`).
fn error_body(body: &Value) -> Result<(), UsageError> {
    let Value::Object(members) = body else {
        return Ok(());
    };
    let message = |value: &Value| {
        member(value, "message")
            .or_else(|| member(value, "Message"))
            .and_then(Value::as_str)
            .map(bounded)
            .unwrap_or_else(|| "(no message)".to_owned())
    };
    if let Some((name, value)) = members
        .iter()
        .find(|(name, value)| name.ends_with("Exception") && value.is_object())
    {
        return Err(UsageError::ErrorBody {
            provider: P,
            message: format!("{}: {}", bounded(name), message(value)),
        });
    }
    if member(body, "usage").is_none()
        && member(body, "metadata").is_none()
        && (member(body, "message").is_some() || member(body, "Message").is_some())
    {
        return Err(UsageError::ErrorBody {
            provider: P,
            message: message(body),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::duration;
    use std::time::Duration;

    #[test]
    fn ttls_read_as_durations_and_nothing_else_does() {
        assert_eq!(duration("5m"), Some(Duration::from_secs(300)));
        assert_eq!(duration("1h"), Some(Duration::from_secs(3600)));
        assert_eq!(duration("1d"), Some(Duration::from_secs(86_400)));
        for bad in ["", "m", "5", "-5m", "5 m", "5x", "1234567h", "5é"] {
            assert_eq!(duration(bad), None, "{bad:?}");
        }
    }
}
