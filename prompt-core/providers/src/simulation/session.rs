//! One session's cost with a provider's prompt cache (Anthropic's, or
//! OpenAI's for its GPT-5 line): N calls, priced turn by turn from token
//! counts alone.
//!
//! A session is N calls. The stable prefix is the same on every call; the
//! dynamic suffix changes per turn. Without a history, with Anthropic's cache:
//!
//! - turn 1 writes the prefix to the cache (billed at the write multiplier:
//!   1.25x input for the 5-minute TTL, 2x for 1 hour; on OpenAI's GPT-5.6
//!   and later 1.25x, on its earlier GPT-5 models 1x);
//! - later turns read it (0.1x);
//! - the dynamic suffix is uncached input (1x): nothing after the stable
//!   prefix is cached;
//! - a *bust* at turn K (one stable layer changed) writes the prefix again;
//! - a prefix below the model's minimum cacheable length (see
//!   [`CacheMinimums`]) is never cached: every turn pays 1x for everything.
//!
//! With [`history`](CacheSimulation::history), each turn also appends a reply
//! and tool results, and the report's [`history`](CacheReport::history)
//! prices the conversation kept as sent with a breakpoint at its frontier:
//! each turn's new part is written and read by the next turn, and only what
//! stays below the model's minimum is uncached (see `history.rs`).
//!
//! Calls are assumed to come within the TTL of each other, so the cache never
//! expires; the TTL decides the write price. With
//! [`gaps`](CacheSimulation::gaps) between them, the report's
//! [`keep_alive`](CacheReport::keep_alive) prices the lapses those gaps
//! cause, with and without keep-alive (see `keep_alive.rs`). Costs are in *input-token
//! equivalents* (tokens times multiplier), and the relative cost divides them
//! by what sending every token uncached would cost. Output tokens are not
//! counted: caching does not change them.
//!
//! ```
//! use prompt_providers::simulation::CacheSimulation;
//!
//! let report = CacheSimulation::new("claude-sonnet-4-5", 10_000, [500, 500, 500]).run()?;
//! assert_eq!(report.total.cache_write, 10_000);
//! assert_eq!(report.total.cache_read, 20_000);
//! assert_eq!(report.total.uncached, 1_500);
//! assert_eq!(report.total.cost, 16_000.0); // 10,000 x 1.25 + 20,000 x 0.1 + 1,500
//! assert_eq!(report.uncached_cost, 31_500);
//! assert_eq!(format!("{:.3}", report.relative_cost), "0.508");
//! println!("{report}"); // a table per turn
//!
//! // OpenAI from GPT-5.6 on: the write costs 1.25x too, with OpenAI's minimum.
//! let openai = CacheSimulation::new("gpt-5.6", 10_000, [500, 500, 500]).run()?;
//! assert_eq!((openai.ttl, openai.minimum_tokens), ("30m", 1024));
//! assert_eq!(openai.total.cost, 16_000.0);
//! # Ok::<(), prompt_providers::simulation::SimulationError>(())
//! ```

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use super::SimulationError;
use super::history::{Growth, HistoryReport};
use super::keep_alive::{self, KeepAliveReport, MAX_GAP};
use crate::providers::anthropic::{CacheMinimums, CacheTtl};
use crate::providers::cost::{Multipliers, ONE_X};
use crate::providers::keepalive::KeepAlive;

/// A session to simulate. Build it with [`new`](Self::new), adjust, then
/// [`run`](Self::run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheSimulation {
    model: String,
    stable_tokens: usize,
    dynamic_tokens: Vec<usize>,
    ttl: Option<CacheTtl>,
    bust_at: Option<usize>,
    minimums: Option<CacheMinimums>,
    multipliers: Option<Multipliers>,
    history: Option<Growth>,
    gaps: Option<Vec<Duration>>,
    keep_alive: KeepAlive,
    /// The input price's bits (`f64::to_bits`: the builder stays `Eq`).
    usd_per_mtok: u64,
}

impl CacheSimulation {
    /// A session on `model`: a stable prefix of `stable_tokens`, then one call
    /// per entry of `dynamic_tokens` (that turn's dynamic suffix). No bust;
    /// the minimums and multipliers of `model`'s provider (OpenAI's for its
    /// GPT-5 line, else Anthropic's with the 5-minute TTL).
    pub fn new(
        model: impl Into<String>,
        stable_tokens: usize,
        dynamic_tokens: impl IntoIterator<Item = usize>,
    ) -> Self {
        Self {
            model: model.into(),
            stable_tokens,
            dynamic_tokens: dynamic_tokens.into_iter().collect(),
            ttl: None,
            bust_at: None,
            minimums: None,
            multipliers: None,
            history: None,
            gaps: None,
            keep_alive: KeepAlive::new(),
            usd_per_mtok: crate::providers::cost::DEFAULT_USD_PER_MTOK.to_bits(),
        }
    }

