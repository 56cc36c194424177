//! async-openai 0.43, through its own client and reqwest, to a loopback
//! server: the bytes on the wire and the verdicts they earn.

mod common;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::chat::{
    ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestUserMessage, CreateChatCompletionRequest,
};
use async_openai::types::responses::{
    EasyInputContent, EasyInputMessage, InputItem, MessageType, Role,
};
use common::{
    CONVERSATION, FORGED, TURNS, assert_history_kept_with_frontier, at, ledger, occurrences,
    prompt, prompt_with, session, tokens,
};
use prompt_clients::PlacementError;
use prompt_clients::async_openai::{
    chat_cache_usage, chat_cache_usage_of, chat_request, chat_request_with_history,
    response_cache_usage_of, responses_request, responses_request_with_history,
};
use prompt_clients::loopback::Loopback;
use prompt_core::AssembledPrompt;
use prompt_providers::observe::{CacheUsage, CacheVerdict};
use prompt_providers::{History, openai, reminder_block};
use serde_json::{Value, json};

fn client(server: &Loopback) -> Client<OpenAIConfig> {
    Client::with_config(
        OpenAIConfig::new()
            .with_api_base(format!("{}/v1", server.base_url()))
            .with_api_key("sk-test"),
    )
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

fn user(words: &str) -> ChatCompletionRequestMessage {
    ChatCompletionRequestMessage::User(ChatCompletionRequestUserMessage::from(words))
}

type Turns = (Vec<AssembledPrompt>, Vec<CacheUsage>, Vec<CacheVerdict>);

/// Both turns through Chat Completions to `model`.
fn chat_turns(client: &Client<OpenAIConfig>, model: &str) -> Turns {
    let session = session();
    let mut ledger = ledger();
    let (mut prompts, mut usages, mut verdicts) = (Vec::new(), Vec::new(), Vec::new());
    runtime().block_on(async {
        for (n, (_, _, words)) in TURNS.iter().enumerate() {
            let prompt = prompt(&session, n);
            let placed = chat_request(&prompt, model, vec![user(words)]).expect("placed");
            let id = ledger.sent(&prompt, placed.sent(model, at(n)));
            let response = client
                .chat()
                .create(placed.request)
                .await
                .expect("the loopback answers");
            let usage = chat_cache_usage_of(&response).expect("a usage");
            verdicts.push(ledger.received(id, &usage).expect("recorded"));
            usages.push(usage);
            prompts.push(prompt);
        }
    });
    (prompts, usages, verdicts)
}

#[test]
fn chat_on_gpt_5_6_sends_the_breakpoints_the_options_and_the_key() {
    let server = Loopback::start().expect("a loopback server");
    let (prompts, usages, verdicts) = chat_turns(&client(&server), "gpt-5.6");
    // The response's id and model reach the verdict.
    for (n, (usage, verdict)) in usages.iter().zip(&verdicts).enumerate() {
        let id = format!("chatcmpl-loopback-{}", n + 1);
        assert_eq!(verdict.response_id.as_deref(), Some(id.as_str()));
        assert_eq!(usage.response_model.as_deref(), Some("gpt-5.6"));
    }
    let requests = server.requests();
    let bodies: Vec<Value> = requests.iter().map(|r| r.json().expect("JSON")).collect();
    for ((request, body), prompt) in requests.iter().zip(&bodies).zip(&prompts) {
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(request.header("authorization"), Some("Bearer sk-test"));
        let text = prompt.text();
        let ends = openai::breakpoint_offsets(prompt, "gpt-5.6");
        assert_eq!(&text[..ends[1]], prompt.stable());
        let breakpoint = json!({"mode": "explicit"});
        // The body prompt-core's own ChatRequest sends, field for field.
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": [
                {"type": "text", "text": &text[..ends[0]], "prompt_cache_breakpoint": breakpoint},
                {"type": "text", "text": &text[ends[0]..ends[1]], "prompt_cache_breakpoint": breakpoint},
                {"type": "text", "text": &text[ends[1]..]},
            ]})
        );
        let ours = serde_json::to_value(openai::ChatRequest::new(prompt, "gpt-5.6").message(
            prompt_providers::Message::user(
                TURNS[bodies.iter().position(|b| b == body).unwrap_or(0)].2,
            ),
        ))
        .expect("a body");
        assert_eq!(body["messages"], ours["messages"]);
        assert_eq!(body["prompt_cache_key"], ours["prompt_cache_key"]);
        assert_eq!(body["prompt_cache_options"], ours["prompt_cache_options"]);
        assert_eq!(
            body["prompt_cache_options"],
            json!({"mode": "implicit", "ttl": "30m"})
        );
        let reminder = reminder_block(prompt.reminder().expect("a reminder")).expect("a block");
        assert!(
            body["messages"][1]["content"]
                .as_str()
                .is_some_and(|c| c.ends_with(&reminder))
        );
        assert_eq!(occurrences(&request.text(), prompt.dynamic()), 1);
    }
    let cached = |body: &Value| {
        body["messages"][0]["content"]
            .as_array()
            .map(|p| p[..2].to_vec())
    };
    assert_eq!(
        cached(&bodies[0]),
        cached(&bodies[1]),
        "the cached parts repeat"
    );
    assert_ne!(
        bodies[0]["messages"][0]["content"][2],
        bodies[1]["messages"][0]["content"][2]
    );
    let ends = openai::breakpoint_offsets(&prompts[0], "gpt-5.6");
    let text = prompts[0].text();
    common::assert_implicit_written_then_read(
        &verdicts,
        &usages,
        tokens(&text[..ends[0]]) + tokens(&text[ends[0]..ends[1]]),
    );
}

