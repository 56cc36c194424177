//! What Anthropic's prompt cache saves, simulated from token counts alone:
//! one session's turns ([`CacheSimulation`], `session.rs`) or a team's first
//! calls through one shared cache ([`TeamSimulation`], `team.rs`).
//!
//! A simulation prices what a request would be billed; it keeps no prefixes
//! of its own (that is [`PrefixCache`](crate::assembly::PrefixCache), which
//! interns sessions' rendered prefixes in memory). Prices are in
//! [`cost`](super::cost).

mod session;
mod team;

pub use session::{CacheReport, CacheSimulation, TurnCost};
pub use team::{FirstCall, TeamPrefix, TeamReport, TeamSimulation, TeammateCost};

use super::cost::PriceError;

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
