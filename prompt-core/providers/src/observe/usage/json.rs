//! Reading counts out of a response body, each failure naming its field.

use serde_json::Value;

use super::{Provider, UsageError, within};
use crate::diff::escape;

/// The most characters of a provider's text (an error message, a reason)
/// kept: a body is the provider's, but a proxy or a test can make it anything.
const MAX_TEXT: usize = 200;

/// `value`'s member at `key`, or `None` when absent or `null`.
pub(super) fn member<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.get(key).filter(|v| !v.is_null())
}

/// The count at `key` of `object` (`field` is its path for errors): `None`
/// when absent or `null`; past [`MAX_REQUEST_TOKENS`](super::MAX_REQUEST_TOKENS) an
/// error, so any two
/// counts read here add up without wrapping.
pub(super) fn count(
    provider: Provider,
    object: &Value,
    key: &str,
    field: &'static str,
) -> Result<Option<u64>, UsageError> {
    let Some(value) = member(object, key) else {
        return Ok(None);
    };
    let count = value.as_u64().ok_or_else(|| UsageError::NotACount {
        provider,
        field,
        found: shown(value),
    })?;
    within(provider, field, u128::from(count)).map(Some)
}

/// `a + b`, the sum of two counts at `field`, if at most
/// [`MAX_REQUEST_TOKENS`](super::MAX_REQUEST_TOKENS).
pub(super) fn sum(
    provider: Provider,
    field: &'static str,
    a: u64,
    b: u64,
) -> Result<u64, UsageError> {
    within(provider, field, u128::from(a) + u128::from(b))
}

/// The count at `key`, which must be there.
pub(super) fn required(
    provider: Provider,
    object: &Value,
    key: &str,
    field: &'static str,
) -> Result<u64, UsageError> {
    count(provider, object, key, field)?.ok_or(UsageError::Missing { provider, field })
}

/// A string member, escaped and cut.
pub(super) fn text(value: &Value, key: &str) -> Option<String> {
    member(value, key).and_then(Value::as_str).map(bounded)
}

/// `text` escaped, at most [`MAX_TEXT`] characters of it.
pub(super) fn bounded(text: &str) -> String {
    let head: String = text.chars().take(MAX_TEXT).collect();
    let mut out = escape(&head);
    if text.chars().nth(MAX_TEXT).is_some() {
        out.push_str("...");
    }
    out
}

/// What a non-count value is, shortly.
fn shown(value: &Value) -> String {
    match value {
        Value::Number(n) => n.to_string().chars().take(40).collect(),
        Value::String(_) => "a string".to_owned(),
        Value::Bool(_) => "a boolean".to_owned(),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
        Value::Null => "null".to_owned(),
    }
}

/// The API error in `body`, if it is one: `{"type": "error", "error": {...}}`
/// (Anthropic) or `{"error": {"message": ...}}` (OpenAI, Gemini).
pub(super) fn error_body(provider: Provider, body: &Value) -> Result<(), UsageError> {
    let Some(error) = member(body, "error") else {
        return Ok(());
    };
    let message = text(error, "message")
        .or_else(|| error.as_str().map(bounded))
        .unwrap_or_else(|| "(no message)".to_owned());
    Err(UsageError::ErrorBody { provider, message })
}
