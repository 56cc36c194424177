//! The cache ledger's verdict in `tracing`: the OpenTelemetry GenAI names
//! as attributes of the request's span (the caller's, or one of the
//! ledger's own), and one event inside it. Alone in its binary: `tracing`
//! caches per-callsite interest, so another test judging a response
//! without a subscriber would hide these spans.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use prompt_core::{Context, PromptBuilder, Stability};
use prompt_providers::observe::{
    CacheLedger, CacheUsage, CacheVerdict, Provider, Sent, request_span, semconv,
};
use prompt_tests::fixed;
use tracing::span;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context as LayerContext, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

type Fields = BTreeMap<String, String>;

/// One span: its name, the index of its parent in `spans`, its fields as
/// they stood when it closed.
#[derive(Debug)]
struct SpanSeen {
    name: &'static str,
    target: String,
    parent: Option<usize>,
    fields: Fields,
}

/// One event: its target, the index of its span, its fields.
#[derive(Debug)]
struct EventSeen {
    target: String,
    span: Option<usize>,
    fields: Fields,
}

#[derive(Debug, Default)]
struct Seen {
    spans: Vec<SpanSeen>,
    events: Vec<EventSeen>,
    /// The live spans' indices in `spans` (the registry reuses ids).
    live: HashMap<u64, usize>,
}

impl Seen {
    fn span_named(&self, name: &str) -> Vec<&SpanSeen> {
        self.spans.iter().filter(|s| s.name == name).collect()
    }
}

/// Records every span's and event's fields by name, with their parents.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Seen>>);

struct Visit<'a>(&'a mut Fields);

impl tracing::field::Visit for Visit<'_> {
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

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &span::Attributes<'_>, id: &span::Id, ctx: LayerContext<'_, S>) {
        let mut seen = self.0.lock().unwrap();
        let parent = ctx
            .span(id)
            .and_then(|s| s.parent())
            .and_then(|p| seen.live.get(&p.id().into_u64()).copied());
        let mut fields = Fields::new();
        attrs.record(&mut Visit(&mut fields));
        let index = seen.spans.len();
        seen.spans.push(SpanSeen {
            name: attrs.metadata().name(),
            target: attrs.metadata().target().to_owned(),
            parent,
            fields,
        });
        seen.live.insert(id.into_u64(), index);
    }
    fn on_record(&self, id: &span::Id, values: &span::Record<'_>, _: LayerContext<'_, S>) {
        let mut seen = self.0.lock().unwrap();
        let index = seen.live[&id.into_u64()];
        values.record(&mut Visit(&mut seen.spans[index].fields));
    }
    fn on_event(&self, event: &tracing::Event<'_>, ctx: LayerContext<'_, S>) {
        let mut seen = self.0.lock().unwrap();
        let span = ctx
            .event_span(event)
            .and_then(|s| seen.live.get(&s.id().into_u64()).copied());
        let mut fields = Fields::new();
        event.record(&mut Visit(&mut fields));
        seen.events.push(EventSeen {
            target: event.metadata().target().to_owned(),
            span,
            fields,
        });
    }
    fn on_close(&self, id: span::Id, _: LayerContext<'_, S>) {
        self.0.lock().unwrap().live.remove(&id.into_u64());
    }
}

/// Sends one request and judges its Anthropic response, in `scope`.
fn judge(scope: impl FnOnce(&mut dyn FnMut() -> CacheVerdict) -> CacheVerdict) -> CacheVerdict {
    let pipeline = fixed(&[
        ("persona", 1, Stability::Stable, "You are terse."),
        ("rules", 2, Stability::Stable, "Run make check."),
    ]);
    let at = jiff::Timestamp::from_second(1_800_000_000).unwrap();
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
    let mut received = move || ledger.received(id, &usage).unwrap();
    scope(&mut received)
}

