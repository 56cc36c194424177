//! A session with idle time between its turns, priced with and without
//! keep-alive ([`CacheSimulation::gaps`](super::CacheSimulation::gaps)).
//!
//! Without keep-alive, a gap longer than the TTL lets the cache entry
//! lapse, and the next turn writes what it would have read: the lapse costs
//! `(write - read) x tokens` more. With keep-alive, before each gap the
//! real policy ([`KeepAlive::decide`]) is asked, as a server's scheduler
//! would ask it, from what the conversation has shown so far (the gaps
//! before this one, never this one's length): each ping it sends before
//! the turn comes costs a read of the cached prefix and its output, and
//! restarts the TTL; once it declines, the entry lapses if the turn comes
//! after its expiry, and the decline's reason is kept.
//!
//! ```
//! use std::time::Duration;
//! use prompt_providers::simulation::CacheSimulation;
//!
//! // Five turns six minutes apart under a 5-minute TTL, on a 20,000-token prefix.
//! let six = Duration::from_secs(360);
//! let report = CacheSimulation::new("claude-sonnet-4-5", 20_000, [100; 5])
//!     .gaps([six; 4])
//!     .run()?;
//! let keep = report.keep_alive.as_ref().expect("gaps were given");
//! // Without: every gap lapses. With: the first gap has no history to go by
//! // (declined: no_history), each later one gets a ping at 4.5 minutes.
//! assert_eq!((keep.lapses_without, keep.lapses_with, keep.pings_sent), (4, 1, 3));
//! assert_eq!(keep.declined, [("no_history", 1)].into_iter().collect());
//! assert!(keep.net_usd > 0.0);
//! println!("{keep}");
//! # Ok::<(), prompt_providers::simulation::SimulationError>(())
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use jiff::Timestamp;
use serde::Serialize;

use crate::providers::cost::Multipliers;
use crate::providers::keepalive::{ConversationState, Decision, Decline, KeepAlive};
use crate::providers::observe::{Pricing, TurnGaps};

/// The longest gap a simulation takes: 30 days. No provider's cache lives
/// that long, and it keeps every offset far from overflow.
pub const MAX_GAP: Duration = Duration::from_secs(30 * 24 * 3_600);

/// What the keep-alive comparison reads of a session's turns.
pub(crate) struct Inputs<'a> {
    /// Per gap: the tokens the turn before it left cached (what a ping
    /// re-sends) and the tokens the turn after it reads (what a lapse
    /// writes again).
    pub(crate) prefixes: Vec<(usize, usize)>,
    /// The gaps, in whole seconds.
    pub(crate) gaps: &'a [Duration],
    /// The session's cost with no lapse, in input-token equivalents.
    pub(crate) base_cost: f64,
    /// The multipliers turns are billed at.
    pub(crate) multipliers: Multipliers,
    /// Whether pings are priced as writes (OpenAI's prewarm).
    pub(crate) ping_is_write: bool,
    /// The TTL.
    pub(crate) ttl: Duration,
    /// The model's minimum cacheable prefix.
    pub(crate) minimum: usize,
    /// USD per million input tokens.
    pub(crate) usd_per_mtok: f64,
    /// The policy.
    pub(crate) policy: KeepAlive,
    /// What the cache holds between turns: `"stable prefix"` or `"history"`.
    pub(crate) prefix: &'static str,
}

/// One gap between two turns, with and without keep-alive.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub struct GapOutcome {
    /// The turn the gap follows (from 1).
    pub after_turn: usize,
    /// The idle time, in whole seconds.
    pub idle_seconds: u64,
    /// The tokens the turn before it left cached: what a ping re-sends.
    pub prefix_tokens: usize,
    /// The tokens the turn after it reads from the cache: what a lapse
    /// writes again (0 when that turn reads nothing anyway, as at a bust).
    pub rewrite_tokens: usize,
    /// Whether the entry lapsed without keep-alive (the gap outlasted the TTL).
    pub lapsed_without: bool,
    /// The pings sent in the gap.
    pub pings: u32,
    /// Why the policy stopped pinging while the entry was still needed:
    /// set exactly when the entry lapsed with keep-alive.
    pub declined: Option<Decline>,
    /// Whether the entry lapsed with keep-alive.
    pub lapsed_with: bool,
}

