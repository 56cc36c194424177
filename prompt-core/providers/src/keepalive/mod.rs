//! Keep-alive as a priced decision: refresh a conversation's cache before
//! it lapses only where the expected ping costs less than the expected
//! re-write, at the model's own prices.
//!
//! A cache entry that expires between two turns is written again on the
//! next one, at the write price (Anthropic: 1.25x the input price for a
//! 5-minute entry, 2x for a 1-hour one). A *ping* re-sends the cached
//! prefix with a minimal output (`max_tokens: 1`): it costs a read of the
//! prefix (0.1x, 0.05x or 0.025x the input price, per model:
//! [`Pricing::for_model`]) plus that output, and restarts the entry's TTL.
//! Whether it pays depends on the prices, the prefix's size, and how likely
//! the next turn is to come after the entry would have expired but within
//! the window the ping opens. That last figure is read from the
//! conversation's own gaps between turns ([`TurnGaps`]), nothing else.
//!
//! # The rule
//!
//! With `t` the time since the last real turn, `e` the expiry the entry has
//! now (the last request, turn or ping, plus the TTL), `p` the ping's time
//! ([`KeepAlive::lead_percent`] of the TTL after the last request) and the
//! ping's window ending at `p + TTL`, over the gaps `g` the conversation
//! has shown:
//!
//! ```text
//! P      = #{ g : e < g <= p + TTL } / #{ g : g > p }      (the next turn, given none came by p)
//! gain   = P x (write - read) x prefix x input price       (the re-write a ping would spare)
//! cost   = read x prefix x input price + output tokens x output price
//! ping  iff  gain > cost
//! ```
//!
//! A ping is never sent once [`KeepAlive::max_pings`] were sent since the
//! last turn, never at an idle time the conversation has never reached
//! (no gap longer than `p`: nothing says a turn would still come), never
//! for a prefix below the model's minimum (nothing is cached), and never
//! before the conversation has a gap to go by.
//!
//! # The ping itself, per provider
//!
//! - **Anthropic**: [`MessagesRequest::refresh`](crate::anthropic::MessagesRequest::refresh)
//!   of the conversation's last real request: its tools, system and
//!   messages up to the last breakpoint, byte for byte, with
//!   `max_tokens: 1`. A read restarts the entry's TTL.
//! - **OpenAI** (GPT-5.6 and later, Responses):
//!   [`ResponsesRequest::prewarm`](crate::openai::ResponsesRequest::prewarm)
//!   of the last request, which generates nothing. OpenAI documents a
//!   prewarm as a cache write; what it bills for a prefix still cached was
//!   not documented on 2026-12-07. If it is a write, a ping never pays
//!   (`P x (write - read) < write`), and entries live 30 minutes to 24
//!   hours there anyway: price a ping at the write
//!   (`Pricing::new(usd, write, write)`) to be safe.
//! - **Gemini**: no ping applies. Implicit caching has no TTL to restart;
//!   an explicit `cachedContents` entry is kept by updating its `ttl`
//!   (`PATCH cachedContents/{name}`), billed as storage, not as a read.
//!
//! # Worked example: one conversation, two models
//!
//! A 20,000-token prefix under a 5-minute TTL, its last turn just sent.
//! Of the 16 gaps it has shown, one was 6 minutes and fifteen were 30
//! minutes. The ping would go at 4.5 minutes (90% of the TTL); each gap
//! is longer than that, and one of the 16 ends within the ping's window
//! (5 to 9.5 minutes): `P` = 1/16 = 0.0625.
//!
//! - Claude Sonnet 4.5, USD 3 per million input tokens, reads 0.1x,
//!   5-minute writes 1.25x: gain = 0.0625 x 1.15 x 20,000 x 3e-6 =
//!   USD 0.0043; cost = 0.1 x 20,000 x 3e-6 + 1 output token at 5x =
//!   USD 0.0060. The ping costs more than it spares: declined.
//! - Claude Opus 5.5, USD 5, reads 0.05x: gain = 0.0625 x 1.2 x 20,000 x
//!   5e-6 = USD 0.0075; cost = 0.05 x 20,000 x 5e-6 + 25e-6 = USD 0.0050.
//!   Sent, saving USD 0.0025 on average.
//!
//! ```
//! use std::time::Duration;
//! use prompt_providers::anthropic::CacheTtl;
//! use prompt_providers::keepalive::{ConversationState, Decision, Decline, KeepAlive};
//! use prompt_providers::observe::{Pricing, Timestamp, TurnGaps};
//!
//! let minutes = |m: u64| Duration::from_secs(m * 60);
//! let gaps: TurnGaps = std::iter::once(minutes(6)).chain([minutes(30); 15]).collect();
//! let last_turn = Timestamp::from_second(1_800_000_000)?;
//! let state = |pricing| {
//!     ConversationState::new(last_turn, minutes(5), 20_000, pricing).gaps(gaps)
//! };
//! let policy = KeepAlive::new();
//!
//! let sonnet = Pricing::for_model(3.0, "claude-sonnet-4-5", CacheTtl::FiveMinutes)?;
//! let Decision::Decline(Decline::NotWorthIt { probability, ping_usd, expected_rewrite_usd, .. }) =
//!     policy.decide(&state(sonnet))
//! else {
//!     panic!("a ping at 0.1x reads does not pay here")
//! };
//! assert_eq!(probability, 0.0625);
//! assert!((ping_usd - 0.006015).abs() < 1e-9);
//! assert!((expected_rewrite_usd - 0.0043125).abs() < 1e-9);
//!
//! let opus = Pricing::for_model(5.0, "claude-opus-5-5", CacheTtl::FiveMinutes)?;
//! let Decision::Ping(ping) = policy.decide(&state(opus)) else { panic!("0.05x reads pay") };
//! assert_eq!(ping.at, last_turn + jiff::SignedDuration::from_secs(270));
//! assert!((ping.expected_saving_usd - 0.002475).abs() < 1e-9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use crate::observe::{Pricing, TurnGaps};

