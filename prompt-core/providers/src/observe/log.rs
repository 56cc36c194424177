//! The ledger's log: one [`CacheVerdict`] per line, as JSON.

use super::{CacheVerdict, MAX_REQUEST_TOKENS, MissCause};

/// A log line that is not a verdict.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
#[non_exhaustive]
pub struct LogError {
    /// Its number, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

/// The most characters of serde's message a [`LogError`] repeats.
const MAX_MESSAGE: usize = 200;

/// Every verdict of `log` (the lines a [`CacheLedger`](super::CacheLedger)
/// wrote), in order; blank lines are skipped. A last line without its
/// newline is read if whole (the writer may still be writing the next).
/// A line whose counts no ledger writes is refused as not a verdict, naming
/// the field: a count, or the input's three parts together, past
/// [`MAX_REQUEST_TOKENS`], more tokens lost as writes than lost, or a
/// negative price. So every sum of a verdict's counts fits.
///
/// ```
/// use prompt_providers::observe::read_log;
///
/// let error = read_log("{\"seq\": 1}\n").unwrap_err();
/// assert!(error.to_string().starts_with("line 1: not a verdict the cache ledger writes"));
/// assert!(read_log("\n\n").unwrap().is_empty());
/// ```
///
/// # Errors
/// [`LogError`] naming the first line that is not a verdict, and the field
/// for counts that are out of bounds.
pub fn read_log(log: &str) -> Result<Vec<CacheVerdict>, LogError> {
    let mut out = Vec::new();
    for (index, line) in log.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let verdict: CacheVerdict = serde_json::from_str(line).map_err(|e| {
            let message: String = e.to_string().chars().take(MAX_MESSAGE).collect();
            LogError {
                line: index + 1,
                message: format!(
                    "not a verdict the cache ledger writes: {}",
                    crate::diff::escape(&message)
                ),
            }
        })?;
        check(&verdict).map_err(|message| LogError {
            line: index + 1,
            message: format!("not a verdict the cache ledger writes: {message}"),
        })?;
        out.push(verdict);
    }
    Ok(out)
}

/// What is out of bounds in `verdict`, if anything.
fn check(verdict: &CacheVerdict) -> Result<(), String> {
    let diagnosis = verdict.diagnosis.as_deref();
    let below = match &verdict.cause {
        Some(MissCause::BelowMinimum { tokens, minimum }) => [Some(*tokens), Some(*minimum)],
        _ => [None, None],
    };
    let tokens_after = match &verdict.cause {
        Some(MissCause::LayerChanged { tokens_after, .. }) => Some(*tokens_after),
        _ => None,
    };
    let counts = [
        ("read", Some(verdict.read)),
        ("written", Some(verdict.written)),
        ("uncached", Some(verdict.uncached)),
        ("output", verdict.output),
        ("expected", Some(verdict.expected)),
        ("lost_tokens", Some(verdict.lost_tokens)),
        ("lost_written", Some(verdict.lost_written)),
        ("cause.tokens", below[0]),
        ("cause.minimum", below[1]),
        ("cause.tokens_after", tokens_after),
        (
            "diagnosis.missed_tokens",
            diagnosis.and_then(|d| d.missed_tokens),
        ),
        (
            "diagnosis.reusable_tokens",
            diagnosis.and_then(|d| d.reusable_tokens),
        ),
    ];
    let past = |field: &str, n: u128| {
        format!("`{field}` is {n}, more than the {MAX_REQUEST_TOKENS} tokens one request can hold")
    };
    for (field, count) in counts {
        if let Some(n) = count.filter(|&n| n > MAX_REQUEST_TOKENS) {
            return Err(past(field, u128::from(n)));
        }
    }
    let input =
        u128::from(verdict.read) + u128::from(verdict.written) + u128::from(verdict.uncached);
    if input > u128::from(MAX_REQUEST_TOKENS) {
        return Err(past("read + written + uncached", input));
    }
    if verdict.lost_written > verdict.lost_tokens {
        return Err(format!(
            "`lost_written` is {}, more than the {} of `lost_tokens`, which holds it",
            verdict.lost_written, verdict.lost_tokens
        ));
    }
    if let Some(usd) = verdict
        .lost_usd
        .filter(|usd| !usd.is_finite() || *usd < 0.0)
    {
        return Err(format!("`lost_usd` is {usd}, not a price"));
    }
    Ok(())
}
