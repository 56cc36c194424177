//! Amazon Bedrock's Converse API: the body the one cache plan marks with
//! `cachePoint` blocks where the Anthropic body puts its breakpoints, its
//! refusals of what Bedrock refuses, the usage read back from a Converse
//! response and a ConverseStream `metadata` event (shaped as botocore
//! 1.44.18's `ConverseResponse`, `ConverseStreamMetadataEvent` and
//! `TokenUsage`), and the ledger's verdicts on them. The bodies are
//! snapshotted as an AWS SDK's `converse` call takes them (`modelId`
//! included) and validated by `tests/sdk/validate.py` against botocore's
//! service model.

use jiff::{SignedDuration, Timestamp};
use prompt_core::tools::{RequestTools, Tool};
use prompt_core::{AssembledPrompt, Context, Pipeline, PromptBuilder};
use prompt_providers::anthropic::CacheTtl;
use prompt_providers::bedrock::{
    CachePoint, CachePointLocation, ContentBlock, ConverseMessage, ConverseRequest,
    MAX_CACHE_POINTS, RequestError, SystemBlock, ToolEntry, ToolResult, ToolUse,
    cache_point_offsets,
};
use prompt_providers::observe::{
    CacheLedger, CacheUsage, MessagesDigest, MissCause, Provider, Sent, UsageError,
};
use prompt_providers::plan::CutAt;
use prompt_providers::{History, Message, Role};
use serde_json::{Value, json};

use super::history::{anthropic, prompt, three_turns};

const SONNET: &str = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
/// Claude Sonnet 4, which Bedrock serves without the one-hour TTL.
const SONNET_4: &str = "anthropic.claude-sonnet-4-20250514-v1:0";

macro_rules! pretty {
    ($value:expr) => {
        serde_json::to_string_pretty(&$value).unwrap()
    };
}

fn tools() -> RequestTools {
    RequestTools::new(["read_file", "run_tests", "search"].map(|name| {
        Tool::new(
            name,
            format!("The {name} tool."),
            json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        )
    }))
    .unwrap()
}

fn bedrock(
    prompt: &AssembledPrompt,
    history: &History,
    model: &str,
    ttl: CacheTtl,
) -> ConverseRequest {
    ConverseRequest::new(prompt, model, 4096)
        .ttl(ttl)
        .declared_tools(&tools())
        .history(history)
        .unwrap()
}

/// The texts of `system` in order, each with the TTL of the cache point
/// after it (if any).
fn marked_system(request: &ConverseRequest) -> Vec<(String, Option<CacheTtl>)> {
    let mut out: Vec<(String, Option<CacheTtl>)> = Vec::new();
    for block in &request.system {
        match block {
            SystemBlock::Text(text) => out.push((text.clone(), None)),
            SystemBlock::CachePoint(point) => out.last_mut().unwrap().1 = Some(point.ttl),
            other => panic!("{other:?}"),
        }
    }
    out
}

// --- the body ---------------------------------------------------------------

#[test]
fn bedrock_converse_with_tools_scopes_and_history() {
    let (history, prompt) = three_turns();
    let request = bedrock(&prompt, &history, SONNET, CacheTtl::FiveMinutes);
    request.check_cache_points().unwrap();
    // Tools, the Project scope cut, the stable end and the frontier: four,
    // each a block of its own after what it caches.
    assert_eq!(
        request.cache_points(),
        [
            (
                CachePointLocation::Tools { index: 3 },
                CacheTtl::FiveMinutes
            ),
            (
                CachePointLocation::System { index: 1 },
                CacheTtl::FiveMinutes
            ),
            (
                CachePointLocation::System { index: 3 },
                CacheTtl::FiveMinutes
            ),
            (
                CachePointLocation::Message {
                    message: 4,
                    block: 1
                },
                CacheTtl::FiveMinutes
            ),
        ]
    );
    let plan = request.cache_plan();
    assert_eq!(plan.cuts().len(), MAX_CACHE_POINTS);
    assert!(plan.dropped().is_empty());
    // The system prompt is the stable prefix alone; the turns carry their blocks.
    let joined: String = marked_system(&request)
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    assert_eq!(joined, prompt.stable());
    let params = request.sdk_params().unwrap();
    assert_eq!(params["modelId"], SONNET);
    assert_eq!(params["messages"].as_array().unwrap().len(), 5);
    assert!(
        params["messages"][2]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Open todos: fix login.")
    );
    assert_eq!(params["inferenceConfig"], json!({"maxTokens": 4096}));
    insta::assert_snapshot!(pretty!(params));
}

