//! What the prompt cache saves over a session: a simulation, from token
//! counts alone.
//!
//! A session is N calls. The stable prefix is the same on every call; the
//! dynamic suffix changes per turn. With Anthropic's cache:
//!
//! - turn 1 writes the prefix to the cache (billed at the write multiplier:
//!   1.25x input for the 5-minute TTL, 2x for 1 hour);
//! - later turns read it (0.1x);
//! - the dynamic suffix is always uncached input (1x);
//! - a *bust* at turn K (one stable layer changed) writes the prefix again;
//! - a prefix below the model's minimum cacheable length (see
//!   [`CacheMinimums`]) is never cached: every turn pays 1x for everything.
//!
//! Calls are assumed to come within the TTL of each other, so the cache never
//! expires; the TTL decides the write price. Costs are in *input-token
//! equivalents* (tokens times multiplier), and the relative cost divides them
//! by what sending every token uncached would cost. Output tokens are not
//! counted: caching does not change them.
//!
//! [`TeamSimulation`] prices a team's first calls over one repository, with
//! and without breakpoints at scope boundaries.
//!
//! ```
//! use prompt_core::providers::cache::CacheSimulation;
//!
//! let report = CacheSimulation::new("claude-sonnet-4-5", 10_000, [500, 500, 500]).run()?;
//! assert_eq!(report.total.cache_write, 10_000);
//! assert_eq!(report.total.cache_read, 20_000);
//! assert_eq!(report.total.uncached, 1_500);
//! assert_eq!(report.total.cost, 16_000.0); // 10,000 x 1.25 + 20,000 x 0.1 + 1,500
//! assert_eq!(report.uncached_cost, 31_500);
//! assert_eq!(format!("{:.3}", report.relative_cost), "0.508");
//! println!("{report}"); // a table per turn
//! # Ok::<(), prompt_core::providers::cache::SimulationError>(())
//! ```

use std::fmt;

use serde::{Serialize, Serializer, ser::SerializeStruct};

use super::anthropic::{CacheMinimums, CacheTtl};
use crate::AssembledPrompt;
use crate::tokens::TokenCounter;

/// Price multipliers relative to the base input price, in hundredths so the
/// arithmetic is exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Multipliers {
    /// A cache read, in hundredths of the input price (Anthropic: 10).
    pub cache_read_hundredths: u64,
    /// A cache write, in hundredths (Anthropic: 125 for 5 minutes, 200 for 1
    /// hour).
    pub cache_write_hundredths: u64,
}

impl Multipliers {
    /// Anthropic's multipliers for a breakpoint of `ttl`: read 0.1x, write
    /// 1.25x (5 minutes) or 2x (1 hour).
    pub const fn anthropic(ttl: CacheTtl) -> Self {
        Self {
            cache_read_hundredths: 10,
            cache_write_hundredths: match ttl {
                CacheTtl::FiveMinutes => 125,
                CacheTtl::OneHour => 200,
            },
        }
    }

    /// The read multiplier, e.g. `0.1`.
    pub fn cache_read(&self) -> f64 {
        self.cache_read_hundredths as f64 / 100.0
    }

    /// The write multiplier, e.g. `1.25`.
    pub fn cache_write(&self) -> f64 {
        self.cache_write_hundredths as f64 / 100.0
    }
}

impl Serialize for Multipliers {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Multipliers", 3)?;
        s.serialize_field("cache_read", &self.cache_read())?;
        s.serialize_field("cache_write", &self.cache_write())?;
        s.serialize_field("uncached", &1.0)?;
        s.end()
    }
}

/// A session to simulate. Build it with [`new`](Self::new), adjust, then
/// [`run`](Self::run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheSimulation {
    model: String,
    stable_tokens: usize,
    dynamic_tokens: Vec<usize>,
    ttl: CacheTtl,
    bust_at: Option<usize>,
    minimums: CacheMinimums,
    multipliers: Option<Multipliers>,
}

impl CacheSimulation {
    /// A session on `model`: a stable prefix of `stable_tokens`, then one call
    /// per entry of `dynamic_tokens` (that turn's dynamic suffix). 5-minute
    /// TTL, no bust, Anthropic's minimums and multipliers.
    pub fn new(
        model: impl Into<String>,
        stable_tokens: usize,
        dynamic_tokens: impl IntoIterator<Item = usize>,
    ) -> Self {
        Self {
            model: model.into(),
            stable_tokens,
            dynamic_tokens: dynamic_tokens.into_iter().collect(),
            ttl: CacheTtl::FiveMinutes,
            bust_at: None,
            minimums: CacheMinimums::anthropic(),
            multipliers: None,
        }
    }

