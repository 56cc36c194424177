//! Dated JSON-lines files: facts (`facts.jsonl`) and episodes (`episodes.jsonl`).
//!
//! One JSON object per line, with a text field and an RFC 3339 timestamp:
//! `{"text": "The API is versioned.", "created_at": "2026-11-02T09:30:00Z"}`.
//! Other keys are ignored. A line that is not such an object is skipped and
//! counted, never fatal. These files only grow, newest lines last, so only
//! their tail is read: at most [`EntryLimits::read_cap`] bytes of each.

use std::path::{Path, PathBuf};

use jiff::Timestamp;

use prompt_core::tokens::TokenCounter;

use super::SourceError;
use super::capped::{Size, decode};
use super::fs::{Root, open, read_tail};
use super::text::one_line;

/// One dated entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dated {
    /// The entry's text, on one line.
    pub text: String,
    /// When it was written.
    pub at: Timestamp,
}

/// How much of a dated source goes into the prompt: bytes, or tokens counted
/// by one of `prompt_core`'s [`TokenCounter`]s (the same counters the prompt's
/// own [`TokenBudget`](prompt_core::budget::TokenBudget) uses).
///
/// ```
/// use prompt_core::tokens::ApproxCounter;
/// use prompt_layers::sources::EntryBudget;
///
/// let by_bytes = EntryBudget::Bytes(4 * 1024);
/// let by_tokens = EntryBudget::Tokens { max: 1_000, counter: &ApproxCounter };
/// assert_eq!(by_bytes.to_string(), "4 KiB");
/// assert_eq!(by_tokens.to_string(), "1000 tokens (approx)");
/// ```
#[derive(Clone, Copy)]
pub enum EntryBudget {
    /// At most this many bytes of entry text.
    Bytes(usize),
    /// At most this many tokens, as `counter` counts them.
    Tokens {
        /// The limit.
        max: usize,
        /// The counter, e.g. `&ApproxCounter` or a tokenizer.
        counter: &'static dyn TokenCounter,
    },
}

impl EntryBudget {
    fn limit(&self) -> usize {
        match self {
            EntryBudget::Bytes(max) | EntryBudget::Tokens { max, .. } => *max,
        }
    }

    fn cost(&self, text: &str) -> usize {
        match self {
            EntryBudget::Bytes(_) => text.len(),
            EntryBudget::Tokens { counter, .. } => counter.count(text),
        }
    }
}

impl std::fmt::Debug for EntryBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EntryBudget::Bytes(max) => f.debug_tuple("Bytes").field(max).finish(),
            EntryBudget::Tokens { max, counter } => f
                .debug_struct("Tokens")
                .field("max", max)
                .field("counter", &counter.name())
                .finish(),
        }
    }
}

impl std::fmt::Display for EntryBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EntryBudget::Bytes(max) => write!(f, "{}", Size(*max as u64)),
            EntryBudget::Tokens { max, counter } => write!(f, "{max} tokens ({})", counter.name()),
        }
    }
}

/// How much of one kind of dated entry is read and kept: the budget its
/// text fills, how many entries, and how much of each file's tail is read.
///
/// `Copy`, with [`EntryLimits::DEFAULT`] (4 KiB of text, 50 entries, 256 KiB
/// read: [`SessionConfig`](crate::SessionConfig)'s for facts) and `const`
/// `with_` setters.
// Grows with every limit: build it from `DEFAULT` and the `with_` setters,
// so a new one is not a breaking change.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct EntryLimits {
    /// How much entry text is kept.
    pub budget: EntryBudget,
    /// At most this many entries are kept.
    pub max_entries: usize,
    /// At most this many bytes are read of each file: its tail, where the
    /// newest entries are.
    pub read_cap: usize,
}

impl EntryLimits {
    /// 4 KiB of entry text ([`EntryBudget::Bytes`]), 50 entries, the last
    /// 256 KiB of each file.
    pub const DEFAULT: Self = Self {
        budget: EntryBudget::Bytes(4 * 1024),
        max_entries: 50,
        read_cap: 256 * 1024,
    };

    /// The same limits, keeping as much entry text as `budget` allows.
    #[must_use]
    pub const fn budget(mut self, budget: EntryBudget) -> Self {
        self.budget = budget;
        self
    }

    /// The same limits, keeping at most `max_entries` entries.
    #[must_use]
    pub const fn max_entries(mut self, max_entries: usize) -> Self {
        self.max_entries = max_entries;
        self
    }

    /// The same limits, reading at most `read_cap` bytes of each file (its tail).
    #[must_use]
    pub const fn read_cap(mut self, read_cap: usize) -> Self {
        self.read_cap = read_cap;
        self
    }
}