mod ledger;
#[cfg(feature = "tokio")]
mod scheduler;
#[cfg(test)]
mod tests;

pub use ledger::DuePing;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use scheduler::{PingError, PingSent, Scheduler};

/// How many pings a conversation gets between two turns unless told: 3.
pub const DEFAULT_MAX_PINGS: u32 = 3;

/// When a ping goes unless told: once 90% of the TTL has passed since the
/// last request (opencode warms its cache at 90% of the TTL; at 5 minutes,
/// 30 seconds before expiry, time for a slow request to land).
pub const DEFAULT_LEAD_PERCENT: u8 = 90;

/// A ping's output unless told: one token (`max_tokens: 1`).
pub const DEFAULT_OUTPUT_TOKENS: u32 = 1;

/// An output token's price unless told, in ten-thousandths of the input
/// price: 5x. Every Claude model's list price on Anthropic's pricing page
/// (platform.claude.com/docs/en/about-claude/pricing, read 2026-12-07) puts
/// output at 5x input (Sonnet USD 3 and 15, Opus 5 and 25, Haiku 1 and 5);
/// OpenAI's GPT-5 line is 8x (gpt-5: 1.25 and 10), which
/// [`KeepAlive::output_price`] sets. One token either way: a few
/// millionths of a dollar.
pub const DEFAULT_OUTPUT_PRICE: u64 = 50_000;

/// The keep-alive policy: when a ping may go and how many, what it
/// outputs and what that output costs. [`decide`](Self::decide) applies the
/// rule of the [module](self).
///
/// ```
/// use prompt_providers::keepalive::KeepAlive;
///
/// let policy = KeepAlive::new().max_pings(1).lead_percent(80);
/// assert_eq!((policy.max_pings, policy.lead_percent, policy.output_tokens), (1, 80, 1));
/// assert_eq!(KeepAlive::new().lead_percent(100).lead_percent, 99, "clamped below expiry");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct KeepAlive {
    /// Pings a conversation gets between two real turns
    /// ([`DEFAULT_MAX_PINGS`]).
    pub max_pings: u32,
    /// How far into the TTL, in percent, a ping goes after the last
    /// request: 1 to 99 ([`DEFAULT_LEAD_PERCENT`]).
    pub lead_percent: u8,
    /// The ping's output tokens, its `max_tokens` ([`DEFAULT_OUTPUT_TOKENS`]).
    pub output_tokens: u32,
    /// An output token's price, in ten-thousandths of the input price
    /// ([`DEFAULT_OUTPUT_PRICE`]: 5x).
    pub output_price: u64,
}

