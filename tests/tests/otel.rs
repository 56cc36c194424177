//! The ledger's verdicts as an OpenTelemetry exporter receives them, through
//! `tracing-opentelemetry` 0.32 and `opentelemetry_sdk` 0.31's in-memory
//! exporters: what a GenAI backend reads.
//!
//! Each finding of issue 51 as a test: a verdict outside every span reaches
//! the exporter as a span (it was dropped); the GenAI names are attributes
//! of the request's span (they were attributes of a span event); the token
//! metric is in `{token}` (its unit was `""`); through rig, the response's
//! id and model are there (they were missing); an assembly adds one event
//! to the span it runs in (one per layer rode along).
//!
//! Alone in its binary: `tracing` caches per-callsite interest, and the
//! metric goes to the process's global meter provider.

use std::sync::{Mutex, MutexGuard};

use opentelemetry::trace::{SpanKind, TracerProvider as _};
use opentelemetry::{Key, KeyValue, Value};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use prompt_clients::loopback::Loopback;
use prompt_clients::rig::{cache_prefix, cache_usage_of, completion_request};
use prompt_core::{Context, PromptBuilder, Stability};
use prompt_providers::observe::{
    CacheLedger, CacheUsage, Provider, Sent, Timestamp, request_span, semconv,
};
use prompt_tests::fixed;
use rig_core::message::Message;
use rig_core::providers::anthropic::AnthropicConfig;
use rig_core::providers::anthropic::completion::CacheTtl;
use tracing::Instrument;
use tracing_subscriber::layer::SubscriberExt;

/// The tests share the global meter provider: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// `run` under a registry with `tracing-opentelemetry`'s layer, its spans
/// exported in memory.
fn spans_of(run: impl FnOnce()) -> Vec<SpanData> {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("prompt-tests")));
    tracing::subscriber::with_default(subscriber, run);
    provider.force_flush().unwrap();
    exporter.get_finished_spans().unwrap()
}

/// The value of `key` a backend that keeps the last one reads: the SDK
/// exports every value recorded under a key, in order.
fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes
        .iter()
        .rev()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| &kv.value)
}

/// The keys recorded more than once on `span`.
fn duplicates(span: &SpanData) -> Vec<&str> {
    let mut keys: Vec<&str> = span.attributes.iter().map(|kv| kv.key.as_str()).collect();
    keys.sort_unstable();
    let mut out: Vec<&str> = keys
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0])
        .collect();
    out.dedup();
    out
}

fn text(span: &SpanData, key: &str) -> Option<String> {
    attribute(span, key).map(|v| v.as_str().into_owned())
}

fn int(span: &SpanData, key: &str) -> Option<i64> {
    match attribute(span, key) {
        Some(Value::I64(n)) => Some(*n),
        _ => None,
    }
}

/// The spans carrying usage: a backend sums each of them.
fn with_usage(spans: &[SpanData]) -> Vec<&SpanData> {
    spans
        .iter()
        .filter(|s| attribute(s, semconv::USAGE_INPUT_TOKENS).is_some())
        .collect()
}

/// One request of `model` recorded and judged: 21 tokens uncached, 1,500
/// written, 9 out; `scope` runs the judging.
fn judge(model: &str, scope: impl FnOnce(&mut dyn FnMut())) {
    let pipeline = fixed(&[("persona", 1, Stability::Stable, "You are terse.")]);
    let at = Timestamp::from_second(1_800_000_000).unwrap();
    let mut ledger = CacheLedger::new();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let id = ledger.sent(&prompt, Sent::new(Provider::Anthropic, model, at));
    let usage = CacheUsage::new(21, 0, 1500)
        .output(9)
        .response_id("msg_01")
        .response_model(format!("{model}-20260101"));
    let mut received = || {
        ledger.received(id, &usage).unwrap();
    };
    scope(&mut received);
}

/// The GenAI names a backend reads, as attributes of `span`.
fn assert_genai_attributes(span: &SpanData, model: &str) {
    assert_eq!(span.name, format!("chat {model}"));
    assert_eq!(span.span_kind, SpanKind::Client);
    assert_eq!(text(span, "gen_ai.operation.name").as_deref(), Some("chat"));
    assert_eq!(
        text(span, "gen_ai.provider.name").as_deref(),
        Some("anthropic")
    );
    assert_eq!(text(span, "gen_ai.request.model").as_deref(), Some(model));
    assert_eq!(
        text(span, "gen_ai.response.model"),
        Some(format!("{model}-20260101"))
    );
    assert_eq!(text(span, "gen_ai.response.id").as_deref(), Some("msg_01"));
    assert_eq!(int(span, "gen_ai.usage.input_tokens"), Some(1521));
    assert_eq!(int(span, "gen_ai.usage.output_tokens"), Some(9));
    assert_eq!(int(span, "gen_ai.usage.cache_read.input_tokens"), Some(0));
    assert_eq!(
        int(span, "gen_ai.usage.cache_creation.input_tokens"),
        Some(1500)
    );
    assert_eq!(
        text(span, "prompt.cache.miss_cause").as_deref(),
        Some("cold_start")
    );
    // Each once: the SDK exports every value recorded, and a backend may
    // read either.
    assert_eq!(duplicates(span), Vec::<&str>::new(), "{span:#?}");
    // The verdict's event carries the why, never the counts a second time.
    for event in span.events.iter() {
        assert!(
            !event
                .attributes
                .iter()
                .any(|kv| kv.key.as_str().starts_with("gen_ai.")),
            "{event:?}"
        );
    }
}