#[test]
fn bedrock_converse_with_one_hour_and_five_minute_cache_points() {
    let (history, prompt) = three_turns();
    let request = bedrock(&prompt, &history, SONNET, CacheTtl::OneHour);
    request.check_cache_points().unwrap();
    // The tools and the system prompt for an hour; the frontier, which moves
    // every turn, for five minutes: 1h never after 5m.
    let ttls: Vec<CacheTtl> = request.cache_points().into_iter().map(|(_, t)| t).collect();
    assert_eq!(
        ttls,
        [
            CacheTtl::OneHour,
            CacheTtl::OneHour,
            CacheTtl::OneHour,
            CacheTtl::FiveMinutes
        ]
    );
    let body = serde_json::to_value(&request).unwrap();
    assert_eq!(
        body["system"][1]["cachePoint"],
        json!({"type": "default", "ttl": "1h"})
    );
    assert_eq!(
        body["messages"][4]["content"][1]["cachePoint"],
        json!({"type": "default"})
    );
    assert!(body.get("modelId").is_none(), "the model id is in the path");
    insta::assert_snapshot!(pretty!(request.sdk_params().unwrap()));
}

#[test]
fn the_cache_points_follow_the_blocks_the_anthropic_body_marks() {
    let (history, prompt) = three_turns();
    let converse = bedrock(&prompt, &history, SONNET, CacheTtl::OneHour);
    let messages = anthropic(&prompt, &history);
    // The system blocks: the same texts, marked with the same TTLs.
    let anthropic_system: Vec<(String, Option<CacheTtl>)> = messages
        .system
        .iter()
        .map(|b| (b.text.clone(), b.cache_control.map(|c| c.ttl)))
        .collect();
    assert_eq!(marked_system(&converse), anthropic_system);
    // One plan: the same cuts, the same prefixes, the same TTLs.
    let ours: Vec<(CutAt, CacheTtl)> = converse
        .cache_plan()
        .cuts()
        .iter()
        .map(|c| (c.at, c.ttl))
        .collect();
    let theirs: Vec<(CutAt, CacheTtl)> = messages
        .cache_plan()
        .cuts()
        .iter()
        .map(|c| (c.at, c.ttl))
        .collect();
    assert_eq!(ours, theirs);
    // And the offsets the ledger is told are the Anthropic body's.
    assert_eq!(
        cache_point_offsets(&prompt, SONNET),
        prompt_providers::anthropic::breakpoint_offsets(&prompt, "claude-sonnet-4-5")
    );
}

#[test]
fn a_model_without_the_one_hour_ttl_gets_five_minutes_and_a_hand_placed_hour_is_refused() {
    let (history, prompt) = three_turns();
    let mut request = bedrock(&prompt, &history, SONNET_4, CacheTtl::OneHour);
    assert!(
        request
            .cache_points()
            .iter()
            .all(|(_, ttl)| *ttl == CacheTtl::FiveMinutes),
        "{:?}",
        request.cache_points()
    );
    assert!(
        request
            .cache_plan()
            .cuts()
            .iter()
            .all(|c| c.ttl == CacheTtl::FiveMinutes)
    );
    serde_json::to_value(&request).unwrap();

    request.system[1] = SystemBlock::CachePoint(CachePoint::new(CacheTtl::OneHour));
    let error = request.check_cache_points().unwrap_err();
    assert_eq!(
        error,
        RequestError::OneHourUnsupported {
            model_id: SONNET_4.to_owned(),
            at: CachePointLocation::System { index: 1 }
        }
    );
    assert!(error.to_string().contains("takes_one_hour_ttl"), "{error}");
    let refused = serde_json::to_value(&request).unwrap_err().to_string();
    assert!(refused.contains("system[1]"), "{refused}");
    // Placing the plan again mends it.
    request.plan_cache_points();
    request.check_cache_points().unwrap();
}

