//! The scratchpad: key/value notes the agent keeps during a session.

use std::collections::BTreeMap;
use std::path::Path;

use super::SourceError;
use super::capped::read_capped;
use super::fs::Root;
use super::text::one_line;

/// The largest scratchpad file read, in bytes.
pub const SCRATCHPAD_CAP: usize = 64 * 1024;

/// Key/value notes, sorted by key. Per turn: put it in the turn context.
/// Read by the `scratchpad` layer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scratchpad(pub BTreeMap<String, String>);

// The agent's notes change per call in most hosts, and are fixed for a
// session in others (the recursive agent keeps them in the session context).
impl prompt_core::context::SessionOrTurnValue for Scratchpad {}

impl Scratchpad {
    /// Reads a JSON object of string values (`{"plan": "..."}`) from `path`,
    /// which must lie in `root`, at most 64 KiB. Keys and values are folded
    /// onto one line. An absent file is an empty scratchpad.
    pub fn load(path: &Path, root: &Root) -> Result<Self, SourceError> {
        let text = match read_capped(path, root, SCRATCHPAD_CAP) {
            Ok(text) => text,
            Err(error) if error.is_not_found() => return Ok(Self::default()),
            Err(error) => return Err(error),
        };
        let shown = std::path::PathBuf::from(&text.name);
        if text.is_truncated() {
            return Err(SourceError::Malformed {
                path: shown,
                reason: format!(
                    "larger than the {} limit",
                    super::capped::Size(SCRATCHPAD_CAP as u64)
                ),
                source: None,
            });
        }
        let entries: BTreeMap<String, String> =
            super::parsed::json(&text.text, super::parsed::Multiline::NONE).map_err(|e| {
                SourceError::Malformed {
                    path: shown,
                    reason: "expected a JSON object of strings".to_owned(),
                    source: Some(Box::new(e)),
                }
            })?;
        Ok(Scratchpad(
            entries
                .into_iter()
                .map(|(key, value)| (one_line(&key), one_line(&value)))
                .collect(),
        ))
    }
}