#[test]
fn chat_before_gpt_5_6_sends_one_string_and_the_key() {
    let server = Loopback::start().expect("a loopback server");
    let (prompts, usages, verdicts) = chat_turns(&client(&server), "gpt-5");
    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| r.json().expect("JSON"))
        .collect();
    for (body, prompt) in bodies.iter().zip(&prompts) {
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": prompt.text()})
        );
        assert_eq!(
            body["prompt_cache_key"],
            openai::prompt_cache_key(prompt).as_str()
        );
        assert!(body.get("prompt_cache_options").is_none());
    }
    // OpenAI caches the prefix on its own, bills no write, and reads what
    // the turns share in steps of 128 tokens: the stable prefix, rounded.
    assert_eq!((usages[0].read, usages[0].written), (0, 0));
    let stable = tokens(prompts[0].stable());
    assert!(
        usages[1].read > stable - 128 && usages[1].read <= stable + 4,
        "{:?}",
        usages[1]
    );
    assert_eq!(usages[1].read % 128, 0);
    assert_eq!(
        verdicts[1].read, usages[1].read,
        "the usage reaches the verdict"
    );
}

#[test]
fn responses_on_gpt_5_6_lead_with_a_developer_message_of_marked_parts() {
    let server = Loopback::start().expect("a loopback server");
    let client = client(&server);
    let session = session();
    let mut ledger = ledger();
    let (mut prompts, mut usages, mut verdicts) = (Vec::new(), Vec::new(), Vec::new());
    runtime().block_on(async {
        for (n, (_, _, words)) in TURNS.iter().enumerate() {
            let prompt = prompt(&session, n);
            let input = vec![InputItem::EasyMessage(EasyInputMessage {
                r#type: MessageType::Message,
                role: Role::User,
                content: EasyInputContent::Text((*words).to_owned()),
                phase: None,
            })];
            let placed = responses_request(&prompt, "gpt-5.6", input).expect("placed");
            let id = ledger.sent(&prompt, placed.sent("gpt-5.6", at(n)));
            let response = client
                .responses()
                .create(placed.request)
                .await
                .expect("the loopback answers");
            let usage = response_cache_usage_of(&response).expect("a usage");
            verdicts.push(ledger.received(id, &usage).expect("recorded"));
            usages.push(usage);
            prompts.push(prompt);
        }
    });
    for (n, (usage, verdict)) in usages.iter().zip(&verdicts).enumerate() {
        let id = format!("resp_loopback_{}", n + 1);
        assert_eq!(verdict.response_id.as_deref(), Some(id.as_str()));
        assert_eq!(usage.response_model.as_deref(), Some("gpt-5.6"));
    }
    let requests = server.requests();
    for (request, prompt) in requests.iter().zip(&prompts) {
        assert_eq!(request.path, "/v1/responses");
        let body = request.json().expect("JSON");
        let text = prompt.text();
        let ends = openai::breakpoint_offsets(prompt, "gpt-5.6");
        let breakpoint = json!({"mode": "explicit"});
        assert_eq!(
            body["input"][0],
            json!({"type": "message", "role": "developer", "content": [
                {"type": "input_text", "text": &text[..ends[0]], "prompt_cache_breakpoint": breakpoint},
                {"type": "input_text", "text": &text[ends[0]..ends[1]], "prompt_cache_breakpoint": breakpoint},
                {"type": "input_text", "text": &text[ends[1]..]},
            ]})
        );
        assert!(
            body.get("instructions").is_none(),
            "instructions takes no breakpoint"
        );
        assert_eq!(
            body["prompt_cache_key"],
            openai::prompt_cache_key(prompt).as_str()
        );
        assert_eq!(
            body["prompt_cache_options"],
            json!({"mode": "implicit", "ttl": "30m"})
        );
        let reminder = reminder_block(prompt.reminder().expect("a reminder")).expect("a block");
        assert!(
            body["input"][1]["content"]
                .as_str()
                .is_some_and(|c| c.ends_with(&reminder))
        );
    }
    let ends = openai::breakpoint_offsets(&prompts[0], "gpt-5.6");
    let text = prompts[0].text();
    common::assert_implicit_written_then_read(
        &verdicts,
        &usages,
        tokens(&text[..ends[0]]) + tokens(&text[ends[0]..ends[1]]),
    );
}

