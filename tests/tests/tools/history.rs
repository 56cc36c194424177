//! A conversation kept as it was sent ([`History`]) and the one cache plan
//! per request: each request's messages begin with the previous request's,
//! the breakpoints (tools, scope cut, stable end, frontier) stay within the
//! provider's limit, and the bodies with tools, scoped system blocks and a
//! 3-turn history are snapshotted (and validated by `tests/sdk/validate.py`).

use prompt_core::pipeline::LayerEntry;
use prompt_core::spec::{Channel, Scope};
use prompt_core::{AssembledPrompt, Context, Pipeline, PromptBuilder, Stability};
use prompt_providers::anthropic::{
    BreakpointLocation, CacheTtl, MAX_BREAKPOINTS, MessagesRequest, RequestError,
};
use prompt_providers::gemini::GenerateContentRequest;
use prompt_providers::openai::{CacheMode, ChatRequest, ResponsesRequest};
use prompt_providers::plan::CutAt;
use prompt_providers::{History, HistoryError, Message, Role};
use prompt_tests::{Fixed, TEST, spec};
use proptest::prelude::*;
use serde_json::{Value, json};

/// A Cached prompt: a Global and a Project part each long enough to cache
/// (so the stable prefix is cut between them), a User part, this turn's
/// dynamic suffix and, when given, a reminder.
pub(super) fn prompt(dynamic: &str, reminder: Option<&str>) -> AssembledPrompt {
    let mut layers = vec![
        LayerEntry::new(
            spec("house", 100, Stability::Stable).scope(Scope::Global),
            Fixed("Answer in short sentences. ".repeat(170)),
        ),
        LayerEntry::new(
            spec("repository", 1_000, Stability::Stable).scope(Scope::Project),
            Fixed("Run make check before a commit. ".repeat(140)),
        ),
        LayerEntry::new(
            spec("preferences", 5_000, Stability::Stable).scope(Scope::User),
            Fixed("Ada prefers British spelling.".into()),
        ),
        LayerEntry::new(
            spec("runtime", 10_000, Stability::Dynamic),
            Fixed(dynamic.into()),
        ),
    ];
    if let Some(reminder) = reminder {
        layers.push(LayerEntry::new(
            spec("todo", 10_100, Stability::Dynamic).channel(Channel::Reminder),
            Fixed(reminder.into()),
        ));
    }
    let pipeline = Pipeline::from_layers(TEST, layers).unwrap();
    PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap()
}

fn tools() -> Vec<Value> {
    ["read_file", "run_tests", "search"]
        .into_iter()
        .map(|name| {
            json!({
                "name": name,
                "description": format!("The {name} tool."),
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}
            })
        })
        .collect()
}

/// Three turns, each with its own dynamic suffix, the first two answered;
/// the prompt of the last turn.
pub(super) fn three_turns() -> (History, AssembledPrompt) {
    let mut history = History::new();
    let turns = [
        (
            "Why does the login test fail?",
            "Date: 2026-12-07 09:00",
            None,
        ),
        (
            "Fix it.",
            "Date: 2026-12-07 09:02",
            Some("Open todos: fix login."),
        ),
        ("Now run the linter.", "Date: 2026-12-07 09:05", None),
    ];
    let mut last = None;
    for (i, (words, dynamic, reminder)) in turns.into_iter().enumerate() {
        let prompt = prompt(dynamic, reminder);
        history.user_turn(&prompt, words);
        if i < 2 {
            history.reply(format!("Reply {}.", i + 1));
        }
        last = Some(prompt);
    }
    (history, last.unwrap())
}

pub(super) fn anthropic(prompt: &AssembledPrompt, history: &History) -> MessagesRequest {
    MessagesRequest::new(prompt, "claude-sonnet-4-5", 4096)
        .ttl(CacheTtl::OneHour)
        .tools(tools())
        .history(history)
        .unwrap()
}

fn texts(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let text = m["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["text"].as_str().unwrap())
                .collect::<String>();
            (m["role"].as_str().unwrap().to_owned(), text)
        })
        .collect()
}

macro_rules! pretty {
    ($value:expr) => {
        serde_json::to_string_pretty(&$value).unwrap()
    };
}