/// A session with gaps, with and without keep-alive: what each costs and
/// what the policy did. Dollar figures are input cost (and the pings' one
/// output token each) at [`usd_per_mtok`](Self::usd_per_mtok).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct KeepAliveReport {
    /// The input price, in US dollars per million tokens.
    pub usd_per_mtok: f64,
    /// The TTL, in seconds.
    pub ttl_seconds: u64,
    /// The policy asked.
    pub policy: KeepAlive,
    /// The prices a ping is charged at (a read of the prefix; for OpenAI's
    /// prewarm, a write).
    pub ping_pricing: Pricing,
    /// What the cache holds between turns: `stable prefix`, or `history`
    /// (the conversation kept as sent, a breakpoint at its frontier).
    pub cached: &'static str,
    /// Each gap.
    pub gaps: Vec<GapOutcome>,
    /// The session without a lapse, in US dollars.
    pub no_lapse_usd: f64,
    /// Gaps whose entry lapsed without keep-alive.
    pub lapses_without: usize,
    /// What those lapses cost beyond a read, in US dollars.
    pub lapses_without_usd: f64,
    /// The session without keep-alive, in US dollars.
    pub cost_without_usd: f64,
    /// Pings sent.
    pub pings_sent: u32,
    /// What they cost, in US dollars.
    pub pings_usd: f64,
    /// Gaps the policy declined to keep alive, by reason
    /// ([`Decline::name`]).
    pub declined: BTreeMap<&'static str, usize>,
    /// Gaps whose entry lapsed with keep-alive.
    pub lapses_with: usize,
    /// What those lapses cost beyond a read, in US dollars.
    pub lapses_with_usd: f64,
    /// The session with keep-alive, in US dollars.
    pub cost_with_usd: f64,
    /// `cost_without_usd - cost_with_usd`: above zero, keep-alive saves.
    pub net_usd: f64,
}

/// The epoch every gap's offsets are counted from: the policy reads
/// offsets from the last turn only.
fn epoch() -> Timestamp {
    Timestamp::UNIX_EPOCH
}

/// Runs the comparison.
pub(crate) fn simulate(inputs: Inputs<'_>) -> Result<KeepAliveReport, super::PriceError> {
    let Inputs {
        prefixes,
        gaps,
        base_cost,
        multipliers,
        ping_is_write,
        ttl,
        minimum,
        usd_per_mtok,
        policy,
        prefix,
    } = inputs;
    let per_token = 1e-6 * usd_per_mtok;
    let (read, write) = (multipliers.cache_read(), multipliers.cache_write());
    let ping_pricing = Pricing::new(
        usd_per_mtok,
        if ping_is_write { write } else { read },
        write,
    )?;
    let lapse_usd = |tokens: usize| tokens as f64 * (write - read).max(0.0) * per_token;
    let mut outcomes = Vec::with_capacity(gaps.len());
    let mut declined: BTreeMap<&'static str, usize> = BTreeMap::new();
    let (mut pings_sent, mut pings_usd) = (0u32, 0.0);
    for (index, (&gap, &(prefix_tokens, rewrite_tokens))) in gaps.iter().zip(&prefixes).enumerate()
    {
        let idle = Duration::from_secs(gap.as_secs());
        let past: TurnGaps = gaps[..index].iter().copied().collect();
        let mut state = ConversationState::new(
            epoch(),
            ttl,
            u64::try_from(prefix_tokens).unwrap_or(u64::MAX),
            ping_pricing,
        )
        .gaps(past)
        .minimum(u64::try_from(minimum).unwrap_or(u64::MAX));
        let mut refreshed = Duration::ZERO;
        let mut pings = 0u32;
        let mut stopped = None;
        loop {
            match policy.decide(&state) {
                Decision::Ping(ping) => {
                    let at = Duration::try_from(ping.at.duration_since(epoch()))
                        .unwrap_or(Duration::MAX);
                    // The turn came first, or the ping would not move on:
                    // nothing more to send.
                    if at >= idle || at <= refreshed && pings > 0 {
                        break;
                    }
                    pings = pings.saturating_add(1);
                    pings_usd += ping.ping_usd;
                    refreshed = at;
                    state = state.refreshed(ping.at).pings_since_turn(pings);
                }
                Decision::Decline(decline) => {
                    stopped = Some(decline);
                    break;
                }
            }
        }
        pings_sent = pings_sent.saturating_add(pings);
        let lapsed_without = idle > ttl && rewrite_tokens > 0;
        let lapsed_with = idle > refreshed.saturating_add(ttl) && rewrite_tokens > 0;
        // A decline matters where the entry then lapsed.
        let stopped = stopped.filter(|_| lapsed_with);
        if let Some(decline) = &stopped {
            *declined.entry(decline.name()).or_default() += 1;
        }
        outcomes.push(GapOutcome {
            after_turn: index + 1,
            idle_seconds: idle.as_secs(),
            prefix_tokens,
            rewrite_tokens,
            lapsed_without,
            pings,
            declined: stopped,
            lapsed_with,
        });
    }
    let lapses = |with: bool| {
        outcomes
            .iter()
            .filter(|g| {
                if with {
                    g.lapsed_with
                } else {
                    g.lapsed_without
                }
            })
            .fold((0usize, 0.0f64), |(n, usd), g| {
                (n + 1, usd + lapse_usd(g.rewrite_tokens))
            })
    };
    let (lapses_without, lapses_without_usd) = lapses(false);
    let (lapses_with, lapses_with_usd) = lapses(true);
    let no_lapse_usd = base_cost * per_token;
    let cost_without_usd = no_lapse_usd + lapses_without_usd;
    let cost_with_usd = no_lapse_usd + pings_usd + lapses_with_usd;
    Ok(KeepAliveReport {
        usd_per_mtok,
        ttl_seconds: ttl.as_secs(),
        policy,
        ping_pricing,
        cached: prefix,
        gaps: outcomes,
        no_lapse_usd,
        lapses_without,
        lapses_without_usd,
        cost_without_usd,
        pings_sent,
        pings_usd,
        declined,
        lapses_with,
        lapses_with_usd,
        cost_with_usd,
        net_usd: cost_without_usd - cost_with_usd,
    })
}