impl Default for KeepAlive {
    fn default() -> Self {
        Self::new()
    }
}

impl KeepAlive {
    /// The defaults: at most [`DEFAULT_MAX_PINGS`] pings between turns, each
    /// at [`DEFAULT_LEAD_PERCENT`] of the TTL, asking for
    /// [`DEFAULT_OUTPUT_TOKENS`] output token priced at
    /// [`DEFAULT_OUTPUT_PRICE`].
    pub const fn new() -> Self {
        Self {
            max_pings: DEFAULT_MAX_PINGS,
            lead_percent: DEFAULT_LEAD_PERCENT,
            output_tokens: DEFAULT_OUTPUT_TOKENS,
            output_price: DEFAULT_OUTPUT_PRICE,
        }
    }

    /// At most `pings` pings between two real turns (0: never ping).
    pub const fn max_pings(mut self, pings: u32) -> Self {
        self.max_pings = pings;
        self
    }

    /// Ping once `percent` of the TTL has passed since the last request,
    /// held to 1..=99: a ping at or past expiry refreshes nothing.
    pub const fn lead_percent(mut self, percent: u8) -> Self {
        self.lead_percent = if percent < 1 {
            1
        } else if percent > 99 {
            99
        } else {
            percent
        };
        self
    }

    /// The ping's output tokens (its `max_tokens`, at least 1: the
    /// providers refuse 0).
    pub const fn output_tokens(mut self, tokens: u32) -> Self {
        self.output_tokens = if tokens == 0 { 1 } else { tokens };
        self
    }

    /// An output token's price, in ten-thousandths of the input price
    /// (OpenAI's GPT-5 line: 80,000, 8x).
    pub const fn output_price(mut self, ten_thousandths: u64) -> Self {
        self.output_price = ten_thousandths;
        self
    }

    /// What a ping of `prefix_tokens` costs at `pricing`, in US dollars: a
    /// read of the prefix and the minimal output.
    pub fn ping_usd(&self, prefix_tokens: u64, pricing: &Pricing) -> f64 {
        let per_token = pricing.usd_per_mtok / 1_000_000.0;
        let output = f64::from(self.output_tokens) * self.output_price as f64 / 10_000.0;
        (prefix_tokens as f64 * pricing.read + output) * per_token
    }

