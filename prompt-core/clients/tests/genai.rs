//! genai 0.7, through its own Anthropic and OpenAI adapters and reqwest, to
//! a loopback server: the bytes on the wire and the verdicts they earn.

mod common;

use common::{
    CLAUDE, CONVERSATION, FORGED, TURNS, assert_history_kept_with_frontier, at, ledger,
    occurrences, prompt, prompt_with, session, tokens,
};
use genai::chat::{CacheControl, ChatMessage, ChatOptions, ChatRequest};
use genai::resolver::{AuthData, Endpoint};
use genai::{Client, ServiceTarget};
use prompt_clients::PlacementError;
use prompt_clients::genai::{
    cache_usage, cache_usage_of, chat_options, chat_request, chat_request_with_history,
};
use prompt_clients::loopback::Loopback;
use prompt_core::AssembledPrompt;
use prompt_providers::observe::{CacheUsage, CacheVerdict};
use prompt_providers::{History, openai, reminder_block};
use serde_json::{Value, json};

/// genai with every request sent to `base` (an API root ending in `/`).
fn client_at(base: String, http: Option<reqwest::Client>) -> Client {
    let builder =
        Client::builder().with_service_target_resolver_fn(move |mut target: ServiceTarget| {
            target.endpoint = Endpoint::from_owned(base.clone());
            target.auth = AuthData::from_single("test-key");
            Ok(target)
        });
    match http {
        Some(http) => builder.with_reqwest(http).build().expect("a client"),
        None => builder.build().expect("a client"),
    }
}

/// genai pointed at the loopback server.
fn client(server: &Loopback) -> Client {
    client_at(format!("{}/v1/", server.base_url()), None)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Both turns through `client` to `model`, placed by `chat_request`.
fn two_turns(
    client: &Client,
    model: &str,
) -> (Vec<AssembledPrompt>, Vec<CacheUsage>, Vec<CacheVerdict>) {
    let session = session();
    let mut ledger = ledger();
    let (mut prompts, mut usages, mut verdicts) = (Vec::new(), Vec::new(), Vec::new());
    runtime().block_on(async {
        for (n, (_, _, words)) in TURNS.iter().enumerate() {
            let prompt = prompt(&session, n);
            let placed =
                chat_request(&prompt, model, vec![ChatMessage::user(*words)]).expect("placed");
            let id = ledger.sent(&prompt, placed.sent(model, at(n)));
            let response = client
                .exec_chat(model, placed.request, Some(&chat_options(&prompt)))
                .await
                .expect("the loopback answers");
            let usage = cache_usage_of(&response).expect("genai reports usage");
            verdicts.push(ledger.received(id, &usage).expect("recorded"));
            usages.push(usage);
            prompts.push(prompt);
        }
    });
    (prompts, usages, verdicts)
}

/// The tokens of the blocks of `blocks` whose `marked` is true.
fn cached_tokens<'a>(blocks: impl IntoIterator<Item = (&'a str, bool)>) -> u64 {
    blocks
        .into_iter()
        .filter(|(_, marked)| *marked)
        .map(|(text, _)| tokens(text))
        .sum()
}

#[test]
fn anthropic_gets_the_scope_breakpoint_and_the_suffix_after_both() {
    let server = Loopback::start().expect("a loopback server");
    let (prompts, usages, verdicts) = two_turns(&client(&server), CLAUDE);
    // The model that answered reaches the verdict; genai keeps no id of an
    // Anthropic response unless it captured the body (below).
    for usage in &usages {
        assert_eq!(usage.response_model.as_deref(), Some(CLAUDE));
        assert_eq!(usage.response_id, None);
    }
    let requests = server.requests();
    let bodies: Vec<Value> = requests.iter().map(|r| r.json().expect("JSON")).collect();
    for ((request, body), prompt) in requests.iter().zip(&bodies).zip(&prompts) {
        assert_eq!(request.path, "/v1/messages");
        let stable = prompt.stable();
        let cut = stable.find("Ada prefers").expect("the session's own layer");
        // Cut where the team-shared part ends, each cached block byte-exact.
        assert_eq!(
            body["system"],
            json!([
                {"type": "text", "text": &stable[..cut], "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": &stable[cut..], "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": prompt.dynamic()},
            ])
        );
        assert!(stable[..cut].ends_with("keep changes small.\n\n\n"));
        // The reminder ends the user's message; nothing else is marked.
        let user = &body["messages"][0]["content"];
        let reminder = reminder_block(prompt.reminder().expect("a reminder")).expect("a block");
        let text = user
            .as_str()
            .or_else(|| user[0]["text"].as_str())
            .expect("text");
        assert!(text.ends_with(&reminder), "{text}");
        assert_eq!(occurrences(&request.text(), "cache_control"), 2);
        assert_eq!(occurrences(&request.text(), prompt.dynamic()), 1);
    }
    let first_two = |body: &Value, key: &str| body[key].as_array().map(|a| a[..2].to_vec());
    assert_eq!(
        first_two(&bodies[0], "system"),
        first_two(&bodies[1], "system"),
        "the cached blocks repeat"
    );
    assert_ne!(
        bodies[0]["system"][2], bodies[1]["system"][2],
        "the turns' data differ"
    );
    let system = bodies[0]["system"].as_array().expect("blocks");
    let prefix = cached_tokens(system.iter().map(|b| {
        (
            b["text"].as_str().unwrap_or_default(),
            b.get("cache_control").is_some(),
        )
    }));
    common::assert_written_then_read(&verdicts, &usages, prefix);
}

