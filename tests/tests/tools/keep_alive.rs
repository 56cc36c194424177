//! Keep-alive in the ledger: pings are not turns (the gaps leave them
//! out, the next turn is compared with the last real one and its TTL
//! counted from the ping), a ping that read is a refresh, one that wrote
//! is a failed keep-alive with its cost, and the ledger lists the
//! conversations whose decision is a ping.

use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use prompt_core::{AssembledPrompt, Context, PromptBuilder, Stability};
use prompt_providers::anthropic::CacheTtl;
use prompt_providers::keepalive::{Decision, Decline, KeepAlive};
use prompt_providers::observe::{
    CacheLedger, CacheUsage, MissCause, Pricing, Provider, Sent, Summary, read_log,
};

fn t(seconds: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000).unwrap() + SignedDuration::from_secs(seconds)
}

fn prompt() -> AssembledPrompt {
    let text = "Rule: read the code before you change it.\n".repeat(400);
    let pipeline = prompt_tests::fixed(&[
        ("persona", 1, Stability::Stable, &text),
        ("runtime", 10_000, Stability::Dynamic, "Now."),
    ]);
    PromptBuilder::new(&pipeline)
        .session(Context::new())
        .build_cached(&Context::new())
        .unwrap()
}

fn sonnet() -> Pricing {
    Pricing::for_model(3.0, "claude-sonnet-4-5", CacheTtl::FiveMinutes).unwrap()
}

fn sent(at: i64) -> Sent<'static> {
    Sent::new(Provider::Anthropic, "claude-sonnet-4-5", t(at)).conversation("c1")
}

const PREFIX: u64 = 4_200;

#[test]
fn a_ping_is_not_a_turn_and_the_next_turn_counts_its_ttl_from_the_ping() {
    let prompt = prompt();
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    let mut ledger = CacheLedger::new()
        .pricing(sonnet())
        .log(SharedLog(log.clone()));
    let policy = KeepAlive::new();

    // Turn 1 writes; no gap yet: no ping.
    let id = ledger.sent(&prompt, sent(0));
    ledger
        .received(id, &CacheUsage::new(30, 0, PREFIX))
        .unwrap();
    let state = ledger.keep_alive_state("c1").unwrap();
    assert!(matches!(
        policy.decide(&state),
        Decision::Decline(Decline::NoHistory { .. })
    ));
    assert!(ledger.pings(&policy).is_empty());

    // Turn 2, six minutes later, without keep-alive: the entry expired.
    let id = ledger.sent(&prompt, sent(360));
    let lapsed = ledger
        .received(id, &CacheUsage::new(30, 0, PREFIX))
        .unwrap();
    assert!(
        matches!(lapsed.cause, Some(MissCause::TtlExpired { .. })),
        "{lapsed}"
    );

    // Now the conversation has shown a 6-minute gap: ping at 4.5 minutes.
    let state = ledger.keep_alive_state("c1").unwrap();
    assert_eq!(
        state.gaps.iter().collect::<Vec<_>>(),
        [Duration::from_secs(360)]
    );
    assert_eq!((state.prefix_tokens, state.pings_since_turn), (PREFIX, 0));
    let due = ledger.pings(&policy);
    assert_eq!(due.len(), 1);
    assert_eq!(
        (&*due[0].conversation, due[0].ping.at),
        ("c1", t(360 + 270))
    );
    assert!(ledger.due(t(360 + 269), &policy).is_empty(), "not yet");
    assert_eq!(ledger.due(t(360 + 270), &policy).len(), 1);
    assert!(
        ledger.due(t(360 + 300), &policy).is_empty(),
        "expired: a ping would write"
    );

    // The ping reads the prefix: a refresh, not a turn.
    let ping = ledger.sent_keep_alive("c1", t(360 + 270)).unwrap();
    let refreshed = ledger
        .received(ping, &CacheUsage::new(0, PREFIX, 0))
        .unwrap();
    assert!(refreshed.keep_alive && refreshed.is_hit(), "{refreshed}");
    assert!(
        refreshed
            .to_string()
            .starts_with("keep-alive: hit: read 4,200"),
        "{refreshed}"
    );
    let state = ledger.keep_alive_state("c1").unwrap();
    assert_eq!(state.gaps.len(), 1, "a ping is not a turn");
    assert_eq!((state.pings_since_turn, state.refreshed), (1, t(360 + 270)));

    // Turn 3, six minutes after turn 2: idle 90 s since the ping, a hit,
    // compared with turn 2 (what it read and wrote is what a hit reads).
    let id = ledger.sent(&prompt, sent(720));
    let hit = ledger
        .received(id, &CacheUsage::new(30, PREFIX, 0))
        .unwrap();
    assert!(hit.is_hit() && !hit.keep_alive, "{hit}");
    assert_eq!(hit.expected, PREFIX);
    let state = ledger.keep_alive_state("c1").unwrap();
    assert_eq!(
        state.gaps.iter().collect::<Vec<_>>(),
        [Duration::from_secs(360); 2],
        "the gap runs turn to turn, the ping left out"
    );
    assert_eq!(state.pings_since_turn, 0);

    // A ping that wrote instead of reading: a failed keep-alive, with its cost.
    let ping = ledger.sent_keep_alive("c1", t(720 + 310)).unwrap();
    let failed = ledger
        .received(ping, &CacheUsage::new(0, 0, PREFIX))
        .unwrap();
    assert!(failed.is_failed_keep_alive(), "{failed}");
    assert!(matches!(failed.cause, Some(MissCause::TtlExpired { .. })));
    let usd = failed.lost_usd.unwrap();
    assert!((usd - PREFIX as f64 * 1.15 * 3e-6).abs() < 1e-9, "{usd}");
    let line = failed.to_string();
    assert!(
        line.starts_with("FAILED keep-alive: TTL expired: idle 5m 10s"),
        "{line}"
    );
    assert!(
        line.contains("4,200 tokens re-written, USD 0.0145"),
        "{line}"
    );

    // The log and the summary keep pings apart from turns.
    let text = String::from_utf8(log.lock().unwrap().clone()).unwrap();
    let verdicts = read_log(&text).unwrap();
    assert_eq!(verdicts.iter().filter(|v| v.keep_alive).count(), 2);
    assert!(text.lines().nth(2).unwrap().contains("\"keep_alive\":true"));
    assert!(!text.lines().next().unwrap().contains("keep_alive"));
    let summary = Summary::of(&verdicts);
    assert_eq!((summary.requests, summary.hits), (3, 1));
    assert_eq!(
        (
            summary.keep_alive.pings,
            summary.keep_alive.refreshed,
            summary.keep_alive.failed.misses
        ),
        (2, 1, 1)
    );
    assert!(
        summary.to_string().contains(
            "keep-alive: 2 ping(s), 1 refreshed (4,200 tokens read), 1 FAILED (4,200 tokens \
             re-written, USD 0.0145)"
        ),
        "{summary}"
    );
}