    /// Whether to ping `state`'s conversation, and when: the rule of the
    /// [module](self). Pure: the same state gives the same decision.
    pub fn decide(&self, state: &ConversationState) -> Decision {
        if let Some(minimum) = state.minimum.filter(|&m| state.prefix_tokens < m) {
            return Decision::Decline(Decline::BelowMinimum {
                tokens: state.prefix_tokens,
                minimum,
            });
        }
        if state.gaps.is_empty() {
            return Decision::Decline(Decline::NoHistory {});
        }
        if state.pings_since_turn >= self.max_pings {
            return Decision::Decline(Decline::CapReached {
                pings: state.pings_since_turn,
                cap: self.max_pings,
            });
        }
        // Offsets from the last real turn.
        let since_turn = state.refreshed.duration_since(state.last_turn);
        let refreshed = Duration::try_from(since_turn).unwrap_or(Duration::ZERO);
        let lead = Duration::from_millis(
            u64::try_from(state.ttl.as_millis() * u128::from(self.lead_percent) / 100)
                .unwrap_or(u64::MAX),
        );
        let ping = refreshed.saturating_add(lead);
        let expiry = refreshed.saturating_add(state.ttl);
        let window = ping.saturating_add(state.ttl);
        let longest = state.gaps.longest().unwrap_or(Duration::ZERO);
        let later = state.gaps.iter().filter(|&g| g > ping).count();
        if later == 0 {
            return Decision::Decline(Decline::PastLongestGap {
                idle: ping,
                longest,
            });
        }
        let within = state
            .gaps
            .iter()
            .filter(|&g| g > expiry && g <= window)
            .count();
        let probability = within as f64 / later as f64;
        let per_token = state.pricing.usd_per_mtok / 1_000_000.0;
        let rewrite_usd = state.prefix_tokens as f64
            * (state.pricing.write - state.pricing.read).max(0.0)
            * per_token;
        let expected_rewrite_usd = probability * rewrite_usd;
        let ping_usd = self.ping_usd(state.prefix_tokens, &state.pricing);
        if expected_rewrite_usd <= ping_usd {
            return Decision::Decline(Decline::NotWorthIt {
                probability,
                ping_usd,
                expected_rewrite_usd,
            });
        }
        let at = |offset: Duration| {
            SignedDuration::try_from(offset)
                .ok()
                .and_then(|offset| state.last_turn.checked_add(offset).ok())
                .unwrap_or(Timestamp::MAX)
        };
        Decision::Ping(Ping {
            at: at(ping),
            expires: at(expiry),
            probability,
            ping_usd,
            rewrite_usd,
            expected_saving_usd: expected_rewrite_usd - ping_usd,
            output_tokens: self.output_tokens,
        })
    }
}

/// What [`KeepAlive::decide`] reads of a conversation: its last turn, when
/// its cache entry was last refreshed and for how long, the prefix it
/// holds, the gaps it has shown, the pings already sent since its last
/// turn, the model's prices. [`CacheLedger::keep_alive_state`](crate::observe::CacheLedger::keep_alive_state)
/// gives it for a conversation the ledger saw.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ConversationState {
    /// When the last real turn (not a ping) was sent.
    pub last_turn: Timestamp,
    /// When the cache entry's TTL last started: the last request, turn or
    /// ping (default: [`last_turn`](Self::last_turn)).
    pub refreshed: Timestamp,
    /// The TTL in force.
    pub ttl: Duration,
    /// The cached prefix a ping re-sends, in tokens.
    pub prefix_tokens: u64,
    /// The model's minimum cacheable prefix, when known.
    pub minimum: Option<u64>,
    /// The gaps between the conversation's real turns.
    pub gaps: TurnGaps,
    /// Pings sent since the last real turn.
    pub pings_since_turn: u32,
    /// The model's prices for the TTL in force.
    pub pricing: Pricing,
}

impl ConversationState {
    /// A conversation whose last turn went `last_turn`, caching
    /// `prefix_tokens` for `ttl` at `pricing`; no gaps, no pings, no minimum.
    pub fn new(last_turn: Timestamp, ttl: Duration, prefix_tokens: u64, pricing: Pricing) -> Self {
        Self {
            last_turn,
            refreshed: last_turn,
            ttl,
            prefix_tokens,
            minimum: None,
            gaps: TurnGaps::new(),
            pings_since_turn: 0,
            pricing,
        }
    }

    /// The entry was last refreshed `at` (a ping's time).
    pub fn refreshed(mut self, at: Timestamp) -> Self {
        self.refreshed = at;
        self
    }

    /// The model's minimum cacheable prefix.
    pub fn minimum(mut self, tokens: u64) -> Self {
        self.minimum = Some(tokens);
        self
    }

    /// The gaps between its turns.
    pub fn gaps(mut self, gaps: TurnGaps) -> Self {
        self.gaps = gaps;
        self
    }

    /// `pings` pings were sent since the last turn.
    pub fn pings_since_turn(mut self, pings: u32) -> Self {
        self.pings_since_turn = pings;
        self
    }
}

/// Ping or not, with the figures behind it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decision {
    /// Ping, at the time given.
    Ping(Ping),
    /// Do not ping, and why.
    Decline(Decline),
}

