//! What a token costs: the cache's price multipliers, per model, as dated
//! data with their sources, and a checked price in US dollars.
//!
//! Anthropic bills a cache write 1.25x input (5-minute TTL) or 2x (1 hour);
//! a read 0.1x on most models, but 0.05x on Opus 5.5 and Sonnet 5.5 and
//! 0.025x on Fable and Mythos 5.1/5.2 ([`ModelPrices::anthropic`], the rows
//! and the day each was read). OpenAI, on the GPT-5 line, bills a read 0.1x
//! and, from GPT-5.6 on, a write 1.25x; before GPT-5.6 a write costs what
//! plain input does ([`Multipliers::openai`]). [`Multipliers::for_model`]
//! picks by model.
//!
//! Multipliers are kept in ten-thousandths of the input price
//! ([`ONE_X`] is 1x), so 0.025x is exactly 250 and the arithmetic of a
//! simulation stays exact; a dollar price comes from a person (a
//! command-line option, a config value), so [`usd_per_mtok`] refuses one
//! that is not a finite number at or above zero before it can turn every
//! figure into `NaN`.
//!
//! ```
//! use prompt_providers::anthropic::CacheTtl;
//! use prompt_providers::cost::{usd_per_mtok, Multipliers};
//!
//! assert_eq!(Multipliers::anthropic(CacheTtl::OneHour).cache_write(), 2.0);
//! assert_eq!(Multipliers::for_model("claude-opus-5-5", CacheTtl::FiveMinutes).cache_read(), 0.05);
//! assert_eq!(Multipliers::for_model("claude-fable-5-2", CacheTtl::OneHour).cache_read_ten_thousandths, 250);
//! assert_eq!(Multipliers::openai("gpt-5.6").unwrap().cache_write(), 1.25);
//! assert_eq!(Multipliers::openai("gpt-5.5").unwrap().cache_write(), 1.0);
//! assert_eq!(usd_per_mtok(3.0), Ok(3.0));
//! assert!(usd_per_mtok(f64::NAN).is_err());
//! assert!(usd_per_mtok(-1.0).is_err());
//! ```

use serde::{Serialize, Serializer, ser::SerializeStruct};

use super::anthropic::CacheTtl;
use super::minimums::{matches_id, normalize};

/// 1x the input price, in the ten-thousandths multipliers are kept in.
pub const ONE_X: u64 = 10_000;

/// When the price rows below were last checked whole against their sources.
pub const PRICES_CHECKED: &str = "2026-12-07";

/// Anthropic's pricing page, where the cache multipliers are listed per model.
const ANTHROPIC_PRICING: &str = "platform.claude.com/docs/en/about-claude/pricing";

/// This crate's price before the per-model rows, for the disagreement notes.
const WAS_ONE_TENTH: &str = "this crate priced every Claude read at 0.1x until 2026-12-07; the pricing page's figure is kept";

/// One row: the multipliers of a model family, in ten-thousandths of its
/// input price, the day they were read and where.
struct Row {
    name: &'static str,
    ids: &'static [&'static str],
    read: u64,
    write_five_minutes: u64,
    write_one_hour: u64,
    read_on: &'static str,
    source: &'static str,
    disagreement: Option<&'static str>,
}

const fn claude(
    name: &'static str,
    ids: &'static [&'static str],
    read: u64,
    disagreement: Option<&'static str>,
) -> Row {
    Row {
        name,
        ids,
        read,
        write_five_minutes: 12_500,
        write_one_hour: 20_000,
        read_on: "2026-12-01",
        source: ANTHROPIC_PRICING,
        disagreement,
    }
}

/// Anthropic's rows, longest id first when two match (`claude-opus-5-5`
/// before `claude*`). Writes are 1.25x (5 minutes) and 2x (1 hour) on every
/// row; the read is what moved.
const ANTHROPIC: &[Row] = &[
    claude(
        "Claude Opus 5.5",
        &["claude-opus-5-5"],
        500,
        Some(WAS_ONE_TENTH),
    ),
    claude(
        "Claude Sonnet 5.5",
        &["claude-sonnet-5-5"],
        500,
        Some(WAS_ONE_TENTH),
    ),
    claude(
        "Claude Fable 5.1",
        &["claude-fable-5-1"],
        250,
        Some(WAS_ONE_TENTH),
    ),
    claude(
        "Claude Fable 5.2",
        &["claude-fable-5-2"],
        250,
        Some(WAS_ONE_TENTH),
    ),
    claude(
        "Claude Mythos 5.1",
        &["claude-mythos-5-1"],
        250,
        Some(WAS_ONE_TENTH),
    ),
    claude(
        "Claude Mythos 5.2",
        &["claude-mythos-5-2"],
        250,
        Some(WAS_ONE_TENTH),
    ),
    claude("Claude, every other model", &["claude*"], 1_000, None),
];

