//! Every count a provider sends, summed and compared without wrapping: a
//! figure past what one request can hold is an error naming its field, in
//! the usage readers, the ledger and its log (`prompt explain --claude`'s
//! cases are in `examples/tests/cli/explain.rs`).

use std::io::Write;
use std::sync::{Arc, Mutex};

use jiff::{SignedDuration, Timestamp};
use prompt_checks::diff::StablePrefix;
use prompt_core::spec::{AssemblyPath, PromptMode};
use prompt_providers::observe::{
    CacheLedger, CacheUsage, LedgerError, MAX_REQUEST_TOKENS, Provider, Sent, Summary, UsageError,
    read_log,
};
use proptest::prelude::*;
use serde_json::{Value, json};

fn t(seconds: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000).unwrap() + SignedDuration::from_secs(seconds)
}

/// A stable prefix of one layer.
fn prefix(text: &str) -> StablePrefix {
    StablePrefix {
        pipeline: String::new(),
        path: AssemblyPath::Cached,
        mode: PromptMode::Full,
        layers: vec![("system".to_owned(), text.to_owned())],
        scopes: vec![None],
        separator: String::new(),
    }
}

fn sent(at: i64) -> Sent<'static> {
    Sent::new(Provider::Anthropic, "claude-sonnet-4-5", t(at))
}

// --- the two panics of the report -------------------------------------------

/// The report's first case through the library: a response whose cache
/// counts are `u64::MAX`, then a request with another system prompt. The
/// ledger added what the first read and wrote (`judge.rs`: `p.read +
/// p.written`) and overflowed.
#[test]
fn a_response_reading_and_writing_u64_max_is_refused_by_the_ledger() {
    let body = json!({"id": "msg_1", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "content": [], "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "cache_read_input_tokens": u64::MAX,
                  "cache_creation_input_tokens": u64::MAX, "output_tokens": 1}});
    let read = CacheUsage::from_response(Provider::Anthropic, &body);

    let mut ledger = CacheLedger::new();
    let first = ledger.sent_prefix(&prefix("You are terse."), sent(0));
    // The same figures built by hand, as a client crate's usage would give them.
    let huge = ledger.received(first, &CacheUsage::new(3, u64::MAX, u64::MAX));
    let second = ledger.sent_prefix(&prefix("You are verbose."), sent(60));
    let next = ledger.received(second, &CacheUsage::new(3, 0, 4100));

    let error = read
        .expect_err("a count past one request is an error")
        .to_string();
    assert!(error.contains("usage.cache_read_input_tokens"), "{error}");
    assert!(error.contains("18446744073709551615"), "{error}");
    let error = huge.expect_err("the ledger refuses it too");
    assert!(
        matches!(
            &error,
            LedgerError::Usage(UsageError::TooLarge {
                field: "cache_read",
                ..
            })
        ),
        "{error}"
    );
    // The refused response held nothing: the next one is judged as a cold start.
    let next = next.expect("a verdict");
    assert_eq!((next.expected, next.lost_tokens), (0, 0), "{next}");
}

/// The report's second case: writes by TTL of `u64::MAX` and 5, with no
/// `cache_creation_input_tokens`, summed by `Iterator::sum` and overflowed.
#[test]
fn writes_by_ttl_that_overflow_their_sum_are_refused_naming_the_field() {
    let body = json!({"type": "message", "usage": {"input_tokens": 3,
        "cache_creation": {"ephemeral_5m_input_tokens": u64::MAX,
                           "ephemeral_1h_input_tokens": 5}}});
    let error = CacheUsage::from_response(Provider::Anthropic, &body)
        .expect_err("a count past one request is an error")
        .to_string();
    assert!(
        error.contains("usage.cache_creation.ephemeral_5m_input_tokens"),
        "{error}"
    );
    // Each part within the ceiling, their sum past it.
    let half = u64::MAX / 2;
    let body = json!({"type": "message", "usage": {"input_tokens": 3,
        "cache_creation": {"ephemeral_5m_input_tokens": half,
                           "ephemeral_1h_input_tokens": half}}});
    assert!(CacheUsage::from_response(Provider::Anthropic, &body).is_err());
}

// --- every field, any value -------------------------------------------------

