//! A session whose conversation grows: each turn's reply and tool results
//! join the history, and the next request carries it all.
//!
//! Request `t` is the stable prefix, the history so far and the turn's new
//! part. Its *new part* is what no earlier request carried: the previous
//! turn's reply and tool results, and this turn's dynamic suffix (its
//! per-turn block and the user's words); on turn 1, all of it. The rest is
//! the *limit*: what a cache could at best read, since it is exactly the
//! previous request. Two placements are priced against it:
//!
//! - **history as sent**, with a breakpoint at the conversation's frontier
//!   (the newest message): each request reads the previous one whole and
//!   writes its new part, once the request reaches the model's minimum; a
//!   bust (a Stable layer changed) writes everything again;
//! - **stable prefix only** (today's figures, and what a client that re-sends
//!   earlier turns without their per-turn block gets): the stable prefix is
//!   read, everything after it is billed as plain input.
//!
//! ```
//! use prompt_providers::simulation::CacheSimulation;
//!
//! // 3 turns: a 2,000-token prefix, 100 new tokens a turn, 400-token replies.
//! let report = CacheSimulation::new("claude-sonnet-4-5", 2_000, [100, 100, 100])
//!     .history(400, 0)
//!     .run()?;
//! let history = report.history.as_ref().expect("a history was asked for");
//! // Inputs 2,100, 2,600, 3,100; the limit is the previous request: 2,100 + 2,600.
//! assert_eq!(history.limit, 4_700);
//! assert_eq!(history.read, 4_700);
//! assert_eq!(history.prefix_only_read, 4_000);
//! assert_eq!(format!("{:.3}", history.prefix_only_share), "0.851");
//! # Ok::<(), prompt_providers::simulation::SimulationError>(())
//! ```

use std::fmt;

use serde::Serialize;

use super::session::ten_thousandths;
use crate::providers::cost::Multipliers;
use crate::providers::cost::ONE_X;

/// How the conversation grows per turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Growth {
    pub(crate) reply_tokens: usize,
    pub(crate) tool_result_tokens: usize,
}

/// One turn of a growing history.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HistoryTurn {
    /// The turn, from 1.
    pub turn: usize,
    /// Every input token of its request.
    pub input: usize,
    /// What no earlier request carried: the previous reply and tool results
    /// and this turn's dynamic suffix (all of it on turn 1, and on a bust).
    pub new: usize,
    /// What a cache could read at best: `input - new`.
    pub limit: usize,
    /// Read, with the history kept as sent and a breakpoint at its frontier.
    pub read: usize,
    /// Written, likewise.
    pub written: usize,
    /// Billed as plain input, likewise.
    pub uncached: usize,
    /// Read when only the stable prefix is cached.
    pub prefix_only_read: usize,
}

/// A growing history's figures, beside the stable prefix's: what a session
/// reads from the cache against what it could read at best.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryReport {
    /// Tokens of each turn's reply, appended to the history.
    pub reply_tokens: usize,
    /// Tokens of each turn's tool results, appended to the history.
    pub tool_result_tokens: usize,
    /// Each turn.
    pub turns: Vec<HistoryTurn>,
    /// Every input token of the session.
    pub input: usize,
    /// What a cache could read at best: every token but each turn's new part.
    pub limit: usize,
    /// Read with the history kept as sent and a breakpoint at its frontier.
    pub read: usize,
    /// `read / limit` (1.0 when the limit is 0).
    pub read_share: f64,
    /// Read when only the stable prefix is cached.
    pub prefix_only_read: usize,
    /// `prefix_only_read / limit` (1.0 when the limit is 0).
    pub prefix_only_share: f64,
    /// The session's cost with the history kept as sent, in input-token
    /// equivalents.
    pub cost: f64,
    /// Its cost with the stable prefix only cached.
    pub prefix_only_cost: f64,
    /// Its cost with nothing cached: every input token at 1x.
    pub uncached_cost: u64,
}

