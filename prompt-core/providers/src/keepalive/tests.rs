use std::time::Duration;

use jiff::Timestamp;
use proptest::prelude::*;

use super::*;

fn t0() -> Timestamp {
    Timestamp::from_second(1_800_000_000).unwrap()
}

fn pricing(read: f64) -> Pricing {
    Pricing::new(3.0, read, 1.25).unwrap()
}

fn state(gaps: &[u64], prefix: u64, read: f64) -> ConversationState {
    ConversationState::new(t0(), Duration::from_secs(300), prefix, pricing(read))
        .gaps(gaps.iter().map(|&s| Duration::from_secs(s)).collect())
}

#[test]
fn a_conversation_that_came_back_after_six_minutes_is_pinged_at_four_and_a_half() {
    let decision = KeepAlive::new().decide(&state(&[60, 360], 20_000, 0.1));
    let ping = decision
        .ping()
        .expect("the 6-minute gap is within the window");
    assert_eq!(ping.at, t0() + jiff::SignedDuration::from_secs(270));
    assert_eq!(ping.expires, t0() + jiff::SignedDuration::from_secs(300));
    assert_eq!(ping.probability, 1.0);
    assert!(ping.expected_saving_usd > 0.0);
}

#[test]
fn each_reason_to_decline_is_named_with_its_figures() {
    let policy = KeepAlive::new();
    assert_eq!(
        policy.decide(&state(&[], 20_000, 0.1)),
        Decision::Decline(Decline::NoHistory {})
    );
    assert_eq!(
        policy.decide(&state(&[360], 600, 0.1).minimum(1_024)),
        Decision::Decline(Decline::BelowMinimum {
            tokens: 600,
            minimum: 1_024
        })
    );
    assert_eq!(
        policy.decide(&state(&[360], 20_000, 0.1).pings_since_turn(3)),
        Decision::Decline(Decline::CapReached { pings: 3, cap: 3 })
    );
    // Every gap shorter than the ping's time: no turn has ever come that late.
    let Decision::Decline(decline) = policy.decide(&state(&[30, 60, 120], 20_000, 0.1)) else {
        panic!("pinged past the longest gap")
    };
    assert_eq!(
        decline,
        Decline::PastLongestGap {
            idle: Duration::from_secs(270),
            longest: Duration::from_secs(120)
        }
    );
    assert!(decline.to_string().contains("270s"), "{decline}");
    // Gaps far longer than the TTL: the ping's window never sees the turn.
    let Decision::Decline(decline) = policy.decide(&state(&[3_600, 7_200], 20_000, 0.1)) else {
        panic!("pinged for turns an hour apart")
    };
    let Decline::NotWorthIt {
        probability,
        ping_usd,
        expected_rewrite_usd,
        pings: 1,
        ..
    } = decline
    else {
        panic!("{decline}")
    };
    assert_eq!((probability, expected_rewrite_usd), (0.0, 0.0));
    assert!((ping_usd - (20_000.0 * 0.1 + 5.0) * 3e-6).abs() < 1e-12);
    assert!(decline.to_string().contains("USD 0.006015"), "{decline}");
}

#[test]
fn a_second_ping_is_timed_from_the_first() {
    let ping_one = t0() + jiff::SignedDuration::from_secs(270);
    let decision = KeepAlive::new().decide(
        &state(&[600], 20_000, 0.1)
            .refreshed(ping_one)
            .pings_since_turn(1),
    );
    let ping = decision
        .ping()
        .expect("the 10-minute gap is in the second window");
    assert_eq!(ping.at, t0() + jiff::SignedDuration::from_secs(540));
    assert_eq!(ping.expires, t0() + jiff::SignedDuration::from_secs(570));
}

#[test]
fn a_tiny_prefix_with_an_expensive_read_is_declined() {
    // 1,100 tokens read at 0.5x against a 1-in-4 chance of a re-write.
    let decision = KeepAlive::new().decide(&state(&[360, 3_600, 3_600, 3_600], 1_100, 0.5));
    assert!(
        matches!(decision, Decision::Decline(Decline::NotWorthIt { .. })),
        "{decision}"
    );
}

#[test]
fn turns_ten_minutes_apart_are_kept_alive_by_two_pings() {
    // One ping (4.5 minutes, entry to 9.5) never reaches a 10-minute gap;
    // two (the second at 9, entry to 14) always do.
    let tens = state(&[600, 600, 600], 20_000, 0.1);
    let ping = *KeepAlive::new()
        .decide(&tens)
        .ping()
        .expect("two reads at 0.1x cost less than a write at 1.25x");
    assert_eq!(ping.at, t0() + jiff::SignedDuration::from_secs(270));
    assert_eq!(
        (ping.pings, ping.expected_pings, ping.probability),
        (2, 2.0, 1.0)
    );
    let rewrite = 20_000.0 * 1.15 * 3e-6;
    assert!((ping.expected_saving_usd - (rewrite - 2.0 * ping.ping_usd)).abs() < 1e-12);
    assert!(
        ping.to_string()
            .contains("over up to 2 pings (expected 2.00)"),
        "{ping}"
    );
    // One ping left: it spares nothing.
    let Decision::Decline(decline) = KeepAlive::new().max_pings(1).decide(&tens) else {
        panic!("one ping cannot reach a 10-minute gap")
    };
    assert!(
        matches!(decline, Decline::NotWorthIt { pings: 1, probability, .. } if probability == 0.0),
        "{decline}"
    );
    // Two pings at a read as dear as the re-write it spares: declined,
    // the two-ping horizon named.
    let Decision::Decline(decline) = KeepAlive::new().decide(&state(&[600; 3], 20_000, 0.6)) else {
        panic!("two reads at 0.6x cost more than a write at 1.25x")
    };
    assert!(
        matches!(decline, Decline::NotWorthIt { pings: 2, .. }),
        "{decline}"
    );
    assert!(
        decline
            .to_string()
            .starts_with("up to 2 pings (expected 2.00"),
        "{decline}"
    );
}

