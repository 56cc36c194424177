//! What a provider's prompt cache saves, simulated from token counts alone:
//! one session's turns ([`CacheSimulation`], `session.rs`; with a growing
//! history, [`HistoryReport`], `history.rs`; with idle time between turns,
//! priced with and without keep-alive, [`KeepAliveReport`],
//! `keep_alive.rs`) or a team's first
//! calls through one shared cache ([`TeamSimulation`], `team.rs`).
//!
//! The model picks the prices: OpenAI's GPT-5 line at OpenAI's (a write
//! 1.25x input from GPT-5.6 on, plain input before; a read 0.1x) with its
//! minimum, every other model at Anthropic's for the TTL
//! ([`Multipliers::for_model`](super::cost::Multipliers::for_model)).
//!
//! A simulation prices what a request would be billed; it keeps no prefixes
//! of its own (that is [`PrefixCache`](crate::assembly::PrefixCache), which
//! interns sessions' rendered prefixes in memory). Prices are in
//! [`cost`](super::cost).

mod history;
mod keep_alive;
mod session;
mod team;

pub use history::{HistoryReport, HistoryTurn};
pub use keep_alive::{GapOutcome, KeepAliveReport, MAX_GAP, format_idle};
pub use session::{CacheReport, CacheSimulation, TurnCost};
pub use team::{FirstCall, TeamPrefix, TeamReport, TeamSimulation, TeammateCost};

use super::anthropic::{CacheMinimums, CacheTtl};
use super::cost::{Multipliers, PriceError};

/// Why a simulation cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SimulationError {
    /// No turns.
    #[error("the session has no turns: give each turn's dynamic token count")]
    NoTurns,
    /// A team of nobody.
    #[error("the team has no users: give at least one teammate's prefix")]
    NoUsers,
    /// An input price that is not a price.
    #[error(transparent)]
    Price(#[from] PriceError),
    /// A TTL given for a model whose provider does not take one.
    #[error(
        "`{model}` is an OpenAI model: its cache keeps a prefix for the time the model sets \
         ({ttl}), and the 5m/1h TTL is Anthropic's; leave the TTL out"
    )]
    TtlNotTaken {
        /// The model.
        model: String,
        /// The retention its provider gives it.
        ttl: &'static str,
    },
    /// Gaps that do not fit between the session's turns.
    #[error(
        "{gaps} gap(s) given for a session of {turns} turn(s): give one gap between each two \
         turns ({expected})"
    )]
    GapsMismatch {
        /// The gaps given.
        gaps: usize,
        /// The session's turns.
        turns: usize,
        /// The gaps it takes: `turns - 1`.
        expected: usize,
    },
    /// A gap too long to simulate.
    #[error(
        "gap {gap} is {seconds} s, longer than the 30 days a simulation takes (no cache lives \
         that long): give a shorter gap"
    )]
    GapTooLong {
        /// The gap, from 1.
        gap: usize,
        /// Its length, in seconds.
        seconds: u64,
    },
    /// A bust outside the session.
    #[error(
        "the bust is at turn {bust}, but the session has turns 1 to {turns}: pick a turn in that range"
    )]
    BustOutOfRange {
        /// The turn given.
        bust: usize,
        /// The session's length.
        turns: usize,
    },
}

/// The multipliers, the TTL as reported, and the default minimums for
/// `model`: OpenAI's for the GPT-5 line (no TTL of the caller's: `30m` from
/// GPT-5.6 on, `24h` before, OpenAI's default retention for those models),
/// else Anthropic's for `ttl` (5 minutes unless given).
fn pricing(
    model: &str,
    ttl: Option<CacheTtl>,
) -> Result<(Multipliers, &'static str, CacheMinimums), SimulationError> {
    match Multipliers::openai(model) {
        Some(multipliers) => {
            let retention = super::lifetimes::openai_default(model);
            if ttl.is_some() {
                return Err(SimulationError::TtlNotTaken {
                    model: model.to_owned(),
                    ttl: retention,
                });
            }
            Ok((multipliers, retention, CacheMinimums::openai()))
        }
        None => {
            let ttl = ttl.unwrap_or_default();
            Ok((
                Multipliers::anthropic_model(model, ttl),
                ttl.as_str(),
                CacheMinimums::anthropic(),
            ))
        }
    }
}

/// The TTL a report names, as a duration: `5m`, `1h`, `30m` or `24h`.
fn ttl_duration(ttl: &str) -> std::time::Duration {
    let minutes = match ttl {
        "1h" => 60,
        "30m" => 30,
        "24h" => 24 * 60,
        _ => 5,
    };
    std::time::Duration::from_secs(minutes * 60)
}