#[test]
fn the_cap_and_the_longest_gap_stop_the_pings() {
    let prompt = prompt();
    let mut ledger = CacheLedger::new().pricing(sonnet());
    let policy = KeepAlive::new().max_pings(2);
    // Gaps of 6, 8 and 12 minutes.
    for at in [0, 360, 840, 1_560] {
        let id = ledger.sent(&prompt, sent(at));
        ledger
            .received(id, &CacheUsage::new(30, 0, PREFIX))
            .unwrap();
    }
    // A ping at 4.5 minutes (2 of the 3 gaps end in its window), another
    // at 9 (the 12-minute gap ends in the next), then the cap.
    for (at, probability) in [(1_560 + 270, 2.0 / 3.0), (1_560 + 540, 1.0)] {
        let due = ledger.pings(&policy);
        assert_eq!(due.len(), 1, "{due:?}");
        assert_eq!(
            (due[0].ping.at, due[0].ping.probability),
            (t(at), probability)
        );
        let ping = ledger.sent_keep_alive("c1", t(at)).unwrap();
        ledger
            .received(ping, &CacheUsage::new(0, PREFIX, 0))
            .unwrap();
    }
    let state = ledger.keep_alive_state("c1").unwrap();
    assert!(matches!(
        policy.decide(&state),
        Decision::Decline(Decline::CapReached {
            pings: 2,
            cap: 2,
            ..
        })
    ));
    // Without the cap, the third would go at 13.5 minutes, past the
    // longest gap the conversation has shown.
    let uncapped = KeepAlive::new().max_pings(100);
    let Decision::Decline(Decline::PastLongestGap { idle, longest, .. }) = uncapped.decide(&state)
    else {
        panic!("{}", uncapped.decide(&state))
    };
    assert_eq!(
        (idle, longest),
        (Duration::from_secs(810), Duration::from_secs(720))
    );
    assert!(ledger.pings(&uncapped).is_empty());
}