impl Default for EntryLimits {
    /// [`EntryLimits::DEFAULT`].
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// How one kind of dated entry is read: its keys, the time it is read at,
/// and its [`EntryLimits`].
///
/// Build it with [`DatedConfig::new`] (its keys and the time it is read at)
/// and set its limits with [`limits`](DatedConfig::limits):
///
/// ```
/// use prompt_layers::sources::{DatedConfig, DatedEntries, EntryBudget, EntryLimits, Root};
///
/// let dir = tempfile::tempdir().unwrap();
/// let file = dir.path().join("facts.jsonl");
/// std::fs::write(
///     &file,
///     "{\"text\": \"The API is versioned.\", \"created_at\": \"2026-11-02T09:30:00Z\"}\n\
///      {\"text\": \"Tests run with make.\", \"created_at\": \"2026-11-03T09:30:00Z\"}\n",
/// )
/// .unwrap();
///
/// let now = "2026-11-30T00:00:00Z".parse().unwrap();
/// let config = DatedConfig::new("text", "created_at", now).limits(
///     EntryLimits::DEFAULT
///         .budget(EntryBudget::Bytes(1024))
///         .max_entries(1),
/// );
/// let facts = DatedEntries::load(&[(file, Root::new(dir.path(), ""))], &config);
/// assert_eq!(facts.entries[0].text, "Tests run with make.");
/// assert_eq!(facts.over_limit, 1);
/// ```
// Grows with every setting: build it with `new` and the `with_` setters, so
// a new one is not a breaking change.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct DatedConfig<'a> {
    /// The key of the entry's text: `text` in `facts.jsonl`, `summary` in
    /// `episodes.jsonl` (see [`Facts`] and [`Episodes`]).
    pub text_key: &'a str,
    /// The key of its RFC 3339 timestamp: `created_at` in `facts.jsonl`,
    /// `ended_at` in `episodes.jsonl`.
    pub time_key: &'a str,
    /// How much is read and kept.
    pub limits: EntryLimits,
    /// Entries dated after this are skipped (a date in the future would stay on top for ever).
    pub now: Timestamp,
}

impl<'a> DatedConfig<'a> {
    /// Entries whose text is under `text_key` and whose RFC 3339 time is
    /// under `time_key`, those dated after `now` skipped, within
    /// [`EntryLimits::DEFAULT`].
    pub const fn new(text_key: &'a str, time_key: &'a str, now: Timestamp) -> Self {
        Self {
            text_key,
            time_key,
            limits: EntryLimits::DEFAULT,
            now,
        }
    }

    /// The same config, within `limits`.
    #[must_use]
    pub const fn limits(mut self, limits: EntryLimits) -> Self {
        self.limits = limits;
        self
    }
}

/// Entries read from one or more files, newest first, within a budget.
#[derive(Debug, Default)]
pub struct DatedEntries {
    /// The kept entries, newest first (ties: by text).
    pub entries: Vec<Dated>,
    /// Lines skipped because they were not valid entries.
    pub malformed: usize,
    /// Entries skipped because they are dated after `now`.
    pub future: usize,
    /// Entries left out because they did not fit the budget (newer or older than those kept).
    pub over_budget: usize,
    /// Entries left out because the entry limit was reached (all older than those kept).
    pub over_limit: usize,
    /// Files read only in part (their tail), as notes name them, with their sizes.
    pub partial: Vec<(String, u64)>,
    /// Files that exist but could not be read.
    pub problems: Vec<SourceError>,
    /// The budget, for the notes.
    budget: Option<(String, usize, usize)>,
}

impl DatedEntries {
    /// Reads the tail of every file in `files` (each inside its root; absent
    /// ones are skipped), merges them, drops repeated texts (keeping the
    /// newest) and entries dated in the future, sorts newest first, then keeps
    /// each entry that fits the budget: one that does not fit is left out and
    /// the rest are still considered, until `max_entries` are kept.
    pub fn load(files: &[(PathBuf, Root)], config: &DatedConfig<'_>) -> Self {
        let limits = &config.limits;
        let mut all = Vec::new();
        let mut out = DatedEntries {
            budget: Some((
                limits.budget.to_string(),
                limits.max_entries,
                limits.read_cap,
            )),
            ..DatedEntries::default()
        };
        for (path, root) in files {
            match read_lines(path, root, config) {
                Ok(read) => {
                    all.extend(read.entries);
                    out.malformed += read.malformed;
                    out.future += read.future;
                    if let Some(partial) = read.partial {
                        out.partial.push(partial);
                    }
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
            if out.entries.len() == limits.max_entries {
                out.over_limit += 1;
                continue;
            }
            let cost = limits.budget.cost(&entry.text);
            if spent + cost <= limits.budget.limit() {
                spent += cost;
                out.entries.push(entry);
            } else {
                out.over_budget += 1;
            }
        }
        out
    }

    /// Notes for the trace: what was skipped or left out, and why; files read in part; read problems.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.malformed > 0 {
            notes.push(format!("skipped {} malformed line(s)", self.malformed));
        }
        if self.future > 0 {
            notes.push(format!(
                "skipped {} entr(ies) dated in the future",
                self.future
            ));
        }
        let (budget, max, cap) = self.budget.clone().unwrap_or_default();
        if self.over_budget > 0 {
            notes.push(format!(
                "left out {} entr(ies) that did not fit the budget of {budget}",
                self.over_budget
            ));
        }
        if self.over_limit > 0 {
            notes.push(format!(
                "left out {} older entr(ies) over the limit of {max}",
                self.over_limit
            ));
        }
        for (file, size) in &self.partial {
            notes.push(format!(
                "{file}: read only its last {} of {}",
                Size(cap as u64),
                Size(*size)
            ));
        }
        notes.extend(self.problems.iter().map(|problem| super::report(problem)));
        notes
    }
}

