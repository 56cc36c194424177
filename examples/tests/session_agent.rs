//! The `session_agent` example (`examples/session_agent`), run by `cargo test`
//! against its loopback emulator of Anthropic's cache whatever
//! `ANTHROPIC_BASE_URL` says: two conversations of ten turns, checked on the
//! wire. It builds with the tests' features, so nothing is built again.

#[path = "../examples/session_agent/main.rs"]
// The example's `main` reads the environment; this binary never calls it.
#[allow(dead_code)]
mod example;

use prompt_clients::loopback::cache::{Api, refusal};
use serde_json::Value;

/// The raw bytes of a body's `tools` (its last field, as the request
/// serializes it).
fn tools_bytes(body: &str) -> &str {
    let at = body
        .rfind(r#","tools":["#)
        .expect("every request has tools");
    &body[at..]
}

/// `messages` without `cache_control`, which moves to the frontier and is
/// not part of what the cache compares.
fn unmarked(body: &Value) -> Vec<Value> {
    let mut messages = body["messages"].as_array().cloned().unwrap_or_default();
    for block in messages
        .iter_mut()
        .filter_map(|m| m["content"].as_array_mut())
        .flatten()
    {
        if let Some(block) = block.as_object_mut() {
            block.remove("cache_control");
        }
    }
    messages
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    const TURNS: usize = 10;
    let report = example::run(&example::Endpoint::Loopback, TURNS)?;
    let (requests, measured) = report.loopback.ok_or("the loopback ran")?;
    assert_eq!(requests.len(), 2 * TURNS);
    assert_eq!(
        measured.requests,
        requests.len(),
        "every request was served"
    );

    let tools = tools_bytes(std::str::from_utf8(&requests[0].body)?).to_owned();
    assert!(
        tools.contains(r#""name":"run_tests""#),
        "the conditional tool, its layer rendered"
    );
    let mut conversations: Vec<(Value, Vec<Value>)> = Vec::new();
    for (n, request) in requests.iter().enumerate() {
        let body = request.json()?;
        assert_eq!(refusal(Api::Messages, &body), None, "request {n}");
        assert_eq!(
            tools_bytes(std::str::from_utf8(&request.body)?),
            tools,
            "request {n}: tools byte-identical"
        );
        let system = body["system"].to_string();
        assert!(system.contains("Call `run_tests` after every change"));
        let messages = unmarked(&body);
        let opening = messages[0]["content"][0]["text"].clone();
        match conversations.iter_mut().find(|(o, _)| *o == opening) {
            Some((_, previous)) => {
                assert!(
                    messages.starts_with(previous),
                    "request {n}: the history is not the previous request's as sent"
                );
                assert_eq!(
                    messages.len(),
                    previous.len() + 2,
                    "request {n}: reply and turn"
                );
                *previous = messages;
            }
            None => conversations.push((opening, messages)),
        }
    }
    assert_eq!(conversations.len(), 2);

    println!("session_agent on the loopback: {measured}");
    assert!(
        measured.share() >= 0.9,
        "read {:.1}% of the readable input",
        measured.share() * 100.0
    );
    let own = example::share(report.read, report.readable);
    assert!(own >= 0.9, "the example's own figure: {:.1}%", own * 100.0);
    Ok(())
}