/// What a hostile body can hold where a count goes: any `u64`, counts about
/// the ceiling, negatives, fractions, floats past `u64`, strings, `null`.
fn any_count() -> impl Strategy<Value = Value> {
    // Mostly counts a body could hold, so whole bodies get read too.
    prop_oneof![
        40 => (0..=MAX_REQUEST_TOKENS / 4).prop_map(|n| json!(n)),
        2 => any::<u64>().prop_map(|n| json!(n)),
        2 => prop_oneof![
            Just(MAX_REQUEST_TOKENS),
            Just(MAX_REQUEST_TOKENS + 1),
            Just(u64::MAX),
            Just(u64::MAX / 2 + 1),
        ]
        .prop_map(|n| json!(n)),
        1 => any::<i64>().prop_map(|n| json!(n)),
        1 => any::<f64>().prop_map(|f| json!(f)),
        1 => prop_oneof![
            Just(json!(1e30)),
            Just(json!(-0.0)),
            Just(json!(1.5)),
            Just(serde_json::from_str::<Value>("18446744073709551616").unwrap()),
            Just(json!("18446744073709551615")),
            Just(json!("12")),
            Just(Value::Null),
            Just(json!([1])),
        ],
    ]
}

/// The body of `provider` (`shape` picks Responses or Chat Completions for
/// OpenAI) with `counts` in its usage fields, in order. Without `totals`,
/// the writes' total is left out where their breakdown by TTL is given (so
/// the two need not agree for the body to be read).
fn body(provider: Provider, shape: bool, totals: bool, c: &[Value]) -> Value {
    let mut body = match (provider, shape) {
        (Provider::Anthropic, _) => json!({
            "id": "msg_1", "type": "message", "model": "claude-sonnet-4-5",
            "usage": {"input_tokens": c[0], "cache_read_input_tokens": c[1],
                      "cache_creation_input_tokens": c[2],
                      "cache_creation": {"ephemeral_5m_input_tokens": c[3],
                                         "ephemeral_1h_input_tokens": c[4]},
                      "output_tokens": c[5]},
            "diagnostics": {"cache_miss_reason": {"type": "system_changed",
                                                  "cache_missed_input_tokens": c[6]}}}),
        (Provider::OpenAi, true) => json!({
            "id": "resp_1", "object": "response", "model": "gpt-5",
            "usage": {"input_tokens": c[0],
                      "input_tokens_details": {"cached_tokens": c[1], "cache_write_tokens": c[2],
                          "cache_write_tokens_details": {"ttl_30m_tokens": c[3],
                                                         "ttl_12h_tokens": c[4]}},
                      "output_tokens": c[5]},
            "prompt_cache_diagnostics": {"type": "cache_hit", "cache_missed_tokens": c[6],
                                         "comparison_reusable_tokens": c[7]}}),
        (Provider::Bedrock, _) => json!({
            "output": {"message": {"role": "assistant", "content": []}}, "stopReason": "end_turn",
            "usage": {"inputTokens": c[0], "cacheReadInputTokens": c[1],
                      "cacheWriteInputTokens": c[2],
                      "cacheDetails": [{"ttl": "5m", "inputTokens": c[3]},
                                       {"ttl": "1h", "inputTokens": c[4]}],
                      "outputTokens": c[5], "totalTokens": c[7]},
            "metrics": {"latencyMs": 1}}),
        (Provider::OpenAi, false) => json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-5",
            "usage": {"prompt_tokens": c[0],
                      "prompt_tokens_details": {"cached_tokens": c[1], "cache_write_tokens": c[2]},
                      "completion_tokens": c[5]}}),
        _ => json!({
            "responseId": "r1", "modelVersion": "gemini-2.5-flash",
            "usageMetadata": {"promptTokenCount": c[0], "cachedContentTokenCount": c[1],
                              "toolUsePromptTokenCount": c[2], "candidatesTokenCount": c[3],
                              "thoughtsTokenCount": c[4]}}),
    };
    if !totals {
        if let Some(usage) = body.get_mut("usage").and_then(Value::as_object_mut) {
            usage.remove("cache_creation_input_tokens");
            usage.remove("cacheWriteInputTokens");
            usage.remove("totalTokens");
        }
        if let Some(details) = body.pointer_mut("/usage/input_tokens_details") {
            details
                .as_object_mut()
                .unwrap()
                .remove("cache_write_tokens");
        }
    }
    body
}