/// OpenAI's GPT-5 line, told apart by
/// [`takes_prompt_cache_options`](super::openai::takes_prompt_cache_options)
/// (GPT-5.6 and later) rather than by id. Not recorded: a gateway's note of
/// 0.05x reads for a GPT-6 model, which no OpenAI page confirmed on
/// 2026-12-07; GPT-6 models are priced as the rest of the line.
const OPENAI: &[Row] = &[
    Row {
        name: "OpenAI GPT-5.6 and later",
        ids: &["gpt-5*", "gpt-6*"],
        read: 1_000,
        write_five_minutes: 12_500,
        write_one_hour: 12_500,
        read_on: "2026-12-02",
        source: "developers.openai.com/api/docs/guides/prompt-caching (writes: \"For GPT-5.6 \
                 models and later model families, cache writes cost 1.25x\"); reads: the GPT-5.6 \
                 announcement's 0.1x",
        disagreement: None,
    },
    Row {
        name: "OpenAI GPT-5 to GPT-5.5",
        ids: &["gpt-5*"],
        read: 1_000,
        write_five_minutes: ONE_X,
        write_one_hour: ONE_X,
        read_on: "2026-12-02",
        source: "developers.openai.com/api/docs/guides/prompt-caching (no write charge before \
                 GPT-5.6); reads: gateways' GPT-5 line prices (gpt-5 USD 1.25 input, 0.125 \
                 cached; gpt-5.4 2.50 and 0.25)",
        disagreement: None,
    },
];

/// A model family's cache prices: a row of the price table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ModelPrices {
    /// A name for people, e.g. `Claude Opus 5.5`.
    pub name: String,
    /// Model id prefixes of the family, matched as
    /// [`ModelFamily::ids`](super::minimums::ModelFamily::ids) are.
    pub ids: Vec<String>,
    /// A cache read, in ten-thousandths of the input price (0.025x: 250).
    pub read: u64,
    /// A 5-minute cache write, in ten-thousandths (1.25x: 12,500).
    pub write_five_minutes: u64,
    /// A 1-hour cache write, in ten-thousandths (2x: 20,000).
    pub write_one_hour: u64,
    /// The day the prices were read from the source (`YYYY-MM-DD`).
    pub read_on: String,
    /// Where they were read.
    pub source: String,
    /// Where another source (or this crate's earlier figure) disagrees: what
    /// it says and which was kept.
    pub disagreement: Option<String>,
}

impl ModelPrices {
    fn of(row: &Row) -> Self {
        Self {
            name: row.name.to_owned(),
            ids: row.ids.iter().map(|id| (*id).to_owned()).collect(),
            read: row.read,
            write_five_minutes: row.write_five_minutes,
            write_one_hour: row.write_one_hour,
            read_on: row.read_on.to_owned(),
            source: row.source.to_owned(),
            disagreement: row.disagreement.map(str::to_owned),
        }
    }

    /// Anthropic's rows, as checked on [`PRICES_CHECKED`].
    ///
    /// ```
    /// use prompt_providers::cost::ModelPrices;
    ///
    /// let fable = ModelPrices::anthropic().into_iter().find(|r| r.name == "Claude Fable 5.1").unwrap();
    /// assert_eq!((fable.read, fable.write_five_minutes, fable.write_one_hour), (250, 12_500, 20_000));
    /// assert_eq!(fable.read_on, "2026-12-01");
    /// ```
    pub fn anthropic() -> Vec<Self> {
        ANTHROPIC.iter().map(Self::of).collect()
    }

    /// OpenAI's rows (GPT-5.6 and later first), as checked on
    /// [`PRICES_CHECKED`].
    pub fn openai() -> Vec<Self> {
        OPENAI.iter().map(Self::of).collect()
    }

    /// The Anthropic row `model` belongs to: the longest matching id.
    pub fn anthropic_for(model: &str) -> Self {
        Self::of(anthropic_row(model))
    }

    /// The multipliers of this row for a breakpoint of `ttl`.
    pub fn multipliers(&self, ttl: CacheTtl) -> Multipliers {
        Multipliers {
            cache_read_ten_thousandths: self.read,
            cache_write_ten_thousandths: match ttl {
                CacheTtl::FiveMinutes => self.write_five_minutes,
                CacheTtl::OneHour => self.write_one_hour,
            },
        }
    }
}

