//! `prompt_providers::observe`: usage read from the providers' own bodies, and
//! the ledger's verdict for each cause, over prompts a pipeline assembled.
//!
//! Response bodies are shaped as the APIs return them (the API references,
//! and the pinned SDKs' types: `anthropic` 2.15.0's `Message`, `Usage`,
//! `RawMessageStartEvent`, `RawMessageDeltaEvent`, `Diagnostics`; `openai`
//! 3.57.0's `Response`, `ResponseUsage`, `CompletionUsage`,
//! `PromptCacheDiagnostics`; `google-genai` 3.6.1's
//! `GenerateContentResponse`, `GenerateContentResponseUsageMetadata`).

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use prompt_checks::diff::ChangeKind;
use prompt_core::pipeline::LayerEntry;
use prompt_core::spec::Scope;
use prompt_core::{
    AssembledPrompt, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render,
    SessionValue, Stability, Stable, TurnContext, TurnValue,
};
use prompt_providers::anthropic::CacheTtl;
use prompt_providers::observe::{
    Agreement, CacheLedger, CacheUsage, CacheVerdict, DiagnosisOutcome, LedgerError, MissCause,
    Pricing, Provider, Sent, Summary, UsageError, read_log,
};
use prompt_tests::{TEST, spec};
use serde_json::{Value, json};

// --- the pipeline -------------------------------------------------------

/// The persona: ~2 KB, the same for everyone.
fn persona() -> String {
    let mut text =
        String::from("You are a careful coding agent working in the user's repository.\n");
    for i in 0..40 {
        text.push_str(&format!(
            "- Rule {i}: read the code before you change it, and say what you did.\n"
        ));
    }
    text
}

/// What a session's Stable layers read: AGENTS.md, the user's preferences,
/// this session's notes.
#[derive(Clone)]
struct Files {
    agents_md: String,
    prefs: String,
    notes: String,
}
impl SessionValue for Files {}

impl Files {
    fn new() -> Self {
        let mut agents_md = String::from("# Rules\n\n");
        for i in 0..60 {
            agents_md.push_str(&format!(
                "Line {i}: run `make check` before every commit.\n"
            ));
        }
        Self {
            agents_md,
            prefs: "Prefers tabs. Answers in English.".to_owned(),
            notes: "Working on the login bug.".to_owned(),
        }
    }
}

/// Which file a layer renders.
#[derive(Clone, Copy)]
enum Source {
    Persona,
    Agents,
    Prefs,
    Notes,
}

struct FileLayer(Source);

impl Render<Stable> for FileLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        let Some(files) = input.get::<Files>() else {
            return;
        };
        match self.0 {
            Source::Persona => out.push_str(&persona()),
            Source::Agents => {
                input.note(format!("AGENTS.md: {} bytes", files.agents_md.len()));
                out.push_str("# Project context\n\n");
                out.push_str(&files.agents_md);
            }
            Source::Prefs => out.push_str(&files.prefs),
            Source::Notes => out.push_str(&files.notes),
        }
    }
}

/// The turn's clock, for the Dynamic layer.
struct Now(&'static str);
impl TurnValue for Now {}

struct Runtime;

impl Render for Runtime {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        out.push_str("Now: ");
        out.push_str(input.get::<Now>().map_or("unknown", |n| n.0));
    }
}

/// Four Stable layers, one per scope, and one Dynamic layer.
fn pipeline() -> Pipeline {
    let stable = |name, priority, scope, source| {
        LayerEntry::new(
            spec(name, priority, Stability::Stable).scope(scope),
            FileLayer(source),
        )
    };
    Pipeline::from_layers(
        TEST,
        [
            stable("persona", 1, Scope::Global, Source::Persona),
            stable("project_context", 2, Scope::Project, Source::Agents),
            stable("user_preferences", 3, Scope::User, Source::Prefs),
            stable("session_notes", 4, Scope::Session, Source::Notes),
            LayerEntry::new(spec("runtime", 10_000, Stability::Dynamic), Runtime),
        ],
    )
    .expect("a valid pipeline")
}

fn build(pipeline: &Pipeline, files: &Files, now: &'static str) -> AssembledPrompt {
    PromptBuilder::new(pipeline)
        .build_cached(
            &Context::new().with(files.clone()),
            &TurnContext::new().with(Now(now)),
        )
        .expect("assembles")
}

fn t(seconds: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000).unwrap() + SignedDuration::from_secs(seconds)
}

const SONNET: &str = "claude-sonnet-4-5";

fn anthropic(at: i64) -> Sent<'static> {
    Sent::new(Provider::Anthropic, SONNET, t(at))
}

// --- response bodies, as the APIs return them ------------------------------

/// An Anthropic Messages response.
fn message(id: &str, input: u64, read: u64, write: u64) -> Value {
    json!({
        "id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": "Done."}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {
            "input_tokens": input,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
            "cache_creation": {"ephemeral_5m_input_tokens": write, "ephemeral_1h_input_tokens": 0},
            "output_tokens": 12,
            "service_tier": "standard"
        }
    })
}

fn usage_of(provider: Provider, body: &Value) -> CacheUsage {
    CacheUsage::from_response(provider, body).expect("a usage")
}

fn anthropic_usage(input: u64, read: u64, write: u64) -> CacheUsage {
    usage_of(Provider::Anthropic, &message("msg_x", input, read, write))
}

/// An OpenAI Responses response.
fn response(id: &str, input: u64, cached: u64) -> Value {
    json!({
        "id": id, "object": "response", "created_at": 1_800_000_000, "status": "completed",
        "model": "gpt-5-2025-08-07", "output": [], "error": null, "incomplete_details": null,
        "usage": {
            "input_tokens": input,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": 44,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input + 44
        }
    })
}

/// A Gemini `generateContent` response.
fn gemini(prompt: u64, cached: Option<u64>) -> Value {
    let mut usage = json!({
        "promptTokenCount": prompt, "candidatesTokenCount": 7, "totalTokenCount": prompt + 7,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}]
    });
    if let Some(cached) = cached {
        usage["cachedContentTokenCount"] = json!(cached);
        usage["cacheTokensDetails"] = json!([{"modality": "TEXT", "tokenCount": cached}]);
    }
    json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "Done."}]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": usage,
        "modelVersion": "gemini-2.5-flash",
        "responseId": "resp-gem-1"
    })
}

// --- usage arithmetic per provider ----------------------------------------

#[test]
fn anthropic_reports_the_cache_beside_input_tokens_with_writes_by_ttl() {
    let body = json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": SONNET,
        "content": [], "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 3, "cache_creation_input_tokens": 1500,
                  "cache_read_input_tokens": 9000,
                  "cache_creation": {"ephemeral_5m_input_tokens": 500, "ephemeral_1h_input_tokens": 1000},
                  "output_tokens": 80}
    });
    let usage = usage_of(Provider::Anthropic, &body);
    assert_eq!(
        (
            usage.uncached_input,
            usage.read,
            usage.written,
            usage.output
        ),
        (3, 9000, 1500, Some(80))
    );
    assert_eq!(usage.input_tokens(), 10_503);
    let ttl: Vec<(u64, u64)> = usage
        .written_ttl
        .iter()
        .map(|t| (t.ttl.as_secs(), t.tokens))
        .collect();
    assert_eq!(ttl, [(300, 500), (3600, 1000)]);
    assert_eq!(usage.response_id.as_deref(), Some("msg_01"));

    // No cache fields at all: an uncached request, not a guess.
    let plain = json!({"type": "message", "usage": {"input_tokens": 40, "output_tokens": 2}});
    assert_eq!(
        usage_of(Provider::Anthropic, &plain),
        CacheUsage::new(40, 0, 0).output(2)
    );
}

#[test]
fn anthropic_streams_carry_the_input_counts_in_message_start_and_cumulative_deltas() {
    let start = json!({"type": "message_start", "message": message("msg_s", 5, 2048, 0)});
    assert_eq!(usage_of(Provider::Anthropic, &start).read, 2048);
    // The newer delta carries cumulative input counts; the older only output.
    let full_delta = json!({"type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": null},
        "usage": {"output_tokens": 57, "input_tokens": 5, "cache_read_input_tokens": 2048,
                  "cache_creation_input_tokens": 0}});
    assert_eq!(
        usage_of(Provider::Anthropic, &full_delta),
        CacheUsage::new(5, 2048, 0).output(57)
    );
    let bare_delta = json!({"type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": null},
        "usage": {"output_tokens": 57}});
    let error = CacheUsage::from_response(Provider::Anthropic, &bare_delta).unwrap_err();
    assert!(matches!(error, UsageError::NoUsage { .. }), "{error}");
    assert!(error.to_string().contains("message_start"), "{error}");

    let stream = [
        start,
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "ping"}),
        bare_delta,
        json!({"type": "message_stop"}),
    ];
    let usage = CacheUsage::from_stream(Provider::Anthropic, &stream).unwrap();
    assert_eq!((usage.read, usage.output), (2048, Some(57)));
    assert_eq!(usage.response_id.as_deref(), Some("msg_s"));
    let error =
        CacheUsage::from_stream(Provider::Anthropic, &[json!({"type": "ping"})]).unwrap_err();
    assert!(matches!(error, UsageError::NoUsage { .. }), "{error}");
}

