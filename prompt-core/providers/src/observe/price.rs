//! What a token costs, for the dollars a miss lost.

use serde::{Deserialize, Serialize};

use crate::providers::anthropic::CacheTtl;
use crate::providers::cost::{Multipliers, PriceError, usd_per_mtok};

/// A model's input price and its cache's multipliers: what turns the tokens
/// a miss did not read into dollars.
///
/// ```
/// use prompt_providers::observe::Pricing;
/// use prompt_providers::anthropic::CacheTtl;
///
/// // Claude Sonnet 4.5: USD 3 per million input tokens, reads 0.1x, 5-minute writes 1.25x.
/// let sonnet = Pricing::anthropic(3.0, CacheTtl::FiveMinutes)?;
/// // 3,870 tokens written that a hit would have read: 3,870 x (3.75 - 0.30) / 1e6.
/// assert!((sonnet.lost_usd(3870, 0) - 0.0133515).abs() < 1e-9);
///
/// // A model whose cache reads cost a quarter and whose writes cost nothing extra.
/// let other = Pricing::new(1.25, 0.25, 1.0)?;
/// assert!((other.lost_usd(0, 1_000_000) - 0.9375).abs() < 1e-9);
/// # Ok::<(), prompt_providers::cost::PriceError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Pricing {
    /// US dollars per million uncached input tokens.
    pub usd_per_mtok: f64,
    /// A cache read's price, as a multiple of the input price.
    pub read: f64,
    /// A cache write's price, as a multiple of the input price.
    pub write: f64,
}

impl Pricing {
    /// `usd_per_mtok` with cache reads at `read` times it and writes at `write` times it.
    ///
    /// # Errors
    /// [`PriceError`] when any of the three is `NaN`, infinite or negative.
    pub fn new(usd_per_mtok: f64, read: f64, write: f64) -> Result<Self, PriceError> {
        Ok(Self {
            usd_per_mtok: usd_per_mtok_checked(usd_per_mtok)?,
            read: usd_per_mtok_checked(read)?,
            write: usd_per_mtok_checked(write)?,
        })
    }

    /// Anthropic's usual multipliers ([`Multipliers::anthropic`]: reads 0.1x)
    /// over `usd_per_mtok`; a model with prices of its own takes
    /// [`for_model`](Self::for_model).
    ///
    /// # Errors
    /// [`PriceError`] for a price that is not a finite number at or above zero.
    pub fn anthropic(usd_per_mtok: f64, ttl: CacheTtl) -> Result<Self, PriceError> {
        let multipliers = Multipliers::anthropic(ttl);
        Self::new(
            usd_per_mtok,
            multipliers.cache_read(),
            multipliers.cache_write(),
        )
    }

    /// `model`'s multipliers ([`Multipliers::for_model`]: its own row of
    /// the price table, e.g. Opus 5.5's 0.05x reads) over `usd_per_mtok`.
    ///
    /// ```
    /// use prompt_providers::observe::Pricing;
    /// use prompt_providers::anthropic::CacheTtl;
    ///
    /// let opus = Pricing::for_model(5.0, "claude-opus-5-5", CacheTtl::FiveMinutes)?;
    /// assert_eq!((opus.read, opus.write), (0.05, 1.25));
    /// # Ok::<(), prompt_providers::cost::PriceError>(())
    /// ```
    ///
    /// # Errors
    /// [`PriceError`] for a price that is not a finite number at or above zero.
    pub fn for_model(usd_per_mtok: f64, model: &str, ttl: CacheTtl) -> Result<Self, PriceError> {
        let multipliers = Multipliers::for_model(model, ttl);
        Self::new(
            usd_per_mtok,
            multipliers.cache_read(),
            multipliers.cache_write(),
        )
    }

    /// What `read` tokens read from the cache cost, in US dollars: `read` x
    /// the input price x the read multiplier.
    pub fn read_usd(&self, read: u64) -> f64 {
        read as f64 * self.read * self.usd_per_mtok / 1_000_000.0
    }

    /// What `written` tokens written and `uncached` tokens billed in full
    /// cost beyond reading them all from the cache, in US dollars.
    pub fn lost_usd(&self, written: u64, uncached: u64) -> f64 {
        let per_token = self.usd_per_mtok / 1_000_000.0;
        let extra = written as f64 * (self.write - self.read).max(0.0)
            + uncached as f64 * (1.0 - self.read).max(0.0);
        extra * per_token
    }
}

fn usd_per_mtok_checked(value: f64) -> Result<f64, PriceError> {
    usd_per_mtok(value)
}