#[test]
fn a_verdict_outside_every_span_reaches_the_exporter_as_a_client_span() {
    let _one = one_at_a_time();
    let spans = spans_of(|| judge("claude-sonnet-4-5", |received| received()));
    let usage = with_usage(&spans);
    assert_eq!(usage.len(), 1, "{spans:#?}");
    assert_genai_attributes(usage[0], "claude-sonnet-4-5");
    let events: Vec<_> = usage[0].events.iter().map(|e| e.name.as_ref()).collect();
    assert_eq!(events, ["prompt cache verdict"]);
}

#[test]
fn inside_request_span_the_genai_names_are_that_spans_attributes() {
    let _one = one_at_a_time();
    let spans = spans_of(|| {
        judge("claude-sonnet-4-5", |received| {
            request_span(Provider::Anthropic, "claude-sonnet-4-5").in_scope(received)
        })
    });
    // The caller's span, the only one: nothing else was opened.
    assert_eq!(spans.len(), 1, "{spans:#?}");
    assert_genai_attributes(&spans[0], "claude-sonnet-4-5");
}

#[test]
fn inside_a_span_of_its_own_the_verdict_is_a_child_client_span() {
    let _one = one_at_a_time();
    let spans = spans_of(|| {
        judge("claude-sonnet-4-5", |received| {
            tracing::info_span!("handle_turn").in_scope(received)
        })
    });
    let usage = with_usage(&spans);
    assert_eq!(usage.len(), 1, "{spans:#?}");
    assert_genai_attributes(usage[0], "claude-sonnet-4-5");
    let parent = spans.iter().find(|s| s.name == "handle_turn").unwrap();
    assert_eq!(usage[0].parent_span_id, parent.span_context.span_id());
    assert_eq!(attribute(parent, semconv::USAGE_INPUT_TOKENS), None);
}

#[test]
fn an_assembly_adds_one_event_to_its_span_whatever_its_layers() {
    let _one = one_at_a_time();
    const NAMES: [&str; 15] = [
        "layer_1", "layer_2", "layer_3", "layer_4", "layer_5", "layer_6", "layer_7", "layer_8",
        "layer_9", "layer_10", "layer_11", "layer_12", "layer_13", "layer_14", "layer_15",
    ];
    let layers: Vec<(&str, u32, Stability, &str)> = (1..)
        .zip(NAMES)
        .map(|(n, name)| (name, n, Stability::Stable, "Text."))
        .collect();
    let pipeline = fixed(&layers);
    let spans = spans_of(|| {
        let _turn = tracing::info_span!("handle_turn").entered();
        PromptBuilder::new(&pipeline)
            .build_cached(&Context::new(), &Context::new())
            .unwrap();
    });
    assert_eq!(spans.len(), 1);
    let events: Vec<_> = spans[0].events.iter().map(|e| e.name.as_ref()).collect();
    assert_eq!(events, ["assembled system prompt"]);
    let bytes = spans[0].events.events[0]
        .attributes
        .iter()
        .find(|kv| kv.key.as_str() == "layer_bytes")
        .map(|kv| kv.value.as_str().into_owned())
        .unwrap();
    assert!(bytes.starts_with("layer_1=5 layer_2=5 "), "{bytes}");
    assert!(bytes.ends_with(" layer_15=5"), "{bytes}");
}

