//! Many verdicts in a few numbers: the hit rate, what each cause lost, the
//! layers that lost most.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use super::wire::thousands;
use super::{CacheVerdict, MissCause};
use crate::diff::escape;

/// What a run of verdicts adds up to.
///
/// ```
/// use prompt_providers::observe::{read_log, Summary};
///
/// let summary = Summary::of(&read_log("")?);
/// assert_eq!((summary.requests, summary.hits), (0, 0));
/// # Ok::<(), prompt_providers::observe::LogError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Summary {
    /// Responses judged.
    pub requests: usize,
    /// Of those, hits.
    pub hits: usize,
    /// Of those, prewarms ([`Sent::prewarm`](super::Sent::prewarm)):
    /// neither hits nor misses.
    pub prewarms: usize,
    /// Input tokens read from the cache, written, and billed uncached.
    pub read: u64,
    /// See [`read`](Self::read).
    pub written: u64,
    /// See [`read`](Self::read).
    pub uncached: u64,
    /// Per cause (by [`MissCause::name`]): misses, tokens lost, dollars lost.
    pub causes: BTreeMap<&'static str, Lost>,
    /// Per changed layer: misses, tokens lost, dollars lost; worst first in
    /// [`worst_layers`](Self::worst_layers).
    pub layers: BTreeMap<String, Lost>,
    /// The keep-alive pings, counted apart: none of the figures above
    /// includes them.
    pub keep_alive: KeepAlives,
}

/// What the keep-alive pings of a run of verdicts did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct KeepAlives {
    /// Pings judged.
    pub pings: usize,
    /// Of those, how many read the prefix (refreshed the cache).
    pub refreshed: usize,
    /// Tokens the pings read.
    pub read: u64,
    /// The failed ones: pings that wrote the prefix instead, the tokens
    /// they wrote and what that cost beyond a read, in US dollars.
    pub failed: Lost,
}

/// What one cause, or one layer, cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Lost {
    /// Misses.
    pub misses: usize,
    /// Tokens a hit would have read.
    pub tokens: u64,
    /// What they cost beyond a read, in US dollars (of the verdicts priced).
    pub usd: f64,
}

impl Lost {
    fn add(&mut self, verdict: &CacheVerdict) {
        self.misses += 1;
        self.tokens = self.tokens.saturating_add(verdict.lost_tokens);
        self.usd += verdict.lost_usd.unwrap_or(0.0);
    }
}

impl Summary {
    /// The summary of `verdicts`.
    pub fn of(verdicts: &[CacheVerdict]) -> Self {
        let mut out = Self::default();
        for verdict in verdicts {
            if verdict.keep_alive {
                let keep = &mut out.keep_alive;
                keep.pings += 1;
                keep.read = keep.read.saturating_add(verdict.read);
                match verdict.cause {
                    None => keep.refreshed += 1,
                    Some(_) => keep.failed.add(verdict),
                }
                continue;
            }
            out.requests += 1;
            out.read = out.read.saturating_add(verdict.read);
            out.written = out.written.saturating_add(verdict.written);
            out.uncached = out.uncached.saturating_add(verdict.uncached);
            match &verdict.cause {
                None if verdict.prewarm => out.prewarms += 1,
                None => out.hits += 1,
                Some(cause) => {
                    out.causes.entry(cause.name()).or_default().add(verdict);
                    if let MissCause::LayerChanged { layer, .. } = cause {
                        out.layers.entry(layer.clone()).or_default().add(verdict);
                    }
                }
            }
        }
        out
    }

    /// The share of input tokens read from the cache, 0.0 to 1.0.
    pub fn hit_rate(&self) -> f64 {
        let total = self
            .read
            .saturating_add(self.written)
            .saturating_add(self.uncached);
        match total {
            0 => 0.0,
            total => self.read as f64 / total as f64,
        }
    }

    /// The changed layers, the one that lost most tokens first (ties by name).
    pub fn worst_layers(&self) -> Vec<(&str, Lost)> {
        let mut layers: Vec<(&str, Lost)> = self
            .layers
            .iter()
            .map(|(name, lost)| (name.as_str(), *lost))
            .collect();
        layers.sort_by(|a, b| b.1.tokens.cmp(&a.1.tokens).then(a.0.cmp(b.0)));
        layers
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} request(s), {} hit(s); {:.1}% of input tokens read from the cache ({} read, {} \
             written, {} uncached)",
            self.requests,
            self.hits,
            self.hit_rate() * 100.0,
            thousands(self.read),
            thousands(self.written),
            thousands(self.uncached)
        )?;
        if self.prewarms > 0 {
            writeln!(
                f,
                "{} prewarm(s): cache writes asked for, neither hits nor misses",
                self.prewarms
            )?;
        }
        if !self.causes.is_empty() {
            writeln!(f, "lost, by cause:")?;
            let mut causes: Vec<_> = self.causes.iter().collect();
            causes.sort_by(|a, b| b.1.tokens.cmp(&a.1.tokens).then(a.0.cmp(b.0)));
            for (cause, lost) in causes {
                writeln!(
                    f,
                    "  {cause:<20} {:>3} miss(es) {:>12} tokens  USD {:.4}",
                    lost.misses,
                    thousands(lost.tokens),
                    lost.usd
                )?;
            }
        }
        let keep = &self.keep_alive;
        if keep.pings > 0 {
            writeln!(
                f,
                "keep-alive: {} ping(s), {} refreshed ({} tokens read), {} FAILED ({} tokens \
                 re-written, USD {:.4})",
                keep.pings,
                keep.refreshed,
                thousands(keep.read),
                keep.failed.misses,
                thousands(keep.failed.tokens),
                keep.failed.usd
            )?;
        }
        let worst = self.worst_layers();
        if !worst.is_empty() {
            writeln!(f, "worst layers:")?;
            for (layer, lost) in worst.iter().take(5) {
                writeln!(
                    f,
                    "  {:<20} {:>3} change(s) {:>12} tokens  USD {:.4}",
                    escape(layer),
                    lost.misses,
                    thousands(lost.tokens),
                    lost.usd
                )?;
            }
        }
        Ok(())
    }
}