#[test]
fn anthropic_request_with_tools_scopes_and_history() {
    let (history, prompt) = three_turns();
    let request = anthropic(&prompt, &history);
    request.check_breakpoints().unwrap();
    let plan = request.cache_plan();
    // Tools, the Project scope cut, the stable end and the frontier: the
    // API's four, TTLs never increasing.
    assert_eq!(plan.cuts().len(), MAX_BREAKPOINTS);
    assert!(plan.dropped().is_empty());
    assert_eq!(
        request
            .breakpoints()
            .iter()
            .map(|b| (b.location, b.ttl))
            .collect::<Vec<_>>(),
        [
            (BreakpointLocation::Tool { index: 2 }, CacheTtl::OneHour),
            (BreakpointLocation::System { index: 0 }, CacheTtl::OneHour),
            (BreakpointLocation::System { index: 1 }, CacheTtl::OneHour),
            (
                BreakpointLocation::Message {
                    message: 4,
                    block: 0
                },
                CacheTtl::FiveMinutes
            ),
        ]
    );
    // The system prompt is the stable prefix alone: the turn's block is in the history.
    let joined: String = request.system.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(joined, prompt.stable());
    assert!(request.reminder().is_none());
    let body = serde_json::to_value(&request).unwrap();
    let sent = texts(&body);
    assert_eq!(sent.len(), 5);
    assert!(sent[2].1.contains("Open todos: fix login.") && sent[2].1.ends_with("Fix it."));
    assert!(!sent[4].1.contains("Open todos"));
    // The tools' keys sorted whether or not serde_json keeps insertion order.
    let mut request = request;
    request.tools.iter_mut().for_each(Value::sort_all_objects);
    insta::assert_snapshot!(pretty!(request));
}

#[test]
fn openai_requests_with_scopes_and_history() {
    let (history, prompt) = three_turns();
    // GPT-5.6 in explicit mode: the scope cut, the stable end and the frontier.
    let responses = ResponsesRequest::new(&prompt, "gpt-5.6")
        .explicit_breakpoints(CacheMode::Explicit)
        .max_output_tokens(4096)
        .history(&history);
    assert_eq!(responses.instructions, prompt.stable());
    assert_eq!(responses.breakpoints().len(), 2);
    let body = serde_json::to_value(&responses).unwrap();
    let input = body["input"].as_array().unwrap();
    assert_eq!(input.len(), 6);
    assert_eq!(
        input[5]["content"][0]["prompt_cache_breakpoint"]["mode"],
        "explicit"
    );
    assert!(input[3].get("content").is_some_and(Value::is_string));
    insta::assert_snapshot!(
        "openai_responses_with_scopes_and_history",
        pretty!(responses)
    );
    // The implicit mode: OpenAI's own breakpoint is the frontier.
    let chat = ChatRequest::new(&prompt, "gpt-5.6")
        .max_completion_tokens(4096)
        .history(&history);
    let body = serde_json::to_value(&chat).unwrap();
    assert_eq!(body["messages"].as_array().unwrap().len(), 6);
    assert!(body["messages"][5]["content"].is_string());
    insta::assert_snapshot!("openai_chat_with_scopes_and_history", pretty!(chat));
}

#[test]
fn automatic_caching_takes_the_frontier_slot() {
    let (history, prompt) = three_turns();
    let mut request = anthropic(&prompt, &history);
    request
        .automatic_caching(CacheTtl::FiveMinutes)
        .unwrap_err();
    request.cache_control = Some(Default::default());
    let plan = request.plan_breakpoints();
    assert_eq!(plan.cuts().len(), MAX_BREAKPOINTS);
    assert!(plan.keeps(CutAt::Frontier));
    request.check_breakpoints().unwrap();
    assert!(
        request
            .messages
            .iter()
            .all(|m| m.content.iter().all(|b| b.cache_control.is_none()))
    );
}

#[test]
fn mid_conversation_system_messages_only_where_the_model_takes_them() {
    assert!(matches!(
        History::context_as_system_message("claude-sonnet-4-5"),
        Err(HistoryError::SystemMessagesUnsupported { .. })
    ));
    let mut history = History::context_as_system_message("claude-opus-4-8").unwrap();
    let prompt = prompt("Date: 2026-12-07", Some("Open todos: fix login."));
    let sent = history.user_turn(&prompt, "Fix it.");
    assert_eq!(sent[0], Message::user("Fix it."));
    assert_eq!(sent[1].role, Role::System);
    assert!(sent[1].text.contains("Date: 2026-12-07") && sent[1].text.contains("Open todos"));

    let request = MessagesRequest::new(&prompt, "claude-opus-4-8", 64)
        .history(&history)
        .unwrap();
    let body = serde_json::to_value(&request).unwrap();
    assert_eq!(body["messages"][1]["role"], "system");
    // The frontier is the user's turn; the system message after it is not marked.
    assert!(body["messages"][0]["content"][0]["cache_control"].is_object());
    assert!(
        body["messages"][1]["content"][0]
            .get("cache_control")
            .is_none()
    );
    insta::assert_snapshot!(
        "anthropic_request_with_a_mid_conversation_system_message",
        pretty!(request)
    );

    assert!(matches!(
        MessagesRequest::new(&prompt, "claude-sonnet-4-5", 64).history(&history),
        Err(RequestError::SystemMessagesUnsupported { .. })
    ));
    let gemini = GenerateContentRequest::new(&prompt).messages(history.messages().to_vec());
    assert!(serde_json::to_value(&gemini).is_err());
}

