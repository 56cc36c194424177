//! What a token costs: the cache's price multipliers and a checked price in
//! US dollars.
//!
//! Multipliers are kept in hundredths of the input price so the arithmetic of
//! a simulation is exact; a dollar price comes from a person (a command-line
//! option, a config value), so [`usd_per_mtok`] refuses one that is not a
//! finite number at or above zero before it can turn every figure into `NaN`.
//!
//! ```
//! use prompt_core::providers::anthropic::CacheTtl;
//! use prompt_core::providers::cost::{usd_per_mtok, Multipliers};
//!
//! assert_eq!(Multipliers::anthropic(CacheTtl::OneHour).cache_write(), 2.0);
//! assert_eq!(usd_per_mtok(3.0), Ok(3.0));
//! assert!(usd_per_mtok(f64::NAN).is_err());
//! assert!(usd_per_mtok(-1.0).is_err());
//! ```

use serde::{Serialize, Serializer, ser::SerializeStruct};

use super::anthropic::CacheTtl;

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
