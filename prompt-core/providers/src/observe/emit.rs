//! The ledger's `tracing` output: each response's usage as attributes of
//! the request's span under the OpenTelemetry GenAI names, one event inside
//! it with the verdict, and, with feature `otel`, the token metric.
//!
//! Attributes go on the span because that is where GenAI backends read
//! them: `tracing-opentelemetry` turns an event's fields into attributes of
//! a span *event*, and drops an event outside every span.

use std::fmt;

use tracing::Span;
use tracing::field::Empty;

use super::semconv::{
    CONVERSATION_ID, EXPECTED_TOKENS, LOST_TOKENS, MISS_CAUSE, MISS_LAYER, OPERATION_NAME,
    OTEL_KIND, OTEL_NAME, PROMPT_NAME, PROMPT_VERSION, PROVIDER_NAME, REQUEST_MODEL, RESPONSE_ID,
    RESPONSE_MODEL, STABLE_FINGERPRINT, TARGET, USAGE_CACHE_CREATION, USAGE_CACHE_READ,
    USAGE_INPUT_TOKENS, USAGE_OUTPUT_TOKENS, VERDICT,
};
use super::{CacheVerdict, MissCause, Provider};

/// A span for one request to `provider` for `model`, under the OpenTelemetry
/// GenAI conventions: target [`semconv::TARGET`](super::semconv::TARGET),
/// level INFO, named `chat {model}` (`generate_content {model}` for Gemini)
/// for `tracing-opentelemetry` (its `otel.name`), of kind `client`, with
/// `gen_ai.operation.name`, `gen_ai.provider.name` and
/// `gen_ai.request.model` set and every other field of
/// [`semconv::SPAN_FIELDS`](super::semconv::SPAN_FIELDS) declared empty.
///
/// Open it around the call to the provider and call
/// [`CacheLedger::received`](super::CacheLedger::received) inside it: the
/// ledger records the response's usage and verdict as the span's
/// attributes, which is where GenAI backends read them, and the span's
/// duration is the request's. A verdict received outside such a span gets
/// a span of its own, a child of the current one, with the same attributes
/// and no duration to speak of.
///
/// ```
/// use prompt_providers::observe::{Provider, request_span, semconv};
///
/// let span = request_span(Provider::Anthropic, "claude-sonnet-4-5");
/// let _entered = span.enter();
/// // send the request, then `ledger.received(id, &usage)` here
/// # let _ = semconv::SPAN_FIELDS;
/// ```
///
/// In async code, `.instrument(span)` the future that sends and receives.
pub fn request_span(provider: Provider, model: &str) -> Span {
    tracing::info_span!(
        target: TARGET,
        "chat",
        { OTEL_NAME } = %SpanName(provider, model),
        { OTEL_KIND } = "client",
        { OPERATION_NAME } = provider.otel_operation(),
        { PROVIDER_NAME } = provider.otel_name(),
        { REQUEST_MODEL } = model,
        { RESPONSE_MODEL } = Empty,
        { RESPONSE_ID } = Empty,
        { CONVERSATION_ID } = Empty,
        { USAGE_INPUT_TOKENS } = Empty,
        { USAGE_OUTPUT_TOKENS } = Empty,
        { USAGE_CACHE_READ } = Empty,
        { USAGE_CACHE_CREATION } = Empty,
        { PROMPT_NAME } = Empty,
        { PROMPT_VERSION } = Empty,
        { MISS_CAUSE } = Empty,
        { MISS_LAYER } = Empty,
        { STABLE_FINGERPRINT } = Empty,
        { EXPECTED_TOKENS } = Empty,
        { LOST_TOKENS } = Empty,
        { VERDICT } = Empty,
    )
}