#[test]
fn what_bedrock_refuses_is_refused_before_it_is_sent() {
    let (history, prompt) = three_turns();
    let planned = bedrock(&prompt, &history, SONNET, CacheTtl::OneHour);

    // A fifth cache point.
    let mut five = planned.clone();
    five.messages[2]
        .content
        .push(ContentBlock::CachePoint(CachePoint::new(
            CacheTtl::FiveMinutes,
        )));
    assert!(matches!(
        five.check_cache_points(),
        Err(RequestError::TooManyCachePoints { count: 5, .. })
    ));
    // A 1h cache point after a 5m one.
    let mut order = planned.clone();
    order.tools[3] = ToolEntry::CachePoint(CachePoint::new(CacheTtl::FiveMinutes));
    assert_eq!(
        order.check_cache_points(),
        Err(RequestError::TtlOrder {
            five_minutes: CachePointLocation::Tools { index: 3 },
            one_hour: CachePointLocation::System { index: 1 }
        })
    );
    // A cache point with nothing of its own before it.
    let mut first = planned.clone();
    first.system.insert(
        0,
        SystemBlock::CachePoint(CachePoint::new(CacheTtl::OneHour)),
    );
    assert_eq!(
        first.check_cache_points(),
        Err(RequestError::CachePointWithoutContent {
            at: CachePointLocation::System { index: 0 }
        })
    );
    let mut twice = planned.clone();
    twice.system.insert(
        2,
        SystemBlock::CachePoint(CachePoint::new(CacheTtl::OneHour)),
    );
    assert!(matches!(
        twice.check_cache_points(),
        Err(RequestError::CachePointWithoutContent { .. })
    ));
    // A system message inside `messages`.
    let system = planned.clone().message(Message::system("Be brief."));
    let error = serde_json::to_value(&system).unwrap_err().to_string();
    assert!(error.contains("message 5 has the role `system`"), "{error}");
    // A history that carries its context as system messages.
    let mut mid = History::context_as_system_message("claude-opus-4-8").unwrap();
    mid.user_turn(&prompt, "Fix it.");
    assert!(matches!(
        ConverseRequest::new(&prompt, "anthropic.claude-opus-4-8-v1:0", 64).history(&mid),
        Err(RequestError::SystemMessagesUnsupported { .. })
    ));
}

#[test]
fn the_reminder_goes_after_the_frontiers_cache_point_and_needs_a_user_turn() {
    let prompt = prompt("Date: 2026-12-07", Some("Open todos: fix login."));
    let mut request = ConverseRequest::new(&prompt, SONNET, 64).message(Message::user("Fix it."));
    request.plan_cache_points();
    assert_eq!(request.reminder(), Some("Open todos: fix login."));
    let body = serde_json::to_value(&request).unwrap();
    let content = body["messages"][0]["content"].as_array().unwrap();
    assert_eq!(content.len(), 3);
    assert_eq!(content[0]["text"], "Fix it.");
    assert!(content[1].get("cachePoint").is_some());
    assert!(
        content[2]["text"]
            .as_str()
            .unwrap()
            .contains("Open todos: fix login.")
    );
    // No user turn: the reminder is never dropped.
    let alone = ConverseRequest::new(&prompt, SONNET, 64);
    assert!(alone.check_reminder().is_err());
    let error = serde_json::to_value(&alone).unwrap_err().to_string();
    assert!(error.contains("Bedrock Converse request"), "{error}");
}