impl Decision {
    /// The ping, when the decision is one.
    pub fn ping(&self) -> Option<&Ping> {
        match self {
            Self::Ping(ping) => Some(ping),
            Self::Decline(_) => None,
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Ping(ping) => ping.fmt(f),
            Self::Decline(decline) => write!(f, "no ping: {decline}"),
        }
    }
}

/// A ping worth sending.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Ping {
    /// When to send it.
    pub at: Timestamp,
    /// When the entry expires without it.
    pub expires: Timestamp,
    /// The chance the next turn comes after `expires` and within the
    /// ping's window, given none came by `at`.
    pub probability: f64,
    /// What the ping costs, in US dollars: a read of the prefix and its output.
    pub ping_usd: f64,
    /// What a lapse costs the next turn beyond a read, in US dollars: the
    /// prefix written again.
    pub rewrite_usd: f64,
    /// `probability x rewrite_usd - ping_usd`: what the ping saves on
    /// average, above zero.
    pub expected_saving_usd: f64,
    /// The output it asks for (`max_tokens`).
    pub output_tokens: u32,
}

impl fmt::Display for Ping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ping at {} (expires {}): USD {:.6} against a {:.0}% chance of a USD {:.6} re-write, \
             saving USD {:.6} on average",
            self.at,
            self.expires,
            self.ping_usd,
            self.probability * 100.0,
            self.rewrite_usd,
            self.expected_saving_usd
        )
    }
}

/// Why no ping.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decline {
    /// The conversation has had one turn: no gap to go by.
    #[non_exhaustive]
    NoHistory {},
    /// The prefix is below the model's minimum: nothing is cached to keep.
    #[non_exhaustive]
    BelowMinimum {
        /// The prefix's tokens.
        tokens: u64,
        /// The model's minimum.
        minimum: u64,
    },
    /// [`KeepAlive::max_pings`] pings were sent since the last turn.
    #[non_exhaustive]
    CapReached {
        /// Pings sent since the last turn.
        pings: u32,
        /// The cap.
        cap: u32,
    },
    /// The ping would go at an idle time no gap of this conversation has
    /// passed: never past a gap the conversation has never shown.
    #[non_exhaustive]
    PastLongestGap {
        /// The idle time since the last turn at which the ping would go.
        idle: Duration,
        /// The longest gap seen.
        longest: Duration,
    },
    /// The ping costs more than the re-write it is expected to spare.
    #[non_exhaustive]
    NotWorthIt {
        /// The chance the ping spares a re-write.
        probability: f64,
        /// What the ping costs, in US dollars.
        ping_usd: f64,
        /// The re-write it spares times that chance, in US dollars.
        expected_rewrite_usd: f64,
    },
}

impl Decline {
    /// The reason's name (`not_worth_it`, ...), as serialized.
    pub const fn name(&self) -> &'static str {
        match self {
            Self::NoHistory { .. } => "no_history",
            Self::BelowMinimum { .. } => "below_minimum",
            Self::CapReached { .. } => "cap_reached",
            Self::PastLongestGap { .. } => "past_longest_gap",
            Self::NotWorthIt { .. } => "not_worth_it",
        }
    }
}

impl fmt::Display for Decline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoHistory {} => f.write_str("no gap between turns seen yet"),
            Self::BelowMinimum { tokens, minimum } => write!(
                f,
                "the prefix ({tokens} tokens) is below the model's minimum ({minimum}): nothing \
                 is cached"
            ),
            Self::CapReached { pings, cap } => {
                write!(
                    f,
                    "{pings} ping(s) sent since the last turn, the cap is {cap}"
                )
            }
            Self::PastLongestGap { idle, longest } => write!(
                f,
                "the ping would go {}s after the last turn, past the longest gap this \
                 conversation has shown ({}s)",
                idle.as_secs(),
                longest.as_secs()
            ),
            Self::NotWorthIt {
                probability,
                ping_usd,
                expected_rewrite_usd,
            } => write!(
                f,
                "the ping costs USD {ping_usd:.6}, more than the re-write it would spare (USD \
                 {expected_rewrite_usd:.6} at a {:.0}% chance)",
                probability * 100.0
            ),
        }
    }
}