#[test]
fn openai_chat_completions_on_gpt_5_6_gets_the_breakpoints_and_the_key() {
    let server = Loopback::start().expect("a loopback server");
    let model = "openai::gpt-5.6";
    let (prompts, usages, verdicts) = two_turns(&client(&server), model);
    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| r.json().expect("JSON"))
        .collect();
    for (body, prompt) in bodies.iter().zip(&prompts) {
        let text = prompt.text();
        let ends = openai::breakpoint_offsets(prompt, "gpt-5.6");
        assert_eq!(
            ends.len(),
            2,
            "the scope boundary and the stable prefix's end"
        );
        assert_eq!(
            body["prompt_cache_key"],
            openai::prompt_cache_key(prompt).as_str()
        );
        assert_eq!(
            body["prompt_cache_options"],
            json!({"mode": "explicit", "ttl": "30m"})
        );
        let messages = body["messages"].as_array().expect("messages");
        let breakpoint = json!({"mode": "explicit"});
        assert_eq!(
            messages[..3],
            [
                json!({"role": "system", "content": [{"type": "text", "text": &text[..ends[0]], "prompt_cache_breakpoint": breakpoint}]}),
                json!({"role": "system", "content": [{"type": "text", "text": &text[ends[0]..ends[1]], "prompt_cache_breakpoint": breakpoint}]}),
                json!({"role": "system", "content": &text[ends[1]..]}),
            ]
        );
        assert_eq!(&text[..ends[1]], prompt.stable());
        let reminder = reminder_block(prompt.reminder().expect("a reminder")).expect("a block");
        assert_eq!(messages[3]["role"], "user");
        assert!(
            messages[3]["content"]
                .as_str()
                .is_some_and(|c| c.ends_with(&reminder))
        );
    }
    let first_two = |body: &Value| body["messages"].as_array().map(|a| a[..2].to_vec());
    assert_eq!(
        first_two(&bodies[0]),
        first_two(&bodies[1]),
        "the cached messages repeat"
    );
    assert_ne!(bodies[0]["messages"][2], bodies[1]["messages"][2]);
    let ends = openai::breakpoint_offsets(&prompts[0], "gpt-5.6");
    let text = prompts[0].text();
    let prefix = tokens(&text[..ends[0]]) + tokens(&text[ends[0]..ends[1]]);
    common::assert_written_then_read(&verdicts, &usages, prefix);
}

/// An HTTP proxy on the loopback server: requests to `http://api.openai.com`
/// reach it, and nothing leaves the machine.
fn through_proxy(server: &Loopback) -> reqwest::Client {
    reqwest::Client::builder()
        .proxy(reqwest::Proxy::http(server.base_url()).expect("a proxy URL"))
        .build()
        .expect("a client")
}