#[test]
fn tool_calls_and_results_are_blocks_of_the_conversation_and_the_frontier_follows_them() {
    let prompt = prompt("Date: 2026-12-07", None);
    let mut history = History::new();
    history.user_turn(&prompt, "Read the README.");
    let mut request = ConverseRequest::new(&prompt, SONNET, 256)
        .declared_tools(&tools())
        .history(&history)
        .unwrap()
        .converse_message(ConverseMessage::new(
            Role::Assistant,
            [ContentBlock::ToolUse(ToolUse::new(
                "tooluse_1",
                "read_file",
                json!({"path": "README.md"}),
            ))],
        ))
        .converse_message(ConverseMessage::new(
            Role::User,
            [ContentBlock::ToolResult(ToolResult::text(
                "tooluse_1",
                "# prompt-core",
            ))],
        ))
        .converse_message(ConverseMessage::new(Role::User, []));
    let plan = request.plan_cache_points();
    assert!(plan.keeps(CutAt::Frontier));
    let body = serde_json::to_value(&request).unwrap();
    assert_eq!(
        body["messages"].as_array().unwrap().len(),
        3,
        "an empty message is left out"
    );
    assert_eq!(
        body["messages"][1]["content"][0]["toolUse"],
        json!({"toolUseId": "tooluse_1", "name": "read_file", "input": {"path": "README.md"}})
    );
    assert_eq!(
        body["messages"][2]["content"],
        json!([
            {"toolResult": {"toolUseId": "tooluse_1", "content": [{"text": "# prompt-core"}]}},
            {"cachePoint": {"type": "default"}}
        ])
    );
    // The first turn's cache point moved to the newest message.
    assert_eq!(body["messages"][0]["content"].as_array().unwrap().len(), 1);
}

#[test]
fn the_path_carries_the_model_id_encoded_and_the_sdk_params_carry_it_plain() {
    let prompt = prompt("", None);
    let arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-opus-4-5-20251101-v1:0";
    let request = ConverseRequest::new(&prompt, arn, 64).message(Message::user("Hi"));
    assert_eq!(
        request.uri_path(),
        "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2F\
         global.anthropic.claude-opus-4-5-20251101-v1%3A0/converse"
    );
    assert!(request.stream_uri_path().ends_with("/converse-stream"));
    let params = request.sdk_params().unwrap();
    assert_eq!(params["modelId"], arn);
    // The ARN names Opus 4.5, which takes the hour.
    let request = request.ttl(CacheTtl::OneHour);
    assert_eq!(request.cache_points()[0].1, CacheTtl::OneHour);
}

#[test]
fn a_history_whose_cache_point_moves_is_not_read_as_rewritten() {
    let (history, prompt) = three_turns();
    let mut first_turns = History::new();
    for message in &history.messages()[..3] {
        first_turns.push(message.clone());
    }
    let first = bedrock(&prompt, &first_turns, SONNET, CacheTtl::FiveMinutes);
    let second = bedrock(&prompt, &history, SONNET, CacheTtl::FiveMinutes);
    let (first, second) = (
        serde_json::to_value(&first).unwrap(),
        serde_json::to_value(&second).unwrap(),
    );
    // The third message had the cache point; now the fifth has it.
    assert!(
        first["messages"][2]["content"][1]
            .get("cachePoint")
            .is_some()
    );
    assert_eq!(
        second["messages"][2]["content"].as_array().unwrap().len(),
        1
    );
    assert!(MessagesDigest::of_json(&second).extends(&MessagesDigest::of_json(&first)));
}

// --- usage ------------------------------------------------------------------