/// Records `verdict` on the current span when it declares the GenAI usage
/// fields, on a span of its own otherwise, and emits its event inside that
/// span (target [`TARGET`], level INFO); with feature `otel`, records the
/// token metric too.
pub(crate) fn verdict(verdict: &CacheVerdict, response_model: Option<&str>) {
    #[cfg(feature = "otel")]
    super::metrics::record(verdict, response_model);
    if !tracing::enabled!(target: TARGET, tracing::Level::INFO) {
        return;
    }
    let current = Span::current();
    let own;
    let span = if current.has_field(USAGE_INPUT_TOKENS) {
        &current
    } else {
        own = request_span(verdict.provider, &verdict.model);
        &own
    };
    record(span, verdict, response_model);
    span.in_scope(|| event(verdict));
}

/// Every attribute of `v` on `span` (those it declares). The operation,
/// provider and model only on a span of the caller's own: a request span
/// has them from its start, and OpenTelemetry's SDK keeps each value
/// recorded, so a second one would be a duplicate key in the export.
fn record(span: &Span, v: &CacheVerdict, response_model: Option<&str>) {
    if span.is_disabled() {
        return;
    }
    if span.metadata().is_none_or(|m| m.target() != TARGET) {
        span.record(OPERATION_NAME, v.provider.otel_operation());
        span.record(PROVIDER_NAME, v.provider.otel_name());
        span.record(REQUEST_MODEL, &*v.model);
    }
    let conversation = (!v.conversation.is_empty()).then_some(&*v.conversation);
    span.record(RESPONSE_MODEL, response_model);
    span.record(RESPONSE_ID, v.response_id.as_deref());
    span.record(CONVERSATION_ID, conversation);
    span.record(USAGE_INPUT_TOKENS, int(v.input_tokens()));
    span.record(USAGE_OUTPUT_TOKENS, v.output.and_then(int));
    span.record(USAGE_CACHE_READ, int(v.read));
    span.record(USAGE_CACHE_CREATION, int(v.written));
    span.record(PROMPT_NAME, v.prompt_name.as_deref());
    span.record(PROMPT_VERSION, v.prompt_version.as_deref());
    span.record(MISS_CAUSE, v.cause.as_ref().map(MissCause::name));
    span.record(MISS_LAYER, changed_layer(v));
    span.record(
        STABLE_FINGERPRINT,
        tracing::field::display(Short(&v.stable_fingerprint)),
    );
    span.record(EXPECTED_TOKENS, int(v.expected));
    span.record(LOST_TOKENS, int(v.lost_tokens));
    span.record(VERDICT, tracing::field::display(v));
}

/// A count as a signed integer: `tracing-opentelemetry` records a `u64`
/// field as text (its visitor has no `record_u64`), and GenAI backends read
/// the usage as an integer. `None` (not recorded) past `i64::MAX`, which no
/// request reaches ([`MAX_REQUEST_TOKENS`](super::MAX_REQUEST_TOKENS)).
fn int(count: u64) -> Option<i64> {
    i64::try_from(count).ok()
}

/// The verdict as a log line: its cause and its one line. The counts are
/// the span's.
fn event(v: &CacheVerdict) {
    // The fields in a block: a `{ NAME }` right after the target would be
    // read as the block itself.
    tracing::info!(
        target: TARGET,
        {
            { MISS_CAUSE } = v.cause.as_ref().map(MissCause::name),
            { MISS_LAYER } = changed_layer(v),
            { VERDICT } = display(v),
        },
        "prompt cache verdict"
    );
}

fn changed_layer(v: &CacheVerdict) -> Option<&str> {
    match &v.cause {
        Some(MissCause::LayerChanged { layer, .. }) => Some(layer.as_str()),
        _ => None,
    }
}

/// `chat claude-sonnet-4-5`: the operation and the model, the span name the
/// conventions give.
struct SpanName<'a>(Provider, &'a str);

impl fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0.otel_operation(), self.1)
    }
}

/// A fingerprint's 16 hex digits, written only when recorded.
struct Short<'a>(&'a crate::fingerprint::Fingerprint);

impl fmt::Display for Short<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.0.to_string();
        f.write_str(&digits[..16])
    }
}
