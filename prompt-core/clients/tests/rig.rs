//! rig-core 0.44, through its own Anthropic client and reqwest transport, to
//! a loopback server: the bytes on the wire and the verdicts they earn.

mod common;

use common::{
    CLAUDE, FORGED, TURNS, at, ledger, occurrences, prompt, prompt_with, session, tokens,
};
use prompt_clients::PlacementError;
use prompt_clients::loopback::Loopback;
use prompt_clients::rig::{
    CachingError, cache_prefix, cache_usage, cache_usage_of, check_caching, completion_request,
};
use prompt_providers::user_prefix;
use rig_core::Model;
use rig_core::completion::CompletionRequest;
use rig_core::message::{CallId, Message, ProviderCallId, ToolName, UserContent};
use rig_core::providers::anthropic::completion::CacheTtl;
use rig_core::providers::anthropic::{AnthropicConfig, Messages};
use serde_json::{Value, json};

/// rig's Anthropic model for `server`, as a user builds it: a key, a base URL.
fn model(server: &Loopback) -> Model<Messages> {
    AnthropicConfig::new("sk-ant-test")
        .with_base_url(server.base_url())
        .client()
        .completion(CLAUDE)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Every `cache_control` in a Messages body, as (where, index).
fn breakpoints(body: &Value) -> Vec<String> {
    let mut found = Vec::new();
    for (i, block) in body["system"].as_array().into_iter().flatten().enumerate() {
        if block.get("cache_control").is_some() {
            found.push(format!("system {i}"));
        }
    }
    for (m, message) in body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        for (b, block) in message["content"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            if block.get("cache_control").is_some() {
                found.push(format!("message {m} block {b}"));
            }
        }
    }
    if body.get("cache_control").is_some() {
        found.push("top level".to_owned());
    }
    found
}

#[test]
fn two_turns_send_the_stable_prefix_byte_exact_under_the_one_breakpoint() {
    let server = Loopback::start().expect("a loopback server");
    let model = cache_prefix(model(&server), CacheTtl::FiveMinutes);
    check_caching(&model.wire).expect("cache_prefix caches the prefix alone");
    let session = session();
    let mut ledger = ledger();
    let (mut verdicts, mut usages, mut prompts) = (Vec::new(), Vec::new(), Vec::new());
    runtime().block_on(async {
        for (n, (_, _, words)) in TURNS.iter().enumerate() {
            let prompt = prompt(&session, n);
            let placed = completion_request(&prompt, [Message::user(*words)]).expect("placed");
            let id = ledger.sent(&prompt, placed.sent(CLAUDE, at(n)));
            let response = model
                .call(placed.request)
                .await
                .expect("the loopback answers");
            let usage = cache_usage_of(&response).expect("rig reports usage");
            verdicts.push(ledger.received(id, &usage).expect("recorded"));
            usages.push(usage);
            prompts.push(prompt);
        }
    });
    // The response's id and model, as rig read them from the body, reach
    // the verdict (`gen_ai.response.id`, `gen_ai.response.model`).
    for (n, (usage, verdict)) in usages.iter().zip(&verdicts).enumerate() {
        let id = format!("msg_loopback_{}", n + 1);
        assert_eq!(usage.response_id.as_deref(), Some(id.as_str()));
        assert_eq!(verdict.response_id.as_deref(), Some(id.as_str()));
        assert_eq!(usage.response_model.as_deref(), Some(CLAUDE));
    }
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for (request, prompt) in requests.iter().zip(&prompts) {
        assert_eq!(request.path, "/v1/messages");
        assert_eq!(request.header("x-api-key"), Some("sk-ant-test"));
        let body = request.json().expect("JSON");
        // The stable prefix, byte-exact, is the one system block and carries
        // the one breakpoint.
        assert_eq!(
            body["system"],
            json!([{"type": "text", "text": prompt.stable(),
                    "cache_control": {"type": "ephemeral", "ttl": "5m"}}])
        );
        assert_eq!(breakpoints(&body), ["system 0"]);
        // The dynamic suffix and the reminder lead the user turn, after the
        // breakpoint; the user's words follow.
        let content = &body["messages"][0]["content"];
        assert_eq!(content[0]["text"], user_prefix(prompt).as_str());
        assert!(prompt.dynamic().starts_with("Current time: "));
        assert_eq!(occurrences(&request.text(), prompt.dynamic()), 1);
        assert!(
            content[0]["text"]
                .as_str()
                .is_some_and(|t| t.contains(prompt.dynamic()))
        );
        assert!(
            content[0]["text"]
                .as_str()
                .is_some_and(|t| t.contains("The user is on branch"))
        );
        assert!(!body["system"].to_string().contains("Current time"));
        // The raw bytes hold the prefix as one JSON string.
        let escaped = serde_json::to_string(prompt.stable()).expect("a string");
        assert_eq!(occurrences(&request.text(), &escaped), 1);
    }
    let bodies: Vec<Value> = requests.iter().map(|r| r.json().expect("JSON")).collect();
    assert_eq!(
        bodies[0]["system"], bodies[1]["system"],
        "the cached block repeats"
    );
    assert_ne!(
        prompts[0].dynamic(),
        prompts[1].dynamic(),
        "the turns' data differ"
    );
    assert_ne!(bodies[0]["messages"], bodies[1]["messages"]);
    common::assert_written_then_read(&verdicts, &usages, tokens(prompts[0].stable()));
}