fn share(read: usize, limit: usize) -> f64 {
    if limit == 0 {
        1.0
    } else {
        read as f64 / limit as f64
    }
}

/// The history's figures for a session of `dynamic` turns over a prefix of
/// `stable` tokens, cached from `minimum` tokens, busted at `bust_at`.
pub(crate) fn simulate(
    growth: Growth,
    stable: usize,
    dynamic: &[usize],
    minimum: usize,
    bust_at: Option<usize>,
    multipliers: Multipliers,
) -> HistoryReport {
    let stable_cached = stable > 0 && stable >= minimum;
    let appended = growth
        .reply_tokens
        .saturating_add(growth.tool_result_tokens);
    let mut turns = Vec::with_capacity(dynamic.len());
    let (mut cost, mut prefix_only_cost) = (0u64, 0u64);
    let mut previous_input = 0usize;
    // Whether the previous request reached the minimum (and was written).
    let mut previous_written = false;
    for (index, &dynamic) in dynamic.iter().enumerate() {
        let turn = index + 1;
        let input = if turn == 1 {
            stable.saturating_add(dynamic)
        } else {
            previous_input
                .saturating_add(appended)
                .saturating_add(dynamic)
        };
        let limit = if turn == 1 { 0 } else { previous_input };
        let busted = Some(turn) == bust_at && turn > 1;
        let read = if turn > 1 && previous_written && !busted {
            limit
        } else {
            0
        };
        let cacheable = input >= minimum && input > 0;
        let written = if cacheable { input - read } else { 0 };
        let uncached = input - read - written;
        let prefix_only_read = if turn > 1 && stable_cached && !busted {
            stable
        } else {
            0
        };
        let prefix_only_written = if stable_cached && (turn == 1 || busted) {
            stable
        } else {
            0
        };
        cost = cost
            .saturating_add(ten_thousandths(
                written,
                multipliers.cache_write_ten_thousandths,
            ))
            .saturating_add(ten_thousandths(
                read,
                multipliers.cache_read_ten_thousandths,
            ))
            .saturating_add(ten_thousandths(uncached, ONE_X));
        prefix_only_cost = prefix_only_cost
            .saturating_add(ten_thousandths(
                prefix_only_written,
                multipliers.cache_write_ten_thousandths,
            ))
            .saturating_add(ten_thousandths(
                prefix_only_read,
                multipliers.cache_read_ten_thousandths,
            ))
            .saturating_add(ten_thousandths(
                input - prefix_only_read - prefix_only_written,
                ONE_X,
            ));
        turns.push(HistoryTurn {
            turn,
            input,
            new: input - limit,
            limit,
            read,
            written,
            uncached,
            prefix_only_read,
        });
        previous_input = input;
        previous_written = cacheable;
    }
    let sum =
        |f: fn(&HistoryTurn) -> usize| turns.iter().fold(0usize, |s, t| s.saturating_add(f(t)));
    let (input, limit, read, prefix_only_read) = (
        sum(|t| t.input),
        sum(|t| t.limit),
        sum(|t| t.read),
        sum(|t| t.prefix_only_read),
    );
    HistoryReport {
        reply_tokens: growth.reply_tokens,
        tool_result_tokens: growth.tool_result_tokens,
        input,
        limit,
        read,
        read_share: share(read, limit),
        prefix_only_read,
        prefix_only_share: share(prefix_only_read, limit),
        cost: cost as f64 / ONE_X as f64,
        prefix_only_cost: prefix_only_cost as f64 / ONE_X as f64,
        uncached_cost: u64::try_from(input).unwrap_or(u64::MAX),
        turns,
    }
}