    /// The cache TTL: it sets the write multiplier.
    pub fn ttl(mut self, ttl: CacheTtl) -> Self {
        self.ttl = ttl;
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
        self.minimums = minimums;
        self
    }

    /// Other multipliers than Anthropic's for the TTL.
    pub fn multipliers(mut self, multipliers: Multipliers) -> Self {
        self.multipliers = Some(multipliers);
        self
    }

    /// Runs the session.
    ///
    /// # Errors
    /// [`SimulationError::NoTurns`] for an empty session;
    /// [`SimulationError::BustOutOfRange`] for a bust turn outside `1..=N`.
    pub fn run(&self) -> Result<CacheReport, SimulationError> {
        let turns = self.dynamic_tokens.len();
        if turns == 0 {
            return Err(SimulationError::NoTurns);
        }
        if let Some(bust) = self.bust_at.filter(|k| !(1..=turns).contains(k)) {
            return Err(SimulationError::BustOutOfRange { bust, turns });
        }
        let multipliers = self.multipliers.unwrap_or(Multipliers::anthropic(self.ttl));
        let minimum = self.minimums.lookup(&self.model);
        let cached = self.stable_tokens > 0 && self.stable_tokens >= minimum.tokens;
        let stable = self.stable_tokens;

        let mut total = Tally::default();
        let mut rows = Vec::with_capacity(turns);
        for (index, &dynamic) in self.dynamic_tokens.iter().enumerate() {
            let turn = index + 1;
            let (cache_write, cache_read, uncached) = if !cached {
                (0, 0, stable + dynamic)
            } else if turn == 1 || Some(turn) == self.bust_at {
                (stable, 0, dynamic)
            } else {
                (0, stable, dynamic)
            };
            let tally = Tally {
                cache_write,
                cache_read,
                uncached,
                cost_hundredths: cache_write as u64 * multipliers.cache_write_hundredths
                    + cache_read as u64 * multipliers.cache_read_hundredths
                    + uncached as u64 * 100,
            };
            total.add(&tally);
            rows.push(tally.row(turn));
        }
        let uncached_cost = (stable * turns + self.dynamic_tokens.iter().sum::<usize>()) as u64;
        Ok(CacheReport {
            model: self.model.clone(),
            family: minimum.family,
            ttl: self.ttl.as_str(),
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
                total.cost_hundredths as f64 / (uncached_cost * 100) as f64
            },
        })
    }
}

#[derive(Default)]
struct Tally {
    cache_write: usize,
    cache_read: usize,
    uncached: usize,
    cost_hundredths: u64,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.cache_write += other.cache_write;
        self.cache_read += other.cache_read;
        self.uncached += other.uncached;
        self.cost_hundredths += other.cost_hundredths;
    }

    fn row(&self, turn: usize) -> TurnCost {
        TurnCost {
            turn,
            cache_write: self.cache_write,
            cache_read: self.cache_read,
            uncached: self.uncached,
            cost: self.cost_hundredths as f64 / 100.0,
        }
    }
}

/// One turn's input tokens by how they are billed (or the session's total).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
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

/// The result of a [`CacheSimulation`]: serializable, and a table through
/// `Display`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheReport {
    /// The model simulated.
    pub model: String,
    /// Its family in the minimum table; `None` when unknown (the most
    /// conservative minimum applied).
    pub family: Option<String>,
    /// The TTL: `"5m"` or `"1h"`.
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
        )
    }
}

/// Why a simulation cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SimulationError {
    /// No turns.
    #[error("the session has no turns: give each turn's dynamic token count")]
    NoTurns,
    /// A team of nobody.
    #[error("the team has no users: give at least one teammate's prefix")]
    NoUsers,
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

/// The list price of input tokens [`TeamSimulation`] assumes unless told
/// otherwise: USD 3 per million, Claude Sonnet 4.5's (checked on
/// [`MINIMUMS_CHECKED`](super::anthropic::MINIMUMS_CHECKED)).
pub const DEFAULT_USD_PER_MTOK: f64 = 3.0;

/// One teammate's stable prefix as an organization-wide prompt cache sees
/// it: its text and the offsets where its request has a breakpoint (the
/// cache holds the prefix up to each one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamPrefix {
    label: String,
    text: String,
    breakpoints: Vec<usize>,
}

