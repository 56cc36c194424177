//! A client's usage type as [`CacheUsage`]: every client reports the input
//! with the cache's reads and writes inside it, and the ledger wants them
//! apart.

use prompt_providers::observe::CacheUsage;

/// A client's usage that cannot be read as [`CacheUsage`]: a guess here
/// would make every figure the ledger derives from it wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UsageError {
    /// The input count is absent.
    #[error(
        "the {client} usage has no `{field}`: the response reported no input count (read the \
         usage of the whole response, or of a stream's last event)"
    )]
    Missing {
        /// Whose usage type.
        client: &'static str,
        /// The field, e.g. `Usage::input_tokens`.
        field: &'static str,
    },
    /// A count below zero.
    #[error("the {client} usage's `{field}` is {value}, not a count of tokens")]
    Negative {
        /// Whose usage type.
        client: &'static str,
        /// The field.
        field: &'static str,
        /// What it holds.
        value: i64,
    },
    /// Reads and writes that exceed the input they are part of.
    #[error(
        "the {client} usage does not add up: {read} tokens read from the cache and {written} \
         written exceed the {input} input tokens they are part of"
    )]
    Inconsistent {
        /// Whose usage type.
        client: &'static str,
        /// The input count.
        input: u64,
        /// Read from the cache.
        read: u64,
        /// Written to the cache.
        written: u64,
    },
}

/// Usage whose `input` holds `read` and `written`.
#[cfg_attr(
    not(any(feature = "rig", feature = "genai", feature = "async-openai")),
    allow(dead_code)
)]
pub(crate) fn within(
    client: &'static str,
    input: u64,
    read: u64,
    written: u64,
) -> Result<CacheUsage, UsageError> {
    read.checked_add(written)
        .and_then(|cached| input.checked_sub(cached))
        .map(|uncached| CacheUsage::new(uncached, read, written))
        .ok_or(UsageError::Inconsistent {
            client,
            input,
            read,
            written,
        })
}

/// `value` as a count, for clients whose counters are signed.
#[cfg_attr(
    not(any(feature = "genai", feature = "async-openai")),
    allow(dead_code)
)]
pub(crate) fn count(
    client: &'static str,
    field: &'static str,
    value: i64,
) -> Result<u64, UsageError> {
    u64::try_from(value).map_err(|_| UsageError::Negative {
        client,
        field,
        value,
    })
}