/// A Converse response, as botocore's `ConverseResponse` shapes it.
fn converse(input: u64, read: u64, write: u64, details: Value) -> Value {
    json!({
        "output": {"message": {"role": "assistant", "content": [{"text": "Done."}]}},
        "stopReason": "end_turn",
        "usage": {
            "inputTokens": input, "outputTokens": 12,
            "totalTokens": input + read + write + 12,
            "cacheReadInputTokens": read, "cacheWriteInputTokens": write,
            "cacheDetails": details
        },
        "metrics": {"latencyMs": 812}
    })
}

#[test]
fn converse_reports_the_cache_beside_input_tokens_with_writes_by_ttl() {
    let body = converse(
        9,
        0,
        1665,
        json!([{"ttl": "1h", "inputTokens": 1600}, {"ttl": "5m", "inputTokens": 65}]),
    );
    let usage = CacheUsage::from_response(Provider::Bedrock, &body).unwrap();
    assert_eq!(
        (
            usage.uncached_input,
            usage.read,
            usage.written,
            usage.output
        ),
        (9, 0, 1665, Some(12))
    );
    assert_eq!(usage.input_tokens(), 1674);
    let ttl: Vec<(u64, u64)> = usage
        .written_ttl
        .iter()
        .map(|t| (t.ttl.as_secs(), t.tokens))
        .collect();
    assert_eq!(ttl, [(300, 65), (3600, 1600)]);
    // No cache fields: an uncached request, not a guess.
    let plain = json!({"usage": {"inputTokens": 40, "outputTokens": 2, "totalTokens": 42}});
    assert_eq!(
        CacheUsage::from_response(Provider::Bedrock, &plain).unwrap(),
        CacheUsage::new(40, 0, 0).output(2)
    );
}

#[test]
fn a_converse_stream_carries_its_usage_in_the_metadata_event() {
    let usage = json!({"inputTokens": 5, "outputTokens": 57, "totalTokens": 2110,
                       "cacheReadInputTokens": 2048, "cacheWriteInputTokens": 0});
    // As an SDK yields the events...
    let events = [
        json!({"messageStart": {"role": "assistant"}}),
        json!({"contentBlockDelta": {"delta": {"text": "Done"}, "contentBlockIndex": 0}}),
        json!({"contentBlockStop": {"contentBlockIndex": 0}}),
        json!({"messageStop": {"stopReason": "end_turn"}}),
        json!({"metadata": {"usage": usage, "metrics": {"latencyMs": 640}}}),
    ];
    let read = CacheUsage::from_stream(Provider::Bedrock, &events).unwrap();
    assert_eq!(read, CacheUsage::new(5, 2048, 0).output(57));
    // ...and as the metadata event's payload on the wire.
    let payload = json!({"usage": usage, "metrics": {"latencyMs": 640}});
    assert_eq!(
        CacheUsage::from_response(Provider::Bedrock, &payload).unwrap(),
        read
    );
    // A stream cut before its metadata event has no usage.
    let error = CacheUsage::from_stream(Provider::Bedrock, &events[..4]).unwrap_err();
    assert!(matches!(error, UsageError::NoUsage { .. }), "{error}");
    // An exception event mid-stream is an error, not a usage.
    let thrown = [
        events[0].clone(),
        json!({"throttlingException": {"message": "Too many requests"}}),
    ];
    let error = CacheUsage::from_stream(Provider::Bedrock, &thrown).unwrap_err();
    assert!(
        matches!(&error, UsageError::ErrorBody { message, .. } if message.contains("throttlingException: Too many requests")),
        "{error}"
    );
}