#[test]
fn the_naive_wiring_puts_the_only_breakpoint_past_the_dynamic_suffix() {
    let server = Loopback::start().expect("a loopback server");
    let client = client(&server);
    let session = session();
    let mut reads = Vec::new();
    runtime().block_on(async {
        for (n, (_, _, words)) in TURNS.iter().enumerate() {
            let prompt = prompt(&session, n);
            // The prompt's two parts as two system messages and no
            // breakpoint of ours: GPT-5.6's own is at the newest message.
            let system = |text: &str| {
                ChatCompletionRequestMessage::System(ChatCompletionRequestSystemMessage::from(text))
            };
            let request = CreateChatCompletionRequest {
                model: "gpt-5.6".to_owned(),
                messages: vec![
                    system(prompt.stable()),
                    system(prompt.dynamic()),
                    user(words),
                ],
                ..CreateChatCompletionRequest::default()
            };
            let response = client.chat().create(request).await.expect("answered");
            reads.push(
                chat_cache_usage(response.usage.as_ref().expect("usage"))
                    .expect("usage")
                    .read,
            );
        }
    });
    for request in server.requests() {
        assert_eq!(occurrences(&request.text(), "prompt_cache_breakpoint"), 0);
    }
    assert_eq!(reads, [0, 0], "every call re-writes the whole prefix");
}

