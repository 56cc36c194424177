//! The assembly trace as a `tracing` event. Alone in its binary: `tracing`
//! caches per-callsite interest, so another test assembling concurrently
//! without a subscriber would hide these events.

use std::sync::Mutex;

use prompt_core::fingerprint::Fingerprint;
use prompt_core::{Context, PromptBuilder, Stability};
use prompt_tests::fixed;

/// Captures `tracing` events' fields as text.
struct Capture(&'static Mutex<Vec<String>>);

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
        struct Fields(String);
        impl tracing::field::Visit for Fields {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.push_str(&format!("{}={:?} ", field.name(), value));
            }
        }
        let mut fields = Fields(format!("{} ", event.metadata().target()));
        event.record(&mut fields);
        self.0.lock().unwrap().push(fields.0);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
fn every_assembly_emits_its_trace_as_one_tracing_event() {
    static EVENTS: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let pipeline = fixed(&[
        ("persona", 1, Stability::Stable, "P"),
        ("quiet", 2, Stability::Stable, ""),
    ]);
    tracing::subscriber::with_default(Capture(&EVENTS), || {
        PromptBuilder::new(&pipeline)
            .build_cached(&Context::new(), &Context::new())
            .unwrap();
    });
    let events = EVENTS.lock().unwrap();
    let summary = events
        .iter()
        .find(|e| e.contains("assembled system prompt"))
        .expect("a summary event");
    assert!(summary.starts_with("prompt_core::assembly "), "{summary}");
    assert!(summary.contains("path=cached"), "{summary}");
    assert!(summary.contains("silent=[\"quiet\"]"), "{summary}");
    assert!(
        summary.contains(&format!(
            "stable_fingerprint={}",
            Fingerprint::of("P").short()
        )),
        "{summary}"
    );
    // Each layer's bytes ride in the one event: no event per layer, which an
    // OpenTelemetry layer would attach to the request's span one by one.
    assert!(
        summary.contains("layer_bytes=persona=1 quiet=0"),
        "{summary}"
    );
    assert!(!summary.contains("layer_notes="), "{summary}");
    assert_eq!(
        events
            .iter()
            .filter(|e| e.starts_with("prompt_core::assembly "))
            .count(),
        1,
        "{events:?}"
    );
}