#[test]
fn hostile_converse_usage_is_refused_naming_the_field() {
    let with = |field: &str, value: Value| {
        let mut body = converse(9, 100, 0, json!([]));
        body["usage"][field] = value;
        CacheUsage::from_response(Provider::Bedrock, &body).unwrap_err()
    };
    // Huge: past what one request holds, or past u64.
    let error = with("cacheReadInputTokens", json!(u64::MAX));
    assert!(
        matches!(
            error,
            UsageError::TooLarge {
                field: "usage.cacheReadInputTokens",
                ..
            }
        ),
        "{error}"
    );
    assert!(
        error.to_string().contains("18446744073709551615"),
        "{error}"
    );
    let past: Value = serde_json::from_str("18446744073709551616").unwrap();
    assert!(matches!(
        with("inputTokens", past),
        UsageError::NotACount {
            field: "usage.inputTokens",
            ..
        }
    ));
    // Two counts each under the ceiling whose sum is over it.
    let mut body = converse(9, 0, 0, json!([]));
    body["usage"]["cacheReadInputTokens"] = json!(600_000_000);
    body["usage"]["cacheWriteInputTokens"] = json!(600_000_000);
    body["usage"]["totalTokens"] = json!(1_200_000_021u64);
    let error = CacheUsage::from_response(Provider::Bedrock, &body).unwrap_err();
    assert!(matches!(error, UsageError::TooLarge { .. }), "{error}");
    // Wrong types and negatives.
    for (field, value, found) in [
        ("inputTokens", json!("12"), "a string"),
        ("outputTokens", json!(-3), "-3"),
        ("cacheWriteInputTokens", json!(1.5), "1.5"),
        ("cacheReadInputTokens", json!([1]), "an array"),
        ("totalTokens", json!(true), "a boolean"),
    ] {
        let error = with(field, value);
        match &error {
            UsageError::NotACount {
                field: named,
                found: shown,
                ..
            } => {
                assert_eq!(*named, format!("usage.{field}"));
                assert_eq!(shown, found);
            }
            other => panic!("{field}: {other}"),
        }
    }
    // Missing what the service model requires.
    let mut body = converse(9, 0, 0, json!([]));
    body["usage"].as_object_mut().unwrap().remove("inputTokens");
    assert!(matches!(
        CacheUsage::from_response(Provider::Bedrock, &body).unwrap_err(),
        UsageError::Missing {
            field: "usage.inputTokens",
            ..
        }
    ));
    // Parts that exceed their whole, and breakdowns that disagree.
    let error = with("totalTokens", json!(3));
    assert!(matches!(error, UsageError::Inconsistent { .. }), "{error}");
    assert!(error.to_string().contains("usage.totalTokens"), "{error}");
    let body = converse(9, 0, 100, json!([{"ttl": "5m", "inputTokens": 99}]));
    let error = CacheUsage::from_response(Provider::Bedrock, &body).unwrap_err();
    assert!(
        error.to_string().contains("`usage.cacheDetails` holds 99"),
        "{error}"
    );
    let body = converse(
        9,
        0,
        100,
        json!([{"ttl": "\u{1b}[31m5 minutes", "inputTokens": 100}]),
    );
    let error = CacheUsage::from_response(Provider::Bedrock, &body)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("cacheDetails[0].ttl") && !error.contains('\u{1b}'),
        "{error}"
    );
    let error = with("cacheDetails", json!({"ttl": "5m"}));
    assert!(error.to_string().contains("not a list"), "{error}");
    // Not a response at all.
    let error = CacheUsage::from_response(
        Provider::Bedrock,
        &json!({"message": "The provided model identifier is invalid."}),
    )
    .unwrap_err();
    assert!(
        matches!(&error, UsageError::ErrorBody { message, .. } if message.contains("model identifier")),
        "{error}"
    );
    assert!(matches!(
        CacheUsage::from_response(Provider::Bedrock, &json!({"output": {}})).unwrap_err(),
        UsageError::NoUsage { .. }
    ));
    assert!(matches!(
        CacheUsage::from_response(Provider::Bedrock, &json!([1])).unwrap_err(),
        UsageError::NotAnObject { .. }
    ));
}