#[derive(Debug, Clone)]
enum Step {
    Turn {
        words: String,
        dynamic: String,
        reminder: Option<String>,
    },
    Reply(String),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (
            "[a-z <>/]{0,12}",
            "[a-z0-9 ]{0,12}",
            proptest::option::of("[a-z]{1,6}")
        )
            .prop_map(|(words, dynamic, reminder)| Step::Turn {
                words,
                dynamic,
                reminder
            }),
        "[a-z ]{0,12}".prop_map(Step::Reply),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Whatever the turns, each request's messages begin with the previous
    /// request's exactly, and the request is one the API takes: at most four
    /// breakpoints, TTLs never increasing, one at the newest message.
    #[test]
    fn each_request_begins_with_the_previous_one(steps in proptest::collection::vec(step(), 1..10)) {
        let mut history = History::new();
        let mut previous: Vec<(String, String)> = Vec::new();
        for step in steps {
            match step {
                Step::Turn { words, dynamic, reminder } => {
                    let prompt = prompt(&dynamic, reminder.as_deref());
                    let sent = history.user_turn(&prompt, &words).to_vec();
                    let request = anthropic(&prompt, &history);
                    request.check_breakpoints().unwrap();
                    let body = serde_json::to_value(&request).unwrap();
                    let messages = texts(&body);
                    prop_assert_eq!(messages.len(), sent.len());
                    prop_assert_eq!(&messages[..previous.len()], &previous[..]);
                    if let Some(newest) = body["messages"].as_array().unwrap().last() {
                        prop_assert!(newest["content"][0]["cache_control"].is_object());
                    }
                    previous = messages;
                }
                Step::Reply(text) => history.reply(text),
            }
        }
    }
}

/// The keep-alive refresh of a turn (a ping, `prompt_providers::keepalive`):
/// Anthropic's is the turn's cached part, byte for byte, with one output
/// token and nothing after the last breakpoint; OpenAI's is the turn
/// itself as a prewarm. Both snapshotted (and validated by the SDKs).
#[test]
fn keep_alive_refreshes_resend_the_cached_part_only() {
    let (history, prompt) = three_turns();
    let turn = anthropic(&prompt, &history);
    let ping = turn.refresh(1);
    assert_eq!(ping.breakpoints(), turn.breakpoints());
    let (turn_body, ping_body) = (
        serde_json::to_value(&turn).unwrap(),
        serde_json::to_value(&ping).unwrap(),
    );
    assert_eq!(ping_body["max_tokens"], 1);
    for key in ["model", "system", "tools", "messages"] {
        assert_eq!(ping_body[key], turn_body[key], "{key}");
    }
    // A reminder placed after the frontier is not part of the cached prefix.
    let with_reminder = prompt_with_reminder();
    let mut turn = MessagesRequest::new(&with_reminder, "claude-sonnet-4-5", 4096)
        .message(Message::user("Fix it."));
    turn.cache_last_user_turn(CacheTtl::FiveMinutes).unwrap();
    let sent = serde_json::to_value(&turn).unwrap();
    assert_eq!(sent["messages"][0]["content"].as_array().unwrap().len(), 2);
    let refreshed = serde_json::to_value(turn.refresh(0)).unwrap();
    assert_eq!(refreshed["max_tokens"], 1, "the API refuses 0");
    assert_eq!(
        refreshed["messages"][0]["content"],
        json!([sent["messages"][0]["content"][0]])
    );
    let mut ping = ping;
    ping.tools.iter_mut().for_each(Value::sort_all_objects);
    insta::assert_snapshot!("anthropic_keep_alive_refresh", pretty!(ping));

    let responses = ResponsesRequest::new(&prompt, "gpt-5.6")
        .explicit_breakpoints(CacheMode::Explicit)
        .history(&history);
    let prewarm = responses.clone().prewarm();
    let (turn_body, prewarm_body) = (
        serde_json::to_value(&responses).unwrap(),
        serde_json::to_value(&prewarm).unwrap(),
    );
    assert_eq!(prewarm_body["input"], turn_body["input"]);
    assert_eq!(prewarm_body["prompt_cache_options"]["prewarm"], true);
    insta::assert_snapshot!("openai_responses_keep_alive_prewarm", pretty!(prewarm));
}

fn prompt_with_reminder() -> AssembledPrompt {
    prompt("Date: 2026-12-07 09:10", Some("Open todos: lint."))
}
