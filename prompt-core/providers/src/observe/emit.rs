//! The ledger's `tracing` events: one per response under the OpenTelemetry
//! GenAI names, and, where a metrics layer listens, the token metric split
//! by how the cache served each token.

use super::semconv::{
    CONVERSATION_ID, EXPECTED_TOKENS, LOST_TOKENS, METRICS_TARGET, MISS_CAUSE, MISS_LAYER,
    PROMPT_NAME, PROMPT_VERSION, PROVIDER_NAME, REQUEST_MODEL, RESPONSE_ID, RESPONSE_MODEL,
    STABLE_FINGERPRINT, TARGET, TOKEN_CACHE, TOKEN_CACHE_CREATION, TOKEN_CACHE_NONE,
    TOKEN_CACHE_READ, TOKEN_TYPE, TOKEN_USAGE_HISTOGRAM, USAGE_CACHE_CREATION, USAGE_CACHE_READ,
    USAGE_INPUT_TOKENS, USAGE_OUTPUT_TOKENS, VERDICT,
};
use super::{CacheVerdict, MissCause};

/// Emits `verdict`'s event (target [`TARGET`], level INFO) and its metric
/// events (target [`METRICS_TARGET`]).
pub(crate) fn verdict(verdict: &CacheVerdict, response_model: Option<&str>) {
    if tracing::enabled!(target: TARGET, tracing::Level::INFO) {
        event(verdict, response_model);
    }
    if tracing::enabled!(target: METRICS_TARGET, tracing::Level::INFO) {
        metrics(verdict);
    }
}

fn event(v: &CacheVerdict, response_model: Option<&str>) {
    let layer = match &v.cause {
        Some(MissCause::LayerChanged { layer, .. }) => Some(layer.as_str()),
        _ => None,
    };
    let conversation = (!v.conversation.is_empty()).then_some(&*v.conversation);
    // The fields in a block: a `{ NAME }` right after the target would be
    // read as the block itself.
    tracing::info!(
        target: TARGET,
        {
        { PROVIDER_NAME } = v.provider.otel_name(),
        { REQUEST_MODEL } = &*v.model,
        { RESPONSE_MODEL } = response_model,
        { RESPONSE_ID } = v.response_id.as_deref(),
        { CONVERSATION_ID } = conversation,
        { USAGE_INPUT_TOKENS } = v.input_tokens(),
        { USAGE_OUTPUT_TOKENS } = v.output,
        { USAGE_CACHE_READ } = v.read,
        { USAGE_CACHE_CREATION } = v.written,
        { PROMPT_NAME } = v.prompt_name.as_deref(),
        { PROMPT_VERSION } = v.prompt_version.as_deref(),
        { MISS_CAUSE } = v.cause.as_ref().map(MissCause::name),
        { MISS_LAYER } = layer,
        { STABLE_FINGERPRINT } = display(Short(&v.stable_fingerprint)),
        { EXPECTED_TOKENS } = v.expected,
        { LOST_TOKENS } = v.lost_tokens,
        { VERDICT } = display(v),
        },
        "prompt cache verdict"
    );
}

fn metrics(v: &CacheVerdict) {
    for (cache, tokens) in [
        (TOKEN_CACHE_NONE, v.uncached),
        (TOKEN_CACHE_READ, v.read),
        (TOKEN_CACHE_CREATION, v.written),
    ] {
        tracing::info!(
            target: METRICS_TARGET,
            {
                { TOKEN_USAGE_HISTOGRAM } = tokens,
                { TOKEN_TYPE } = "input",
                { TOKEN_CACHE } = cache,
                { PROVIDER_NAME } = v.provider.otel_name(),
                { REQUEST_MODEL } = &*v.model,
            },
            "token usage"
        );
    }
    if let Some(output) = v.output {
        tracing::info!(
            target: METRICS_TARGET,
            {
                { TOKEN_USAGE_HISTOGRAM } = output,
                { TOKEN_TYPE } = "output",
                { PROVIDER_NAME } = v.provider.otel_name(),
                { REQUEST_MODEL } = &*v.model,
            },
            "token usage"
        );
    }
}

/// A fingerprint's 16 hex digits, written only when recorded.
struct Short<'a>(&'a crate::fingerprint::Fingerprint);

impl std::fmt::Display for Short<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digits = self.0.to_string();
        f.write_str(&digits[..16])
    }
}
