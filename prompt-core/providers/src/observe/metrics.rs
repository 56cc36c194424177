//! The token metric, `gen_ai.client.token.usage` in `{token}`, through the
//! OpenTelemetry metrics API (feature `otel`).
//!
//! Not a `tracing` event for `tracing-opentelemetry`'s `MetricsLayer`: that
//! layer builds its instruments from a field's name alone, with no unit and
//! its own bucket boundaries, so the histogram reached the exporter with
//! unit `""` and buckets up to 10,000 (a cached prefix alone is often
//! more). Here the instrument is built as the conventions describe it.
//!
//! The meter is the global one (`opentelemetry::global`), looked up at each
//! verdict rather than kept, so a meter provider installed after the first
//! verdict is still the one recorded to; until one is installed the API's
//! no-op meter records nothing.

use opentelemetry::metrics::Histogram;
use opentelemetry::{InstrumentationScope, KeyValue, global};

use super::CacheVerdict;
use super::semconv::{
    OPERATION_NAME, PROVIDER_NAME, REQUEST_MODEL, RESPONSE_MODEL, TOKEN_CACHE,
    TOKEN_CACHE_CREATION, TOKEN_CACHE_NONE, TOKEN_CACHE_READ, TOKEN_TYPE, TOKEN_UNIT, TOKEN_USAGE,
    TOKEN_USAGE_BOUNDARIES, TOKEN_USAGE_DESCRIPTION,
};

/// The instrumentation scope the metric is recorded under: this package's
/// name and version.
const SCOPE: &str = env!("CARGO_PKG_NAME");

/// The histogram, from the global meter provider as it is now.
fn histogram() -> Histogram<u64> {
    let scope = InstrumentationScope::builder(SCOPE)
        .with_version(env!("CARGO_PKG_VERSION"))
        .build();
    global::meter_with_scope(scope)
        .u64_histogram(TOKEN_USAGE)
        .with_unit(TOKEN_UNIT)
        .with_description(TOKEN_USAGE_DESCRIPTION)
        .with_boundaries(TOKEN_USAGE_BOUNDARIES.to_vec())
        .build()
}

/// One point per kind of token: input split by how the cache served it
/// (`gen_ai.token.cache`: `none`, `read`, `creation`), then output where the
/// response said.
pub(super) fn record(v: &CacheVerdict, response_model: Option<&str>) {
    let histogram = histogram();
    let mut common = vec![
        KeyValue::new(OPERATION_NAME, v.provider.otel_operation()),
        KeyValue::new(PROVIDER_NAME, v.provider.otel_name()),
        KeyValue::new(REQUEST_MODEL, v.model.clone()),
    ];
    if let Some(model) = response_model {
        common.push(KeyValue::new(RESPONSE_MODEL, model.to_owned()));
    }
    let with = |token_type: &'static str, cache: Option<&'static str>| {
        let mut attributes = common.clone();
        attributes.push(KeyValue::new(TOKEN_TYPE, token_type));
        if let Some(cache) = cache {
            attributes.push(KeyValue::new(TOKEN_CACHE, cache));
        }
        attributes
    };
    for (cache, tokens) in [
        (TOKEN_CACHE_NONE, v.uncached),
        (TOKEN_CACHE_READ, v.read),
        (TOKEN_CACHE_CREATION, v.written),
    ] {
        histogram.record(tokens, &with("input", Some(cache)));
    }
    if let Some(output) = v.output {
        histogram.record(output, &with("output", None));
    }
}