#[test]
fn a_huge_cap_with_a_tiny_ttl_looks_a_bounded_way_ahead() {
    // A 1-second TTL and a year-long gap: 35 million pings to reach it,
    // of which the rule prices at most MAX_HORIZON, none reaching it.
    let huge = ConversationState::new(t0(), Duration::from_secs(1), 20_000, pricing(0.01))
        .gaps([Duration::from_secs(86_400 * 365)].into_iter().collect());
    let decision = KeepAlive::new().max_pings(u32::MAX).decide(&huge);
    assert!(
        matches!(decision, Decision::Decline(Decline::NotWorthIt { pings: 1, probability, .. }) if probability == 0.0),
        "{decision}"
    );
    // A TTL of a millisecond leads by nothing: one ping is priced.
    let tiny = ConversationState::new(t0(), Duration::from_millis(1), 20_000, pricing(0.01))
        .gaps([Duration::from_secs(1)].into_iter().collect());
    let decision = KeepAlive::new().max_pings(u32::MAX).decide(&tiny);
    assert!(
        matches!(
            decision,
            Decision::Decline(Decline::NotWorthIt { pings: 1, .. })
        ),
        "{decision}"
    );
}

fn gaps_strategy() -> impl Strategy<Value = Vec<u64>> {
    proptest::collection::vec(1u64..7_200, 0..24)
}

proptest! {
    #[test]
    fn never_pings_past_the_cap(
        gaps in gaps_strategy(),
        cap in 0u32..5,
        sent in 0u32..8,
        prefix in 0u64..200_000,
        read in 0.0f64..1.0,
    ) {
        let policy = KeepAlive::new().max_pings(cap);
        let decision = policy.decide(&state(&gaps, prefix, read).pings_since_turn(sent));
        if sent >= cap {
            prop_assert!(decision.ping().is_none(), "{decision}");
        }
        if let Decision::Ping(ping) = decision {
            prop_assert!(ping.pings >= 1 && ping.pings <= cap - sent, "{decision}");
        }
    }

    #[test]
    fn never_pings_past_the_longest_gap(
        gaps in gaps_strategy(),
        refreshed in 0i64..3_600,
        lead in 1u8..100,
        prefix in 0u64..200_000,
        read in 0.0f64..1.0,
    ) {
        let policy = KeepAlive::new().lead_percent(lead);
        let at = t0() + jiff::SignedDuration::from_secs(refreshed);
        let decision = policy.decide(&state(&gaps, prefix, read).refreshed(at));
        if let Decision::Ping(ping) = decision {
            let idle = ping.at.duration_since(t0());
            let longest = gaps.iter().copied().max().unwrap_or(0);
            prop_assert!(idle < jiff::SignedDuration::from_secs(longest as i64), "{decision}");
            prop_assert!(ping.at < ping.expires);
            // The last ping the horizon priced goes before the longest gap too.
            let lead = jiff::SignedDuration::from_millis(300_000 * i64::from(policy.lead_percent) / 100);
            let last = idle + lead * (ping.pings as i32 - 1);
            prop_assert!(last < jiff::SignedDuration::from_secs(longest as i64), "{decision}");
        }
    }

    #[test]
    fn a_cheaper_read_never_turns_a_ping_into_a_decline_for_its_cost(
        gaps in gaps_strategy(),
        prefix in 0u64..200_000,
        read in 0.0f64..1.0,
        cheaper in 0.0f64..1.0,
    ) {
        let policy = KeepAlive::new();
        let cheaper = read * cheaper;
        let at_read = policy.decide(&state(&gaps, prefix, read));
        let at_cheaper = policy.decide(&state(&gaps, prefix, cheaper));
        if at_read.ping().is_some() {
            prop_assert!(
                !matches!(at_cheaper, Decision::Decline(Decline::NotWorthIt { .. })),
                "{at_read} at {read}x, {at_cheaper} at {cheaper}x"
            );
        }
    }

    /// Every gap needs exactly two pings (it ends after the first ping's
    /// window, 570 s, and within the second's, 840 s): the policy pings,
    /// over two pings, exactly when two pings cost less than the re-write.
    #[test]
    fn a_gap_two_pings_away_is_kept_alive_when_two_reads_cost_less_than_a_write(
        gaps in proptest::collection::vec(571u64..=840, 1..16),
        prefix in 1u64..200_000,
        read in 0.0f64..0.7,
    ) {
        let decision = KeepAlive::new().decide(&state(&gaps, prefix, read));
        let pricing = pricing(read);
        let ping_usd = KeepAlive::new().ping_usd(prefix, &pricing);
        let rewrite_usd = prefix as f64 * (1.25 - read) * 3e-6;
        let pays = rewrite_usd - 2.0 * ping_usd;
        if pays.abs() > 1e-12 {
            prop_assert_eq!(decision.ping().is_some(), pays > 0.0, "{} {}", decision, pays);
        }
        if let Decision::Ping(ping) = decision {
            prop_assert_eq!((ping.pings, ping.expected_pings, ping.probability), (2, 2.0, 1.0));
            prop_assert!((ping.expected_saving_usd - pays).abs() < 1e-9);
        }
    }
}