    /// The cache TTL: it sets Anthropic's write multiplier. An OpenAI model
    /// takes none ([`run`](Self::run) refuses it).
    pub fn ttl(mut self, ttl: CacheTtl) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// A stable layer changes at turn `turn` (1-based), so the prefix is
    /// written again there.
    pub fn bust_at(mut self, turn: usize) -> Self {
        self.bust_at = Some(turn);
        self
    }

    /// The minimum table (to override a model's minimum).
    pub fn minimums(mut self, minimums: CacheMinimums) -> Self {
        self.minimums = Some(minimums);
        self
    }

    /// Other multipliers than the provider's.
    pub fn multipliers(mut self, multipliers: Multipliers) -> Self {
        self.multipliers = Some(multipliers);
        self
    }

    /// The conversation grows: each turn appends a reply of `reply_tokens`
    /// and tool results of `tool_result_tokens` to the history the next
    /// turn sends, and the report says what the cache reads of it
    /// ([`CacheReport::history`]).
    pub fn history(mut self, reply_tokens: usize, tool_result_tokens: usize) -> Self {
        self.history = Some(Growth {
            reply_tokens,
            tool_result_tokens,
        });
        self
    }

    /// The idle time between the turns, one gap between each two (in whole
    /// seconds): the report's [`keep_alive`](CacheReport::keep_alive)
    /// prices the session with and without keep-alive.
    pub fn gaps(mut self, gaps: impl IntoIterator<Item = Duration>) -> Self {
        self.gaps = Some(gaps.into_iter().collect());
        self
    }

    /// The keep-alive policy the gaps are priced with (default
    /// [`KeepAlive::new`]).
    pub fn keep_alive(mut self, policy: KeepAlive) -> Self {
        self.keep_alive = policy;
        self
    }

    /// The input price the keep-alive comparison is in, US dollars per
    /// million tokens (default
    /// [`DEFAULT_USD_PER_MTOK`](crate::providers::cost::DEFAULT_USD_PER_MTOK));
    /// [`run`](Self::run) refuses one that is not a price.
    pub fn usd_per_mtok(mut self, usd: f64) -> Self {
        self.usd_per_mtok = usd.to_bits();
        self
    }