/// A usage that was read is whole: each part within the ceiling, their sum
/// exact (no saturation, no wrap) and within it, the writes by TTL no more
/// than the writes.
fn assert_whole(usage: &CacheUsage) {
    let parts = [usage.uncached_input, usage.read, usage.written];
    let exact: u128 = parts.iter().map(|&p| u128::from(p)).sum();
    assert_eq!(u128::from(usage.input_tokens()), exact, "{usage:?}");
    assert!(exact <= u128::from(MAX_REQUEST_TOKENS), "{usage:?}");
    for part in parts {
        assert!(usage.input_tokens() >= part, "{usage:?}");
    }
    let by_ttl: u128 = usage.written_ttl.iter().map(|t| u128::from(t.tokens)).sum();
    assert!(by_ttl <= u128::from(usage.written), "{usage:?}");
    assert!(
        usage.output.is_none_or(|o| o <= MAX_REQUEST_TOKENS),
        "{usage:?}"
    );
}

/// An error names a field (or the fields summed), never a bare overflow.
fn assert_named(error: &UsageError) {
    let text = error.to_string();
    assert!(!text.contains("overflow"), "{text}");
    if let UsageError::TooLarge { field, found, .. } = error {
        assert!(*found > u128::from(MAX_REQUEST_TOKENS), "{text}");
        assert!(text.contains(field), "{text}");
    }
}

/// Collects a ledger's log lines.
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

/// A ledger over `usages`, one request each and another system prompt each
/// time; every verdict's figures add up.
fn judge_all(provider: Provider, usages: &[CacheUsage]) {
    let log = Shared::default();
    let mut ledger = CacheLedger::new().log(log.clone());
    let mut previous: Option<&CacheUsage> = None;
    for (i, usage) in usages.iter().enumerate() {
        let system = format!("System prompt number {i}.");
        let sent = Sent::new(provider, "claude-sonnet-4-5", t(i as i64 * 60));
        let id = ledger.sent_prefix(&prefix(&system), sent);
        match ledger.received(id, usage) {
            Ok(verdict) => {
                assert_whole(usage);
                let exact = u128::from(verdict.read)
                    + u128::from(verdict.written)
                    + u128::from(verdict.uncached);
                assert_eq!(u128::from(verdict.input_tokens()), exact);
                assert!(verdict.lost_written <= verdict.lost_tokens, "{verdict:?}");
                assert!(
                    verdict.lost_tokens <= verdict.written + verdict.uncached,
                    "{verdict:?}"
                );
                if let (true, Some(p)) = (provider.caches_at_breakpoints(), previous) {
                    // What a hit reads: what the previous one read and wrote, exactly.
                    assert_eq!(
                        u128::from(verdict.expected),
                        u128::from(p.read) + u128::from(p.written)
                    );
                }
                previous = Some(usage);
            }
            Err(LedgerError::Usage(error)) => {
                assert!(usage.check(provider).is_err());
                assert_named(&error);
                previous = None;
            }
            Err(other) => panic!("{other}"),
        }
    }
    // The log reads back, and its summary adds up.
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    let verdicts = read_log(&text).expect("the ledger's own log reads back");
    let summary = Summary::of(&verdicts);
    let exact: u128 = verdicts.iter().map(|v| u128::from(v.read)).sum();
    assert_eq!(u128::from(summary.read), exact);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any value in any usage field: the readers never panic, and what they
    /// return adds up exactly within the ceiling, or is an error naming the
    /// field.
    #[test]
    fn any_count_in_any_usage_field_is_read_whole_or_refused(
        counts in proptest::collection::vec(any_count(), 8),
        provider in prop_oneof![Just(Provider::Anthropic), Just(Provider::OpenAi), Just(Provider::Gemini), Just(Provider::Bedrock)],
        shape: bool,
        totals: bool,
        full: bool,
    ) {
        let mut counts = counts;
        if full && !provider.caches_at_breakpoints() {
            // An input count at the ceiling: the parts inside it fit, and
            // Gemini's tool tokens beside it may not.
            counts[0] = json!(MAX_REQUEST_TOKENS);
        }
        let body = body(provider, shape, totals, &counts);
        match CacheUsage::from_response(provider, &body) {
            Ok(usage) => {
                assert_whole(&usage);
                judge_all(provider, &[usage.clone(), usage]);
            }
            Err(error) => assert_named(&error),
        }
        // Streamed: Anthropic's start, then a delta replacing its counts one
        // by one; Bedrock's metadata event after the others; the others' last
        // chunk.
        let events = match provider {
            Provider::Bedrock => vec![
                json!({"messageStart": {"role": "assistant"}}),
                json!({"metadata": {"usage": body["usage"].clone(), "metrics": {"latencyMs": 1}}}),
            ],
            Provider::Anthropic => vec![
                json!({"type": "message_start", "message": body}),
                json!({"type": "message_delta", "usage": {
                    "input_tokens": counts[7], "cache_read_input_tokens": counts[6],
                    "output_tokens": counts[5]}}),
            ],
            _ => vec![body],
        };
        match CacheUsage::from_stream(provider, &events) {
            Ok(usage) => assert_whole(&usage),
            Err(error) => assert_named(&error),
        }
    }

    /// Usage built from plain numbers (a client crate's): the ledger judges
    /// it with sums that never wrap, or refuses it naming the count.
    #[test]
    fn the_ledger_judges_any_counts_without_wrapping(
        usages in proptest::collection::vec(
            (any::<u64>(), prop_oneof![any::<u64>(), 0..=MAX_REQUEST_TOKENS],
             prop_oneof![any::<u64>(), 0..=MAX_REQUEST_TOKENS], any::<bool>())
                .prop_map(|(a, b, c, small)| if small {
                    CacheUsage::new(a % 4096, b % MAX_REQUEST_TOKENS, c % MAX_REQUEST_TOKENS)
                } else {
                    CacheUsage::new(a, b, c)
                }),
            1..5,
        ),
        provider in prop_oneof![Just(Provider::Anthropic), Just(Provider::OpenAi), Just(Provider::Gemini), Just(Provider::Bedrock)],
    ) {
        judge_all(provider, &usages);
    }

    /// A ledger's log line with any value in its counts: read whole, or
    /// refused naming the line; a summary of what is read adds up.
    #[test]
    fn any_count_in_a_log_line_is_read_whole_or_refused(
        counts in proptest::collection::vec(any_count(), 8),
    ) {
        let mut verdict: Value = serde_json::from_str(&sample_line()).unwrap();
        let fields = ["read", "written", "uncached", "output", "expected", "lost_tokens",
                      "lost_written", "lost_usd"];
        for (field, count) in fields.iter().zip(&counts) {
            verdict[*field] = count.clone();
        }
        let line = format!("{verdict}\n{verdict}\n");
        match read_log(&line) {
            Ok(verdicts) => {
                let summary = Summary::of(&verdicts);
                for v in &verdicts {
                    assert!(v.input_tokens() <= MAX_REQUEST_TOKENS, "{v:?}");
                    assert!(v.lost_written <= v.lost_tokens, "{v:?}");
                }
                let exact: u128 = verdicts.iter().map(|v| u128::from(v.input_tokens())).sum();
                let total = u128::from(summary.read) + u128::from(summary.written)
                    + u128::from(summary.uncached);
                assert_eq!(total, exact);
                assert!(summary.causes.values().all(|l| l.usd >= 0.0 && l.usd.is_finite()));
            }
            Err(error) => {
                assert_eq!(error.line, 1, "{error}");
                assert!(!error.message.contains("overflow"), "{error}");
            }
        }
    }
}

