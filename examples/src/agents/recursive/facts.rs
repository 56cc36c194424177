//! recursive's fact stores: `facts.jsonl` in `~/.recursive/memory/` (global)
//! and `<workspace>/.recursive/memory/` (workspace), one JSON object a line.
//!
//! Read as recursive reads them: a store with one malformed line counts as
//! empty (with a note); superseded facts are left out; the global facts come
//! first, then all are ordered by `last_accessed`, newest first.

use std::path::PathBuf;

use prompt_layers::sources::{CappedText, Root, one_line, parsed};
use serde::Deserialize;

use super::JSONL_READ_CAP;
use super::notes::tags_text;

/// One fact, as recursive stores it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Fact {
    /// Its id, e.g. `F3`.
    pub id: String,
    /// Its text.
    pub text: String,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Where it came from.
    #[serde(default)]
    pub source: Option<String>,
    /// When it was recorded (required by recursive's format).
    pub created_at: String,
    /// When it was last used: the order of the list (compared as text, as
    /// recursive compares it).
    pub last_accessed: String,
    /// How often it was used (required by recursive's format).
    pub access_count: u64,
    /// The fact that replaced it; a superseded fact is not listed.
    #[serde(default)]
    pub superseded_by: Option<String>,
}

impl Fact {
    /// The fact's line in `# Facts`, as recursive writes it:
    /// `id [tag,tag] (source: s) text`, each part on one line, the text over
    /// 120 characters cut to its first 117 bytes (on a character boundary)
    /// and `...`.
    pub fn summary_line(&self) -> String {
        let tags = tags_text(&self.tags);
        let source = self
            .source
            .as_ref()
            .map(|s| format!(" (source: {})", one_line(s)))
            .unwrap_or_default();
        let text = one_line(&self.text);
        let text = if text.chars().count() > 120 {
            format!("{}...", &text[..text.floor_char_boundary(117)])
        } else {
            text
        };
        format!("{}{tags}{source} {text}", one_line(&self.id))
    }
}

/// The facts a session lists (session context), read by the `facts` layer.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FactStores {
    /// The facts listed, most recently used first, at most the limit.
    pub facts: Vec<Fact>,
    /// What could not be read, for the trace.
    pub notes: Vec<String>,
}

impl prompt_core::SessionValue for FactStores {}

impl FactStores {
    /// Reads `files` (the global store first, then the workspace's), each
    /// within its root, and keeps the `limit` most recently used active facts.
    pub fn load(files: &[(PathBuf, Root)], limit: usize) -> Self {
        let mut facts = Vec::new();
        let mut notes = Vec::new();
        for (path, root) in files {
            let shown = root.show(path);
            let text = match CappedText::read(path, root, JSONL_READ_CAP) {
                Ok(text) if text.is_truncated() => {
                    notes.push(format!(
                        "{shown}: larger than the {JSONL_READ_CAP}-byte limit; its facts are left out"
                    ));
                    continue;
                }
                Ok(text) => text.text,
                Err(error) if error.is_not_found() => continue,
                Err(error) => {
                    notes.push(error.to_string());
                    continue;
                }
            };
            let mut store = Vec::new();
            let mut malformed = None;
            for (at, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() {
                    continue;
                }
                // Every value cleaned after parsing; `text` is folded onto one line
                // when it is written, as recursive writes it.
                match parsed::json::<Fact>(line, parsed::Multiline(&["text"])) {
                    Ok(fact) => store.push(fact),
                    Err(error) => {
                        malformed = Some(format!(
                            "{shown}: line {}: {error}; the whole store is left out, as recursive does",
                            at + 1
                        ));
                        break;
                    }
                }
            }
            match malformed {
                Some(note) => notes.push(note),
                None => facts.extend(store.into_iter().filter(|f| f.superseded_by.is_none())),
            }
        }
        // Stable: among equal times the global facts stay first.
        facts.sort_by(|a, b| b.last_accessed.cmp(&a.last_accessed));
        facts.truncate(limit);
        Self { facts, notes }
    }
}