impl TeamPrefix {
    /// `prompt`'s stable prefix with the breakpoints the Anthropic request
    /// places ([`scope_cuts`](super::anthropic::scope_cuts) for `model`, then
    /// the end), counted with `counter`.
    pub fn scoped(
        label: impl Into<String>,
        prompt: &AssembledPrompt,
        model: &str,
        counter: &dyn TokenCounter,
        minimums: &CacheMinimums,
    ) -> Self {
        let text = prompt.stable().to_owned();
        let mut breakpoints = super::anthropic::scope_cuts(prompt, model, counter, minimums);
        breakpoints.push(text.len());
        Self {
            label: label.into(),
            text,
            breakpoints,
        }
    }

    /// `prompt`'s stable prefix with one breakpoint, at its end: a request
    /// before cache scopes, whose user shares the cache only with someone
    /// whose whole prefix is the same.
    pub fn unscoped(label: impl Into<String>, prompt: &AssembledPrompt) -> Self {
        let text = prompt.stable().to_owned();
        Self {
            label: label.into(),
            breakpoints: vec![text.len()],
            text,
        }
    }

    /// The teammate's label.
    pub fn label(&self) -> &str {
        &self.label
    }
}

/// What one teammate's first call costs, or a team's (see [`TeamReport`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct FirstCall {
    /// Bytes of the stable prefix written to the cache.
    pub bytes_written: usize,
    /// Bytes read from the cache (written by a teammate before).
    pub bytes_read: usize,
    /// Bytes billed as plain input (a prefix too short to cache).
    pub bytes_uncached: usize,
    /// Tokens written.
    pub tokens_written: usize,
    /// Tokens read.
    pub tokens_read: usize,
    /// Tokens billed as plain input.
    pub tokens_uncached: usize,
    /// Input-token equivalents: tokens times their multiplier.
    pub cost: f64,
    /// The cost in US dollars at the simulation's input price.
    pub usd: f64,
}

impl FirstCall {
    fn add(&mut self, other: &FirstCall) {
        self.bytes_written += other.bytes_written;
        self.bytes_read += other.bytes_read;
        self.bytes_uncached += other.bytes_uncached;
        self.tokens_written += other.tokens_written;
        self.tokens_read += other.tokens_read;
        self.tokens_uncached += other.tokens_uncached;
        self.cost += other.cost;
        self.usd += other.usd;
    }
}

/// One teammate's first call with and without scope order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TeammateCost {
    /// The teammate.
    pub user: String,
    /// With the breakpoints at scope boundaries.
    pub scoped: FirstCall,
    /// With one breakpoint at the end of the stable prefix.
    pub unscoped: FirstCall,
}

/// The result of a [`TeamSimulation`]: serializable, and a table through `Display`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TeamReport {
    /// The model simulated.
    pub model: String,
    /// The TTL: `"5m"` or `"1h"`.
    pub ttl: &'static str,
    /// The multipliers used.
    pub multipliers: Multipliers,
    /// The model's minimum cacheable prefix, in tokens.
    pub minimum_tokens: usize,
    /// The input price assumed, in USD per million tokens.
    pub usd_per_mtok: f64,
    /// Each teammate, in the order they made their first call.
    pub users: Vec<TeammateCost>,
    /// The team with scope order.
    pub scoped: FirstCall,
    /// The team without it.
    pub unscoped: FirstCall,
    /// `unscoped.tokens_written - scoped.tokens_written`: tokens the team no
    /// longer writes.
    pub tokens_saved: i64,
    /// `unscoped.usd - scoped.usd`.
    pub usd_saved: f64,
}

