//! The ledger shared by replicas through Redis (`SharedLedger`,
//! `RedisStore`): the same verdicts as one ledger whichever replica sends
//! each turn, and a store that is down, silent, restarted or holding
//! hostile bytes makes verdicts say "previous request unknown", never a
//! wrong cause, with no log line lost.
//!
//! Each test starts a `redis-server` of its own (`prompt_tests::redis`):
//! where none is installed they are ignored, by name, with the line that
//! installs it; `.ci/run` installs it and fails if any of them was ignored.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use prompt_checks::diff::StablePrefix;
use prompt_core::spec::{AssemblyPath, PromptMode, Scope};
use prompt_providers::observe::{
    CacheLedger, CacheUsage, CacheVerdict, GivenPrefix, MissCause, Provider, RedisStore, Sent,
    SharedLedger, SignedDuration, Timestamp, read_log,
};
use prompt_tests::redis::RedisServer;
use serde_json::Value;

/// A log that several ledgers write to and the test reads.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Log {
    fn verdicts(&self) -> Vec<CacheVerdict> {
        read_log(&String::from_utf8(self.0.lock().unwrap().clone()).unwrap()).unwrap()
    }
}

/// A prefix of three layers, one per scope, the rules' text given.
fn prefix(rules: &str) -> GivenPrefix {
    GivenPrefix::new(&StablePrefix {
        pipeline: String::new(),
        path: AssemblyPath::Cached,
        mode: PromptMode::Full,
        layers: vec![
            ("persona".into(), "You are a careful agent. ".repeat(200)),
            ("rules".into(), rules.repeat(100)),
            ("notes".into(), "Session notes: none yet.\n".repeat(50)),
        ],
        scopes: vec![
            Some(Scope::Global),
            Some(Scope::Project),
            Some(Scope::Session),
        ],
        separator: "\n\n".into(),
    })
}

/// One turn of the test conversation: what is sent and what came back.
struct Turn {
    at: i64,
    prefix: usize,
    model: &'static str,
    tools: &'static str,
    messages: Vec<String>,
    usage: CacheUsage,
}

/// Ten turns: written, read, a Project layer edited, read, idle past the
/// TTL, read, the tools changed, the model changed, the history rewritten,
/// read.
fn conversation() -> Vec<Turn> {
    let history = |n: usize| {
        (0..n)
            .map(|i| format!("{{\"role\":\"user\",\"content\":\"message {i}\"}}"))
            .collect::<Vec<_>>()
    };
    let m = "claude-sonnet-4-5";
    let turn = |at, prefix, model, tools, n, usage| Turn {
        at,
        prefix,
        model,
        tools,
        messages: history(n),
        usage,
    };
    let mut rewritten = history(16);
    rewritten[3] = "{\"role\":\"user\",\"content\":\"edited\"}".into();
    vec![
        turn(0, 0, m, "a", 2, CacheUsage::new(40, 0, 3000)),
        turn(30, 0, m, "a", 4, CacheUsage::new(40, 3000, 60)),
        turn(60, 1, m, "a", 6, CacheUsage::new(40, 1300, 1800)),
        turn(90, 1, m, "a", 8, CacheUsage::new(40, 3100, 60)),
        turn(700, 1, m, "a", 10, CacheUsage::new(40, 0, 3200)),
        turn(730, 1, m, "a", 12, CacheUsage::new(40, 3200, 60)),
        turn(760, 1, m, "b", 14, CacheUsage::new(40, 0, 3300)),
        turn(
            790,
            1,
            "claude-opus-4-5",
            "b",
            16,
            CacheUsage::new(40, 0, 3400),
        ),
        Turn {
            messages: rewritten,
            ..turn(
                820,
                1,
                "claude-opus-4-5",
                "b",
                16,
                CacheUsage::new(40, 1500, 1900),
            )
        },
        turn(
            850,
            1,
            "claude-opus-4-5",
            "b",
            18,
            CacheUsage::new(40, 3500, 60),
        ),
    ]
}

