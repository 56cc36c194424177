//! What a token costs: the cache's price multipliers and a checked price in
//! US dollars.
//!
//! Anthropic bills a cache write 1.25x input (5-minute TTL) or 2x (1 hour)
//! and a read 0.1x. OpenAI, on the GPT-5 line, bills a read 0.1x and, from
//! GPT-5.6 on, a write 1.25x; before GPT-5.6 a write costs what plain input
//! does ([`Multipliers::openai`]). [`Multipliers::for_model`] picks by model.
//!
//! Multipliers are kept in hundredths of the input price so the arithmetic of
//! a simulation is exact; a dollar price comes from a person (a command-line
//! option, a config value), so [`usd_per_mtok`] refuses one that is not a
//! finite number at or above zero before it can turn every figure into `NaN`.
//!
//! ```
//! use prompt_providers::anthropic::CacheTtl;
//! use prompt_providers::cost::{usd_per_mtok, Multipliers};
//!
//! assert_eq!(Multipliers::anthropic(CacheTtl::OneHour).cache_write(), 2.0);
//! assert_eq!(Multipliers::openai("gpt-5.6").unwrap().cache_write(), 1.25);
//! assert_eq!(Multipliers::openai("gpt-5.5").unwrap().cache_write(), 1.0);
//! assert_eq!(usd_per_mtok(3.0), Ok(3.0));
//! assert!(usd_per_mtok(f64::NAN).is_err());
//! assert!(usd_per_mtok(-1.0).is_err());
//! ```

use serde::{Serialize, Serializer, ser::SerializeStruct};

use super::anthropic::CacheTtl;

/// Price multipliers relative to the base input price, in hundredths so the
/// arithmetic is exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Multipliers {
    /// A cache read, in hundredths of the input price (Anthropic: 10).
    pub cache_read_hundredths: u64,
    /// A cache write, in hundredths (Anthropic: 125 for 5 minutes, 200 for 1
    /// hour).
    pub cache_write_hundredths: u64,
}

impl Multipliers {
    /// A read at `cache_read_hundredths` and a write at
    /// `cache_write_hundredths` of the input price, in hundredths.
    pub const fn new(cache_read_hundredths: u64, cache_write_hundredths: u64) -> Self {
        Self {
            cache_read_hundredths,
            cache_write_hundredths,
        }
    }

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

    /// OpenAI's multipliers for `model`, on the GPT-5 line
    /// ([`gpt_version`](super::openai::gpt_version) 5 and later): read 0.1x;
    /// write 1.25x from GPT-5.6 on
    /// ([`takes_prompt_cache_options`](super::openai::takes_prompt_cache_options)),
    /// 1x before (no charge beyond the input price). `None` for another
    /// model: the older families' read discounts differ and are not kept here.
    ///
    /// Sources, read 2026-12-02: the write price, OpenAI's prompt-caching
    /// guide (developers.openai.com/api/docs/guides/prompt-caching: "For
    /// GPT-5.6 models and later model families, cache writes cost 1.25x the
    /// uncached input token rate"; none before); the read price, OpenAI's
    /// GPT-5 line prices as listed by gateways (gpt-5 USD 1.25 input, 0.125
    /// cached; gpt-5.4 2.50 and 0.25) and the GPT-5.6 announcement's 0.1x.
    pub fn openai(model: &str) -> Option<Self> {
        let version = super::openai::gpt_version(model)?;
        (version >= (5, 0)).then_some(Self {
            cache_read_hundredths: OPENAI_READ_HUNDREDTHS,
            cache_write_hundredths: if super::openai::takes_prompt_cache_options(model) {
                OPENAI_WRITE_HUNDREDTHS
            } else {
                100
            },
        })
    }

    /// The multipliers for `model`'s provider: OpenAI's for the GPT-5 line
    /// ([`openai`](Self::openai)), else Anthropic's for `ttl`.
    pub fn for_model(model: &str, ttl: CacheTtl) -> Self {
        Self::openai(model).unwrap_or(Self::anthropic(ttl))
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

/// OpenAI's cache read on the GPT-5 line, in hundredths of the input price.
const OPENAI_READ_HUNDREDTHS: u64 = 10;
/// OpenAI's cache write from GPT-5.6 on, in hundredths of the input price.
const OPENAI_WRITE_HUNDREDTHS: u64 = 125;

impl Serialize for Multipliers {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Multipliers", 3)?;
        s.serialize_field("cache_read", &self.cache_read())?;
        s.serialize_field("cache_write", &self.cache_write())?;
        s.serialize_field("uncached", &1.0)?;
        s.end()
    }
}

/// The list price of input tokens [`TeamSimulation`](super::simulation::TeamSimulation) assumes unless told
/// otherwise: USD 3 per million, Claude Sonnet 4.5's (checked on
/// [`MINIMUMS_CHECKED`](super::anthropic::MINIMUMS_CHECKED)).
pub const DEFAULT_USD_PER_MTOK: f64 = 3.0;

/// `usd`, if it is a price: a finite number of US dollars per million input
/// tokens, zero or more.
///
/// # Errors
/// [`PriceError`] for `NaN`, an infinity or a negative number, any of which
/// would make every dollar figure of a report meaningless.
pub fn usd_per_mtok(usd: f64) -> Result<f64, PriceError> {
    if !usd.is_finite() {
        Err(PriceError::NotFinite { usd })
    } else if usd < 0.0 {
        Err(PriceError::Negative { usd })
    } else {
        Ok(usd)
    }
}

/// Why a number is not a price.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PriceError {
    /// `NaN` or an infinity.
    #[error(
        "the input price {usd} USD per million tokens is not a number: give one such as 3 or 0.25"
    )]
    NotFinite {
        /// The value given.
        usd: f64,
    },
    /// Below zero.
    #[error("the input price {usd} USD per million tokens is negative: give 0 or more")]
    Negative {
        /// The value given.
        usd: f64,
    },
}
