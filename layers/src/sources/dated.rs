//! Dated JSON-lines files: facts (`facts.jsonl`) and episodes (`episodes.jsonl`).
//!
//! One JSON object per line, with a text field and an RFC 3339 timestamp:
//! `{"text": "The API is versioned.", "created_at": "2026-11-02T09:30:00Z"}`.
//! Other keys are ignored. A line that is not such an object is skipped and
//! counted, never fatal.

use std::io::{BufRead, BufReader};
use std::path::Path;

use jiff::Timestamp;

use super::SourceError;

/// One dated entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dated {
    /// The entry's text, on one line.
    pub text: String,
    /// When it was written.
    pub at: Timestamp,
}

/// How much of a dated source goes into the prompt.
#[derive(Debug, Clone, Copy)]
pub enum Budget {
    /// At most this many bytes of entry text.
    Bytes(usize),
    /// At most this many tokens, as `count` measures them.
    Tokens {
        /// The limit.
        max: usize,
        /// The counter, e.g. [`approx_tokens`] or a real tokenizer.
        count: fn(&str) -> usize,
    },
}

impl Budget {
    fn limit(&self) -> usize {
        match self {
            Budget::Bytes(max) | Budget::Tokens { max, .. } => *max,
        }
    }

    fn cost(&self, text: &str) -> usize {
        match self {
            Budget::Bytes(_) => text.len(),
            Budget::Tokens { count, .. } => count(text),
        }
    }
}

/// A rough token count: one token per four characters, rounded up.
pub fn approx_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// Entries read from one or more files, newest first, within a budget.
#[derive(Debug, Default)]
pub struct DatedEntries {
    /// The kept entries, newest first (ties: by text).
    pub entries: Vec<Dated>,
    /// Lines skipped because they were not valid entries.
    pub malformed: usize,
    /// Entries left out because the budget (or entry limit) was spent.
    pub over_budget: usize,
    /// Files that exist but could not be read.
    pub problems: Vec<SourceError>,
}

impl DatedEntries {
    /// Reads every file in `paths` (absent ones are skipped), merges them,
    /// drops repeated texts (keeping the newest), sorts newest first and keeps
    /// entries while they fit `budget` and `max_entries`.
    pub fn load(
        paths: &[&Path],
        text_key: &str,
        time_key: &str,
        budget: Budget,
        max_entries: usize,
    ) -> Self {
        let mut all = Vec::new();
        let mut out = DatedEntries::default();
        for path in paths {
            match read_lines(path, text_key, time_key) {
                Ok((entries, malformed)) => {
                    all.extend(entries);
                    out.malformed += malformed;
                }
                Err(error) if error.is_not_found() => {}
                Err(error) => out.problems.push(error),
            }
        }
        all.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| a.text.cmp(&b.text)));
        let mut seen = std::collections::BTreeSet::new();
        all.retain(|entry| seen.insert(entry.text.clone()));

        let mut spent = 0;
        for entry in all {
            let cost = budget.cost(&entry.text);
            if out.entries.len() < max_entries
                && spent + cost <= budget.limit()
                && out.over_budget == 0
            {
                spent += cost;
                out.entries.push(entry);
            } else {
                out.over_budget += 1;
            }
        }
        out
    }

    /// Notes for the trace: skipped and left-out counts, and read problems.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.malformed > 0 {
            notes.push(format!("skipped {} malformed line(s)", self.malformed));
        }
        if self.over_budget > 0 {
            notes.push(format!(
                "left out {} older entr(ies) over the budget",
                self.over_budget
            ));
        }
        notes.extend(self.problems.iter().map(ToString::to_string));
        notes
    }
}

/// Parses one file; returns its entries and how many lines were malformed.
fn read_lines(
    path: &Path,
    text_key: &str,
    time_key: &str,
) -> Result<(Vec<Dated>, usize), SourceError> {
    let file = std::fs::File::open(path).map_err(|e| SourceError::io(path, e))?;
    if file
        .metadata()
        .map_err(|e| SourceError::io(path, e))?
        .is_dir()
    {
        return Err(SourceError::IsDirectory {
            path: path.to_owned(),
        });
    }
    let mut entries = Vec::new();
    let mut malformed = 0;
    for line in BufReader::new(file).split(b'\n') {
        let line = line.map_err(|e| SourceError::io(path, e))?;
        let Ok(line) = std::str::from_utf8(&line) else {
            malformed += 1;
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(line, text_key, time_key) {
            Some(entry) => entries.push(entry),
            None => malformed += 1,
        }
    }
    Ok((entries, malformed))
}

fn parse_line(line: &str, text_key: &str, time_key: &str) -> Option<Dated> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    let text = value.get(text_key)?.as_str()?;
    let at: Timestamp = value.get(time_key)?.as_str()?.parse().ok()?;
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(Dated { text, at })
}

/// Facts (`facts.jsonl`, global and workspace, merged). Read by the `facts` layer.
#[derive(Debug, Default)]
pub struct Facts(pub DatedEntries);

/// Recent session summaries (`episodes.jsonl`). Read by the `episodic_recall` layer.
#[derive(Debug, Default)]
pub struct Episodes(pub DatedEntries);
