//! recursive's legacy notes: `.recursive/memory.json`, `{"notes": [{"id", "text", ...}]}`.
//!
//! Read through the standard capped reader; the format is recursive's own.

use std::path::Path;

use prompt_layers::sources::{CappedText, Root, SourceError, one_line, parsed};
use serde::Deserialize;

/// The largest `memory.json` read, in bytes.
pub const NOTES_FILE_CAP: usize = 64 * 1024;
/// A note's hook is its text cut to this many bytes (on a character boundary).
pub const HOOK_BYTES: usize = 80;

/// One note.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Note {
    /// Its id, e.g. `N7`.
    pub id: String,
    /// Its text.
    pub text: String,
    /// Its tags, listed after the id.
    #[serde(default)]
    pub tags: Vec<String>,
    /// When it was written (required by recursive's format: a file with a
    /// note that lacks it is malformed, as recursive reads it).
    pub ts: String,
}

impl Note {
    /// The note's line in `# Memory summary`, as recursive writes it:
    /// `id [tag,tag] text`, the text on one line and, over 120 bytes, cut to
    /// 117 (on a character boundary) and `...`.
    pub fn summary_line(&self) -> String {
        let tags = tags_text(&self.tags);
        format!(
            "{}{tags} {}",
            one_line(&self.id),
            super::layers::preview(&one_line(&self.text), 120)
        )
    }

    /// The note's first [`HOOK_BYTES`] bytes on one line, with `...` when cut.
    pub fn hook(&self) -> String {
        let line = one_line(&self.text);
        if line.len() <= HOOK_BYTES {
            return line;
        }
        format!(
            "{}...",
            line[..line.floor_char_boundary(HOOK_BYTES - 3)].trim_end()
        )
    }
}

#[derive(Deserialize)]
struct NotesFile {
    #[serde(default)]
    notes: Vec<Note>,
}

/// The newest notes (session context), read by the `memory` layer.
#[derive(Debug, Default)]
pub struct LegacyNotes {
    /// The newest notes first, at most the limit.
    pub notes: Vec<Note>,
    /// Why the file could not be read, when it exists.
    pub problem: Option<SourceError>,
}

impl prompt_core::SessionValue for LegacyNotes {}

impl LegacyNotes {
    /// Reads `path`, which must lie in `root` (the workspace), keeping the
    /// newest `limit` notes (the file lists oldest first). Absence is no
    /// problem; a malformed file is reported, named as `root` shows it, and
    /// shows no notes.
    pub fn load(path: &Path, root: &Root, limit: usize) -> Self {
        let shown = Path::new(&root.show(path)).to_owned();
        let text = match CappedText::read(path, root, NOTES_FILE_CAP) {
            Ok(text) if text.is_truncated() => {
                return Self::failed(
                    &shown,
                    format!("larger than the {NOTES_FILE_CAP}-byte limit"),
                    None,
                );
            }
            Ok(text) => text.text,
            Err(error) if error.is_not_found() => return Self::default(),
            Err(error) => {
                return Self {
                    notes: Vec::new(),
                    problem: Some(error),
                };
            }
        };
        // Every value cleaned after parsing, one line but the note's text.
        match parsed::json::<NotesFile>(&text, parsed::Multiline(&["text"])) {
            Ok(file) => Self {
                // An id is one line: a newline in it cannot start a line of the prompt.
                notes: (file.notes.into_iter().rev().take(limit))
                    .map(|note| Note {
                        id: one_line(&note.id),
                        ..note
                    })
                    .collect(),
                problem: None,
            },
            Err(error) => Self::failed(
                &shown,
                r#"expected {"notes": [{"id": .., "text": .., "ts": ..}]}"#.to_owned(),
                Some(Box::new(error)),
            ),
        }
    }

    fn failed(
        path: &Path,
        reason: String,
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self {
            notes: Vec::new(),
            problem: Some(SourceError::Malformed {
                path: path.to_owned(),
                reason,
                source,
            }),
        }
    }
}

/// ` [tag,tag]` as recursive writes a note's or a fact's tags in its summary
/// line, each tag on one line; nothing when there are none.
pub(super) fn tags_text(tags: &[String]) -> String {
    if tags.is_empty() {
        return String::new();
    }
    let tags: Vec<String> = tags.iter().map(|t| one_line(t)).collect();
    format!(" [{}]", tags.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_note_is_hooked_on_a_character_boundary() {
        let note = Note {
            id: "N1".into(),
            text: "記".repeat(40),
            tags: Vec::new(),
            ts: String::new(),
        };
        let hook = note.hook();
        assert!(hook.ends_with("..."));
        assert!(hook.len() <= HOOK_BYTES);
        assert_eq!(hook.trim_end_matches("...").chars().count(), 25);
    }
}