#[test]
fn openai_counts_cached_and_written_tokens_inside_the_input() {
    let usage = usage_of(Provider::OpenAi, &response("resp_1", 12_033, 11_904));
    assert_eq!(
        (usage.uncached_input, usage.read, usage.written),
        (129, 11_904, 0)
    );
    assert_eq!(usage.input_tokens(), 12_033);
    assert_eq!(usage.response_model.as_deref(), Some("gpt-5-2025-08-07"));

    // Explicit caching (gpt-5.6 and later) reports writes, by TTL.
    let mut body = response("resp_2", 9000, 0);
    body["usage"]["input_tokens_details"] = json!({
        "cached_tokens": 0, "cache_write_tokens": 8960,
        "cache_write_tokens_details": {"ttl_30m_tokens": 8960, "ttl_12h_tokens": 0}
    });
    let usage = usage_of(Provider::OpenAi, &body);
    assert_eq!(
        (usage.uncached_input, usage.read, usage.written),
        (40, 0, 8960)
    );
    assert_eq!(usage.written_ttl[0].ttl, Duration::from_secs(1800));

    // Chat Completions: `prompt_tokens` holds the cached ones.
    let chat = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1",
        "choices": [],
        "usage": {"prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
                  "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
                  "completion_tokens_details": {"reasoning_tokens": 0}}
    });
    assert_eq!(
        usage_of(Provider::OpenAi, &chat),
        CacheUsage::new(86, 1920, 0)
            .output(300)
            .response_id("chatcmpl-1")
            .with_model_for_test("gpt-4.1")
    );

    // The streaming event that carries the final response.
    let event = json!({"type": "response.completed", "sequence_number": 9,
                       "response": response("resp_3", 5000, 4864)});
    assert_eq!(usage_of(Provider::OpenAi, &event).read, 4864);
    let progress = json!({"type": "response.created", "response": {
        "id": "resp_4", "object": "response", "status": "in_progress", "usage": null}});
    let error = CacheUsage::from_response(Provider::OpenAi, &progress).unwrap_err();
    assert!(error.to_string().contains("still in progress"), "{error}");
}

/// `with_response_model` is not public: the test sets the field it reads.
trait WithModel {
    fn with_model_for_test(self, model: &str) -> Self;
}
impl WithModel for CacheUsage {
    fn with_model_for_test(mut self, model: &str) -> Self {
        self.response_model = Some(model.to_owned());
        self
    }
}

#[test]
fn gemini_counts_cached_content_inside_the_prompt_and_tool_results_beside_it() {
    let usage = usage_of(Provider::Gemini, &gemini(5000, Some(4096)));
    assert_eq!(
        (usage.uncached_input, usage.read, usage.written),
        (904, 4096, 0)
    );
    assert_eq!(usage.response_id.as_deref(), Some("resp-gem-1"));
    // Implicit caching that read nothing says nothing.
    assert_eq!(
        usage_of(Provider::Gemini, &gemini(300, None)).uncached_input,
        300
    );
    let mut body = gemini(1000, Some(0));
    body["usageMetadata"]["toolUsePromptTokenCount"] = json!(250);
    assert_eq!(usage_of(Provider::Gemini, &body).uncached_input, 1250);
}

#[test]
fn bad_or_partial_bodies_are_errors_that_name_the_field() {
    let cases: Vec<(Provider, Value, &str)> = vec![
        (Provider::Anthropic, json!([1, 2]), "is not a JSON object"),
        (
            Provider::Anthropic,
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
            "is an error, with no usage: Overloaded",
        ),
        (
            Provider::Anthropic,
            json!({"type": "message", "usage": {"output_tokens": 3}}),
            "has no `usage.input_tokens`",
        ),
        (
            Provider::Anthropic,
            json!({"type": "message", "usage": {"input_tokens": "12"}}),
            "`usage.input_tokens` is a string, not a count",
        ),
        (
            Provider::Anthropic,
            json!({"type": "message", "usage": {"input_tokens": -3}}),
            "`usage.input_tokens` is -3, not a count",
        ),
        (
            Provider::Anthropic,
            json!({"type": "message", "usage": {"input_tokens": 1, "cache_creation_input_tokens": 10,
                   "cache_creation": {"ephemeral_5m_input_tokens": 4, "ephemeral_1h_input_tokens": 0}}}),
            "4 (5m) + 0 (1h) = 4 tokens, but `usage.cache_creation_input_tokens` is 10",
        ),
        (
            Provider::OpenAi,
            json!({"object": "response", "usage": {"input_tokens": 10,
                   "input_tokens_details": {"cached_tokens": 11}}}),
            "11 cached + 0 written tokens exceed the 10 of `usage.input_tokens`",
        ),
        (
            Provider::OpenAi,
            json!({"error": {"message": "Rate limit reached\u{1b}[2J", "type": "requests"}}),
            "Rate limit reached\\u{1b}[2J",
        ),
        (
            Provider::Gemini,
            json!({"candidates": []}),
            "no `usageMetadata`",
        ),
        (
            Provider::Gemini,
            json!({"usageMetadata": {"promptTokenCount": 10, "cachedContentTokenCount": 1.5}}),
            "`usageMetadata.cachedContentTokenCount` is 1.5, not a count",
        ),
    ];
    for (provider, body, expected) in cases {
        let error = CacheUsage::from_response(provider, &body)
            .unwrap_err()
            .to_string();
        assert!(error.contains(expected), "{provider}: {error}");
        assert!(!error.contains('\u{1b}'), "{error}");
    }
}

#[test]
fn the_providers_diagnoses_are_read_as_they_come() {
    let mut body = message("msg_2", 3, 0, 4100);
    body["diagnostics"] = json!({"cache_miss_reason":
        {"type": "system_changed", "cache_missed_input_tokens": 4096}});
    let diagnosis = usage_of(Provider::Anthropic, &body).diagnosis.unwrap();
    assert_eq!(diagnosis.outcome, DiagnosisOutcome::Miss);
    assert_eq!(diagnosis.reason.as_deref(), Some("system_changed"));
    assert_eq!(diagnosis.missed_tokens, Some(4096));
    body["diagnostics"] = json!({"cache_miss_reason": null});
    assert_eq!(
        usage_of(Provider::Anthropic, &body)
            .diagnosis
            .unwrap()
            .outcome,
        DiagnosisOutcome::Pending
    );
    body["diagnostics"] = json!({"cache_miss_reason": {"type": "previous_message_not_found"}});
    assert_eq!(
        usage_of(Provider::Anthropic, &body)
            .diagnosis
            .unwrap()
            .outcome,
        DiagnosisOutcome::PreviousNotFound
    );
    body["diagnostics"] = Value::Null;
    assert_eq!(usage_of(Provider::Anthropic, &body).diagnosis, None);

    let mut body = response("resp_9", 9000, 0);
    body["prompt_cache_diagnostics"] = json!({"type": "cache_miss", "reason": "input_changed",
        "cache_missed_tokens": 8000, "comparison_reusable_tokens": 8192});
    let diagnosis = usage_of(Provider::OpenAi, &body).diagnosis.unwrap();
    assert_eq!(
        (
            diagnosis.outcome,
            diagnosis.reason.as_deref(),
            diagnosis.reusable_tokens
        ),
        (DiagnosisOutcome::Miss, Some("input_changed"), Some(8192))
    );
    body["prompt_cache_diagnostics"] = json!({"type": "cache_hit"});
    assert_eq!(
        usage_of(Provider::OpenAi, &body).diagnosis.unwrap().outcome,
        DiagnosisOutcome::Hit
    );
    body["prompt_cache_diagnostics"] = json!({"type": "cache_maybe"});
    assert!(CacheUsage::from_response(Provider::OpenAi, &body).is_err());
}

// --- the verdict, cause by cause -------------------------------------------

/// A conversation's first call (cold), then a call a minute later (a hit).
fn warm(ledger: &mut CacheLedger, prompt: &AssembledPrompt) {
    let id = ledger.sent(prompt, anthropic(0));
    let cold = ledger.received(id, &anthropic_usage(20, 0, 4100)).unwrap();
    assert!(
        matches!(cold.cause, Some(MissCause::ColdStart { .. })),
        "{cold}"
    );
    let id = ledger.sent(prompt, anthropic(60));
    let hit = ledger.received(id, &anthropic_usage(25, 4100, 0)).unwrap();
    assert!(hit.is_hit(), "{hit}");
    assert_eq!((hit.expected, hit.expected_estimated), (4100, false));
}

#[test]
fn cold_start_then_hit() {
    let pipeline = pipeline();
    let files = Files::new();
    let mut ledger = CacheLedger::new();
    let prompt = build(&pipeline, &files, "09:00");
    let id = ledger.sent(&prompt, anthropic(0));
    let cold = ledger.received(id, &anthropic_usage(20, 0, 4100)).unwrap();
    assert!(matches!(cold.cause, Some(MissCause::ColdStart { .. })));
    assert_eq!((cold.expected, cold.lost_tokens), (0, 0));
    assert_eq!(
        cold.to_string(),
        "cold start: 4,100 tokens written; expected once per conversation; the next call \
         within the TTL reads it"
    );
    // The Dynamic part changes every call: the stable prefix still hits.
    let id = ledger.sent(&build(&pipeline, &files, "09:01"), anthropic(60));
    let hit = ledger.received(id, &anthropic_usage(25, 4100, 0)).unwrap();
    assert!(hit.is_hit(), "{hit}");
    assert_eq!(
        hit.to_string(),
        "hit: read 4,100 of 4,125 input tokens (99%)"
    );
    assert_eq!(hit.stable_fingerprint, prompt.trace().stable_fingerprint());
}