/// The Anthropic row for `model`: the longest id that matches, else the
/// last row (every other Claude model).
fn anthropic_row(model: &str) -> &'static Row {
    let model = normalize(model);
    ANTHROPIC
        .iter()
        .filter_map(|row| {
            row.ids
                .iter()
                .filter(|id| matches_id(&model, id))
                .map(|id| id.trim_end_matches('*').len())
                .max()
                .map(|len| (len, row))
        })
        .max_by_key(|(len, _)| *len)
        .map_or(&ANTHROPIC[ANTHROPIC.len() - 1], |(_, row)| row)
}

/// Price multipliers relative to the base input price, in ten-thousandths
/// ([`ONE_X`]) so the arithmetic is exact and 0.025x is representable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Multipliers {
    /// A cache read, in ten-thousandths of the input price (Anthropic's
    /// usual 0.1x: 1,000; Fable 5.1: 250).
    pub cache_read_ten_thousandths: u64,
    /// A cache write, in ten-thousandths (Anthropic: 12,500 for 5 minutes,
    /// 20,000 for 1 hour).
    pub cache_write_ten_thousandths: u64,
}

impl Multipliers {
    /// A read at `cache_read_ten_thousandths` and a write at
    /// `cache_write_ten_thousandths` of the input price, in ten-thousandths
    /// ([`ONE_X`] is 1x; 0.025x is 250).
    pub const fn new(cache_read_ten_thousandths: u64, cache_write_ten_thousandths: u64) -> Self {
        Self {
            cache_read_ten_thousandths,
            cache_write_ten_thousandths,
        }
    }

    /// Anthropic's usual multipliers for a breakpoint of `ttl`: read 0.1x,
    /// write 1.25x (5 minutes) or 2x (1 hour). A model with prices of its
    /// own (Opus 5.5, Fable 5.1, ...) is priced by
    /// [`anthropic_model`](Self::anthropic_model).
    pub const fn anthropic(ttl: CacheTtl) -> Self {
        let row = &ANTHROPIC[ANTHROPIC.len() - 1];
        Self {
            cache_read_ten_thousandths: row.read,
            cache_write_ten_thousandths: match ttl {
                CacheTtl::FiveMinutes => row.write_five_minutes,
                CacheTtl::OneHour => row.write_one_hour,
            },
        }
    }

    /// Anthropic's multipliers for `model` and `ttl`, from its row of
    /// [`ModelPrices::anthropic`]: Opus 5.5 reads at 0.05x, Fable 5.2 at
    /// 0.025x, a model without a row at 0.1x.
    pub fn anthropic_model(model: &str, ttl: CacheTtl) -> Self {
        ModelPrices::of(anthropic_row(model)).multipliers(ttl)
    }

    /// OpenAI's multipliers for `model`, on the GPT-5 line
    /// ([`gpt_version`](super::openai::gpt_version) 5 and later): read 0.1x;
    /// write 1.25x from GPT-5.6 on
    /// ([`takes_prompt_cache_options`](super::openai::takes_prompt_cache_options)),
    /// 1x before (no charge beyond the input price). `None` for another
    /// model: the older families' read discounts differ and are not kept here.
    /// The rows and their sources: [`ModelPrices::openai`].
    pub fn openai(model: &str) -> Option<Self> {
        let version = super::openai::gpt_version(model)?;
        let row = if super::openai::takes_prompt_cache_options(model) {
            &OPENAI[0]
        } else {
            &OPENAI[1]
        };
        (version >= (5, 0)).then(|| ModelPrices::of(row).multipliers(CacheTtl::FiveMinutes))
    }

    /// The multipliers for `model`'s provider: OpenAI's for the GPT-5 line
    /// ([`openai`](Self::openai)), else Anthropic's for the model and `ttl`
    /// ([`anthropic_model`](Self::anthropic_model)).
    pub fn for_model(model: &str, ttl: CacheTtl) -> Self {
        Self::openai(model).unwrap_or_else(|| Self::anthropic_model(model, ttl))
    }

    /// The read multiplier, e.g. `0.1`.
    pub fn cache_read(&self) -> f64 {
        self.cache_read_ten_thousandths as f64 / ONE_X as f64
    }

    /// The write multiplier, e.g. `1.25`.
    pub fn cache_write(&self) -> f64 {
        self.cache_write_ten_thousandths as f64 / ONE_X as f64
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