#[test]
fn openai_responses_breakpoints_reach_api_openai_com_only() {
    // genai's default for GPT-5.6 is the Responses API.
    let model = "gpt-5.6";
    let official = Loopback::start().expect("a loopback server");
    let (prompts, usages, verdicts) = two_turns(
        &client_at(
            "http://api.openai.com/v1/".to_owned(),
            Some(through_proxy(&official)),
        ),
        model,
    );
    let requests = official.requests();
    assert_eq!(requests[0].path, "http://api.openai.com/v1/responses");
    let body = requests[0].json().expect("JSON");
    assert_eq!(
        body["prompt_cache_key"],
        openai::prompt_cache_key(&prompts[0]).as_str()
    );
    assert_eq!(
        body["prompt_cache_options"],
        json!({"mode": "explicit", "ttl": "30m"})
    );
    assert_eq!(
        occurrences(&requests[0].text(), "prompt_cache_breakpoint"),
        2
    );
    let ends = openai::breakpoint_offsets(&prompts[0], model);
    let text = prompts[0].text();
    let part = |text: &str| json!([{"type": "input_text", "text": text, "prompt_cache_breakpoint": {"mode": "explicit"}}]);
    assert_eq!(
        body["input"][0],
        json!({"role": "system", "content": part(&text[..ends[0]])})
    );
    assert_eq!(
        body["input"][1],
        json!({"role": "system", "content": part(&text[ends[0]..ends[1]])})
    );
    assert_eq!(
        body["input"][2],
        json!({"role": "system", "content": &text[ends[1]..]})
    );
    common::assert_written_then_read(
        &verdicts,
        &usages,
        tokens(&text[..ends[0]]) + tokens(&text[ends[0]..ends[1]]),
    );

    // Any other base URL (a gateway, a proxy of the user's): no breakpoint,
    // and GPT-5.6 caches only at its own, past the dynamic suffix.
    let gateway = Loopback::start().expect("a loopback server");
    let (_, usages, verdicts) = two_turns(&client(&gateway), model);
    let request = &gateway.requests()[1];
    assert_eq!(request.path, "/v1/responses");
    assert_eq!(occurrences(&request.text(), "prompt_cache_breakpoint"), 0);
    assert!(
        request
            .json()
            .expect("JSON")
            .get("prompt_cache_options")
            .is_none()
    );
    assert!(request.json().expect("JSON")["prompt_cache_key"].is_string());
    assert_eq!(usages[1].read, 0, "the second turn reads nothing");
    assert!(!verdicts[1].is_hit());
}

#[test]
fn a_captured_body_gives_the_verdict_the_anthropic_response_id() {
    let server = Loopback::start().expect("a loopback server");
    let client = client(&server);
    let session = session();
    let mut ledger = ledger();
    let prompt = prompt(&session, 0);
    let placed = chat_request(&prompt, CLAUDE, vec![ChatMessage::user("Hi")]).expect("placed");
    let id = ledger.sent(&prompt, placed.sent(CLAUDE, at(0)));
    let options = chat_options(&prompt).with_capture_raw_body(true);
    let response = runtime()
        .block_on(client.exec_chat(CLAUDE, placed.request, Some(&options)))
        .expect("answered");
    let usage = cache_usage_of(&response).expect("usage");
    assert_eq!(usage.response_id.as_deref(), Some("msg_loopback_1"));
    let verdict = ledger.received(id, &usage).expect("recorded");
    assert_eq!(verdict.response_id.as_deref(), Some("msg_loopback_1"));
}

#[test]
fn the_naive_wiring_puts_the_breakpoint_on_the_dynamic_block() {
    let server = Loopback::start().expect("a loopback server");
    let client = client(&server);
    let session = session();
    let mut reads = Vec::new();
    runtime().block_on(async {
        for (n, (_, _, words)) in TURNS.iter().enumerate() {
            let prompt = prompt(&session, n);
            // The prompt's two parts as two system messages, genai's
            // request-level cache setting on.
            let request = ChatRequest::new(vec![
                ChatMessage::system(prompt.stable()),
                ChatMessage::system(prompt.dynamic()),
                ChatMessage::user(*words),
            ]);
            let options = ChatOptions::default().with_cache_control(CacheControl::Ephemeral);
            let response = client
                .exec_chat(CLAUDE, request, Some(&options))
                .await
                .expect("answered");
            reads.push(cache_usage(&response.usage).expect("usage").read);
        }
    });
    for request in server.requests() {
        let body = request.json().expect("JSON");
        assert!(
            body["system"][0].get("cache_control").is_none(),
            "the stable block is unmarked"
        );
        assert_eq!(
            body["system"][1]["cache_control"],
            json!({"type": "ephemeral"})
        );
        assert!(
            body["system"][1]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("Current time: "))
        );
    }
    assert_eq!(reads, [0, 0], "every call re-writes the whole prefix");
}

#[test]
fn a_model_of_another_provider_and_a_system_message_are_refused() {
    let session = session();
    let prompt = prompt(&session, 0);
    let refused = chat_request(&prompt, "gemini-2.5-pro", vec![ChatMessage::user("Hi")]);
    assert!(matches!(
        refused,
        Err(PlacementError::UnsupportedProvider {
            client: "genai",
            ..
        })
    ));
    let refused = chat_request(
        &prompt,
        CLAUDE,
        vec![ChatMessage::system("Be brief."), ChatMessage::user("Hi")],
    );
    assert!(matches!(
        refused,
        Err(PlacementError::SystemMessageInHistory { index: 0, .. })
    ));
    let refused = chat_request(&prompt, CLAUDE, vec![ChatMessage::assistant("Hello.")]);
    assert!(matches!(
        refused,
        Err(PlacementError::NoUserTurn {
            client: "genai",
            ..
        })
    ));
}