#[test]
fn a_changed_layer_is_named_with_its_scope_byte_and_line() {
    let pipeline = pipeline();
    let before = Files::new();
    let mut ledger =
        CacheLedger::new().pricing(Pricing::anthropic(3.0, CacheTtl::FiveMinutes).unwrap());
    let first = build(&pipeline, &before, "09:00");
    warm(&mut ledger, &first);

    let mut after = before.clone();
    after.agents_md = after
        .agents_md
        .replace("Line 7: run `make check`", "Line 7: run `make test`");
    let second = build(&pipeline, &after, "09:02");
    // The byte: where the two prefixes part, found here by hand.
    let expected_offset =
        first.stable().find("Line 7: run `make check`").unwrap() + "Line 7: run `make ".len();
    assert_eq!(
        &second.stable()[..expected_offset],
        &first.stable()[..expected_offset]
    );
    // Breakpoints at the end of the Global part and at the end of the prefix.
    let global_end = persona().len() + 2;
    let breakpoints = [global_end, second.stable().len()];
    let id = ledger.sent(&second, anthropic(120).breakpoints(&breakpoints));
    // The Global part (~512 tokens) is read; the rest written again.
    let verdict = ledger
        .received(id, &anthropic_usage(25, 512, 3588))
        .unwrap();
    let Some(MissCause::LayerChanged {
        layer,
        scope,
        offset,
        kind,
        tokens_after,
        kept_bytes,
        line,
        reads,
        ..
    }) = &verdict.cause
    else {
        panic!("{verdict}")
    };
    assert_eq!(layer, "project_context");
    assert_eq!(*scope, Some(Scope::Project));
    assert_eq!(*offset, expected_offset);
    assert_eq!(*kind, ChangeKind::Changed);
    assert_eq!(
        *tokens_after,
        (second.stable().len() - expected_offset).div_ceil(4) as u64
    );
    // The first request's breakpoints: only its end, which lies past the change.
    assert_eq!(*kept_bytes, 0);
    let line = line.as_ref().unwrap();
    // `# Project context`, a blank, `# Rules`, a blank, then Line 0 on line 5.
    assert_eq!(line.number, 12);
    assert_eq!(
        line.before.as_deref(),
        Some("Line 7: run `make check` before every commit.")
    );
    assert_eq!(
        line.after.as_deref(),
        Some("Line 7: run `make test` before every commit.")
    );
    assert_eq!(
        reads,
        &[format!("AGENTS.md: {} bytes", after.agents_md.len())]
    );
    assert_eq!((verdict.expected, verdict.read), (4100, 512));
    assert_eq!((verdict.lost_tokens, verdict.lost_written), (3588, 3588));
    let usd = verdict.lost_usd.unwrap();
    assert!((usd - 3588.0 * (3.75 - 0.30) / 1e6).abs() < 1e-9, "{usd}");
    let text = verdict.to_string();
    assert!(
        text.starts_with(&format!(
            "layer `project_context` (Project) changed at byte {} (line 12: \"Line 7: run `make \
             check` before every commit.\" -> \"Line 7: run `make test` before every commit.\"); \
             it noted: AGENTS.md: {} bytes: 3,588 tokens re-written, USD 0.0124 more than a hit; ",
            thousands(expected_offset),
            after.agents_md.len()
        )),
        "{text}"
    );

    // The next change: its breakpoints kept the Global part.
    let mut third_files = after.clone();
    third_files.prefs = "Prefers spaces.".to_owned();
    let third = build(&pipeline, &third_files, "09:03");
    let id = ledger.sent(&third, anthropic(150));
    let verdict = ledger.received(id, &anthropic_usage(25, 3900, 20)).unwrap();
    let Some(MissCause::LayerChanged {
        layer,
        scope,
        offset,
        kept_bytes,
        ..
    }) = &verdict.cause
    else {
        panic!("{verdict}")
    };
    assert_eq!(
        (layer.as_str(), *scope),
        ("user_preferences", Some(Scope::User))
    );
    assert_eq!(
        *offset,
        third.stable().find("Prefers s").unwrap() + "Prefers ".len()
    );
    assert_eq!(*kept_bytes, global_end);
}

#[test]
fn a_layer_that_goes_silent_or_speaks_again_is_named() {
    let pipeline = pipeline();
    let files = Files::new();
    let mut ledger = CacheLedger::new();
    warm(&mut ledger, &build(&pipeline, &files, "09:00"));
    let mut quiet = files.clone();
    quiet.prefs.clear();
    let id = ledger.sent(&build(&pipeline, &quiet, "09:02"), anthropic(120));
    let verdict = ledger.received(id, &anthropic_usage(25, 0, 4090)).unwrap();
    let Some(MissCause::LayerChanged { layer, kind, .. }) = &verdict.cause else {
        panic!("{verdict}")
    };
    assert_eq!(
        (layer.as_str(), *kind),
        ("user_preferences", ChangeKind::Removed)
    );
    assert!(
        verdict
            .to_string()
            .starts_with("layer `user_preferences` (User) went silent at byte")
    );
}

#[test]
fn an_idle_gap_past_the_ttl_is_an_expiry_not_a_change() {
    let pipeline = pipeline();
    let files = Files::new();
    let mut ledger = CacheLedger::new();
    let prompt = build(&pipeline, &files, "09:00");
    warm(&mut ledger, &prompt);
    // Six minutes after the last call, same prefix: a 5-minute entry is gone.
    let id = ledger.sent(&build(&pipeline, &files, "09:07"), anthropic(60 + 360));
    let verdict = ledger.received(id, &anthropic_usage(25, 0, 4100)).unwrap();
    assert_eq!(
        verdict.cause,
        Some(
            serde_json::from_value(json!({"cause": "ttl_expired", "idle": 360, "ttl": 300}))
                .unwrap()
        )
    );
    assert!(
        verdict
            .to_string()
            .starts_with("TTL expired: idle 6m 00s against 5m 00s: 4,100 tokens re-written")
    );

    // With a 1-hour TTL, the same gap reads.
    let hour = Duration::from_secs(3600);
    let id = ledger.sent(&prompt, anthropic(900).ttl(hour));
    let verdict = ledger.received(id, &anthropic_usage(25, 4100, 0)).unwrap();
    assert!(verdict.is_hit(), "{verdict}");
    assert_eq!(verdict.ttl, hour);
}

/// A pipeline whose whole stable prefix is one short sentence.
fn short_pipeline() -> Pipeline {
    prompt_tests::fixed(&[("persona", 1, Stability::Stable, "You are terse.")])
}

#[test]
fn a_prefix_below_the_models_minimum_is_said_so_every_time() {
    let pipeline = short_pipeline();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let mut ledger = CacheLedger::new();
    for at in [0, 30] {
        let id = ledger.sent(&prompt, anthropic(at));
        let verdict = ledger.received(id, &anthropic_usage(120, 0, 0)).unwrap();
        assert_eq!(
            verdict.cause,
            Some(
                serde_json::from_value(
                    json!({"cause": "below_minimum", "tokens": 4, "minimum": 1024})
                )
                .unwrap()
            ),
            "{verdict}"
        );
        assert!(verdict.to_string().starts_with(
            "below the minimum: about 4 tokens, the model caches from 1,024: nothing lost; nothing is cached below it"
        ));
    }
    // Opus 4.5's minimum is 4,096 (the crate's table).
    let id = ledger.sent(
        &prompt,
        Sent::new(Provider::Anthropic, "claude-opus-4-5", t(60)),
    );
    let verdict = ledger.received(id, &anthropic_usage(120, 0, 0)).unwrap();
    assert!(
        matches!(
            verdict.cause,
            Some(MissCause::BelowMinimum { minimum: 4096, .. })
        ),
        "{verdict}"
    );
    // OpenAI: a minimum given, the whole prompt counted.
    let id = ledger.sent(
        &prompt,
        Sent::new(Provider::OpenAi, "gpt-5", t(90)).minimum(1024),
    );
    let verdict = ledger
        .received(id, &usage_of(Provider::OpenAi, &response("r", 700, 0)))
        .unwrap();
    assert!(
        matches!(
            verdict.cause,
            Some(MissCause::BelowMinimum {
                tokens: 700,
                minimum: 1024,
                ..
            })
        ),
        "{verdict}"
    );
}

#[test]
fn another_model_misses_whatever_else_is_the_same() {
    let pipeline = pipeline();
    let files = Files::new();
    let mut ledger = CacheLedger::new();
    let prompt = build(&pipeline, &files, "09:00");
    warm(&mut ledger, &prompt);
    let id = ledger.sent(
        &prompt,
        Sent::new(Provider::Anthropic, "claude-opus-4-5", t(90)),
    );
    let verdict = ledger.received(id, &anthropic_usage(25, 0, 4100)).unwrap();
    assert_eq!(
        verdict.cause,
        Some(
            serde_json::from_value(json!({"cause": "model_changed",
            "from": "claude-sonnet-4-5", "to": "claude-opus-4-5"}))
            .unwrap()
        )
    );
}