#[test]
fn a_bedrock_id_is_priced_at_its_claude_familys_row() {
    use prompt_providers::cost::Multipliers;
    // Opus 5.5 reads at 0.05x on Anthropic's table; through Bedrock too.
    let opus = Multipliers::for_model("us.anthropic.claude-opus-5-5-v1:0", CacheTtl::FiveMinutes);
    assert_eq!((opus.cache_read(), opus.cache_write()), (0.05, 1.25));
    let sonnet = Multipliers::for_model(SONNET, CacheTtl::OneHour);
    assert_eq!((sonnet.cache_read(), sonnet.cache_write()), (0.1, 2.0));
}

#[test]
fn bedrock_is_a_provider_with_its_opentelemetry_name() {
    assert_eq!(Provider::Bedrock.as_str(), "bedrock");
    assert_eq!(Provider::Bedrock.otel_name(), "aws.bedrock");
    assert_eq!("Bedrock".parse::<Provider>().unwrap(), Provider::Bedrock);
    assert!(Provider::ALL.contains(&Provider::Bedrock));
    assert_eq!(serde_json::to_value(Provider::Bedrock).unwrap(), "bedrock");
    assert!(Provider::Bedrock.caches_at_breakpoints());
}

// --- the ledger -------------------------------------------------------------

fn t(seconds: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000).unwrap() + SignedDuration::from_secs(seconds)
}

#[test]
fn the_ledger_reads_a_converse_response_back_and_judges_the_second_turn_a_hit() {
    let (history, prompt) = three_turns();
    let mut first_turn = History::new();
    first_turn.push(history.messages()[0].clone());
    let offsets = cache_point_offsets(&prompt, SONNET);
    let mut ledger = CacheLedger::new();

    // Turn 1: everything through the frontier written.
    let request = bedrock(&prompt, &first_turn, SONNET, CacheTtl::FiveMinutes);
    let body = serde_json::to_value(&request).unwrap();
    let sent = Sent::new(Provider::Bedrock, SONNET, t(0))
        .breakpoints(&offsets)
        .history(&body);
    let id = ledger.sent(&prompt, sent);
    let response = converse(12, 0, 2400, json!([{"ttl": "5m", "inputTokens": 2400}]));
    let verdict = ledger
        .received(
            id,
            &CacheUsage::from_response(Provider::Bedrock, &response).unwrap(),
        )
        .unwrap();
    assert!(
        matches!(verdict.cause, Some(MissCause::ColdStart { .. })),
        "{verdict}"
    );
    assert_eq!(verdict.provider, Provider::Bedrock);

    // Turn 2, streamed: the history grew, the prefix read whole.
    let request = bedrock(&prompt, &history, SONNET, CacheTtl::FiveMinutes);
    let body = serde_json::to_value(&request).unwrap();
    let sent = Sent::new(Provider::Bedrock, SONNET, t(40))
        .breakpoints(&offsets)
        .history(&body);
    let id = ledger.sent(&prompt, sent);
    let events = [
        json!({"messageStart": {"role": "assistant"}}),
        json!({"messageStop": {"stopReason": "end_turn"}}),
        json!({"metadata": {"usage": {"inputTokens": 30, "outputTokens": 9, "totalTokens": 2851,
                                      "cacheReadInputTokens": 2412, "cacheWriteInputTokens": 400},
                            "metrics": {"latencyMs": 300}}}),
    ];
    let usage = CacheUsage::from_stream(Provider::Bedrock, &events).unwrap();
    let verdict = ledger.received(id, &usage).unwrap();
    assert_eq!(verdict.cause, None, "{verdict}");
    assert_eq!((verdict.expected, verdict.read), (2400, 2412));
    assert!(
        !verdict.expected_estimated,
        "what turn 1 read and wrote, not a guess"
    );
    assert_eq!(verdict.lost_tokens, 0);
}