fn sent<'a>(turn: &'a Turn, conversation: &'a str) -> Sent<'a> {
    let at = Timestamp::from_second(1_800_000_000).unwrap() + SignedDuration::from_secs(turn.at);
    Sent::new(Provider::Anthropic, turn.model, at)
        .conversation(conversation)
        .tools(&serde_json::json!([{ "name": turn.tools }]))
        .messages(&turn.messages)
}

/// The verdicts of one ledger over `turns`.
fn one_ledger(turns: &[Turn], prefixes: &[GivenPrefix]) -> Vec<CacheVerdict> {
    let mut ledger = CacheLedger::new();
    turns
        .iter()
        .map(|t| {
            let id = ledger.sent_given(&prefixes[t.prefix], sent(t, "c1"));
            ledger.received(id, &t.usage).unwrap()
        })
        .collect()
}

/// A replica: its own ledger (logging to `log`) sharing `url`'s store.
fn replica(url: &str, log: &Log, timeout: Duration) -> (SharedLedger, Arc<RedisStore>) {
    let store = Arc::new(RedisStore::open(url).unwrap());
    let ledger =
        SharedLedger::new(CacheLedger::new().log(log.clone()), Arc::clone(&store)).timeout(timeout);
    (ledger, store)
}

/// Waits until `store` answers (a test's setup after a restart; not timed).
async fn answering(store: &RedisStore) {
    for _ in 0..600 {
        if let Ok(Ok(())) = tokio::time::timeout(Duration::from_secs(1), store.ping()).await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the store did not answer after its restart");
}

/// A verdict as JSON, what a replica cannot know without the previous
/// request's text left out: a changed layer's exact byte, its line, and
/// what follows from the byte (tokens after it, bytes a breakpoint keeps).
fn comparable(verdict: &CacheVerdict) -> Value {
    let mut json = serde_json::to_value(verdict).unwrap();
    if let Some(cause) = json.get_mut("cause").and_then(Value::as_object_mut)
        && cause["cause"] == "layer_changed"
    {
        for key in ["offset", "line", "tokens_after", "kept_bytes"] {
            cause.remove(key);
        }
    }
    json
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(redis_server),
    ignore = "needs redis-server on PATH: apt-get install redis-server"
)]
async fn redis_three_replicas_in_turn_give_one_ledgers_verdicts() {
    let server = RedisServer::start();
    let prefixes = [prefix("Run make check.\n"), prefix("Run make test.\n")];
    let turns = conversation();
    let alone = one_ledger(&turns, &prefixes);
    let causes: Vec<_> = alone
        .iter()
        .map(|v| v.cause.as_ref().map(MissCause::name))
        .collect();
    assert_eq!(
        causes,
        [
            Some("cold_start"),
            None,
            Some("layer_changed"),
            None,
            Some("ttl_expired"),
            None,
            Some("tools_changed"),
            Some("model_changed"),
            Some("messages_rewritten"),
            None
        ]
    );

    let log = Log::default();
    let replicas: Vec<_> = (0..3)
        .map(|_| replica(&server.url(), &log, Duration::from_secs(5)))
        .collect();
    answering(&replicas[0].1).await;
    let mut shared = Vec::new();
    for (k, t) in turns.iter().enumerate() {
        let ledger = &replicas[k % 3].0;
        let id = ledger.sent_given(&prefixes[t.prefix], sent(t, "c1")).await;
        assert_eq!(id.seq(), k as u64 + 1, "the store counts the turns");
        shared.push(ledger.received(&id, &t.usage).await.unwrap());
    }
    for (k, (one, many)) in alone.iter().zip(&shared).enumerate() {
        assert_eq!(comparable(many), comparable(one), "turn {}", k + 1);
        assert!(!many.previous_unknown, "turn {}", k + 1);
    }
    // The changed layer, named with its scope; its offset is the layer's
    // start (the text was another replica's).
    let Some(MissCause::LayerChanged {
        layer,
        scope,
        offset,
        line,
        ..
    }) = &shared[2].cause
    else {
        panic!("{}", shared[2]);
    };
    assert_eq!((layer.as_str(), *scope), ("rules", Some(Scope::Project)));
    assert_eq!(*offset, "You are a careful agent. ".len() * 200 + 2);
    assert!(line.is_none());
    assert!(matches!(
        &alone[2].cause,
        Some(MissCause::LayerChanged { line: Some(_), .. })
    ));
    // Every verdict logged once, by the replica that received it.
    assert_eq!(log.verdicts().len(), turns.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(redis_server),
    ignore = "needs redis-server on PATH: apt-get install redis-server"
)]
async fn redis_a_replica_that_sent_the_previous_turn_keeps_the_text_detail() {
    let server = RedisServer::start();
    let prefixes = [prefix("Run make check.\n"), prefix("Run make test.\n")];
    let turns = conversation();
    let alone = one_ledger(&turns, &prefixes);
    let log = Log::default();
    let (ledger, store) = replica(&server.url(), &log, Duration::from_secs(5));
    answering(&store).await;
    for (k, t) in turns.iter().enumerate() {
        let id = ledger.sent_given(&prefixes[t.prefix], sent(t, "c1")).await;
        let verdict = ledger.received(&id, &t.usage).await.unwrap();
        // One replica over the store: exactly one ledger's verdict, the
        // changed layer's byte and line included.
        assert_eq!(
            serde_json::to_value(&verdict).unwrap(),
            serde_json::to_value(&alone[k]).unwrap(),
            "turn {}",
            k + 1
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(redis_server),
    ignore = "needs redis-server on PATH: apt-get install redis-server"
)]
async fn redis_stopped_and_restarted_mid_conversation_says_unknown_and_loses_no_line() {
    let mut server = RedisServer::start();
    let prefixes = [prefix("Run make check.\n")];
    let log = Log::default();
    let replicas: Vec<_> = (0..3)
        .map(|_| replica(&server.url(), &log, Duration::from_secs(2)))
        .collect();
    answering(&replicas[0].1).await;
    let mut verdicts = Vec::new();
    for k in 0..12usize {
        if k == 4 {
            server.stop();
        }
        if k == 6 {
            server.restart();
            for (_, store) in &replicas {
                answering(store).await;
            }
        }
        let turn = Turn {
            at: 30 * k as i64,
            prefix: 0,
            model: "claude-sonnet-4-5",
            tools: "a",
            messages: Vec::new(),
            usage: if k == 0 {
                CacheUsage::new(40, 0, 3000)
            } else {
                CacheUsage::new(40, 3000, 0)
            },
        };
        let ledger = &replicas[k % 3].0;
        let id = ledger.sent_given(&prefixes[0], sent(&turn, "c1")).await;
        verdicts.push(ledger.received(&id, &turn.usage).await.unwrap());
    }
    // Turns 5 and 6 (the store down) and 7 (the first after the restart:
    // the store lost the record of turn 4, which turn 7's replica sent) are
    // unknown; every other turn is a hit again, the first a cold start.
    let unknown: Vec<usize> = verdicts
        .iter()
        .enumerate()
        .filter(|(_, v)| v.previous_unknown)
        .map(|(k, _)| k + 1)
        .collect();
    assert_eq!(unknown, [5, 6, 7]);
    for (k, verdict) in verdicts.iter().enumerate() {
        match k + 1 {
            1 => assert!(matches!(verdict.cause, Some(MissCause::ColdStart { .. }))),
            // It read the cache: no cause, and nothing to compare with.
            5..=7 => assert!(
                verdict.cause.is_none() && verdict.expected == 0,
                "{verdict}"
            ),
            n => assert!(
                verdict.is_hit() && verdict.expected == 3000,
                "turn {n}: {verdict}"
            ),
        }
    }
    // Nothing lost from the log.
    let logged = log.verdicts();
    assert_eq!(logged.len(), 12);
    assert_eq!(logged.iter().filter(|v| v.previous_unknown).count(), 3);

    // The store gone, a response that read nothing: unknown, not a cold start.
    server.stop();
    let turn = Turn {
        at: 1000,
        prefix: 0,
        model: "claude-sonnet-4-5",
        tools: "a",
        messages: Vec::new(),
        usage: CacheUsage::new(40, 0, 3000),
    };
    let id = replicas[0]
        .0
        .sent_given(&prefixes[0], sent(&turn, "c1"))
        .await;
    assert_eq!(id.seq(), 0, "the store did not count it");
    let verdict = replicas[0].0.received(&id, &turn.usage).await.unwrap();
    assert!(
        matches!(verdict.cause, Some(MissCause::PreviousUnknown { .. })),
        "{verdict}"
    );
    assert!(
        verdict.to_string().starts_with("previous request unknown"),
        "{verdict}"
    );
    assert_eq!(log.verdicts().len(), 13);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_never_answers_gives_unknown_within_the_timeout() {
    // Accepts connections and never answers a byte.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&held);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            keep.lock().unwrap().push(stream);
        }
    });
    let log = Log::default();
    let (ledger, _) = replica(
        &format!("redis://127.0.0.1:{port}/"),
        &log,
        Duration::from_millis(200),
    );
    let prefixes = [prefix("Run make check.\n")];
    let turn = Turn {
        at: 0,
        prefix: 0,
        model: "claude-sonnet-4-5",
        tools: "a",
        messages: Vec::new(),
        usage: CacheUsage::new(40, 0, 3000),
    };
    for round in 0..2 {
        let id = ledger.sent_given(&prefixes[0], sent(&turn, "c1")).await;
        let verdict = ledger.received(&id, &turn.usage).await.unwrap();
        assert!(verdict.previous_unknown, "round {round}");
        assert!(
            matches!(verdict.cause, Some(MissCause::PreviousUnknown { .. })),
            "round {round}: {verdict}"
        );
    }
    assert_eq!(log.verdicts().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(redis_server),
    ignore = "needs redis-server on PATH: apt-get install redis-server"
)]
async fn redis_out_of_order_finishes_across_two_replicas_leave_a_consistent_record() {
    let server = RedisServer::start();
    let (p, q) = (prefix("Run make check.\n"), prefix("Run make test.\n"));
    let log = Log::default();
    let (a, store) = replica(&server.url(), &log, Duration::from_secs(5));
    let (b, _) = replica(&server.url(), &log, Duration::from_secs(5));
    answering(&store).await;
    let turn = |at: i64, usage| Turn {
        at,
        prefix: 0,
        model: "claude-sonnet-4-5",
        tools: "a",
        messages: Vec::new(),
        usage,
    };
    let t1 = turn(0, CacheUsage::new(40, 0, 3000));
    let id = a.sent_given(&p, sent(&t1, "c1")).await;
    a.received(&id, &t1.usage).await.unwrap();
    // Turn 2 through A, turn 3 through B before turn 2's response; B's
    // response comes back first, then A's.
    let t2 = turn(10, CacheUsage::new(40, 3000, 10));
    let t3 = turn(20, CacheUsage::new(40, 3000, 20));
    let id2 = a.sent_given(&p, sent(&t2, "c1")).await;
    let id3 = b.sent_given(&p, sent(&t3, "c1")).await;
    b.received(&id3, &t3.usage).await.unwrap();
    a.received(&id2, &t2.usage).await.unwrap();
    // Turn 4 is compared with turn 3 and its usage (exact, not estimated):
    // turn 2's late usage did not replace it.
    let t4 = turn(30, CacheUsage::new(40, 3020, 10));
    let id4 = a.sent_given(&p, sent(&t4, "c1")).await;
    let v4 = a.received(&id4, &t4.usage).await.unwrap();
    assert_eq!(
        (v4.seq, v4.expected, v4.expected_estimated),
        (4, 3020, false),
        "{v4}"
    );
    assert!(v4.is_hit(), "{v4}");

    // Saved out of order: B sends a request timed before A's last (which
    // the store already holds); the store keeps A's, the later one, and
    // the next turn is compared with it (the same prefix: a hit), not with
    // B's (another rules text: a changed layer).
    let t5 = turn(50, CacheUsage::new(40, 3030, 10));
    let id5 = a.sent_given(&p, sent(&t5, "c1")).await;
    let late = turn(45, CacheUsage::new(40, 0, 3000));
    let id_late = b.sent_given(&q, sent(&late, "c1")).await;
    a.received(&id5, &t5.usage).await.unwrap();
    b.received(&id_late, &late.usage).await.unwrap();
    let t6 = turn(60, CacheUsage::new(40, 3040, 10));
    let id6 = b.sent_given(&p, sent(&t6, "c1")).await;
    let v6 = b.received(&id6, &t6.usage).await.unwrap();
    assert!(v6.is_hit(), "{v6}");
    assert_eq!((v6.seq, v6.expected), (7, 3040), "{v6}");
    assert_eq!(log.verdicts().len(), 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(redis_server),
    ignore = "needs redis-server on PATH: apt-get install redis-server"
)]
async fn redis_hostile_stored_bytes_read_as_unknown_and_are_replaced() {
    let server = RedisServer::start();
    let p = prefix("Run make check.\n");
    let log = Log::default();
    let (ledger, store) = replica(&server.url(), &log, Duration::from_secs(5));
    answering(&store).await;
    let huge = vec![b'{'; 4 << 20];
    let cases: [(&str, Vec<&[u8]>); 5] = [
        (
            "garbage",
            vec![
                b"HSET",
                b"K",
                b"s",
                b"1",
                b"o",
                b"0",
                b"r",
                b"\xff\x00garbage",
            ],
        ),
        (
            "version",
            vec![
                b"HSET",
                b"K",
                b"s",
                b"1",
                b"o",
                b"0",
                b"r",
                b"{\"v\":99,\"x\":1}",
            ],
        ),
        (
            "huge",
            vec![b"HSET", b"K", b"s", b"1", b"o", b"0", b"r", &huge],
        ),
        ("type", vec![b"SET", b"K", b"a string, not a hash"]),
        ("usage", vec![b"HSET", b"K", b"u", b"{\"v\":1,\"r\":1e300}"]),
    ];
    for (n, (case, command)) in cases.iter().enumerate() {
        let conversation = format!("hostile-{n}");
        let key = format!("prompt:ledger:{conversation}");
        if *case == "usage" {
            // A record of its own first, then garbage for its usage.
            let t = Turn {
                at: 0,
                prefix: 0,
                model: "claude-sonnet-4-5",
                tools: "a",
                messages: Vec::new(),
                usage: CacheUsage::new(40, 0, 3000),
            };
            let id = ledger.sent_given(&p, sent(&t, &conversation)).await;
            ledger.received(&id, &t.usage).await.unwrap();
        }
        let command: Vec<&[u8]> = command
            .iter()
            .map(|part| if *part == b"K" { key.as_bytes() } else { *part })
            .collect();
        let reply = server.command(&command);
        assert!(!reply.starts_with('-'), "{case}: {reply}");
        let t = |at, usage| Turn {
            at,
            prefix: 0,
            model: "claude-sonnet-4-5",
            tools: "a",
            messages: Vec::new(),
            usage,
        };
        // A fresh replica: nothing of its own to go by.
        let (fresh, _) = replica(&server.url(), &log, Duration::from_secs(5));
        let first = t(30, CacheUsage::new(40, 0, 3000));
        let id = fresh.sent_given(&p, sent(&first, &conversation)).await;
        let verdict = fresh.received(&id, &first.usage).await.unwrap();
        assert!(verdict.previous_unknown, "{case}: {verdict}");
        assert!(
            matches!(verdict.cause, Some(MissCause::PreviousUnknown { .. })),
            "{case}: {verdict}"
        );
        // The record is replaced: the next turn is compared again.
        let next = t(60, CacheUsage::new(40, 3000, 10));
        let id = ledger.sent_given(&p, sent(&next, &conversation)).await;
        let verdict = ledger.received(&id, &next.usage).await.unwrap();
        assert!(
            verdict.is_hit() && !verdict.previous_unknown,
            "{case}: {verdict}"
        );
        assert_eq!(verdict.expected, 3000, "{case}: {verdict}");
    }
}