#[test]
fn a_forged_close_in_the_reminder_stays_inside_its_block_on_the_wire() {
    let server = Loopback::start().expect("a loopback server");
    let client = client(&server);
    let prompt = prompt_with(&session(), "09:00", FORGED);
    runtime().block_on(async {
        let placed = chat_request(&prompt, CLAUDE, vec![ChatMessage::user("Hi")]).expect("placed");
        client
            .exec_chat(CLAUDE, placed.request, None)
            .await
            .expect("the loopback answers");
    });
    let body = server.requests()[0].json().expect("JSON");
    let user = &body["messages"][0]["content"];
    let text = user
        .as_str()
        .or_else(|| user[0]["text"].as_str())
        .expect("text");
    assert!(text.starts_with("Hi\n\n<system-reminder>\n"), "{text}");
    assert_eq!(
        occurrences(text, "</system-reminder>"),
        1,
        "one close, the block's own: {text}"
    );
    assert!(text.ends_with("</system-reminder>"));
    assert!(text.contains("&lt;/system-reminder>"));
}

/// Five turns of one conversation kept as sent ([`History`]), through
/// `chat_request_with_history` and genai's Anthropic adapter: each request's
/// messages begin with the previous one's, the newest carries the frontier's
/// breakpoint, and the loopback reads nearly all that could be read.
#[test]
fn a_history_kept_as_sent_is_read_back_whole_through_genai() {
    let server = Loopback::start().expect("a loopback server");
    let client = client(&server);
    let session = session();
    let mut history = History::new();
    runtime().block_on(async {
        for (now, branch, words) in CONVERSATION {
            let prompt = prompt_with(&session, now, branch);
            history.user_turn(&prompt, words);
            let placed = chat_request_with_history(&prompt, &history, CLAUDE).expect("placed");
            let response = client
                .exec_chat(CLAUDE, placed.request, Some(&chat_options(&prompt)))
                .await
                .expect("the loopback answers");
            history.reply(response.first_text().expect("a reply"));
        }
    });
    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| r.json().expect("JSON"))
        .collect();
    assert_eq!(bodies.len(), CONVERSATION.len());
    assert_history_kept_with_frontier(&bodies, "messages", "cache_control");
    let share = server.read_share();
    println!(
        "genai (Anthropic), {} turns: {share:?} = {:.1}%",
        CONVERSATION.len(),
        100.0 * share.share()
    );
    assert!(
        share.share() >= 0.9,
        "read {:.1}% of the readable input",
        100.0 * share.share()
    );
}

/// A history whose context goes as system messages cannot go through genai,
/// which moves every system message into the system prompt.
#[test]
fn genai_refuses_a_history_with_system_messages() {
    let session = session();
    let prompt = prompt(&session, 0);
    let mut history =
        History::context_as_system_message("claude-opus-4-8").expect("a model that takes them");
    history.user_turn(&prompt, "Fix the failing test.");
    assert!(matches!(
        chat_request_with_history(&prompt, &history, "claude-opus-4-8"),
        Err(PlacementError::SystemMessageInHistory { index: 1, .. })
    ));
}

/// The same conversation to GPT-5.6 through genai's OpenAI Chat adapter,
/// which sends `mode: "explicit"`: the frontier's breakpoint is the plan's.
#[test]
fn a_history_kept_as_sent_through_genai_to_openai_chat() {
    let server = Loopback::start().expect("a loopback server");
    let client = client(&server);
    let session = session();
    let model = "openai::gpt-5.6";
    let mut history = History::new();
    runtime().block_on(async {
        for (now, branch, words) in CONVERSATION {
            let prompt = prompt_with(&session, now, branch);
            history.user_turn(&prompt, words);
            let placed = chat_request_with_history(&prompt, &history, model).expect("placed");
            let response = client
                .exec_chat(model, placed.request, Some(&chat_options(&prompt)))
                .await
                .expect("the loopback answers");
            history.reply(response.first_text().expect("a reply"));
        }
    });
    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| r.json().expect("JSON"))
        .collect();
    assert_eq!(bodies[0]["prompt_cache_options"]["mode"], "explicit");
    assert_history_kept_with_frontier(&bodies, "messages", "prompt_cache_breakpoint");
    let share = server.read_share();
    println!(
        "genai (OpenAI Chat), {} turns: {share:?} = {:.1}%",
        CONVERSATION.len(),
        100.0 * share.share()
    );
    assert!(share.share() >= 0.9, "read {:.1}%", 100.0 * share.share());
}
