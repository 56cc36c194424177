//! The ledger's log: one [`CacheVerdict`] per line, as JSON.

use super::CacheVerdict;

/// A log line that is not a verdict.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
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
/// [`LogError`] naming the first line that is not a verdict.
pub fn read_log(log: &str) -> Result<Vec<CacheVerdict>, LogError> {
    let mut out = Vec::new();
    for (index, line) in log.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let verdict = serde_json::from_str(line).map_err(|e| {
            let message: String = e.to_string().chars().take(MAX_MESSAGE).collect();
            LogError {
                line: index + 1,
                message: format!(
                    "not a verdict the cache ledger writes: {}",
                    crate::diff::escape(&message)
                ),
            }
        })?;
        out.push(verdict);
    }
    Ok(out)
}
