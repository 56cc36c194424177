//! A team's first calls over one repository through one shared prompt cache,
//! priced with and without breakpoints at scope boundaries.

use std::fmt;

use serde::Serialize;

use super::SimulationError;
use super::session::ten_thousandths;
use crate::AssembledPrompt;
use crate::providers::anthropic::{CacheMinimums, CacheTtl};
use crate::providers::cost::{self, DEFAULT_USD_PER_MTOK, Multipliers, ONE_X};
use crate::tokens::TokenCounter;

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
    /// places ([`scope_cuts`](crate::providers::anthropic::scope_cuts) for `model`, then
    /// the end), counted with `counter`.
    pub fn scoped(
        label: impl Into<String>,
        prompt: &AssembledPrompt,
        model: &str,
        counter: &dyn TokenCounter,
        minimums: &CacheMinimums,
    ) -> Self {
        let text = prompt.stable().to_owned();
        let mut breakpoints =
            crate::providers::anthropic::scope_cuts(prompt, model, counter, minimums);
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
#[non_exhaustive]
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
        // Token counts are the counter's: sums saturate.
        self.bytes_written = self.bytes_written.saturating_add(other.bytes_written);
        self.bytes_read = self.bytes_read.saturating_add(other.bytes_read);
        self.bytes_uncached = self.bytes_uncached.saturating_add(other.bytes_uncached);
        self.tokens_written = self.tokens_written.saturating_add(other.tokens_written);
        self.tokens_read = self.tokens_read.saturating_add(other.tokens_read);
        self.tokens_uncached = self.tokens_uncached.saturating_add(other.tokens_uncached);
        self.cost += other.cost;
        self.usd += other.usd;
    }
}

/// One teammate's first call with and without scope order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
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
#[non_exhaustive]
pub struct TeamReport {
    /// The model simulated.
    pub model: String,
    /// The TTL: `"5m"` or `"1h"` (Anthropic), `"30m"` or `"24h"` (OpenAI).
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
/// use prompt_providers::simulation::{TeamPrefix, TeamSimulation};
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
    ttl: Option<CacheTtl>,
    minimums: CacheMinimums,
    usd_per_mtok: f64,
}

impl TeamSimulation {
    /// A team on `model`: the minimums and multipliers of its provider
    /// (OpenAI's for its GPT-5 line, else Anthropic's with the 5-minute TTL),
    /// [`DEFAULT_USD_PER_MTOK`].
    pub fn new(model: impl Into<String>) -> Self {
        let model = model.into();
        let minimums = match Multipliers::openai(&model) {
            Some(_) => CacheMinimums::openai(),
            None => CacheMinimums::anthropic(),
        };
        Self {
            model,
            ttl: None,
            minimums,
            usd_per_mtok: DEFAULT_USD_PER_MTOK,
        }
    }

    /// The cache TTL: it sets Anthropic's write multiplier. An OpenAI model
    /// takes none ([`run`](Self::run) refuses it).
    pub fn ttl(mut self, ttl: CacheTtl) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// Replaces the minimum cacheable lengths.
    pub fn minimums(mut self, minimums: CacheMinimums) -> Self {
        self.minimums = minimums;
        self
    }

    /// The input price, in USD per million tokens; [`run`](Self::run)
    /// refuses one that is not a finite number at or above zero.
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
    /// [`SimulationError::NoUsers`] for an empty team;
    /// [`SimulationError::Price`] for an input price that is `NaN`, infinite
    /// or negative; [`SimulationError::TtlNotTaken`] for a TTL given with an
    /// OpenAI model.
    pub fn run(
        &self,
        team: &[TeamPrefix],
        counter: &dyn TokenCounter,
    ) -> Result<TeamReport, SimulationError> {
        cost::usd_per_mtok(self.usd_per_mtok)?;
        if team.is_empty() {
            return Err(SimulationError::NoUsers);
        }
        let (multipliers, ttl, _) = super::pricing(&self.model, self.ttl)?;
        let minimum = self.minimums.lookup(&self.model).tokens;
        // Each prefix is counted once, for both orders.
        let counted: Vec<Counted> = team.iter().map(|p| Counted::of(p, counter)).collect();
        let scoped = self.calls(
            team.iter()
                .zip(&counted)
                .map(|(p, c)| (p.text.as_str(), &c.ends[..], c.total)),
            minimum,
            multipliers,
        );
        let unscoped = self.calls(
            team.iter()
                .zip(&counted)
                .map(|(p, c)| (p.text.as_str(), &c.whole[..], c.total)),
            minimum,
            multipliers,
        );
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
            ttl,
            multipliers,
            minimum_tokens: minimum,
            usd_per_mtok: self.usd_per_mtok,
            users,
            tokens_saved: difference(unscoped_total.tokens_written, scoped_total.tokens_written),
            usd_saved: unscoped_total.usd - scoped_total.usd,
            scoped: scoped_total,
            unscoped: unscoped_total,
        })
    }

    /// Each teammate's first call through one shared cache of prefixes:
    /// each given as its text, its breakpoints with the tokens before each,
    /// and its tokens in all.
    fn calls<'a>(
        &self,
        team: impl Iterator<Item = (&'a str, &'a [(usize, usize)], usize)>,
        minimum: usize,
        multipliers: Multipliers,
    ) -> Vec<FirstCall> {
        let mut cache: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        team.map(|(text, ends, total_tokens)| {
            let cacheable: Vec<(usize, usize)> = ends
                .iter()
                .copied()
                .filter(|&(_, tokens)| tokens >= minimum.max(1))
                .collect();
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
                    call.tokens_written = last_tokens.saturating_sub(read_tokens);
                    call.bytes_uncached = text.len() - last;
                    call.tokens_uncached = total_tokens.saturating_sub(last_tokens);
                    for &(end, _) in &cacheable {
                        cache.insert(&text[..end]);
                    }
                }
            }
            let scaled =
                ten_thousandths(call.tokens_written, multipliers.cache_write_ten_thousandths)
                    .saturating_add(ten_thousandths(
                        call.tokens_read,
                        multipliers.cache_read_ten_thousandths,
                    ))
                    .saturating_add(ten_thousandths(call.tokens_uncached, ONE_X));
            call.cost = scaled as f64 / ONE_X as f64;
            call.usd = call.cost * self.usd_per_mtok / 1_000_000.0;
            call
        })
        .collect()
    }
}

/// A teammate's prefix counted once: the tokens before each of its
/// breakpoints (`ends`), before the end alone (`whole`), and in all.
struct Counted {
    ends: Vec<(usize, usize)>,
    whole: Vec<(usize, usize)>,
    total: usize,
}

impl Counted {
    fn of(prefix: &TeamPrefix, counter: &dyn TokenCounter) -> Self {
        let text = prefix.text.as_str();
        let total = counter.count(text);
        let at = |end: usize| {
            if end == text.len() {
                total
            } else {
                counter.count(&text[..end])
            }
        };
        let ends = prefix
            .breakpoints
            .iter()
            .copied()
            .filter(|&end| end > 0 && end <= text.len() && text.is_char_boundary(end))
            .map(|end| (end, at(end)))
            .collect();
        let whole = (!text.is_empty())
            .then_some((text.len(), total))
            .into_iter()
            .collect();
        Self { ends, whole, total }
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

/// `a - b` as a signed count, saturating at `i64`'s bounds.
fn difference(a: usize, b: usize) -> i64 {
    let (a, b) = (a as i128, b as i128);
    i64::try_from(a - b).unwrap_or(if a > b { i64::MAX } else { i64::MIN })
}