/// A team's first calls over one repository, each teammate with the same
/// prompt but their own user layers, through one organization-wide cache
/// (Anthropic's is shared by every user of one key): with breakpoints at the
/// scope boundaries, the second teammate reads the Global and Project part
/// the first one wrote; with one breakpoint at the end, nobody reads what
/// anybody else wrote unless their whole prefixes are equal.
///
/// Only first calls are counted: a teammate's later calls read their own
/// whole prefix either way. A breakpoint's prefix below the model's minimum
/// is not cached: a call whose last breakpoint is below it pays plain input.
///
/// ```
/// use prompt_core::providers::cache::{TeamPrefix, TeamSimulation};
/// use prompt_core::tokens::ApproxCounter;
/// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
/// # #[prompt_core::prompt_pipeline(paths = [Cached])]
/// # struct DocTeam;
/// # struct Who(&'static str);
/// # impl prompt_core::SessionValue for Who {}
/// # #[prompt_layer(priority = 1, stability = Stable, scope = Project, paths = [Cached], pipeline = DocTeam)]
/// # struct Docs;
/// # impl prompt_core::Render<prompt_core::Stable> for Docs {
/// #     fn render(&self, out: &mut prompt_core::LayerWriter<'_>, _: &prompt_core::LayerInput<'_, prompt_core::Stable>) { out.push_str(&"Run make check. ".repeat(400)); }
/// # }
/// # #[prompt_layer(priority = 2, stability = Stable, scope = User, paths = [Cached], pipeline = DocTeam)]
/// # struct Prefs;
/// # impl prompt_core::Render<prompt_core::Stable> for Prefs {
/// #     fn render(&self, out: &mut prompt_core::LayerWriter<'_>, input: &prompt_core::LayerInput<'_, prompt_core::Stable>) { out.push_str(input.get::<Who>().map_or("", |w| w.0)); }
/// # }
/// let pipeline = Pipeline::of::<DocTeam>()?;
/// let counter = ApproxCounter;
/// let simulation = TeamSimulation::new("claude-sonnet-4-5");
/// let team: Vec<TeamPrefix> = ["Ada", "Bo"]
///     .into_iter()
///     .map(|name| {
///         let session = Context::new().with(Who(name));
///         let prompt = PromptBuilder::new(&pipeline).build_cached(&session, &prompt_core::TurnContext::new()).unwrap();
///         simulation.prefix(name, &prompt, &counter)
///     })
///     .collect();
/// let report = simulation.run(&team, &counter)?;
/// assert!(report.users[1].scoped.tokens_read > 0); // Bo reads the project's part
/// assert_eq!(report.users[1].unscoped.tokens_read, 0);
/// assert!(report.usd_saved > 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TeamSimulation {
    model: String,
    ttl: CacheTtl,
    minimums: CacheMinimums,
    usd_per_mtok: f64,
}

impl TeamSimulation {
    /// A team on `model`: 5-minute TTL, Anthropic's minimums and multipliers,
    /// [`DEFAULT_USD_PER_MTOK`].
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            ttl: CacheTtl::FiveMinutes,
            minimums: CacheMinimums::anthropic(),
            usd_per_mtok: DEFAULT_USD_PER_MTOK,
        }
    }

    /// The cache TTL: it sets the write multiplier.
    pub fn ttl(mut self, ttl: CacheTtl) -> Self {
        self.ttl = ttl;
        self
    }

    /// Replaces the minimum cacheable lengths.
    pub fn minimums(mut self, minimums: CacheMinimums) -> Self {
        self.minimums = minimums;
        self
    }

    /// The input price, in USD per million tokens.
    pub fn usd_per_mtok(mut self, usd: f64) -> Self {
        self.usd_per_mtok = usd;
        self
    }

    /// `prompt` as a teammate with the scoped breakpoints for this model.
    pub fn prefix(
        &self,
        label: impl Into<String>,
        prompt: &AssembledPrompt,
        counter: &dyn TokenCounter,
    ) -> TeamPrefix {
        TeamPrefix::scoped(label, prompt, &self.model, counter, &self.minimums)
    }

    /// Runs the team's first calls, in order, with each prefix's own
    /// breakpoints (`scoped`) and with one at its end (`unscoped`).
    ///
    /// # Errors
    /// [`SimulationError::NoUsers`] for an empty team.
    pub fn run(
        &self,
        team: &[TeamPrefix],
        counter: &dyn TokenCounter,
    ) -> Result<TeamReport, SimulationError> {
        if team.is_empty() {
            return Err(SimulationError::NoUsers);
        }
        let multipliers = Multipliers::anthropic(self.ttl);
        let minimum = self.minimums.lookup(&self.model).tokens;
        let unscoped_team: Vec<TeamPrefix> = team
            .iter()
            .map(|p| TeamPrefix {
                label: p.label.clone(),
                text: p.text.clone(),
                breakpoints: vec![p.text.len()],
            })
            .collect();
        let scoped = self.calls(team, counter, minimum, multipliers);
        let unscoped = self.calls(&unscoped_team, counter, minimum, multipliers);
        let mut users = Vec::with_capacity(team.len());
        let (mut scoped_total, mut unscoped_total) = (FirstCall::default(), FirstCall::default());
        for ((prefix, s), u) in team.iter().zip(scoped).zip(unscoped) {
            scoped_total.add(&s);
            unscoped_total.add(&u);
            users.push(TeammateCost {
                user: prefix.label.clone(),
                scoped: s,
                unscoped: u,
            });
        }
        Ok(TeamReport {
            model: self.model.clone(),
            ttl: self.ttl.as_str(),
            multipliers,
            minimum_tokens: minimum,
            usd_per_mtok: self.usd_per_mtok,
            users,
            tokens_saved: unscoped_total.tokens_written as i64 - scoped_total.tokens_written as i64,
            usd_saved: unscoped_total.usd - scoped_total.usd,
            scoped: scoped_total,
            unscoped: unscoped_total,
        })
    }

    /// Each teammate's first call through one shared cache of prefixes.
    fn calls(
        &self,
        team: &[TeamPrefix],
        counter: &dyn TokenCounter,
        minimum: usize,
        multipliers: Multipliers,
    ) -> Vec<FirstCall> {
        let mut cache: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        team.iter()
            .map(|prefix| {
                let text = prefix.text.as_str();
                let cacheable: Vec<(usize, usize)> = prefix
                    .breakpoints
                    .iter()
                    .filter(|&&end| end > 0 && end <= text.len() && text.is_char_boundary(end))
                    .map(|&end| (end, counter.count(&text[..end])))
                    .filter(|&(_, tokens)| tokens >= minimum.max(1))
                    .collect();
                let total_tokens = counter.count(text);
                let mut call = FirstCall::default();
                match cacheable.last() {
                    None => {
                        call.bytes_uncached = text.len();
                        call.tokens_uncached = total_tokens;
                    }
                    Some(&(last, last_tokens)) => {
                        let (read, read_tokens) = cacheable
                            .iter()
                            .rev()
                            .find(|(end, _)| cache.contains(&text[..*end]))
                            .copied()
                            .unwrap_or((0, 0));
                        call.bytes_read = read;
                        call.tokens_read = read_tokens;
                        call.bytes_written = last - read;
                        call.tokens_written = last_tokens - read_tokens;
                        call.bytes_uncached = text.len() - last;
                        call.tokens_uncached = total_tokens.saturating_sub(last_tokens);
                        for &(end, _) in &cacheable {
                            cache.insert(&text[..end]);
                        }
                    }
                }
                let hundredths = call.tokens_written as u64 * multipliers.cache_write_hundredths
                    + call.tokens_read as u64 * multipliers.cache_read_hundredths
                    + call.tokens_uncached as u64 * 100;
                call.cost = hundredths as f64 / 100.0;
                call.usd = call.cost * self.usd_per_mtok / 1_000_000.0;
                call
            })
            .collect()
    }
}