/// One verdict's log line, of a miss with a price, as a ledger writes it.
fn sample_line() -> String {
    let log = Shared::default();
    let pricing = prompt_providers::observe::Pricing::new(3.0, 0.1, 1.25).unwrap();
    let mut ledger = CacheLedger::new().log(log.clone()).pricing(pricing);
    let id = ledger.sent_prefix(&prefix("You are terse."), sent(0));
    ledger.received(id, &CacheUsage::new(20, 0, 4100)).unwrap();
    let id = ledger.sent_prefix(&prefix("You are verbose."), sent(60));
    ledger.received(id, &CacheUsage::new(20, 0, 4100)).unwrap();
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    text.lines().nth(1).unwrap().to_owned()
}

/// The cost simulation multiplies a caller's token counts by prices: at
/// `usize::MAX` they saturate instead of wrapping (or panicking in debug).
#[test]
fn the_cost_simulation_saturates_on_counts_past_any_request() {
    use prompt_providers::simulation::CacheSimulation;

    for (stable, dynamic) in [(usize::MAX, vec![usize::MAX, 1]), (5, vec![usize::MAX; 3])] {
        let report = CacheSimulation::new("claude-sonnet-4-5", stable, dynamic)
            .run()
            .expect("a report");
        assert_eq!(report.uncached_cost, u64::MAX);
        assert!(report.relative_cost.is_finite(), "{report}");
        assert!(report.total.uncached >= report.turns[0].uncached);
    }
}