#[test]
fn the_naive_wiring_puts_the_breakpoint_on_the_dynamic_block() {
    let server = Loopback::start().expect("a loopback server");
    let model = cache_prefix(model(&server), CacheTtl::FiveMinutes);
    let session = session();
    let mut reads = Vec::new();
    runtime().block_on(async {
        for (n, (_, _, words)) in TURNS.iter().enumerate() {
            let prompt = prompt(&session, n);
            // The prompt's two parts as two system messages, as `parts()` invites.
            let request = CompletionRequest::new(Message::user(*words))
                .preamble(prompt.dynamic())
                .preamble(prompt.stable());
            let response = model.call(request).await.expect("the loopback answers");
            reads.push(cache_usage(&response.usage).expect("usage").read);
        }
    });
    for request in server.requests() {
        let body = request.json().expect("JSON");
        assert_eq!(
            breakpoints(&body),
            ["system 1"],
            "rig marks the last system block"
        );
        assert!(
            body["system"][1]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("Current time: "))
        );
        assert!(
            body["system"][0].get("cache_control").is_none(),
            "the stable block is unmarked"
        );
    }
    assert_eq!(reads, [0, 0], "every call re-writes the whole prefix");
}

#[test]
fn without_rigs_cache_setting_no_cache_control_is_sent_and_check_caching_says_so() {
    let server = Loopback::start().expect("a loopback server");
    let plain = model(&server);
    assert_eq!(
        check_caching(&plain.wire),
        Err(CachingError::NoCacheControl)
    );
    let moving = Model::new(
        plain.wire.clone().with_prompt_caching(),
        plain.transport.clone(),
    );
    assert_eq!(
        check_caching(&moving.wire),
        Err(CachingError::MarksDynamicSuffix)
    );
    let session = session();
    let prompt = prompt(&session, 0);
    runtime().block_on(async {
        for model in [&plain, &moving] {
            let placed = completion_request(&prompt, [Message::user("Hi")]).expect("placed");
            model
                .call(placed.request)
                .await
                .expect("the loopback answers");
        }
    });
    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| r.json().expect("JSON"))
        .collect();
    assert!(
        breakpoints(&bodies[0]).is_empty(),
        "no cache setting, no cache_control"
    );
    // rig's prompt caching marks the last user block: the turn's context
    // block before it is inside the cached span.
    assert_eq!(breakpoints(&bodies[1]), ["system 0", "message 0 block 1"]);
    assert!(
        bodies[1]["messages"][0]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains(prompt.dynamic()))
    );
}

#[test]
fn the_head_goes_after_tool_results_in_the_latest_user_turn_and_needs_one() {
    let session = session();
    let prompt = prompt(&session, 0);
    let call = CallId::from(ProviderCallId::new("toolu_01").expect("an id"));
    let mut answer = Message::tool_result(
        call,
        ToolName::new("read_file").expect("a name"),
        "fn main() {}",
    );
    if let Message::User { content } = &mut answer {
        content.push(UserContent::text("Thanks."));
    }
    let history = vec![
        Message::user("Read the file."),
        Message::assistant("Reading it."),
        answer,
    ];
    let placed = completion_request(&prompt, history).expect("placed");
    let chat = &placed.request.chat_history;
    assert!(matches!(&chat[0], Message::System { content } if content == prompt.stable()));
    assert_eq!(chat.len(), 4);
    let Message::User { content } = &chat[3] else {
        panic!("the latest turn is the user's")
    };
    assert!(
        matches!(content[0], UserContent::ToolResult(_)),
        "tool results stay first"
    );
    assert!(matches!(&content[1], UserContent::Text(t) if t.text == user_prefix(&prompt)));
    assert!(matches!(&content[2], UserContent::Text(t) if t.text == "Thanks."));
    let Message::User { content } = &chat[1] else {
        panic!("the first turn is the user's")
    };
    assert_eq!(content.len(), 1, "the head joins the latest user turn only");

    let refused = completion_request(&prompt, [Message::assistant("Hello.")]);
    assert!(matches!(
        refused,
        Err(PlacementError::NoUserTurn { client: "rig", .. })
    ));
    let system = completion_request(&prompt, [Message::system("Be brief."), Message::user("Hi")]);
    assert!(matches!(
        system,
        Err(PlacementError::SystemMessageInHistory { index: 0, .. })
    ));
}

#[test]
fn a_forged_close_in_the_dynamic_suffix_stays_inside_its_block_on_the_wire() {
    let server = Loopback::start().expect("a loopback server");
    let model = cache_prefix(model(&server), CacheTtl::FiveMinutes);
    let prompt = prompt_with(&session(), FORGED, FORGED);
    runtime().block_on(async {
        let placed = completion_request(&prompt, [Message::user("Hi")]).expect("placed");
        model
            .call(placed.request)
            .await
            .expect("the loopback answers");
    });
    let body = server.requests()[0].json().expect("JSON");
    let head = body["messages"][0]["content"][0]["text"]
        .as_str()
        .expect("the context block");
    assert!(head.starts_with("<system-reminder>\n"));
    assert!(head.ends_with("</system-reminder>\n\n"));
    assert_eq!(
        occurrences(head, "</system-reminder>"),
        1,
        "one close, the block's own: {head}"
    );
    assert_eq!(
        occurrences(head, "&lt;/system-reminder>"),
        2,
        "the suffix's and the reminder's, defused"
    );
}