#[test]
fn changed_tools_come_before_the_prompt() {
    let pipeline = pipeline();
    let prompt = build(&pipeline, &Files::new(), "09:00");
    let read = json!([{"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}}]);
    let both = json!([read[0], {"name": "bash", "input_schema": {"type": "object"}}]);
    let mut ledger = CacheLedger::new();
    let id = ledger.sent(&prompt, anthropic(0).tools(&read));
    ledger.received(id, &anthropic_usage(20, 0, 4300)).unwrap();
    let id = ledger.sent(&prompt, anthropic(30).tools(&read));
    assert!(
        ledger
            .received(id, &anthropic_usage(20, 4300, 0))
            .unwrap()
            .is_hit()
    );
    let id = ledger.sent(&prompt, anthropic(60).tools(&both));
    let verdict = ledger.received(id, &anthropic_usage(20, 0, 4400)).unwrap();
    assert!(
        matches!(verdict.cause, Some(MissCause::ToolsChanged { .. })),
        "{verdict}"
    );
    assert_eq!(verdict.lost_tokens, 4300);
}

#[test]
fn a_rewritten_history_is_told_from_a_grown_one() {
    let pipeline = pipeline();
    let prompt = build(&pipeline, &Files::new(), "09:00");
    let turns = [
        r#"{"role":"user","content":"Fix the login bug."}"#,
        r#"{"role":"assistant","content":"Looking."}"#,
        r#"{"role":"user","content":"And the test."}"#,
    ];
    let mut ledger = CacheLedger::new();
    // The application caches the conversation too: each response read and
    // wrote through its last user turn.
    let id = ledger.sent(&prompt, anthropic(0).messages(&turns[..1]));
    ledger.received(id, &anthropic_usage(10, 0, 4150)).unwrap();
    let id = ledger.sent(&prompt, anthropic(20).messages(&turns[..3]));
    let grown = ledger.received(id, &anthropic_usage(10, 4150, 40)).unwrap();
    assert!(grown.is_hit(), "{grown}");
    // Compaction: the first message is rewritten; the system prompt is still read.
    let compacted = [
        r#"{"role":"user","content":"Summary: login bug, test."}"#,
        turns[2],
    ];
    let id = ledger.sent(&prompt, anthropic(40).messages(compacted));
    let verdict = ledger.received(id, &anthropic_usage(10, 4100, 60)).unwrap();
    assert_eq!(
        verdict.cause,
        Some(
            serde_json::from_value(
                json!({"cause": "messages_rewritten", "at": 0, "role": "user", "offset": 0,
                       "before": 3, "now": 2})
            )
            .unwrap()
        ),
        "{verdict}"
    );
    // A hit would have read 4,190; the compacted request had only 4,170 to
    // pay for, 4,100 of them read.
    assert_eq!(verdict.lost_tokens, 4170 - 4100);
}

/// An Anthropic request body whose history was kept as sent: each turn's
/// per-turn block stays on its user message, and the breakpoint sits on the
/// newest message only.
fn body_as_sent(turns: usize) -> Value {
    let mut messages = Vec::new();
    for turn in 0..turns {
        if turn > 0 {
            messages.push(json!({"role": "assistant", "content": [
                {"type": "text", "text": format!("Reply {turn}: {}", "done. ".repeat(40))}
            ]}));
        }
        messages.push(json!({"role": "user", "content": [
            {"type": "text", "text": format!("<system-reminder>Now: 09:0{turn}</system-reminder>")},
            {"type": "text", "text": format!("Question {turn}")}
        ]}));
    }
    if let Some(last) = messages.last_mut() {
        last["content"][1]["cache_control"] = json!({"type": "ephemeral"});
    }
    json!({"model": SONNET, "max_tokens": 64, "messages": messages})
}

#[test]
fn a_history_kept_as_sent_is_never_rewritten_and_a_rewrite_names_the_message() {
    let pipeline = pipeline();
    let prompt = build(&pipeline, &Files::new(), "09:00");
    let mut ledger = CacheLedger::new();
    // Five turns, each body the previous one's messages with the reply and
    // the next turn appended, the breakpoint moved to the newest message; the
    // last two responses read less than expected (the provider's doing).
    let mut verdicts = Vec::new();
    for turn in 1..=5usize {
        let id = ledger.sent(
            &prompt,
            anthropic(20 * turn as i64).history(&body_as_sent(turn)),
        );
        let (read, written) = match turn {
            1 => (0, 4200),
            2 => (4200, 100),
            3 => (4300, 100),
            _ => (0, 4400),
        };
        verdicts.push(
            ledger
                .received(id, &anthropic_usage(40, read, written))
                .unwrap(),
        );
    }
    assert!(
        verdicts[1].is_hit() && verdicts[2].is_hit(),
        "{}",
        verdicts[1]
    );
    for verdict in &verdicts[3..] {
        assert!(
            matches!(verdict.cause, Some(MissCause::ProviderSide { .. })),
            "{verdict}"
        );
    }
    // The client re-sent turn 2 without its block: that is a rewrite, of a
    // user message, past the bytes both share.
    let mut stripped = body_as_sent(6);
    let messages = stripped["messages"].as_array_mut().unwrap();
    messages[2]["content"].as_array_mut().unwrap().remove(0);
    let id = ledger.sent(&prompt, anthropic(120).history(&stripped));
    let verdict = ledger.received(id, &anthropic_usage(40, 0, 4200)).unwrap();
    let Some(MissCause::MessagesRewritten {
        at,
        role,
        offset,
        before,
        now,
        ..
    }) = &verdict.cause
    else {
        panic!("{verdict}");
    };
    assert_eq!(
        (*at, role.as_deref(), *offset, *before, *now),
        (Some(2), Some("user"), Some(0), 9, 11)
    );
    assert!(
        verdict.to_string().starts_with(
            "messages rewritten from message 2 (user, at its start; 9 before, 11 now)"
        ),
        "{verdict}"
    );
}

#[test]
fn a_conversation_that_never_wrote_is_not_a_cold_start() {
    let pipeline = pipeline();
    let files = Files::new();
    let mut ledger = CacheLedger::new();
    let mut verdicts = Vec::new();
    for turn in 0..5 {
        let id = ledger.sent(&build(&pipeline, &files, "09:00"), anthropic(10 * turn));
        verdicts.push(ledger.received(id, &anthropic_usage(4200, 0, 0)).unwrap());
    }
    assert!(matches!(
        verdicts[0].cause,
        Some(MissCause::ColdStart { .. })
    ));
    let fifth = &verdicts[4];
    assert_eq!(
        fifth.cause,
        Some(serde_json::from_value(json!({"cause": "never_written", "requests": 5})).unwrap())
    );
    assert_eq!(fifth.cause.as_ref().unwrap().name(), "never_written");
    assert_eq!(
        fifth.to_string(),
        "nothing ever written: no response of the conversation's 5 requests read or wrote the \
         cache: 4,200 tokens billed uncached; not a cold start: the request may be below the \
         model's minimum, carry no breakpoint (`cache_control` dropped by a client or proxy), or \
         caching is disabled for the account or region; check the body as sent"
    );
    assert_eq!(fifth.lost_tokens, 0);
    // Once a response writes, a later cold cache is a cold start again.
    let id = ledger.sent(&build(&pipeline, &files, "09:00"), anthropic(60));
    ledger.received(id, &anthropic_usage(20, 0, 4200)).unwrap();
    let id = ledger.sent(&build(&pipeline, &files, "09:00"), anthropic(4000));
    let later = ledger.received(id, &anthropic_usage(20, 0, 0)).unwrap();
    assert!(
        !matches!(later.cause, Some(MissCause::NeverWritten { .. })),
        "{later}"
    );
}

#[test]
fn the_openai_key_follows_the_widest_scope_only() {
    use prompt_providers::openai::prompt_cache_key;
    struct Fixed(String);
    impl Render<Stable> for Fixed {
        fn render(&self, out: &mut LayerWriter<'_>, _: &LayerInput<'_, Stable>) {
            out.push_str(&self.0);
        }
    }
    let key = |global: &str, project: &str| {
        let layer = |name, priority, scope, text: &str| {
            LayerEntry::new(
                spec(name, priority, Stability::Stable).scope(scope),
                Fixed(text.to_owned()),
            )
        };
        let pipeline = Pipeline::from_layers(
            TEST,
            [
                layer("persona", 1, Scope::Global, global),
                layer("agents_md", 2, Scope::Project, project),
                layer("prefs", 3, Scope::User, "tabs"),
            ],
        )
        .expect("a valid pipeline");
        let prompt = PromptBuilder::new(&pipeline)
            .build_cached(&Context::new(), &TurnContext::new())
            .expect("assembles");
        prompt_cache_key(&prompt)
    };
    let before = key("You are careful.", "Run make check.");
    assert_eq!(
        before,
        format!(
            "test-{}",
            prompt_core::fingerprint::Fingerprint::of("You are careful.").short()
        )
    );
    // An AGENTS.md edit (Project) keeps the routing of the Global part.
    assert_eq!(key("You are careful.", "Run cargo test."), before);
    // A Global edit moves it.
    assert_ne!(key("You are thorough.", "Run make check."), before);
    // With no Global layer, the Project part is the widest.
    assert_ne!(key("", "Run make check."), key("", "Run cargo test."));
}

#[test]
fn a_miss_with_nothing_moved_is_the_providers() {
    let pipeline = pipeline();
    let files = Files::new();
    let prompt = build(&pipeline, &files, "09:00");
    let mut ledger = CacheLedger::new();
    warm(&mut ledger, &prompt);
    let id = ledger.sent(&build(&pipeline, &files, "09:02"), anthropic(120));
    let verdict = ledger.received(id, &anthropic_usage(25, 0, 4100)).unwrap();
    assert!(
        matches!(verdict.cause, Some(MissCause::ProviderSide { .. })),
        "{verdict}"
    );
    assert!(!verdict.cause.as_ref().unwrap().is_ours());
    assert!(
        verdict
            .to_string()
            .starts_with("provider side: nothing of ours moved: 4,100 tokens re-written;")
    );
}

#[test]
fn implicit_caches_are_judged_against_the_prefix_estimate_within_a_tolerance() {
    let pipeline = pipeline();
    let files = Files::new();
    let prompt = build(&pipeline, &files, "09:00");
    let estimate = prompt.stable().len().div_ceil(4) as u64;
    let mut ledger = CacheLedger::new();
    let openai = |at| Sent::new(Provider::OpenAi, "gpt-5", t(at));
    let id = ledger.sent(&prompt, openai(0));
    let first = ledger
        .received(id, &usage_of(Provider::OpenAi, &response("r1", 1300, 0)))
        .unwrap();
    assert!(
        matches!(first.cause, Some(MissCause::ColdStart { .. })),
        "{first}"
    );
    // Read in 128-token steps, a little under the estimate: a hit.
    let read = estimate / 128 * 128;
    let id = ledger.sent(&prompt, openai(30));
    let hit = ledger
        .received(
            id,
            &usage_of(Provider::OpenAi, &response("r2", estimate + 200, read)),
        )
        .unwrap();
    assert!(hit.is_hit(), "{hit}");
    assert_eq!(hit.expected, estimate);
    assert!(hit.expected_estimated);
    // Read nothing, nothing moved: the provider's.
    let id = ledger.sent(&prompt, openai(60));
    let miss = ledger
        .received(
            id,
            &usage_of(Provider::OpenAi, &response("r3", estimate + 300, 0)),
        )
        .unwrap();
    assert!(
        matches!(miss.cause, Some(MissCause::ProviderSide { .. })),
        "{miss}"
    );
    assert_eq!(miss.lost_tokens, estimate);
    assert_eq!(miss.lost_written, 0);
    assert!(
        miss.to_string().contains("tokens billed uncached"),
        "{miss}"
    );

    // Gemini: the same arithmetic.
    let mut ledger = CacheLedger::new();
    let gem = |at| Sent::new(Provider::Gemini, "gemini-2.5-flash", t(at));
    let id = ledger.sent(&prompt, gem(0));
    ledger
        .received(id, &usage_of(Provider::Gemini, &gemini(1400, None)))
        .unwrap();
    let id = ledger.sent(&prompt, gem(10));
    let hit = ledger
        .received(
            id,
            &usage_of(Provider::Gemini, &gemini(1500, Some(estimate))),
        )
        .unwrap();
    assert!(hit.is_hit(), "{hit}");
}

/// OpenAI's implicit cache keeps nothing of a prompt under 1,024 tokens
/// (the crate's minimums table): a read of nothing after one is a cold
/// start, not the provider's; and the whole prompt, not the short system
/// prompt, is what reaches the minimum.
#[test]
fn openai_keeps_nothing_of_a_prompt_below_its_minimum_and_says_so() {
    let pipeline = short_pipeline();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let mut ledger = CacheLedger::new();
    let openai = |at| Sent::new(Provider::OpenAi, "gpt-5.4", t(at));
    let turn = |ledger: &mut CacheLedger, at, input, cached| {
        let id = ledger.sent(&prompt, openai(at));
        let usage = usage_of(Provider::OpenAi, &response("r", input, cached));
        ledger.received(id, &usage).unwrap()
    };
    // 900 tokens in all: below OpenAI's minimum, whatever the history.
    let first = turn(&mut ledger, 0, 900, 0);
    assert!(
        matches!(
            first.cause,
            Some(MissCause::BelowMinimum {
                tokens: 900,
                minimum: 1024,
                ..
            })
        ),
        "{first}"
    );
    // The history grew past it: nothing was kept of the first, so nothing
    // is read, and that is a cold start, not a provider-side miss.
    let second = turn(&mut ledger, 30, 1100, 0);
    assert!(
        matches!(second.cause, Some(MissCause::ColdStart { .. })),
        "{second}"
    );
    assert_eq!((second.expected, second.lost_tokens), (0, 0), "{second}");
    // Now the cache holds the second prompt: 1,024 of it read is a hit.
    let third = turn(&mut ledger, 60, 1300, 1024);
    assert!(third.is_hit(), "{third}");
    // And nothing read with nothing moved, above the minimum, is the provider's.
    let fourth = turn(&mut ledger, 90, 1500, 0);
    assert!(
        matches!(fourth.cause, Some(MissCause::ProviderSide { .. })),
        "{fourth}"
    );
}

// --- the provider's diagnosis ----------------------------------------------

#[test]
fn the_verdict_agrees_with_the_providers_diagnosis_or_says_where_they_differ() {
    let pipeline = pipeline();
    let files = Files::new();
    let first = build(&pipeline, &files, "09:00");
    let mut edited = files.clone();
    edited.notes = "Working on the logout bug.".to_owned();
    let second = build(&pipeline, &edited, "09:01");

    let diagnosed = |reason: Value| {
        let mut body = message("msg_b", 3, 0, 4100);
        body["diagnostics"] = json!({"cache_miss_reason": reason});
        usage_of(Provider::Anthropic, &body)
    };
    let judge = |prompt: &AssembledPrompt, usage: CacheUsage| -> CacheVerdict {
        let mut ledger = CacheLedger::new();
        warm(&mut ledger, &first);
        let id = ledger.sent(prompt, anthropic(90).previous_response("msg_a"));
        ledger.received(id, &usage).unwrap()
    };

    // Both say the system prompt changed; only the ledger says which layer.
    let verdict = judge(
        &second,
        diagnosed(json!({"type": "system_changed", "cache_missed_input_tokens": 4090})),
    );
    assert!(matches!(
        verdict.cause,
        Some(MissCause::LayerChanged { .. })
    ));
    assert_eq!(verdict.agreement.as_deref(), Some(&Agreement::Agrees {}));

    // The provider saw the system change, the ledger's prefix did not move:
    // a block outside the assembled prompt changed.
    let verdict = judge(
        &first,
        diagnosed(json!({"type": "system_changed", "cache_missed_input_tokens": 4090})),
    );
    assert!(matches!(
        verdict.cause,
        Some(MissCause::ProviderSide { .. })
    ));
    let Some(Agreement::Differs { ours, theirs, note }) = verdict.agreement.as_deref() else {
        panic!("{:?}", verdict.agreement)
    };
    assert_eq!(
        (ours.as_deref(), theirs.as_str()),
        (Some("provider_side"), "system_changed (4090 tokens)")
    );
    assert!(note.contains("the provider says the system prompt changed, but nothing the ledger was told about moved"), "{note}");

    // The provider blames the tools; the ledger saw a layer.
    let verdict = judge(
        &second,
        diagnosed(json!({"type": "tools_changed", "cache_missed_input_tokens": 4100})),
    );
    let Some(Agreement::Differs { note, .. }) = verdict.agreement.as_deref() else {
        panic!("{:?}", verdict.agreement)
    };
    assert!(note.starts_with("the provider says the tools changed; the ledger saw layer `session_notes` (Session) changed"), "{note}");

    // Still running: nothing to compare.
    let verdict = judge(&second, diagnosed(Value::Null));
    assert!(matches!(
        verdict.agreement.as_deref(),
        Some(Agreement::NotComparable { .. })
    ));

    // Asked for, absent: Anthropic found no divergence; a hit agrees.
    let mut ledger = CacheLedger::new();
    warm(&mut ledger, &first);
    let id = ledger.sent(&first, anthropic(90).previous_response("msg_a"));
    let verdict = ledger.received(id, &anthropic_usage(25, 4100, 0)).unwrap();
    assert_eq!(verdict.agreement.as_deref(), Some(&Agreement::Agrees {}));
    // Not asked for: no agreement at all.
    let id = ledger.sent(&first, anthropic(100));
    assert_eq!(
        ledger
            .received(id, &anthropic_usage(25, 4100, 0))
            .unwrap()
            .agreement,
        None
    );

    // OpenAI says the prefix was reusable while nothing was read: gone, not changed.
    let mut ledger = CacheLedger::new();
    let openai = |at| Sent::new(Provider::OpenAi, "gpt-5.6", t(at)).previous_response("resp_a");
    let id = ledger.sent(&first, openai(0));
    ledger
        .received(
            id,
            &usage_of(Provider::OpenAi, &response("resp_a", 1300, 0)),
        )
        .unwrap();
    let mut body = response("resp_b", 1400, 0);
    body["prompt_cache_diagnostics"] = json!({"type": "cache_hit"});
    let id = ledger.sent(&first, openai(30));
    let verdict = ledger
        .received(id, &usage_of(Provider::OpenAi, &body))
        .unwrap();
    let Some(Agreement::Differs { theirs, note, .. }) = verdict.agreement.as_deref() else {
        panic!("{verdict:?}")
    };
    assert_eq!(theirs, "cache_hit");
    assert!(note.contains("the entry was gone"), "{note}");
    // OpenAI's `input_changed` covers the instructions: a layer change agrees.
    let mut body = response("resp_c", 1400, 0);
    body["prompt_cache_diagnostics"] = json!({"type": "cache_miss", "reason": "input_changed",
        "cache_missed_tokens": 1200});
    let id = ledger.sent(&second, openai(60));
    let verdict = ledger
        .received(id, &usage_of(Provider::OpenAi, &body))
        .unwrap();
    assert!(
        matches!(verdict.cause, Some(MissCause::LayerChanged { .. })),
        "{verdict}"
    );
    assert_eq!(verdict.agreement.as_deref(), Some(&Agreement::Agrees {}));
}

// --- the ledger itself -------------------------------------------------------

#[test]
fn responses_may_come_back_in_any_order_and_once() {
    let pipeline = pipeline();
    let prompt = build(&pipeline, &Files::new(), "09:00");
    let mut ledger = CacheLedger::new();
    let first = ledger.sent(&prompt, anthropic(0));
    let second = ledger.sent(&prompt, anthropic(1));
    // The second's response first: the first's usage is not known yet, so
    // what it should read is the prefix's estimate.
    let verdict = ledger
        .received(second, &anthropic_usage(20, 0, 4100))
        .unwrap();
    assert!(verdict.expected_estimated);
    assert!(
        ledger
            .received(first, &anthropic_usage(20, 0, 4100))
            .is_ok()
    );
    assert!(matches!(
        ledger.received(first, &anthropic_usage(20, 0, 4100)),
        Err(LedgerError::NotInFlight { seq: 1 })
    ));
    let other = CacheLedger::new().sent(&prompt, anthropic(2));
    assert!(matches!(
        ledger.received(other, &CacheUsage::new(1, 0, 0)),
        Err(LedgerError::ForeignId)
    ));
}

#[test]
fn memory_is_bounded_per_conversation_and_in_conversations() {
    let pipeline = pipeline();
    let prompt = build(&pipeline, &Files::new(), "09:00");
    let mut ledger = CacheLedger::with_capacity(16);
    let names: Vec<String> = (0..100).map(|i| format!("conversation-{i}")).collect();
    for (i, name) in names.iter().enumerate() {
        let id = ledger.sent(&prompt, anthropic(i as i64).conversation(name));
        ledger.received(id, &anthropic_usage(20, 0, 4100)).unwrap();
        assert!(ledger.conversations() <= 16);
    }
    // Requests whose responses never come are dropped past the cap.
    let ids: Vec<_> = (0..(prompt_providers::observe::MAX_IN_FLIGHT + 5))
        .map(|i| ledger.sent(&prompt, anthropic(200 + i as i64).conversation("busy")))
        .collect();
    assert!(matches!(
        ledger.received(ids[0], &CacheUsage::new(1, 0, 0)),
        Err(LedgerError::NotInFlight { .. })
    ));
    assert!(
        ledger
            .received(*ids.last().unwrap(), &CacheUsage::new(1, 0, 0))
            .is_ok()
    );
    // A forgotten conversation starts again cold.
    let id = ledger.sent(&prompt, anthropic(500).conversation(&names[0]));
    let verdict = ledger.received(id, &anthropic_usage(20, 0, 4100)).unwrap();
    assert!(
        matches!(verdict.cause, Some(MissCause::ColdStart { .. })),
        "{verdict}"
    );
}

#[test]
fn one_ledger_serves_many_conversations_apart() {
    let pipeline = pipeline();
    let files = Files::new();
    let mut other = files.clone();
    other.notes = "Another session.".to_owned();
    let mut ledger = CacheLedger::new();
    for (name, files) in [("a", &files), ("b", &other)] {
        let id = ledger.sent(
            &build(&pipeline, files, "1"),
            anthropic(0).conversation(name),
        );
        ledger.received(id, &anthropic_usage(20, 0, 4100)).unwrap();
    }
    // Interleaved: each compares with its own previous request.
    for (name, files) in [("a", &files), ("b", &other), ("a", &files)] {
        let id = ledger.sent(
            &build(&pipeline, files, "2"),
            anthropic(30).conversation(name),
        );
        let verdict = ledger.received(id, &anthropic_usage(20, 4100, 0)).unwrap();
        assert!(verdict.is_hit(), "{name}: {verdict}");
        assert_eq!(&*verdict.conversation, name);
    }
}

/// A log that several handles write to.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_log_is_one_json_line_per_verdict_and_reads_back_whole() {
    let pipeline = pipeline();
    let files = Files::new();
    let log = Shared::default();
    let mut ledger = CacheLedger::new()
        .log(log.clone())
        .pricing(Pricing::anthropic(3.0, CacheTtl::FiveMinutes).unwrap());
    let mut verdicts = Vec::new();
    let first = build(&pipeline, &files, "1");
    for (at, usage) in [(0, (20, 0, 4100)), (30, (20, 4100, 0))] {
        let id = ledger.sent(&first, anthropic(at).prompt("observed", "v1"));
        verdicts.push(
            ledger
                .received(id, &anthropic_usage(usage.0, usage.1, usage.2))
                .unwrap(),
        );
    }
    let mut edited = files.clone();
    edited.agents_md.push_str("Line 60: new.\n");
    let id = ledger.sent(&build(&pipeline, &edited, "2"), anthropic(60));
    verdicts.push(ledger.received(id, &anthropic_usage(20, 0, 4120)).unwrap());

    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(text.ends_with('\n'));
    let back = read_log(&text).unwrap();
    // Everything but the in-process id survives the round trip.
    for (read, written) in back.iter().zip(&verdicts) {
        assert_eq!(read.to_string(), written.to_string());
        assert_eq!(read.cause, written.cause);
        assert_eq!(
            (read.seq, read.read, read.lost_usd),
            (written.seq, written.read, written.lost_usd)
        );
        assert_eq!(read.stable_fingerprint, written.stable_fingerprint);
        assert_eq!(read.at, written.at);
    }
    let summary = Summary::of(&back);
    assert_eq!((summary.requests, summary.hits), (3, 1));
    assert_eq!(summary.causes["layer_changed"].tokens, 4100);
    assert_eq!(summary.worst_layers()[0].0, "project_context");
    let shown = summary.to_string();
    assert!(
        shown.contains("3 request(s), 1 hit(s); 33.1% of input tokens read"),
        "{shown}"
    );
    assert!(shown.contains("layer_changed"), "{shown}");

    let error = read_log(&format!(
        "{}\n{{\"seq\": \"x\"}}\n",
        text.lines().next().unwrap()
    ))
    .unwrap_err();
    assert_eq!(error.line, 2);
}

#[test]
fn a_log_that_cannot_be_written_returns_the_verdict_with_the_error() {
    struct Full;
    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let prompt = build(&pipeline(), &Files::new(), "1");
    let mut ledger = CacheLedger::new().log(Full);
    let id = ledger.sent(&prompt, anthropic(0));
    let Err(error) = ledger.received(id, &anthropic_usage(20, 0, 4100)) else {
        panic!("a log error")
    };
    // A message or a source, never both: the writer's words are the source
    // only, so a report that walks the chain prints them once.
    assert_eq!(
        error.to_string(),
        "the cache ledger could not write its log line"
    );
    let cause = std::error::Error::source(&error).map(ToString::to_string);
    assert_eq!(cause.as_deref(), Some("disk full"));
    let LedgerError::Log { verdict, source } = error else {
        panic!("a log error")
    };
    assert!(matches!(verdict.cause, Some(MissCause::ColdStart { .. })));
    assert_eq!(source.to_string(), "disk full");
}

#[test]
fn names_from_files_are_escaped_in_the_one_line_verdict() {
    let hostile = "evil\u{1b}]52;c;eA==\u{7}\u{202e}";
    let cause: MissCause = serde_json::from_value(json!({
        "cause": "layer_changed", "layer": hostile, "scope": "project", "offset": 10,
        "kind": "changed", "tokens_after": 5, "kept_bytes": 0,
        "line": {"number": 1, "before": "a\u{1b}[2J", "after": "b"},
        "reads": ["AGENTS.md\u{7}"]
    }))
    .unwrap();
    let line = cause.to_string();
    assert!(!line.contains(['\u{1b}', '\u{7}', '\u{202e}']), "{line}");
    let mut verdict: CacheVerdict = read_log(&sample_line()).unwrap().remove(0);
    verdict.cause = Some(cause);
    let text = verdict.to_string();
    assert!(!text.contains(['\u{1b}', '\u{7}', '\u{202e}']), "{text}");
    assert!(
        text.contains(r"evil\u{1b}]52;c;eA==\u{7}\u{202e}"),
        "{text}"
    );
}

/// One verdict's log line, as a ledger writes it.
fn sample_line() -> String {
    let log = Shared::default();
    let mut ledger = CacheLedger::new().log(log.clone());
    let id = ledger.sent(&build(&pipeline(), &Files::new(), "1"), anthropic(0));
    ledger.received(id, &anthropic_usage(20, 0, 4100)).unwrap();
    String::from_utf8(log.0.lock().unwrap().clone()).unwrap()
}

#[test]
fn the_ledger_is_shared_across_threads_behind_a_mutex() {
    let pipeline = pipeline();
    let prompt = build(&pipeline, &Files::new(), "1");
    let ledger = Arc::new(Mutex::new(CacheLedger::new()));
    std::thread::scope(|scope| {
        for worker in 0..4 {
            let ledger = Arc::clone(&ledger);
            let prompt = &prompt;
            scope.spawn(move || {
                let name = format!("w{worker}");
                for i in 0..10 {
                    let id = ledger
                        .lock()
                        .unwrap()
                        .sent(prompt, anthropic(i).conversation(&name));
                    let usage = if i == 0 {
                        anthropic_usage(9, 0, 4100)
                    } else {
                        anthropic_usage(9, 4100, 0)
                    };
                    let verdict = ledger.lock().unwrap().received(id, &usage).unwrap();
                    assert_eq!(verdict.is_hit(), i > 0, "{verdict}");
                }
            });
        }
    });
    assert_eq!(ledger.lock().unwrap().conversations(), 4);
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Opus 5.5 reads at 0.05x its input price (Anthropic's pricing page,
/// 2026-12-01): the ledger prices its reads and misses at that rate.
#[test]
fn an_opus_5_5_verdict_is_priced_at_its_own_read_multiplier() {
    const OPUS: &str = "claude-opus-5-5";
    let opus = |at| Sent::new(Provider::Anthropic, OPUS, t(at));
    let pipeline = pipeline();
    let files = Files::new();
    let pricing = Pricing::for_model(5.0, OPUS, CacheTtl::FiveMinutes).unwrap();
    assert_eq!((pricing.read, pricing.write), (0.05, 1.25));
    let mut ledger = CacheLedger::new().pricing(pricing);
    let first = build(&pipeline, &files, "1");
    let id = ledger.sent(&first, opus(0));
    ledger.received(id, &anthropic_usage(20, 0, 4100)).unwrap();
    let id = ledger.sent(&first, opus(30));
    let hit = ledger.received(id, &anthropic_usage(20, 4100, 0)).unwrap();
    assert!(hit.is_hit(), "{hit}");
    assert_eq!(hit.read, 4100);
    // A read of N tokens costs N x the input price x 0.05: 4,100 tokens at
    // USD 5 per million, USD 0.001025 (at 0.1x it would be 0.00205).
    assert!((pricing.read_usd(hit.read) - 0.001025).abs() < 1e-12);
    assert!((pricing.read_usd(hit.read) - 4100.0 * 5.0 / 1e6 * 0.05).abs() < 1e-12);

    let mut edited = files.clone();
    edited.agents_md.push_str("Line 60: new.\n");
    let id = ledger.sent(&build(&pipeline, &edited, "2"), opus(60));
    let miss = ledger.received(id, &anthropic_usage(20, 0, 4120)).unwrap();
    assert!(miss.lost_written > 0, "{miss}");
    let uncached = miss.lost_tokens - miss.lost_written;
    let expected =
        (miss.lost_written as f64 * (1.25 - 0.05) + uncached as f64 * (1.0 - 0.05)) * 5.0 / 1e6;
    let lost = miss.lost_usd.expect("priced");
    assert!((lost - expected).abs() < 1e-12, "{lost} vs {expected}");
    // 4,100 tokens re-written at 1.25x instead of read at 0.05x, USD 5 per
    // million: USD 0.0246 lost (0.023575 had the read been 0.1x).
    assert_eq!((miss.lost_written, uncached), (4100, 0));
    assert!((lost - 0.0246).abs() < 1e-12, "{lost}");
    assert!(
        miss.to_string().contains("USD 0.0246 more than a hit"),
        "{miss}"
    );
    // At the usual 0.1x the same miss would have been priced otherwise.
    let usual = Pricing::anthropic(5.0, CacheTtl::FiveMinutes).unwrap();
    assert!((usual.lost_usd(miss.lost_written, uncached) - lost).abs() > 1e-6);
}

// --- OpenAI's prompt_cache_diagnostics, reason by reason ---------------------

/// A GPT-5.6 Responses body as the API returns it for a request that named a
/// `comparison_response_id`: usage with cache writes by TTL, the options it
/// applied, and the diagnosis.
fn diagnosed_response(id: &str, input: u64, cached: u64, diagnostics: Value) -> Value {
    let written = input - cached - 20;
    json!({
        "id": id, "object": "response", "created_at": 1_800_000_060, "status": "completed",
        "model": "gpt-5.6-2026-09-30", "output": [], "error": null, "incomplete_details": null,
        "prompt_cache_key": "test-0123456789abcdef",
        "prompt_cache_options": {"mode": "implicit", "ttl": "30m",
                                 "comparison_response_id": "resp_a"},
        "prompt_cache_diagnostics": diagnostics,
        "service_tier": "default",
        "usage": {
            "input_tokens": input,
            "input_tokens_details": {
                "cached_tokens": cached,
                "cache_write_tokens": written,
                "cache_write_tokens_details": {"ttl_30m_tokens": written, "ttl_12h_tokens": 0}
            },
            "output_tokens": 44,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input + 44
        }
    })
}

fn miss(reason: &str, missed: u64) -> Value {
    json!({"type": "cache_miss", "reason": reason, "cache_missed_tokens": missed,
           "comparison_reusable_tokens": 1380})
}

/// The verdict on `prompt` sent 30 s after a warm first request of `first`,
/// with `body` as its response.
fn openai_judged(first: &AssembledPrompt, prompt: &AssembledPrompt, body: &Value) -> CacheVerdict {
    let mut ledger = CacheLedger::new();
    let openai = |at| Sent::new(Provider::OpenAi, "gpt-5.6", t(at));
    let id = ledger.sent(first, openai(0));
    ledger
        .received(
            id,
            &usage_of(Provider::OpenAi, &response("resp_a", 1400, 0)),
        )
        .unwrap();
    let id = ledger.sent(prompt, openai(30).previous_response("resp_a"));
    ledger
        .received(id, &usage_of(Provider::OpenAi, body))
        .unwrap()
}

#[test]
fn openai_diagnosis_reasons_are_read_verbatim_with_their_counts() {
    for reason in [
        "model_changed",
        "prompt_cache_key_changed",
        "tools_changed",
        "input_changed",
        "service_tier_changed",
        "context_compacted",
    ] {
        let body = diagnosed_response("resp_b", 1400, 0, miss(reason, 1380));
        let diagnosis = usage_of(Provider::OpenAi, &body)
            .diagnosis
            .expect("a diagnosis");
        assert_eq!(diagnosis.outcome, DiagnosisOutcome::Miss);
        assert_eq!(diagnosis.reason.as_deref(), Some(reason));
        assert_eq!(
            (diagnosis.missed_tokens, diagnosis.reusable_tokens),
            (Some(1380), Some(1380))
        );
    }
    // A miss without its reason, or a count that is not one, names the field.
    let body = diagnosed_response(
        "resp_b",
        1400,
        0,
        json!({"type": "cache_miss", "cache_missed_tokens": 1}),
    );
    let error = CacheUsage::from_response(Provider::OpenAi, &body).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("prompt_cache_diagnostics.reason"),
        "{error}"
    );
    let body = diagnosed_response(
        "resp_b",
        1400,
        0,
        json!({"type": "cache_miss", "reason": "input_changed", "cache_missed_tokens": -3}),
    );
    let error = CacheUsage::from_response(Provider::OpenAi, &body).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("prompt_cache_diagnostics.cache_missed_tokens"),
        "{error}"
    );
}

/// `input_changed` holds the instructions and the messages: it agrees with
/// a changed layer, and with rewritten history.
#[test]
fn openai_input_changed_agrees_with_a_changed_layer() {
    let pipeline = pipeline();
    let files = Files::new();
    let first = build(&pipeline, &files, "09:00");
    let mut edited = files.clone();
    edited.notes = "Working on the logout bug.".to_owned();
    let second = build(&pipeline, &edited, "09:01");
    let verdict = openai_judged(
        &first,
        &second,
        &diagnosed_response("resp_b", 1400, 0, miss("input_changed", 1380)),
    );
    assert!(
        matches!(verdict.cause, Some(MissCause::LayerChanged { .. })),
        "{verdict}"
    );
    assert_eq!(verdict.agreement.as_deref(), Some(&Agreement::Agrees {}));
    // The ledger saw nothing move: the input changed outside the prompt.
    let verdict = openai_judged(
        &first,
        &first,
        &diagnosed_response("resp_b", 1400, 0, miss("input_changed", 1380)),
    );
    let Some(Agreement::Differs { ours, note, .. }) = verdict.agreement.as_deref() else {
        panic!("{verdict:?}")
    };
    assert_eq!(ours.as_deref(), Some("provider_side"));
    assert!(note.contains("the input changed"), "{note}");
}

/// `prompt_cache_key_changed`: the builder's key moves with a Global or
/// Project layer, which agrees; a key changed beside the prompt is a cause
/// the ledger cannot see, and it says so without taking it as its own.
#[test]
fn openai_key_changed_agrees_with_a_wide_layer_and_is_outside_the_ledger_otherwise() {
    let pipeline = pipeline();
    let files = Files::new();
    let first = build(&pipeline, &files, "09:00");
    let mut edited = files.clone();
    edited.agents_md.push_str("Line 60: new.\n");
    let project = build(&pipeline, &edited, "09:01");
    let verdict = openai_judged(
        &first,
        &project,
        &diagnosed_response("resp_b", 1400, 0, miss("prompt_cache_key_changed", 1380)),
    );
    assert!(
        matches!(
            verdict.cause,
            Some(MissCause::LayerChanged {
                scope: Some(Scope::Project),
                ..
            })
        ),
        "{verdict}"
    );
    assert_eq!(verdict.agreement.as_deref(), Some(&Agreement::Agrees {}));

    // Nothing of ours moved: the key was set beside the prompt.
    let verdict = openai_judged(
        &first,
        &first,
        &diagnosed_response("resp_b", 1400, 0, miss("prompt_cache_key_changed", 1380)),
    );
    assert!(
        matches!(verdict.cause, Some(MissCause::ProviderSide { .. })),
        "{verdict}"
    );
    let Some(Agreement::OutsideLedger { theirs, note }) = verdict.agreement.as_deref() else {
        panic!("{:?}", verdict.agreement)
    };
    assert_eq!(theirs, "prompt_cache_key_changed (1380 tokens)");
    assert!(note.contains("prompt_cache_key differs"), "{note}");
    assert!(note.contains("names none"), "{note}");

    // A Session layer changed, which keeps the builder's key: both hold.
    let mut notes = files.clone();
    notes.notes = "Working on the logout bug.".to_owned();
    let session = build(&pipeline, &notes, "09:01");
    let verdict = openai_judged(
        &first,
        &session,
        &diagnosed_response("resp_b", 1400, 0, miss("prompt_cache_key_changed", 1380)),
    );
    let Some(Agreement::Differs { ours, note, .. }) = verdict.agreement.as_deref() else {
        panic!("{:?}", verdict.agreement)
    };
    assert_eq!(ours.as_deref(), Some("layer_changed"));
    assert!(note.contains("set beside the prompt"), "{note}");
}

/// `service_tier_changed`: a request parameter the ledger is not told. With
/// nothing of ours moved it is the cause, outside the ledger; beside a cause
/// of ours, both are named.
#[test]
fn openai_service_tier_changed_is_a_cause_outside_the_ledger() {
    let pipeline = pipeline();
    let files = Files::new();
    let first = build(&pipeline, &files, "09:00");
    let body = diagnosed_response("resp_b", 1400, 0, miss("service_tier_changed", 1380));
    let verdict = openai_judged(&first, &first, &body);
    assert!(
        matches!(verdict.cause, Some(MissCause::ProviderSide { .. })),
        "{verdict}"
    );
    let Some(Agreement::OutsideLedger { theirs, note }) = verdict.agreement.as_deref() else {
        panic!("{:?}", verdict.agreement)
    };
    assert_eq!(theirs, "service_tier_changed (1380 tokens)");
    assert!(note.contains("service_tier differs"), "{note}");
    // The verdict's own cause is unchanged: never the provider's reason.
    assert_eq!(
        verdict.cause.as_ref().map(MissCause::name),
        Some("provider_side")
    );

    let mut edited = files.clone();
    edited.notes = "Working on the logout bug.".to_owned();
    let verdict = openai_judged(&first, &build(&pipeline, &edited, "09:01"), &body);
    let Some(Agreement::Differs { note, .. }) = verdict.agreement.as_deref() else {
        panic!("{:?}", verdict.agreement)
    };
    assert!(
        note.contains("the ledger saw layer `session_notes`"),
        "{note}"
    );
    assert!(note.contains("first divergence"), "{note}");
    // The agreement survives the log's round trip.
    let line = serde_json::to_string(verdict.agreement.as_deref().unwrap()).unwrap();
    assert!(line.contains("\"agreement\":\"differs\""), "{line}");
    let outside = Agreement::OutsideLedger {
        theirs: "service_tier_changed".to_owned(),
        note: "n".to_owned(),
    };
    let line = serde_json::to_string(&outside).unwrap();
    assert_eq!(
        line,
        r#"{"agreement":"outside_ledger","theirs":"service_tier_changed","note":"n"}"#
    );
    assert_eq!(serde_json::from_str::<Agreement>(&line).unwrap(), outside);
}

// --- a prewarm: writes the caller asked for ----------------------------------

/// A GPT-5.6 response to `prompt_cache_options.prewarm: true`: the prefix
/// written, nothing generated.
fn prewarm_response(id: &str, input: u64, cached: u64) -> Value {
    let written = input - cached - 20;
    json!({
        "id": id, "object": "response", "created_at": 1_800_000_000, "status": "completed",
        "model": "gpt-5.6-2026-09-30", "output": [], "error": null, "incomplete_details": null,
        "prompt_cache_options": {"mode": "implicit", "ttl": "30m"},
        "usage": {
            "input_tokens": input,
            "input_tokens_details": {
                "cached_tokens": cached,
                "cache_write_tokens": written,
                "cache_write_tokens_details": {"ttl_30m_tokens": written, "ttl_12h_tokens": 0}
            },
            "output_tokens": 0,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input
        }
    })
}

/// After the TTL lapsed, a prewarm writes the prefix again: its verdict is
/// that write, asked for (no cause, nothing lost, neither hit nor miss),
/// and the next request reads what it wrote.
#[test]
fn a_prewarm_is_a_write_the_caller_asked_for_never_a_miss() {
    let pipeline = pipeline();
    let prompt = build(&pipeline, &Files::new(), "09:00");
    let openai = |at| Sent::new(Provider::OpenAi, "gpt-5.6", t(at)).ttl(Duration::from_secs(1800));
    let pricing = Pricing::new(1.25, 0.1, 1.25).unwrap();
    let mut ledger = CacheLedger::new().pricing(pricing);
    let id = ledger.sent(&prompt, openai(0));
    ledger
        .received(
            id,
            &usage_of(Provider::OpenAi, &prewarm_response("resp_a", 1400, 0)),
        )
        .unwrap();

    // Idle past the 30-minute TTL: a plain request would be a TTL miss.
    let usage = usage_of(Provider::OpenAi, &prewarm_response("resp_b", 1400, 0));
    assert_eq!((usage.written, usage.output), (1380, Some(0)));
    let id = ledger.sent(&prompt, openai(3600).prewarm());
    let verdict = ledger.received(id, &usage).unwrap();
    assert!(verdict.prewarm, "{verdict}");
    assert_eq!(verdict.cause, None, "{verdict}");
    assert!(!verdict.is_hit(), "{verdict}");
    assert_eq!((verdict.lost_tokens, verdict.lost_usd), (0, Some(0.0)));
    assert_eq!(
        verdict.to_string(),
        "prewarm: 1,380 tokens written at the caller's request, billed as cache writes (0 \
         read, 20 uncached); the next request reads them"
    );

    // The conversation's next request reads what the prewarm wrote.
    let id = ledger.sent(&prompt, openai(3660));
    let hit = ledger
        .received(
            id,
            &usage_of(Provider::OpenAi, &response("resp_c", 1400, 1380)),
        )
        .unwrap();
    assert!(hit.is_hit(), "{hit}");
    assert_eq!(hit.expected, 1380);

    // The same write without the mark is the TTL miss it would have been.
    let mut plain = CacheLedger::new();
    let id = plain.sent(&prompt, openai(0));
    plain
        .received(
            id,
            &usage_of(Provider::OpenAi, &prewarm_response("resp_a", 1400, 0)),
        )
        .unwrap();
    let id = plain.sent(&prompt, openai(3600));
    let miss = plain.received(id, &usage).unwrap();
    assert!(
        matches!(miss.cause, Some(MissCause::TtlExpired { .. })),
        "{miss}"
    );

    let summary = Summary::of(&[verdict.clone(), hit]);
    assert_eq!(
        (summary.requests, summary.hits, summary.prewarms),
        (2, 1, 1)
    );
    assert!(summary.causes.is_empty(), "{summary}");
    assert!(summary.to_string().contains("1 prewarm(s)"), "{summary}");
    // The log keeps the mark.
    let line = serde_json::to_string(&verdict).unwrap();
    assert!(line.contains("\"prewarm\":true"), "{line}");
    let back: CacheVerdict = serde_json::from_str(&line).unwrap();
    assert!(back.prewarm);
}

/// A prewarm of a conversation's first request is no cold start either.
#[test]
fn a_first_request_prewarm_is_no_cold_start() {
    let pipeline = pipeline();
    let prompt = build(&pipeline, &Files::new(), "09:00");
    let mut ledger = CacheLedger::new();
    let id = ledger.sent(
        &prompt,
        Sent::new(Provider::OpenAi, "gpt-5.6", t(0)).prewarm(),
    );
    let verdict = ledger
        .received(
            id,
            &usage_of(Provider::OpenAi, &prewarm_response("resp_a", 1400, 0)),
        )
        .unwrap();
    assert!(verdict.prewarm && verdict.cause.is_none(), "{verdict}");
}

// --- Gemini's Interactions API -----------------------------------------------

/// A finished Interaction as the Interactions API returns it.
fn interaction(input: Value, cached: Value) -> Value {
    json!({
        "id": "v1_ChdpbnRlcmFjdGlvbi0x", "object": "interaction", "status": "completed",
        "model": "gemini-3-flash", "created": "2026-12-07T09:00:00Z",
        "updated": "2026-12-07T09:00:02Z",
        "outputs": [{"type": "text", "text": "Done."}],
        "usage": {
            "total_input_tokens": input,
            "total_cached_tokens": cached,
            "total_output_tokens": 31,
            "total_thought_tokens": 12,
            "total_tool_use_tokens": 0,
            "total_tokens": 5043,
            "input_tokens_by_modality": [{"modality": "text", "tokens": input}],
            "cached_tokens_by_modality": [{"modality": "text", "tokens": cached}]
        }
    })
}

#[test]
fn gemini_interactions_count_cached_tokens_inside_the_input() {
    let usage = usage_of(Provider::Gemini, &interaction(json!(5000), json!(4096)));
    assert_eq!(
        (
            usage.uncached_input,
            usage.read,
            usage.written,
            usage.output
        ),
        (904, 4096, 0, Some(43))
    );
    assert_eq!(
        usage.response_id.as_deref(),
        Some("v1_ChdpbnRlcmFjdGlvbi0x")
    );
    assert_eq!(usage.response_model.as_deref(), Some("gemini-3-flash"));
    // Tool-use prompt tokens are input beside the prompt.
    let mut body = interaction(json!(1000), json!(0));
    body["usage"]["total_tool_use_tokens"] = json!(250);
    assert_eq!(usage_of(Provider::Gemini, &body).uncached_input, 1250);
    // Nothing cached: the field may be absent.
    let mut body = interaction(json!(300), json!(0));
    body["usage"]
        .as_object_mut()
        .unwrap()
        .remove("total_cached_tokens");
    assert_eq!(usage_of(Provider::Gemini, &body).read, 0);
    // A stream: the `interaction.completed` event's interaction carries it.
    let done = json!({"event_type": "interaction.completed", "event_id": "evt_9",
                      "interaction": interaction(json!(5000), json!(4096))});
    let events = [
        json!({"event_type": "interaction.created", "interaction":
               {"id": "v1_ChdpbnRlcmFjdGlvbi0x", "status": "in_progress"}}),
        done.clone(),
    ];
    let folded = CacheUsage::from_stream(Provider::Gemini, &events).unwrap();
    assert_eq!((folded.read, folded.uncached_input), (4096, 904));
    assert_eq!(usage_of(Provider::Gemini, &done).read, 4096);
}

#[test]
fn bad_interactions_usage_is_an_error_that_names_the_field() {
    let cases: Vec<(Value, &str)> = vec![
        (
            interaction(json!(10), json!(11)),
            "`usage.total_cached_tokens` 11 exceeds `usage.total_input_tokens` 10",
        ),
        (
            interaction(json!("5000"), json!(0)),
            "`usage.total_input_tokens` is a string, not a count",
        ),
        (
            interaction(json!(5000), json!(-1)),
            "`usage.total_cached_tokens` is -1, not a count",
        ),
        (
            interaction(json!(5000), json!(40.5)),
            "`usage.total_cached_tokens` is 40.5, not a count",
        ),
        (
            interaction(json!(5000), json!([4096])),
            "`usage.total_cached_tokens` is an array, not a count",
        ),
        (
            interaction(json!(u64::MAX), json!(0)),
            "usage.total_input_tokens",
        ),
        (
            json!({"id": "v1_x", "status": "completed", "usage": {"total_cached_tokens": 3}}),
            "has no `usage.total_input_tokens`",
        ),
        (
            json!({"id": "v1_x", "status": "completed", "usage": "lots"}),
            "`usage` of the interaction is not an object",
        ),
        (
            json!({"id": "v1_x", "status": "in_progress"}),
            "has not finished",
        ),
        (
            json!({"event_type": "interaction.completed", "interaction":
                   {"id": "v1_x", "status": "completed"}}),
            "interaction has no `usage`",
        ),
        (
            json!({"event_type": "content.delta", "delta": {"type": "text", "text": "Do"}}),
            "carries no `interaction`",
        ),
    ];
    for (body, expected) in cases {
        let error = CacheUsage::from_response(Provider::Gemini, &body)
            .unwrap_err()
            .to_string();
        assert!(error.contains(expected), "{expected}: {error}");
    }
    // Past MAX_REQUEST_TOKENS the sums are refused, never wrapped.
    let mut body = interaction(json!(999_999_999), json!(0));
    body["usage"]["total_tool_use_tokens"] = json!(999_999_999);
    let error = CacheUsage::from_response(Provider::Gemini, &body)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("usage.total_input_tokens + total_tool_use_tokens"),
        "{error}"
    );
    let mut body = interaction(json!(10), json!(0));
    body["usage"]["total_output_tokens"] = json!(999_999_999);
    body["usage"]["total_thought_tokens"] = json!(999_999_999);
    let error = CacheUsage::from_response(Provider::Gemini, &body)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("usage.total_output_tokens + total_thought_tokens"),
        "{error}"
    );
}