/// `6m`, `30s`, `1h 30m`, `2m 05s`: an idle time for a table.
pub fn format_idle(seconds: u64) -> String {
    let (h, m, s) = (seconds / 3_600, seconds / 60 % 60, seconds % 60);
    match (h, m, s) {
        (0, 0, s) => format!("{s}s"),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m {s:02}s"),
        (h, 0, 0) => format!("{h}h"),
        (h, m, 0) => format!("{h}h {m:02}m"),
        (h, m, s) => format!("{h}h {m:02}m {s:02}s"),
    }
}

impl fmt::Display for KeepAliveReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "keep-alive over {} gaps, TTL {}, the {} cached between turns, input USD {} per \
             million tokens: a ping at {}% of the TTL reads the prefix at {}x (a lapse writes it \
             again at {}x) plus {} output token(s) at {}x input, at most {} between turns",
            self.gaps.len(),
            format_idle(self.ttl_seconds),
            self.cached,
            self.usd_per_mtok,
            self.policy.lead_percent,
            self.ping_pricing.read,
            self.ping_pricing.write,
            self.policy.output_tokens,
            self.policy.output_price as f64 / 10_000.0,
            self.policy.max_pings,
        )?;
        writeln!(
            f,
            "{:>5}  {:>8}  {:>8}  {:>16}  with keep-alive",
            "gap", "idle", "prefix", "without"
        )?;
        for gap in &self.gaps {
            let without = if gap.lapsed_without {
                "LAPSED"
            } else if gap.rewrite_tokens == 0 {
                "nothing to read"
            } else {
                "read"
            };
            let pings = match gap.pings {
                0 => String::new(),
                1 => "1 ping, ".to_owned(),
                n => format!("{n} pings, "),
            };
            let with = match (&gap.declined, gap.lapsed_with) {
                (Some(decline), _) => format!("{pings}LAPSED (declined: {})", decline.name()),
                (None, true) => format!("{pings}LAPSED"),
                (None, false) if gap.rewrite_tokens == 0 => format!("{pings}nothing to read"),
                (None, false) => format!("{pings}read"),
            };
            writeln!(
                f,
                "{:>5}  {:>8}  {:>8}  {:>16}  {with}",
                gap.after_turn,
                format_idle(gap.idle_seconds),
                gap.prefix_tokens,
                without
            )?;
        }
        // Each reason once, with its first gap's figures.
        for (name, count) in &self.declined {
            if let Some(gap) = self
                .gaps
                .iter()
                .find(|g| g.declined.is_some_and(|d| d.name() == *name))
                && let Some(decline) = &gap.declined
            {
                writeln!(
                    f,
                    "declined {name} x{count} (gap {}: {decline})",
                    gap.after_turn
                )?;
            }
        }
        writeln!(
            f,
            "without keep-alive: USD {:.6} ({} lapse(s) written again: USD {:.6})",
            self.cost_without_usd, self.lapses_without, self.lapses_without_usd
        )?;
        let declined: usize = self.declined.values().sum();
        writeln!(
            f,
            "with keep-alive:    USD {:.6} ({} ping(s) sent: USD {:.6}; {} declined; {} lapse(s) \
             left: USD {:.6})",
            self.cost_with_usd,
            self.pings_sent,
            self.pings_usd,
            declined,
            self.lapses_with,
            self.lapses_with_usd
        )?;
        let share = if self.cost_without_usd > 0.0 {
            self.net_usd.abs() / self.cost_without_usd * 100.0
        } else {
            0.0
        };
        if self.net_usd > 0.0 {
            write!(
                f,
                "net: keep-alive saves USD {:.6} ({share:.1}% of the session)",
                self.net_usd
            )
        } else if self.net_usd < 0.0 {
            write!(
                f,
                "net: keep-alive costs USD {:.6} more ({share:.1}% of the session)",
                -self.net_usd
            )
        } else {
            write!(f, "net: no difference")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::simulation::CacheSimulation;

    fn minutes(m: u64) -> Duration {
        Duration::from_secs(m * 60)
    }

    /// The simulation asks the real policy: its pings are the policy's
    /// pings, and what it declines is what the policy declines for the
    /// same state.
    #[test]
    fn each_gap_is_what_the_policy_decides_from_the_gaps_before_it() {
        let gaps = [minutes(2), minutes(6), Duration::from_secs(30), minutes(6)];
        let report = CacheSimulation::new("claude-sonnet-4-5", 20_000, [100; 5])
            .gaps(gaps)
            .run()
            .unwrap();
        let keep = report.keep_alive.unwrap();
        let outcomes: Vec<_> = keep
            .gaps
            .iter()
            .map(|g| {
                (
                    g.lapsed_without,
                    g.pings,
                    g.declined.map(|d| d.name()),
                    g.lapsed_with,
                )
            })
            .collect();
        assert_eq!(
            outcomes,
            [
                // 2 minutes: within the TTL either way (the policy has no
                // gap to go by, but nothing lapses).
                (false, 0, None, false),
                // 6 minutes: the only gap seen ended at 2, before a ping's 4.5.
                (true, 0, Some("past_longest_gap"), true),
                // 30 seconds: the turn comes before the ping's time.
                (false, 0, None, false),
                // 6 minutes: a 6-minute gap was seen, a ping at 4.5 keeps it.
                (true, 1, None, false),
            ]
        );
        // The same as asking the policy directly for the last gap.
        let state = ConversationState::new(
            epoch(),
            minutes(5),
            20_000,
            Pricing::for_model(
                3.0,
                "claude-sonnet-4-5",
                crate::providers::anthropic::CacheTtl::FiveMinutes,
            )
            .unwrap(),
        )
        .gaps(gaps[..3].iter().copied().collect())
        .minimum(1_024);
        let ping = *KeepAlive::new().decide(&state).ping().unwrap();
        assert_eq!(keep.pings_usd, ping.ping_usd);
        let lapse = 20_000.0 * (1.25 - 0.1) * 3e-6;
        assert!((keep.lapses_without_usd - 2.0 * lapse).abs() < 1e-12);
        assert!((keep.lapses_with_usd - lapse).abs() < 1e-12);
        assert!((keep.net_usd - (lapse - ping.ping_usd)).abs() < 1e-12);
        assert_eq!(
            keep.declined,
            [("past_longest_gap", 1)].into_iter().collect()
        );
        let text = keep.to_string();
        assert!(
            text.contains("declined past_longest_gap x1 (gap 2: the ping would go 270s"),
            "{text}"
        );
        assert!(text.contains("net: keep-alive saves USD"), "{text}");
    }

    /// Ten-minute gaps take two pings each once one has been seen (the
    /// horizon), and an hour apart nothing is pinged: the comparison says
    /// the policy declined and costs nothing.
    #[test]
    fn two_pings_a_gap_at_ten_minutes_and_none_at_an_hour() {
        let report = CacheSimulation::new("claude-opus-5-5", 20_000, [100; 4])
            .gaps([minutes(10); 3])
            .usd_per_mtok(5.0)
            .run()
            .unwrap();
        let keep = report.keep_alive.unwrap();
        assert_eq!(
            (keep.pings_sent, keep.lapses_with, keep.lapses_without),
            (4, 1, 3)
        );
        assert!(keep.net_usd > 0.0);

        let report = CacheSimulation::new("claude-sonnet-4-5", 20_000, [100; 4])
            .gaps([minutes(60); 3])
            .run()
            .unwrap();
        let keep = report.keep_alive.unwrap();
        assert_eq!(
            (keep.pings_sent, keep.lapses_with, keep.lapses_without),
            (0, 3, 3)
        );
        assert_eq!(
            keep.declined,
            [("no_history", 1), ("not_worth_it", 2)]
                .into_iter()
                .collect()
        );
        assert_eq!(keep.net_usd, 0.0);
        assert!(keep.to_string().ends_with("net: no difference"), "{keep}");
    }

    #[test]
    fn idle_times_read_as_people_write_them() {
        assert_eq!(format_idle(30), "30s");
        assert_eq!(format_idle(360), "6m");
        assert_eq!(format_idle(125), "2m 05s");
        assert_eq!(format_idle(3_600), "1h");
        assert_eq!(format_idle(5_400), "1h 30m");
        assert_eq!(format_idle(3_661), "1h 01m 01s");
    }
}
