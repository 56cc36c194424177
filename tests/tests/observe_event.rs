//! The cache ledger's verdict as a `tracing` event under the OpenTelemetry
//! GenAI names, and its metric events. Alone in its binary: `tracing`
//! caches per-callsite interest, so another test judging a response
//! without a subscriber would hide these events.

use std::collections::BTreeMap;
use std::sync::Mutex;

use prompt_core::{Context, PromptBuilder, Stability};
use prompt_providers::observe::{CacheLedger, CacheUsage, Provider, Sent, semconv};
use prompt_tests::fixed;

/// One event: its target and its fields, each as text.
type Recorded = (String, BTreeMap<String, String>);

/// Records every event's fields by name.
struct Capture(&'static Mutex<Vec<Recorded>>);

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Fields(BTreeMap<String, String>);
        impl tracing::field::Visit for Fields {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.insert(field.name().to_owned(), format!("{value:?}"));
            }
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                self.0.insert(field.name().to_owned(), value.to_owned());
            }
            fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
                self.0.insert(field.name().to_owned(), value.to_string());
            }
        }
        let mut fields = Fields(BTreeMap::new());
        event.record(&mut fields);
        let target = event.metadata().target().to_owned();
        self.0.lock().unwrap().push((target, fields.0));
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
fn each_response_is_one_event_with_the_genai_names_and_the_token_metric_split_by_cache() {
    static EVENTS: Mutex<Vec<Recorded>> = Mutex::new(Vec::new());
    let pipeline = fixed(&[
        ("persona", 1, Stability::Stable, "You are terse."),
        ("rules", 2, Stability::Stable, "Run make check."),
    ]);
    let at = jiff::Timestamp::from_second(1_800_000_000).unwrap();
    tracing::subscriber::with_default(Capture(&EVENTS), || {
        let mut ledger = CacheLedger::new();
        let prompt = PromptBuilder::new(&pipeline)
            .build_cached(&Context::new(), &Context::new())
            .unwrap();
        let id = ledger.sent(
            &prompt,
            Sent::new(Provider::Anthropic, "claude-sonnet-4-5", at)
                .conversation("c-7")
                .prompt("support", "2026.12"),
        );
        let body = serde_json::json!({
            "id": "msg_01ABC", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929", "content": [], "stop_reason": "end_turn",
            "stop_sequence": null,
            "usage": {"input_tokens": 21, "cache_creation_input_tokens": 1500,
                      "cache_read_input_tokens": 0, "output_tokens": 9}
        });
        let usage = CacheUsage::from_response(Provider::Anthropic, &body).unwrap();
        ledger.received(id, &usage).unwrap();
    });
    let events = EVENTS.lock().unwrap();
    let verdicts: Vec<_> = events
        .iter()
        .filter(|(t, _)| t == semconv::TARGET)
        .collect();
    assert_eq!(verdicts.len(), 1, "{events:?}");
    let fields = &verdicts[0].1;
    let field = |name: &str| fields.get(name).map(String::as_str);
    assert_eq!(field("message"), Some("prompt cache verdict"));
    assert_eq!(field("gen_ai.provider.name"), Some("anthropic"));
    assert_eq!(field("gen_ai.request.model"), Some("claude-sonnet-4-5"));
    assert_eq!(
        field("gen_ai.response.model"),
        Some("claude-sonnet-4-5-20250929")
    );
    assert_eq!(field("gen_ai.response.id"), Some("msg_01ABC"));
    assert_eq!(field("gen_ai.conversation.id"), Some("c-7"));
    // Every input token, the cache's included: 21 + 1,500.
    assert_eq!(field("gen_ai.usage.input_tokens"), Some("1521"));
    assert_eq!(field("gen_ai.usage.output_tokens"), Some("9"));
    assert_eq!(field("gen_ai.usage.cache_read.input_tokens"), Some("0"));
    assert_eq!(
        field("gen_ai.usage.cache_creation.input_tokens"),
        Some("1500")
    );
    assert_eq!(field("gen_ai.prompt.name"), Some("support"));
    assert_eq!(field("gen_ai.prompt.version"), Some("2026.12"));
    assert_eq!(field("prompt.cache.miss_cause"), Some("cold_start"));
    assert_eq!(field("prompt.cache.layer"), None);
    let fingerprint =
        prompt_core::fingerprint::Fingerprint::of("You are terse.\n\nRun make check.");
    assert_eq!(
        field("prompt.stable_fingerprint"),
        Some(&fingerprint.short()[..])
    );
    assert!(
        field("prompt.cache.verdict")
            .is_some_and(|v| v.starts_with("cold start: 1,500 tokens written")),
        "{fields:?}"
    );

    let metrics: Vec<_> = events
        .iter()
        .filter(|(t, _)| t == semconv::METRICS_TARGET)
        .collect();
    let points: Vec<(Option<&str>, Option<&str>, Option<&str>)> = metrics
        .iter()
        .map(|(_, f)| {
            (
                f.get("gen_ai.token.type").map(String::as_str),
                f.get("gen_ai.token.cache").map(String::as_str),
                f.get("histogram.gen_ai.client.token.usage")
                    .map(String::as_str),
            )
        })
        .collect();
    assert_eq!(
        points,
        [
            (Some("input"), Some("none"), Some("21")),
            (Some("input"), Some("read"), Some("0")),
            (Some("input"), Some("creation"), Some("1500")),
            (Some("output"), None, Some("9")),
        ]
    );
}
