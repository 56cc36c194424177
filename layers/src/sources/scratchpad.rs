//! The scratchpad: key/value notes the agent keeps during a session.

use std::collections::BTreeMap;
use std::path::Path;

use super::{SourceError, read_capped};

/// The largest scratchpad file read, in bytes.
pub const SCRATCHPAD_CAP: usize = 64 * 1024;

/// Key/value notes, sorted by key. Per turn: put it in the turn context.
/// Read by the `scratchpad` layer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scratchpad(pub BTreeMap<String, String>);

impl Scratchpad {
    /// Reads a JSON object of string values (`{"plan": "..."}`).
    /// An absent file is an empty scratchpad.
    pub fn load(path: &Path) -> Result<Self, SourceError> {
        let text = match read_capped(path, "scratchpad", SCRATCHPAD_CAP) {
            Ok(text) => text,
            Err(error) if error.is_not_found() => return Ok(Self::default()),
            Err(error) => return Err(error),
        };
        if text.is_truncated() {
            return Err(SourceError::Malformed {
                path: path.to_owned(),
                message: format!("larger than the {SCRATCHPAD_CAP}-byte limit"),
            });
        }
        serde_json::from_str(&text.text)
            .map(Scratchpad)
            .map_err(|e| SourceError::Malformed {
                path: path.to_owned(),
                message: format!("line {}: {e}; expected a JSON object of strings", e.line()),
            })
    }
}
