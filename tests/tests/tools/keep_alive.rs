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