#[test]
fn a_conversation_without_a_turn_or_a_price_has_no_state() {
    let prompt = prompt();
    let mut ledger = CacheLedger::new();
    assert!(ledger.keep_alive_state("c1").is_none());
    assert!(
        ledger.sent_keep_alive("c1", t(0)).is_none(),
        "nothing to re-send"
    );
    let id = ledger.sent(&prompt, sent(0));
    ledger
        .received(id, &CacheUsage::new(30, 0, PREFIX))
        .unwrap();
    assert!(ledger.keep_alive_state("c1").is_none(), "no price");
    let id = ledger.sent(&prompt, sent(60).pricing(sonnet()));
    ledger
        .received(id, &CacheUsage::new(30, PREFIX, 0))
        .unwrap();
    assert_eq!(ledger.keep_alive_state("c1").unwrap().pricing, sonnet());
}

/// A log the test reads back.
struct SharedLog(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for SharedLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

// --- end to end: the scheduler against the loopback's cache ----------------

mod end_to_end {
    use std::io::{Read, Write};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use prompt_clients::loopback::Loopback;
    use prompt_clients::loopback::cache::ManualClock;
    use prompt_providers::Message;
    use prompt_providers::anthropic::{CacheTtl, MessagesRequest};
    use prompt_providers::keepalive::{Decision, Decline, KeepAlive, Scheduler};
    use prompt_providers::observe::{
        CacheLedger, CacheUsage, CacheVerdict, MissCause, Pricing, Provider, Sent,
    };
    use serde_json::Value;

    use super::{prompt, t};

    /// POSTs `body` to the loopback's Messages endpoint; the usage back.
    fn post(server: &Loopback, body: &Value) -> CacheUsage {
        let body = body.to_string();
        let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
        write!(
            stream,
            "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        let json = reply.split("\r\n\r\n").nth(1).unwrap();
        let json: Value = serde_json::from_str(json).unwrap();
        CacheUsage::from_response(Provider::Anthropic, &json).unwrap()
    }

    /// One conversation's requests on one loopback whose clock follows tokio's.
    struct Run {
        server: Loopback,
        clock: ManualClock,
        synced: Mutex<Duration>,
        start: tokio::time::Instant,
        ledger: Arc<Mutex<CacheLedger>>,
        turn: Value,
        model: &'static str,
    }

    impl Run {
        fn new(model: &'static str, pricing: Pricing) -> Self {
            let clock = ManualClock::default();
            let mut turn = MessagesRequest::new(&prompt(), model, 1024)
                .message(Message::user("Why does the login test fail?"));
            turn = turn.ttl(CacheTtl::FiveMinutes);
            Self {
                server: Loopback::with_clock(clock.clone()).unwrap(),
                clock,
                synced: Mutex::new(Duration::ZERO),
                start: tokio::time::Instant::now(),
                ledger: Arc::new(Mutex::new(CacheLedger::new().pricing(pricing))),
                turn: serde_json::to_value(&turn).unwrap(),
                model,
            }
        }

        /// The loopback's clock brought to tokio's.
        fn sync(&self) {
            let elapsed = self.start.elapsed();
            let mut synced = self.synced.lock().unwrap();
            self.clock.advance(elapsed - *synced);
            *synced = elapsed;
        }

        fn seconds(&self) -> i64 {
            self.start.elapsed().as_secs() as i64
        }

        /// A real turn now.
        fn turn(&self) -> CacheVerdict {
            self.sync();
            let at = t(self.seconds());
            let id = self.ledger.lock().unwrap().sent(
                &prompt(),
                Sent::new(Provider::Anthropic, self.model, at).conversation("c1"),
            );
            let usage = post(&self.server, &self.turn);
            self.ledger.lock().unwrap().received(id, &usage).unwrap()
        }

        /// The refresh of the turn, as the scheduler sends it.
        fn refresh(&self) -> CacheUsage {
            self.sync();
            let request: MessagesRequest = {
                // The turn's body rebuilt and refreshed: max_tokens 1, the cached part.
                let turn = MessagesRequest::new(&prompt(), self.model, 1024)
                    .message(Message::user("Why does the login test fail?"));
                turn.refresh(1)
            };
            post(&self.server, &serde_json::to_value(&request).unwrap())
        }
    }

    /// Input cost of a verdict, in US dollars, plus its output at 5x.
    fn cost(verdict: &CacheVerdict, pricing: &Pricing, output: u64) -> f64 {
        let per = pricing.usd_per_mtok / 1e6;
        (verdict.read as f64 * pricing.read
            + verdict.written as f64 * pricing.write
            + verdict.uncached as f64
            + output as f64 * 5.0)
            * per
    }

    /// Three turns six minutes apart, with or without the scheduler; the
    /// verdicts (pings included) and the net cost.
    async fn session(
        model: &'static str,
        pricing: Pricing,
        keep_alive: bool,
    ) -> (Vec<CacheVerdict>, f64) {
        let run = Arc::new(Run::new(model, pricing));
        let mut verdicts = vec![run.turn()];
        tokio::time::advance(Duration::from_secs(360)).await;
        verdicts.push(run.turn());
        let origin = t(run.seconds());
        let scheduler = {
            let sender = Arc::clone(&run);
            Scheduler::new(
                Arc::clone(&run.ledger),
                KeepAlive::new(),
                move |_conversation| {
                    let run = Arc::clone(&sender);
                    async move { Ok::<_, std::io::Error>(run.refresh()) }
                },
            )
            .origin(origin)
        };
        if keep_alive {
            let next = scheduler
                .next_ping()
                .expect("the 6-minute gap makes a ping pay");
            assert_eq!(next.ping.at, t(360 + 270), "at 90% of the TTL");
            let sent = scheduler.step().await;
            assert_eq!(sent.len(), 1);
            assert_eq!(
                run.seconds(),
                360 + 270,
                "slept on tokio's clock to the ping"
            );
            let ping = sent.into_iter().next().unwrap().outcome.unwrap();
            assert!(ping.keep_alive && ping.is_hit(), "{ping}");
            verdicts.push(ping);
        }
        let now = run.seconds();
        tokio::time::advance(Duration::from_secs((720 - now) as u64)).await;
        verdicts.push(run.turn());
        let net = verdicts
            .iter()
            .map(|v| cost(v, &pricing, if v.keep_alive { 1 } else { 0 }))
            .sum();
        (verdicts, net)
    }

    #[tokio::test(start_paused = true)]
    async fn a_ping_at_four_and_a_half_minutes_turns_an_expiry_into_a_read() {
        for (model, usd) in [("claude-sonnet-4-5", 3.0), ("claude-opus-5-5", 5.0)] {
            let pricing = Pricing::for_model(usd, model, CacheTtl::FiveMinutes).unwrap();
            let (without, cost_without) = session(model, pricing, false).await;
            let last = without.last().unwrap();
            assert!(
                matches!(last.cause, Some(MissCause::TtlExpired { idle, .. }) if idle == Duration::from_secs(360)),
                "{last}"
            );
            let (with, cost_with) = session(model, pricing, true).await;
            let last = with.last().unwrap();
            assert!(last.is_hit(), "{last}");
            assert_eq!(with.iter().filter(|v| v.keep_alive).count(), 1);
            assert!(cost_with < cost_without, "{cost_with} >= {cost_without}");
            println!(
                "{model} (USD {usd}/Mtok, reads {}x): prefix {} tokens; three turns 6 minutes \
                 apart: USD {cost_without:.6} without keep-alive, USD {cost_with:.6} with one \
                 ping (net saving USD {:.6})",
                pricing.read,
                last.read,
                cost_without - cost_with
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn turns_an_hour_apart_are_never_pinged() {
        let pricing = Pricing::for_model(3.0, "claude-sonnet-4-5", CacheTtl::FiveMinutes).unwrap();
        let run = Arc::new(Run::new("claude-sonnet-4-5", pricing));
        run.turn();
        tokio::time::advance(Duration::from_secs(3_600)).await;
        run.turn();
        let state = run.ledger.lock().unwrap().keep_alive_state("c1").unwrap();
        let decision = KeepAlive::new().decide(&state);
        let Decision::Decline(Decline::NotWorthIt {
            ping_usd,
            expected_rewrite_usd,
            ..
        }) = decision
        else {
            panic!("{decision}")
        };
        assert_eq!(expected_rewrite_usd, 0.0);
        println!("turns an hour apart: {decision} (ping USD {ping_usd:.6})");
        let scheduler = Scheduler::new(Arc::clone(&run.ledger), KeepAlive::new(), |_| async {
            Ok::<_, std::io::Error>(CacheUsage::new(0, 0, 0))
        });
        let before = tokio::time::Instant::now();
        assert!(scheduler.run_until_idle().await.is_empty());
        assert_eq!(tokio::time::Instant::now(), before, "nothing to wait for");
        assert_eq!(run.server.requests().len(), 2, "no ping sent");
    }
}