#[test]
fn a_reminder_without_a_user_turn_is_refused() {
    let session = session();
    let prompt = prompt(&session, 0);
    let assistant = ChatCompletionRequestMessage::Assistant("Hello.".into());
    let refused = chat_request(&prompt, "gpt-5.6", vec![assistant]);
    assert!(matches!(
        refused,
        Err(PlacementError::NoUserTurn {
            client: "async-openai",
            ..
        })
    ));
    let refused = responses_request(&prompt, "gpt-5.6", Vec::new());
    assert!(matches!(refused, Err(PlacementError::NoUserTurn { .. })));
}

#[test]
fn a_forged_close_in_the_reminder_stays_inside_its_block_on_the_wire() {
    let server = Loopback::start().expect("a loopback server");
    let client = client(&server);
    let prompt = prompt_with(&session(), "09:00", FORGED);
    runtime().block_on(async {
        let placed = chat_request(&prompt, "gpt-5.6", vec![user("Hi")]).expect("placed");
        client
            .chat()
            .create(placed.request)
            .await
            .expect("the loopback answers");
    });
    let body = server.requests()[0].json().expect("JSON");
    let text = body["messages"][1]["content"].as_str().expect("text");
    assert!(text.starts_with("Hi\n\n<system-reminder>\n"), "{text}");
    assert_eq!(
        occurrences(text, "</system-reminder>"),
        1,
        "one close, the block's own: {text}"
    );
    assert!(text.contains("&lt;/system-reminder>"));
}

/// Five turns of one conversation kept as sent ([`History`]) to GPT-5.6
/// through Chat Completions and `chat_request_with_history`: each request's
/// messages begin with the previous one's, the newest carries
/// `prompt_cache_breakpoint`, and the loopback reads nearly all that could
/// be read.
#[test]
fn a_history_kept_as_sent_is_read_back_whole_through_chat_completions() {
    let server = Loopback::start().expect("a loopback server");
    let client = client(&server);
    let session = session();
    let mut history = History::new();
    runtime().block_on(async {
        for (now, branch, words) in CONVERSATION {
            let prompt = prompt_with(&session, now, branch);
            history.user_turn(&prompt, words);
            let placed = chat_request_with_history(&prompt, &history, "gpt-5.6").expect("placed");
            let response = client
                .chat()
                .create(placed.request)
                .await
                .expect("the loopback answers");
            let reply = response.choices[0].message.content.clone();
            history.reply(reply.expect("a reply"));
        }
    });
    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| r.json().expect("JSON"))
        .collect();
    assert_eq!(bodies.len(), CONVERSATION.len());
    assert_history_kept_with_frontier(&bodies, "messages", "prompt_cache_breakpoint");
    let share = server.read_share();
    println!(
        "async-openai chat (gpt-5.6), {} turns: {share:?} = {:.1}%",
        CONVERSATION.len(),
        100.0 * share.share()
    );
    assert!(share.share() >= 0.9, "read {:.1}%", 100.0 * share.share());
}

/// The same through the Responses API and `responses_request_with_history`.
#[test]
fn a_history_kept_as_sent_is_read_back_whole_through_responses() {
    let server = Loopback::start().expect("a loopback server");
    let client = client(&server);
    let session = session();
    let mut history = History::new();
    runtime().block_on(async {
        for (now, branch, words) in CONVERSATION {
            let prompt = prompt_with(&session, now, branch);
            history.user_turn(&prompt, words);
            let placed =
                responses_request_with_history(&prompt, &history, "gpt-5.6").expect("placed");
            let response = client
                .responses()
                .create(placed.request)
                .await
                .expect("the loopback answers");
            history.reply(response.output_text().expect("a reply"));
        }
    });
    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| r.json().expect("JSON"))
        .collect();
    assert_history_kept_with_frontier(&bodies, "input", "prompt_cache_breakpoint");
    let share = server.read_share();
    println!(
        "async-openai responses (gpt-5.6), {} turns: {share:?} = {:.1}%",
        CONVERSATION.len(),
        100.0 * share.share()
    );
    assert!(share.share() >= 0.9, "read {:.1}%", 100.0 * share.share());
}