    /// Runs the session.
    ///
    /// # Errors
    /// [`SimulationError::GapsMismatch`] for gaps that are not one fewer
    /// than the turns; [`SimulationError::GapTooLong`] for a gap over
    /// [`MAX_GAP`]; [`SimulationError::Price`] for an input price that is
    /// not one;
    /// [`SimulationError::NoTurns`] for an empty session;
    /// [`SimulationError::BustOutOfRange`] for a bust turn outside `1..=N`;
    /// [`SimulationError::TtlNotTaken`] for a TTL given with an OpenAI model.
    pub fn run(&self) -> Result<CacheReport, SimulationError> {
        let turns = self.dynamic_tokens.len();
        if turns == 0 {
            return Err(SimulationError::NoTurns);
        }
        if let Some(bust) = self.bust_at.filter(|k| !(1..=turns).contains(k)) {
            return Err(SimulationError::BustOutOfRange { bust, turns });
        }
        if let Some(gaps) = &self.gaps {
            let expected = turns - 1;
            if gaps.len() != expected {
                return Err(SimulationError::GapsMismatch {
                    gaps: gaps.len(),
                    turns,
                    expected,
                });
            }
            if let Some((index, gap)) = gaps.iter().enumerate().find(|(_, g)| **g > MAX_GAP) {
                return Err(SimulationError::GapTooLong {
                    gap: index + 1,
                    seconds: gap.as_secs(),
                });
            }
            crate::providers::cost::usd_per_mtok(f64::from_bits(self.usd_per_mtok))?;
        }
        let (provider, ttl, minimums) = super::pricing(&self.model, self.ttl)?;
        let multipliers = self.multipliers.unwrap_or(provider);
        let minimum = self
            .minimums
            .as_ref()
            .unwrap_or(&minimums)
            .lookup(&self.model);
        let cached = self.stable_tokens > 0 && self.stable_tokens >= minimum.tokens;
        let stable = self.stable_tokens;

        let mut total = Tally::default();
        let mut rows = Vec::with_capacity(turns);
        for (index, &dynamic) in self.dynamic_tokens.iter().enumerate() {
            let turn = index + 1;
            let (cache_write, cache_read, uncached) = if !cached {
                (0, 0, stable.saturating_add(dynamic))
            } else if turn == 1 || Some(turn) == self.bust_at {
                (stable, 0, dynamic)
            } else {
                (0, stable, dynamic)
            };
            let tally = Tally {
                cache_write,
                cache_read,
                uncached,
                cost_ten_thousandths: ten_thousandths(
                    cache_write,
                    multipliers.cache_write_ten_thousandths,
                )
                .saturating_add(ten_thousandths(
                    cache_read,
                    multipliers.cache_read_ten_thousandths,
                ))
                .saturating_add(ten_thousandths(uncached, ONE_X)),
            };
            total.add(&tally);
            rows.push(tally.row(turn));
        }
        // Counts are the caller's: every sum and product saturates.
        let dynamic_total = self
            .dynamic_tokens
            .iter()
            .fold(0usize, |sum, &t| sum.saturating_add(t));
        let uncached_cost =
            u64::try_from(stable.saturating_mul(turns).saturating_add(dynamic_total))
                .unwrap_or(u64::MAX);
        let history = self.history.map(|growth| {
            super::history::simulate(
                growth,
                stable,
                &self.dynamic_tokens,
                minimum.tokens,
                self.bust_at,
                multipliers,
            )
        });
        let keep_alive = match &self.gaps {
            None => None,
            Some(gaps) => {
                // Per gap: what the turn before leaves cached, what the turn
                // after reads.
                let prefixes: Vec<(usize, usize)> = match &history {
                    Some(history) => history
                        .turns
                        .windows(2)
                        .map(|w| (w[0].read.saturating_add(w[0].written), w[1].read))
                        .collect(),
                    None => rows
                        .windows(2)
                        .map(|w| {
                            (
                                w[0].cache_read.saturating_add(w[0].cache_write),
                                w[1].cache_read,
                            )
                        })
                        .collect(),
                };
                Some(keep_alive::simulate(keep_alive::Inputs {
                    prefixes,
                    gaps,
                    base_cost: history.as_ref().map_or(total.row(0).cost, |h| h.cost),
                    multipliers,
                    ping_is_write: Multipliers::openai(&self.model).is_some(),
                    ttl: super::ttl_duration(ttl),
                    minimum: minimum.tokens,
                    usd_per_mtok: f64::from_bits(self.usd_per_mtok),
                    policy: self.keep_alive,
                    prefix: if history.is_some() {
                        "history"
                    } else {
                        "stable prefix"
                    },
                })?)
            }
        };
        Ok(CacheReport {
            keep_alive,
            history,
            model: self.model.clone(),
            family: minimum.family,
            ttl,
            multipliers,
            stable_tokens: stable,
            minimum_tokens: minimum.tokens,
            cached,
            bust_at: self.bust_at,
            turns: rows,
            total: total.row(0),
            uncached_cost,
            relative_cost: if uncached_cost == 0 {
                1.0
            } else {
                total.cost_ten_thousandths as f64 / (uncached_cost as f64 * ONE_X as f64)
            },
        })
    }
}

#[derive(Default)]
struct Tally {
    cache_write: usize,
    cache_read: usize,
    uncached: usize,
    cost_ten_thousandths: u64,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.uncached = self.uncached.saturating_add(other.uncached);
        self.cost_ten_thousandths = self
            .cost_ten_thousandths
            .saturating_add(other.cost_ten_thousandths);
    }

    fn row(&self, turn: usize) -> TurnCost {
        TurnCost {
            turn,
            cache_write: self.cache_write,
            cache_read: self.cache_read,
            uncached: self.uncached,
            cost: self.cost_ten_thousandths as f64 / ONE_X as f64,
        }
    }
}

/// One turn's input tokens by how they are billed (or the session's total).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub struct TurnCost {
    /// The turn, from 1 (0 for the total).
    pub turn: usize,
    /// Tokens written to the cache.
    pub cache_write: usize,
    /// Tokens read from the cache.
    pub cache_read: usize,
    /// Tokens billed as plain input.
    pub uncached: usize,
    /// The cost in input-token equivalents (tokens times multiplier).
    pub cost: f64,
}