impl fmt::Display for TeamReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "model {}, TTL {}, minimum cacheable {} tokens, input USD {:.2} per million tokens \
             (cache write {:.2}x, read {:.2}x)",
            self.model,
            self.ttl,
            self.minimum_tokens,
            self.usd_per_mtok,
            self.multipliers.cache_write(),
            self.multipliers.cache_read(),
        )?;
        writeln!(
            f,
            "each teammate's first call; scoped: breakpoints at scope boundaries, unscoped: one at the end"
        )?;
        writeln!(
            f,
            "{:<12}  {:>14}  {:>14}  {:>10}  {:>14}  {:>14}  {:>10}",
            "user", "scoped write", "scoped read", "USD", "unscoped write", "unscoped read", "USD"
        )?;
        let row = |f: &mut fmt::Formatter<'_>, user: &str, s: &FirstCall, u: &FirstCall| {
            writeln!(
                f,
                "{:<12}  {:>14}  {:>14}  {:>10.5}  {:>14}  {:>14}  {:>10.5}",
                user,
                format!("{} tok", s.tokens_written),
                format!("{} tok", s.tokens_read),
                s.usd,
                format!("{} tok", u.tokens_written),
                format!("{} tok", u.tokens_read),
                u.usd
            )
        };
        for user in &self.users {
            row(f, &user.user, &user.scoped, &user.unscoped)?;
        }
        row(f, "total", &self.scoped, &self.unscoped)?;
        writeln!(
            f,
            "bytes written {} scoped, {} unscoped; read {} scoped, {} unscoped",
            self.scoped.bytes_written,
            self.unscoped.bytes_written,
            self.scoped.bytes_read,
            self.unscoped.bytes_read
        )?;
        let percent = if self.unscoped.usd > 0.0 {
            100.0 * self.usd_saved / self.unscoped.usd
        } else {
            0.0
        };
        write!(
            f,
            "scope order saves {} tokens written and USD {:.5} ({percent:.1}%) over {} first calls",
            self.tokens_saved,
            self.usd_saved,
            self.users.len()
        )
    }
}