fn capture(run: impl FnOnce()) -> Seen {
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    tracing::subscriber::with_default(subscriber, run);
    let mut seen = capture.0.lock().unwrap();
    std::mem::take(&mut *seen)
}

/// The span holds every GenAI attribute of the verdict and the framework's own.
fn assert_attributes(fields: &Fields) {
    let field = |name: &str| fields.get(name).map(String::as_str);
    assert_eq!(field("otel.name"), Some("chat claude-sonnet-4-5"));
    assert_eq!(field("otel.kind"), Some("client"));
    assert_eq!(field("gen_ai.operation.name"), Some("chat"));
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
    // Nothing but the declared fields: each is a name of `semconv`.
    for name in fields.keys() {
        assert!(semconv::SPAN_FIELDS.contains(&name.as_str()), "{name}");
    }
}

/// The one verdict event: the why, in the span `span`; the counts are the span's.
fn assert_one_event_in(seen: &Seen, span: usize) {
    let verdicts: Vec<_> = seen
        .events
        .iter()
        .filter(|e| e.target == semconv::TARGET)
        .collect();
    assert_eq!(verdicts.len(), 1, "{:?}", seen.events);
    let event = verdicts[0];
    assert_eq!(event.span, Some(span));
    let field = |name: &str| event.fields.get(name).map(String::as_str);
    assert_eq!(field("message"), Some("prompt cache verdict"));
    assert_eq!(field("prompt.cache.miss_cause"), Some("cold_start"));
    assert!(
        field("prompt.cache.verdict").is_some_and(|v| v.starts_with("cold start")),
        "{event:?}"
    );
    assert!(
        !event.fields.keys().any(|k| k.starts_with("gen_ai.")),
        "{event:?}"
    );
}

#[test]
fn a_verdict_outside_every_span_gets_a_request_span_of_its_own() {
    let seen = capture(|| {
        judge(|received| received());
    });
    let chat = seen.span_named("chat");
    assert_eq!(chat.len(), 1, "{:?}", seen.spans);
    assert_eq!(chat[0].target, semconv::TARGET);
    assert_eq!(chat[0].parent, None);
    assert_attributes(&chat[0].fields);
    let index = seen.spans.iter().position(|s| s.name == "chat").unwrap();
    assert_one_event_in(&seen, index);
}

#[test]
fn a_verdict_inside_request_span_is_recorded_on_it_and_opens_no_other() {
    let seen = capture(|| {
        judge(|received| {
            let span = request_span(Provider::Anthropic, "claude-sonnet-4-5");
            span.in_scope(received)
        });
    });
    // The caller's span is the only one: the ledger recorded into it.
    assert_eq!(seen.spans.len(), 1, "{:?}", seen.spans);
    assert_attributes(&seen.spans[0].fields);
    assert_one_event_in(&seen, 0);
}

#[test]
fn a_span_without_the_genai_fields_gets_the_request_span_as_its_child() {
    let seen = capture(|| {
        judge(|received| tracing::info_span!("handle_turn").in_scope(received));
    });
    let names: Vec<_> = seen.spans.iter().map(|s| s.name).collect();
    assert_eq!(names, ["handle_turn", "chat"]);
    assert_eq!(seen.spans[1].parent, Some(0));
    assert!(seen.spans[0].fields.is_empty(), "{:?}", seen.spans[0]);
    assert_attributes(&seen.spans[1].fields);
    assert_one_event_in(&seen, 1);
}

#[test]
fn gemini_requests_are_generate_content() {
    let seen = capture(|| {
        let _span = request_span(Provider::Gemini, "gemini-3-pro").entered();
    });
    let fields = &seen.spans[0].fields;
    assert_eq!(fields["otel.name"], "generate_content gemini-3-pro");
    assert_eq!(fields["gen_ai.operation.name"], "generate_content");
    assert_eq!(fields["gen_ai.provider.name"], "gcp.gemini");
    assert_eq!(fields["gen_ai.request.model"], "gemini-3-pro");
}
