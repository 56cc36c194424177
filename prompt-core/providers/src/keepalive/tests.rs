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
}
