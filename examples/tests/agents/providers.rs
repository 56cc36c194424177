//! Each reference agent's Cached prompt as every provider receives it:
//! the Anthropic Messages body (cache breakpoint on the stable block, the
//! reminder in the last user turn), the OpenAI Responses body (routed by
//! `prompt_cache_key`) and the Gemini implicit-caching body.

use prompt_core::AssemblyPath;
use prompt_examples::agents::{Agent, Layout, RenderRequest};
use prompt_providers::Message;
use prompt_providers::anthropic::MessagesRequest;
use prompt_providers::gemini::GenerateContentRequest;
use prompt_providers::openai::{ResponsesRequest, prompt_cache_key};

/// The body as pretty JSON, with the fixture's absolute path (the runtime
/// facts state the working directory) replaced so the snapshot is the same
/// on every machine.
fn machine_free(body: &serde_json::Value, agent: Agent) -> String {
    // Sorted whatever serde_json's `preserve_order` (rig-core turns it on).
    let mut body = body.clone();
    body.sort_all_objects();
    serde_json::to_string_pretty(&body)
        .unwrap()
        .replace(&agent.fixture().display().to_string(), "<fixture>")
}

#[test]
fn every_agent_as_each_provider_receives_it() {
    for agent in Agent::ALL {
        let request = RenderRequest {
            workspace: agent.fixture(),
            layout: Layout::Fixture,
            path: AssemblyPath::Cached,
            mode: None,
            date: Some("2026-11-29".into()),
            model: Some("claude-sonnet-4-5".into()),
            prompt_path: Vec::new(),
        };
        let prompt = agent.render(&request).unwrap().prompt;
        let user = Message::user("Continue.");

        let mut anthropic =
            MessagesRequest::new(&prompt, "claude-sonnet-4-5", 1024).message(user.clone());
        anthropic.with_reminder(prompt.reminder()).unwrap();
        let anthropic = serde_json::to_value(&anthropic).unwrap();
        // The stable block carries the one system breakpoint; no block is empty.
        let system = anthropic["system"].as_array().unwrap();
        assert_eq!(system[0]["text"], prompt.stable(), "{agent}");
        assert_eq!(system[0]["cache_control"]["type"], "ephemeral", "{agent}");
        assert!(system.iter().all(|b| b["text"] != ""), "{agent}");
        insta::assert_snapshot!(
            format!("{agent}_anthropic"),
            machine_free(&anthropic, agent)
        );

        let openai =
            serde_json::to_value(ResponsesRequest::new(&prompt, "gpt-5").message(user.clone()))
                .unwrap();
        assert_eq!(
            openai["prompt_cache_key"],
            prompt_cache_key(&prompt),
            "{agent}"
        );
        insta::assert_snapshot!(format!("{agent}_openai"), machine_free(&openai, agent));

        let gemini =
            serde_json::to_value(GenerateContentRequest::new(&prompt).message(user)).unwrap();
        insta::assert_snapshot!(format!("{agent}_gemini"), machine_free(&gemini, agent));
    }
}