#[test]
fn the_token_metric_is_a_histogram_in_tokens_with_the_genai_attributes() {
    let _one = one_at_a_time();
    let exporter = InMemoryMetricExporter::default();
    let provider = SdkMeterProvider::builder()
        .with_periodic_exporter(exporter.clone())
        .build();
    opentelemetry::global::set_meter_provider(provider.clone());
    // No subscriber at all: the metric does not depend on `tracing`.
    judge("claude-haiku-4-5", |received| received());
    provider.force_flush().unwrap();
    let exported = exporter.get_finished_metrics().unwrap();
    let metric = exported
        .iter()
        .flat_map(|r| r.scope_metrics())
        .filter(|s| s.scope().name() == "prompt-providers")
        .flat_map(|s| s.metrics())
        .find(|m| m.name() == semconv::TOKEN_USAGE)
        .expect("the token metric");
    assert_eq!(metric.unit(), "{token}");
    let AggregatedMetrics::U64(MetricData::Histogram(histogram)) = metric.data() else {
        panic!("{:?}", metric.data())
    };
    let mut points: Vec<(Vec<KeyValue>, u64)> = histogram
        .data_points()
        .map(|p| {
            let mut attributes: Vec<KeyValue> = p.attributes().cloned().collect();
            attributes.sort_by(|a, b| a.key.cmp(&b.key));
            assert_eq!(
                p.bounds().collect::<Vec<_>>(),
                semconv::TOKEN_USAGE_BOUNDARIES
            );
            (attributes, p.sum())
        })
        .filter(|(a, _)| {
            a.iter().any(|kv| {
                kv.key == Key::new("gen_ai.request.model")
                    && kv.value.as_str() == "claude-haiku-4-5"
            })
        })
        .collect();
    points.sort_by_key(|(_, sum)| *sum);
    let shape = |p: &(Vec<KeyValue>, u64)| {
        let get = |k: &str| {
            p.0.iter()
                .find(|kv| kv.key.as_str() == k)
                .map(|kv| kv.value.as_str().into_owned())
        };
        (
            get("gen_ai.token.type"),
            get("gen_ai.token.cache"),
            get("gen_ai.operation.name"),
            get("gen_ai.provider.name"),
            get("gen_ai.response.model"),
            p.1,
        )
    };
    let some = |s: &str| Some(s.to_owned());
    let answered = some("claude-haiku-4-5-20260101");
    assert_eq!(
        points.iter().map(shape).collect::<Vec<_>>(),
        [
            (
                some("input"),
                some("read"),
                some("chat"),
                some("anthropic"),
                answered.clone(),
                0
            ),
            (
                some("output"),
                None,
                some("chat"),
                some("anthropic"),
                answered.clone(),
                9
            ),
            (
                some("input"),
                some("none"),
                some("chat"),
                some("anthropic"),
                answered.clone(),
                21
            ),
            (
                some("input"),
                some("creation"),
                some("chat"),
                some("anthropic"),
                answered,
                1500
            ),
        ]
    );
}

#[test]
fn through_rig_one_span_holds_rigs_usage_the_response_id_and_model_and_the_verdict() {
    let _one = one_at_a_time();
    const CLAUDE: &str = "claude-sonnet-4-5";
    let server = Loopback::start().expect("a loopback server");
    let model = cache_prefix(
        AnthropicConfig::new("sk-ant-test")
            .with_base_url(server.base_url())
            .client()
            .completion(CLAUDE),
        CacheTtl::FiveMinutes,
    );
    let pipeline = fixed(&[("persona", 1, Stability::Stable, "You are terse.")]);
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let spans = spans_of(|| {
        let mut ledger = CacheLedger::new();
        let placed = completion_request(&prompt, [Message::user("Hi")]).unwrap();
        let id = ledger.sent(&prompt, placed.sent(CLAUDE, Timestamp::UNIX_EPOCH));
        let span = prompt_clients::rig::request_span(CLAUDE);
        let response = runtime
            .block_on(model.call(placed.request).instrument(span.clone()))
            .expect("the loopback answers");
        let usage = cache_usage_of(&response).unwrap();
        span.in_scope(|| ledger.received(id, &usage)).unwrap();
    });
    // rig adopted the span: one span with usage, so a backend counts the
    // call once.
    let usage = with_usage(&spans);
    assert_eq!(usage.len(), 1, "{spans:#?}");
    let span = usage[0];
    assert_eq!(span.name, format!("chat {CLAUDE}"));
    assert_eq!(span.span_kind, SpanKind::Client);
    assert_eq!(
        text(span, "gen_ai.response.id").as_deref(),
        Some("msg_loopback_1")
    );
    assert_eq!(text(span, "gen_ai.response.model").as_deref(), Some(CLAUDE));
    assert_eq!(
        text(span, "gen_ai.provider.name").as_deref(),
        Some("anthropic")
    );
    // rig's counts and the ledger's agree (the prompt is below the model's
    // minimum: nothing written). rig records its counts as text first (a
    // `u64` field); the ledger's integers come last, which a backend that
    // keeps the last value reads.
    assert!(int(span, "gen_ai.usage.input_tokens").is_some_and(|n| n > 0));
    assert_eq!(
        duplicates(span),
        [
            "gen_ai.operation.name",
            "gen_ai.provider.name",
            "gen_ai.request.model",
            "gen_ai.response.id",
            "gen_ai.response.model",
            "gen_ai.usage.cache_creation.input_tokens",
            "gen_ai.usage.cache_read.input_tokens",
            "gen_ai.usage.input_tokens",
            "gen_ai.usage.output_tokens",
        ]
    );
    assert_eq!(
        int(span, "gen_ai.usage.cache_creation.input_tokens"),
        Some(0)
    );
    assert_eq!(
        text(span, "prompt.cache.miss_cause").as_deref(),
        Some("below_minimum")
    );
    assert!(text(span, "prompt.cache.verdict").is_some());
}