struct Read {
    entries: Vec<Dated>,
    malformed: usize,
    future: usize,
    partial: Option<(String, u64)>,
}

/// Parses the tail of one file.
fn read_lines(path: &Path, root: &Root, spec: &DatedConfig<'_>) -> Result<Read, SourceError> {
    let mut opened = open(path, root)?;
    let (bytes, partial) = read_tail(&mut opened, spec.limits.read_cap)?;
    let mut read = Read {
        entries: Vec::new(),
        malformed: 0,
        future: 0,
        partial: partial.then(|| (opened.shown.clone(), opened.meta.len())),
    };
    for line in bytes.split(|&b| b == b'\n') {
        let Ok(line) = decode(line.to_vec(), false, &opened.shown) else {
            read.malformed += 1;
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(&line, spec) {
            Parsed::Entry(entry) => read.entries.push(entry),
            Parsed::Future => read.future += 1,
            Parsed::Malformed => read.malformed += 1,
        }
    }
    Ok(read)
}

enum Parsed {
    Entry(Dated),
    Future,
    Malformed,
}

fn parse_line(line: &str, spec: &DatedConfig<'_>) -> Parsed {
    let Ok(value) = super::parsed::json::<serde_json::Value>(line, super::parsed::Multiline::NONE)
    else {
        return Parsed::Malformed;
    };
    let (Some(text), Some(at)) = (
        value.get(spec.text_key).and_then(|v| v.as_str()),
        value.get(spec.time_key).and_then(|v| v.as_str()),
    ) else {
        return Parsed::Malformed;
    };
    let text = one_line(text);
    if text.is_empty() {
        return Parsed::Malformed;
    }
    match at.parse::<Timestamp>() {
        Ok(at) if at > spec.now => Parsed::Future,
        Ok(at) => Parsed::Entry(Dated { text, at }),
        // A well-formed date past what a timestamp holds (9999-12-31) is in the future too.
        Err(_) => match jiff::fmt::temporal::Pieces::parse(at) {
            Ok(pieces)
                if pieces.date() > spec.now.to_zoned_datetime(jiff::tz::TimeZone::UTC).date() =>
            {
                Parsed::Future
            }
            _ => Parsed::Malformed,
        },
    }
}

/// Facts (`facts.jsonl`, global and workspace, merged). Read by the `facts` layer.
///
/// Each line of `facts.jsonl` is one JSON object with two keys: `text`, the
/// fact (one line is kept), and `created_at`, when it was learned (RFC 3339
/// with an offset, e.g. `2026-11-02T09:30:00Z`). Other keys are ignored; a
/// line missing either key is skipped and counted.
///
/// ```
/// use prompt_layers::{load_session, SessionConfig};
/// use prompt_layers::sources::Facts;
///
/// let workspace = tempfile::tempdir().unwrap();
/// let memory = workspace.path().join(".agent/memory");
/// std::fs::create_dir_all(&memory).unwrap();
/// std::fs::write(
///     memory.join("facts.jsonl"),
///     "{\"text\": \"The API is versioned.\", \"created_at\": \"2026-11-02T09:30:00Z\", \"tag\": \"api\"}\n\
///      {\"fact\": \"wrong key\", \"created_at\": \"2026-11-03T09:30:00Z\"}\n",
/// )
/// .unwrap();
/// let session = load_session(&SessionConfig::new("agent", workspace.path())).unwrap();
/// let facts = &session.get::<Facts>().unwrap().0;
/// assert_eq!(facts.entries.len(), 1);
/// assert_eq!(facts.entries[0].text, "The API is versioned.");
/// assert_eq!(facts.malformed, 1);
/// ```
#[derive(Debug, Default)]
pub struct Facts(pub DatedEntries);

// `load_session` puts these into the session context.
impl prompt_core::SessionValue for Facts {}

/// Recent session summaries (`episodes.jsonl`): one JSON object a line with
/// `summary` (the text) and `ended_at` (RFC 3339). Read by the
/// `episodic_recall` layer.
#[derive(Debug, Default)]
pub struct Episodes(pub DatedEntries);

impl prompt_core::SessionValue for Episodes {}
