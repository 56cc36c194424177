//! kitsoki's trace record, in a test binary of its own: tracing caches
//! per call site whether anyone listens, so another test composing a prompt
//! on another thread at the same moment could make this one's scoped
//! subscriber miss the event.

use std::sync::{Arc, Mutex};

use prompt_core::AssemblyPath;
use prompt_examples::agents::Agent;
use prompt_examples::agents::kitsoki::{self, Story, Verb};

fn fixture() -> Story {
    let root = Agent::Kitsoki.fixture().join("stories/trail");
    Story::load_in(&Agent::Kitsoki.fixture(), &root, &[]).unwrap()
}

fn ask(story: &Story, verb: Verb) -> kitsoki::Invocation {
    kitsoki::compose(story, &kitsoki::demo_call(verb), AssemblyPath::Basic).unwrap()
}

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn each_call_emits_and_returns_a_trace_record() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .finish();
    let invocation =
        tracing::subscriber::with_default(subscriber, || ask(&fixture(), Verb::Decide));
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let line = log
        .lines()
        .find(|l| l.contains("sysprompt.composed"))
        .expect(&log);
    assert!(line.contains("kitsoki::sysprompt"));
    assert!(
        line.contains("verb=\"decide\"") && line.contains("layers=\"framework,project,task\""),
        "{line}"
    );
    assert!(line.contains(&format!("bytes={}", invocation.system_prompt.len())));
    assert!(line.contains("exclude_dynamic=true"));
    insta::assert_snapshot!(
        "decide_trace",
        serde_json::to_string_pretty(&invocation.trace).unwrap()
    );
}