impl TurnCost {
    /// Turn `turn` (0 for a total): `cache_write` tokens written,
    /// `cache_read` read, `uncached` billed as plain input, costing `cost`
    /// input-token equivalents.
    pub const fn new(
        turn: usize,
        cache_write: usize,
        cache_read: usize,
        uncached: usize,
        cost: f64,
    ) -> Self {
        Self {
            turn,
            cache_write,
            cache_read,
            uncached,
            cost,
        }
    }
}

/// The result of a [`CacheSimulation`]: serializable, and a table through
/// `Display`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CacheReport {
    /// The model simulated.
    pub model: String,
    /// Its family in the minimum table; `None` when unknown (the most
    /// conservative minimum applied).
    pub family: Option<String>,
    /// The TTL: `"5m"` or `"1h"` (Anthropic), `"30m"` or `"24h"` (OpenAI).
    pub ttl: &'static str,
    /// The multipliers used.
    pub multipliers: Multipliers,
    /// The stable prefix's tokens.
    pub stable_tokens: usize,
    /// The model's minimum cacheable prefix.
    pub minimum_tokens: usize,
    /// Whether the prefix is cached at all (not empty, not below the minimum).
    pub cached: bool,
    /// The turn a stable layer changed, if any.
    pub bust_at: Option<usize>,
    /// Each turn.
    pub turns: Vec<TurnCost>,
    /// The whole session (`turn` is 0).
    pub total: TurnCost,
    /// What the session would cost with nothing cached: every token at 1x.
    pub uncached_cost: u64,
    /// `total.cost / uncached_cost`: below 1 is a saving.
    pub relative_cost: f64,
    /// The growing history's figures, when the session has one
    /// ([`CacheSimulation::history`]): the share of the input read from the
    /// cache against what could be read at best.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<HistoryReport>,
    /// The session with its gaps, with and without keep-alive, when gaps
    /// were given ([`CacheSimulation::gaps`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_alive: Option<KeepAliveReport>,
}

impl fmt::Display for CacheReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "model {} ({}), TTL {}, stable prefix {} tokens, minimum cacheable {}",
            self.model,
            self.family
                .as_deref()
                .unwrap_or("unknown: most conservative minimum"),
            self.ttl,
            self.stable_tokens,
            self.minimum_tokens,
        )?;
        if !self.cached {
            writeln!(
                f,
                "the stable prefix is below the minimum: nothing is cached, every token is billed as input"
            )?;
        }
        writeln!(
            f,
            "multipliers of the input price: cache write {:.2}x, cache read {:.2}x, uncached 1.00x",
            self.multipliers.cache_write(),
            self.multipliers.cache_read(),
        )?;
        writeln!(
            f,
            "cost is in input-token equivalents (tok-eq: tokens x multiplier); \
             times the model's input price per token, it is money"
        )?;
        writeln!(
            f,
            "{:>5}  {:>11}  {:>10}  {:>9}  {:>14}",
            "turn", "cache write", "cache read", "uncached", "cost (tok-eq)"
        )?;
        for row in &self.turns {
            let mark = if self.bust_at == Some(row.turn) && self.cached && row.turn > 1 {
                "  (bust)"
            } else {
                ""
            };
            writeln!(
                f,
                "{:>5}  {:>11}  {:>10}  {:>9}  {:>14.2}{mark}",
                row.turn, row.cache_write, row.cache_read, row.uncached, row.cost
            )?;
        }
        writeln!(
            f,
            "{:>5}  {:>11}  {:>10}  {:>9}  {:>14.2}",
            "total",
            self.total.cache_write,
            self.total.cache_read,
            self.total.uncached,
            self.total.cost
        )?;
        write!(
            f,
            "cost relative to sending everything uncached ({} input tokens): {:.1}%",
            self.uncached_cost,
            self.relative_cost * 100.0
        )?;
        if let Some(history) = &self.history {
            write!(f, "\n{history}")?;
        }
        if let Some(keep_alive) = &self.keep_alive {
            write!(f, "\n{keep_alive}")?;
        }
        Ok(())
    }
}

/// `tokens` at `multiplier` ten-thousandths each, saturating.
pub(super) fn ten_thousandths(tokens: usize, multiplier: u64) -> u64 {
    u64::try_from(tokens)
        .unwrap_or(u64::MAX)
        .saturating_mul(multiplier)
}