#[test]
fn a_bedrock_model_id_takes_its_claude_familys_minimum() {
    // A short prompt on Opus 4.5 (4,096 tokens at the least) and on Sonnet
    // 4.5 (1,024): neither caches, and each verdict names its own minimum.
    let pipeline = Pipeline::from_layers(
        prompt_tests::TEST,
        vec![prompt_core::pipeline::LayerEntry::new(
            prompt_tests::spec("persona", 1, prompt_core::Stability::Stable),
            prompt_tests::Fixed("You are terse. ".repeat(200)),
        )],
    )
    .unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let mut ledger = CacheLedger::new();
    for (model, minimum) in [
        ("global.anthropic.claude-opus-4-5-20251101-v1:0", 4096),
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", 1024),
    ] {
        let sent = Sent::new(Provider::Bedrock, model, t(0)).conversation(model);
        let id = ledger.sent(&prompt, sent);
        let usage = CacheUsage::new(800, 0, 0).output(3);
        let verdict = ledger.received(id, &usage).unwrap();
        assert!(
            matches!(verdict.cause, Some(MissCause::BelowMinimum { minimum: m, .. }) if m == minimum),
            "{model}: {verdict}"
        );
    }
}

/// The keep-alive refresh of a Converse turn (a ping,
/// `prompt_providers::keepalive`): the turn's cached part, byte for byte,
/// up to and including its last cache point, with one output token and
/// nothing after that cache point. Snapshotted beside the Anthropic and
/// OpenAI pings, and validated by botocore.
#[test]
fn bedrock_keep_alive_refresh_resends_the_cached_part_only() {
    let (history, prompt) = three_turns();
    let turn = bedrock(&prompt, &history, SONNET, CacheTtl::FiveMinutes);
    let ping = turn.refresh(1);
    assert_eq!(ping.cache_points(), turn.cache_points());
    let (turn_params, ping_params) = (turn.sdk_params().unwrap(), ping.sdk_params().unwrap());
    assert_eq!(ping_params["inferenceConfig"], json!({"maxTokens": 1}));
    for key in ["modelId", "system", "toolConfig", "messages"] {
        assert_eq!(ping_params[key], turn_params[key], "{key}");
    }
    // A reminder placed after the frontier's cache point, and a block or a
    // message after it, are not part of the cached prefix.
    let with_reminder = super::history::prompt("Date: 2026-12-07 09:10", Some("Open todos: lint."));
    let mut turn =
        ConverseRequest::new(&with_reminder, SONNET, 4096).message(Message::user("Fix it."));
    turn.plan_cache_points();
    let sent = serde_json::to_value(&turn).unwrap();
    assert_eq!(sent["messages"][0]["content"].as_array().unwrap().len(), 3);
    let refreshed = serde_json::to_value(turn.refresh(0)).unwrap();
    assert_eq!(
        refreshed["inferenceConfig"]["maxTokens"], 1,
        "the service refuses 0"
    );
    assert_eq!(
        refreshed["messages"],
        json!([{"role": "user", "content": [
            sent["messages"][0]["content"][0],
            sent["messages"][0]["content"][1]
        ]}])
    );
    assert_eq!(refreshed["system"], sent["system"]);
    turn.messages[0]
        .content
        .push(ContentBlock::Text("after the cache point".into()));
    let turn = turn.message(Message::assistant("Done."));
    let refreshed = serde_json::to_value(turn.refresh(1)).unwrap();
    assert_eq!(refreshed["messages"].as_array().unwrap().len(), 1);
    assert_eq!(
        refreshed["messages"][0]["content"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // Without a cache point in its messages the request keeps them whole.
    let plain = ConverseRequest::new(&prompt, SONNET, 64).message(Message::user("Hi."));
    assert_eq!(
        serde_json::to_value(plain.refresh(1)).unwrap()["messages"],
        json!([{"role": "user", "content": [{"text": "Hi."}]}])
    );
    insta::assert_snapshot!("bedrock_keep_alive_refresh", pretty!(ping_params));
}