impl fmt::Display for HistoryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "growing history: each turn appends a {}-token reply and {} tokens of tool results; \
             a turn's new part is the previous reply and tool results and its own dynamic suffix",
            self.reply_tokens, self.tool_result_tokens
        )?;
        writeln!(
            f,
            "{:>5}  {:>9}  {:>7}  {:>9}  {:>10}  {:>11}  {:>9}  {:>12}",
            "turn",
            "input",
            "new",
            "readable",
            "cache read",
            "cache write",
            "uncached",
            "prefix-only"
        )?;
        for t in &self.turns {
            writeln!(
                f,
                "{:>5}  {:>9}  {:>7}  {:>9}  {:>10}  {:>11}  {:>9}  {:>12}",
                t.turn, t.input, t.new, t.limit, t.read, t.written, t.uncached, t.prefix_only_read
            )?;
        }
        writeln!(
            f,
            "readable input (all but each turn's new part): {} of {} input tokens",
            self.limit, self.input
        )?;
        writeln!(
            f,
            "history kept as sent, breakpoint at its frontier: read {} = {:.1}% of the readable, \
             cost {:.2} tok-eq",
            self.read,
            self.read_share * 100.0,
            self.cost
        )?;
        write!(
            f,
            "stable prefix only (earlier turns re-sent without their blocks): read {} = {:.1}% of \
             the readable, cost {:.2} tok-eq (nothing cached: {})",
            self.prefix_only_read,
            self.prefix_only_share * 100.0,
            self.prefix_only_cost,
            self.uncached_cost
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::CacheSimulation;

    /// Ten turns by hand: a 2,000-token prefix, 100 dynamic tokens, a
    /// 400-token reply and 300 tokens of tool results a turn. Request t is
    /// 2,100 + 800 (t - 1) tokens; the readable part of turns 2 to 10 is the
    /// previous request, 9 x 2,100 + 800 x (0 + ... + 8) = 47,700.
    #[test]
    fn ten_turns_read_what_a_hand_count_says() {
        let run = |bust: Option<usize>| {
            let mut simulation =
                CacheSimulation::new("claude-sonnet-4-5", 2_000, [100; 10]).history(400, 300);
            if let Some(bust) = bust {
                simulation = simulation.bust_at(bust);
            }
            simulation.run().unwrap().history.unwrap()
        };
        let history = run(None);
        assert_eq!(history.turns[9].input, 2_100 + 800 * 9);
        assert_eq!(history.input, 10 * 2_100 + 800 * 45);
        assert_eq!(history.limit, 47_700);
        assert_eq!(history.read, 47_700);
        assert_eq!(history.read_share, 1.0);
        // Only the prefix: 9 reads of 2,000 = 18,000 of 47,700.
        assert_eq!(history.prefix_only_read, 18_000);
        assert_eq!(history.prefix_only_share, 18_000.0 / 47_700.0);
        // Written: turn 1 whole, then each turn's new part of 800 at 1.25x;
        // read at 0.1x; nothing uncached.
        let written = 2_100 + 9 * 800;
        assert_eq!(history.cost, written as f64 * 1.25 + 4_770.0);
        assert_eq!(history.cost, 16_395.0);
        // A bust at turn 5 loses that turn's readable 2,100 + 800 x 3.
        let busted = run(Some(5));
        assert_eq!(busted.read, 47_700 - 4_500);
        assert_eq!(format!("{:.4}", busted.read_share), "0.9057");
    }

    #[test]
    fn below_the_minimum_nothing_is_read_until_the_history_reaches_it() {
        // A 500-token prefix on a 1,024-token model: the prefix alone never
        // caches, but the growing history passes the minimum at turn 2.
        let history = CacheSimulation::new("claude-sonnet-4-5", 500, [100; 3])
            .history(400, 0)
            .run()
            .unwrap()
            .history
            .unwrap();
        let reads: Vec<_> = history.turns.iter().map(|t| t.read).collect();
        assert_eq!(reads, [0, 0, 1_100]);
        assert_eq!(history.turns[1].written, 1_100);
        assert_eq!(history.turns[0].uncached, 600);
        assert_eq!(history.prefix_only_read, 0);
    }
}
