//! The shortest prefix each model caches, with the date each figure was read
//! and where it comes from, and the warning below it.
//!
//! One table, one row per model family: its minimum, the day it was read, and
//! its source (a documentation page, or what requests were seen to do where
//! that differs from the page). [`CacheMinimums::anthropic`] and
//! [`CacheMinimums::openai`] are its two providers' rows;
//! [`check_cache_minimum`] and the simulations read them.

use std::fmt;

use serde::Serialize;

use crate::AssembledPrompt;
use crate::tokens::TokenCounter;

/// When the table below was last checked whole against its sources.
pub const MINIMUMS_CHECKED: &str = "2026-12-07";

/// Where a row of the table comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// A documentation page, by address (the provider's own unless it says so).
    Documented(&'static str),
    /// Requests that showed another minimum than the page documents.
    Observed {
        report: &'static str,
        documented: usize,
    },
}

/// One family: `(name, model id prefixes, minimum tokens, the day read, source)`.
type Row = (
    &'static str,
    &'static [&'static str],
    usize,
    &'static str,
    Source,
);

/// Anthropic's prompt-caching page (`platform.claude.com/docs/en/build-with-claude/prompt-caching`),
/// as quoted verbatim in anthropics/anthropic-sdk-python#1194.
const ANTHROPIC_PAGE: Source = Source::Documented(
    "platform.claude.com/docs/en/build-with-claude/prompt-caching, as quoted in \
     anthropics/anthropic-sdk-python#1194",
);

/// Anthropic's prompt-caching page itself, as read on 2026-12-07.
const ANTHROPIC_PAGE_LIVE: Source =
    Source::Documented("platform.claude.com/docs/en/build-with-claude/prompt-caching");

/// Anthropic's families. Where sources disagree the higher minimum is kept:
/// a warning that is not needed costs less than a cache that silently never
/// works.
///
/// - Opus 4.7: Anthropic's page (read 2026-12-07) and two guides that quoted
///   it in June 2026 say 2,048; LiteLLM's table (its Bedrock row, updated
///   2026-10-07) lists 4,096 beside Opus 4.5 and 4.6. 4,096 is kept.
/// - Sonnet 4.6: the page documents 1,024 (again on 2026-12-07); requests
///   cache nothing below 2,048 (anthropics/anthropic-sdk-python#1194;
///   orq.ai's gateway table agrees). 2,048 is kept.
/// - Opus 5: 512 on Anthropic's page (2026-12-07) and in LiteLLM's table.
///
/// Override with [`CacheMinimums::set`] if the API disagrees: a prefix that
/// reports `cache_creation_input_tokens: 0` is below it.
const ANTHROPIC: &[Row] = &[
    (
        "Claude Opus 5",
        &["claude-opus-5"],
        512,
        "2026-12-07",
        Source::Documented(
            "platform.claude.com/docs/en/build-with-claude/prompt-caching (LiteLLM's table, \
             docs.litellm.ai/docs/completion/prompt_caching, agrees)",
        ),
    ),
    (
        "Claude Fable 5",
        &["claude-fable-5*"],
        512,
        "2026-12-07",
        ANTHROPIC_PAGE_LIVE,
    ),
    (
        "Claude Mythos 5",
        &["claude-mythos-5*"],
        512,
        "2026-12-07",
        ANTHROPIC_PAGE_LIVE,
    ),
    (
        "Claude Mythos Preview",
        &["claude-mythos-preview"],
        2048,
        "2026-12-07",
        ANTHROPIC_PAGE_LIVE,
    ),
    (
        "Claude Sonnet 5",
        &["claude-sonnet-5"],
        1024,
        "2026-12-07",
        ANTHROPIC_PAGE_LIVE,
    ),
    (
        "Claude Opus 4.8",
        &["claude-opus-4-8"],
        1024,
        "2026-12-02",
        Source::Documented("platform.claude.com/docs/en/about-claude/models/whats-new-claude-4-8"),
    ),
    (
        "Claude Opus 4.7",
        &["claude-opus-4-7"],
        4096,
        "2026-12-07",
        Source::Documented(
            "docs.litellm.ai/docs/completion/prompt_caching (Bedrock's row, 4,096, kept); \
             Anthropic's page, platform.claude.com/docs/en/build-with-claude/prompt-caching, \
             and guides quoting it in June 2026 say 2,048",
        ),
    ),
    (
        "Claude Opus 4.6",
        &["claude-opus-4-6"],
        4096,
        "2026-12-02",
        ANTHROPIC_PAGE,
    ),
    (
        "Claude Opus 4.5",
        &["claude-opus-4-5"],
        4096,
        "2026-12-02",
        ANTHROPIC_PAGE,
    ),
    (
        "Claude Opus 4.1",
        &["claude-opus-4-1"],
        1024,
        "2026-12-02",
        ANTHROPIC_PAGE,
    ),
    (
        "Claude Opus 4",
        &["claude-opus-4", "claude-4-opus"],
        1024,
        "2026-12-02",
        ANTHROPIC_PAGE,
    ),
    (
        "Claude Sonnet 4.6",
        &["claude-sonnet-4-6"],
        2048,
        "2026-12-02",
        Source::Observed {
            report: "anthropics/anthropic-sdk-python#1194: no cache below 2,048 tokens",
            documented: 1024,
        },
    ),
    (
        "Claude Sonnet 4.5",
        &["claude-sonnet-4-5"],
        1024,
        "2026-12-02",
        ANTHROPIC_PAGE,
    ),
    (
        "Claude Sonnet 4",
        &["claude-sonnet-4", "claude-4-sonnet"],
        1024,
        "2026-12-02",
        ANTHROPIC_PAGE,
    ),
    (
        "Claude Haiku 4.5",
        &["claude-haiku-4-5"],
        4096,
        "2026-12-02",
        ANTHROPIC_PAGE,
    ),
    (
        "Claude Haiku 3.5",
        &["claude-3-5-haiku"],
        2048,
        "2026-12-02",
        ANTHROPIC_PAGE,
    ),
    (
        "Claude Haiku 3",
        &["claude-3-haiku"],
        2048,
        "2026-12-02",
        ANTHROPIC_PAGE,
    ),
];

/// OpenAI's: one minimum for every model that caches ("gpt-4o and newer").
/// An id ending in `*` takes any later version of its line (`gpt-5*`:
/// `gpt-5`, `gpt-5-mini`, `gpt-5.6`).
const OPENAI: &[Row] = &[(
    "OpenAI GPT-4o and later",
    &["gpt-4o*", "gpt-4-1*", "gpt-5*", "o1*", "o3*", "o4*"],
    1024,
    "2026-12-02",
    Source::Documented("developers.openai.com/api/docs/guides/prompt-caching"),
)];

/// Google's families (Gemini API context caching). The 2.5 models cache from
/// 2,048 tokens, the 3.x models from 4,096; the page was updated 2026-10-23.
const GEMINI: &[Row] = &[
    (
        "Gemini 3",
        &["gemini-3*"],
        4096,
        "2026-12-07",
        Source::Documented("ai.google.dev/gemini-api/docs/caching (updated 2026-10-23)"),
    ),
    (
        "Gemini 2.5",
        &["gemini-2-5"],
        2048,
        "2026-12-07",
        Source::Documented("ai.google.dev/gemini-api/docs/caching (updated 2026-10-23)"),
    ),
];

/// Where a family's minimum comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum MinimumSource {
    /// A documentation page (the provider's own unless it says otherwise).
    Documented {
        /// Its address, and whose page it is when not the provider's.
        page: String,
    },
    /// What requests were seen to do, where it differs from the documentation.
    Observed {
        /// Where it was reported.
        report: String,
        /// The minimum the documentation gives.
        documented: usize,
    },
    /// Set by the caller ([`CacheMinimums::set`]).
    Caller,
}

impl From<Source> for MinimumSource {
    fn from(source: Source) -> Self {
        match source {
            Source::Documented(page) => Self::Documented {
                page: page.to_owned(),
            },
            Source::Observed { report, documented } => Self::Observed {
                report: report.to_owned(),
                documented,
            },
        }
    }
}

impl fmt::Display for MinimumSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Documented { page } => write!(f, "documented: {page}"),
            Self::Observed { report, documented } => {
                write!(f, "observed ({documented} documented): {report}")
            }
            Self::Caller => f.write_str("set by the caller"),
        }
    }
}

/// A model family and the shortest prefix it caches: a row of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ModelFamily {
    /// A name for people, e.g. `Claude Opus 4.5`.
    pub name: String,
    /// Model id prefixes of the family, e.g. `claude-opus-4-5`; they match
    /// `claude-opus-4-5`, `claude-opus-4-5-20251101`, `claude-opus-4.5` and
    /// `anthropic.claude-opus-4-5-20251101-v1:0`, never `claude-opus-4-50`.
    /// One ending in `*` also takes a further version number: `gpt-5*`
    /// matches `gpt-5.6` and `gpt-5-mini`, never `gpt-50`.
    pub ids: Vec<String>,
    /// The minimum cacheable prefix, in tokens.
    pub min_tokens: usize,
    /// The day the minimum was read from its source (`YYYY-MM-DD`); empty
    /// for the caller's own.
    pub read: String,
    /// Where the minimum comes from.
    pub source: MinimumSource,
}

impl ModelFamily {
    fn of(&(name, ids, min_tokens, read, source): &Row) -> Self {
        Self {
            name: name.to_owned(),
            ids: ids.iter().map(|id| (*id).to_owned()).collect(),
            min_tokens,
            read: read.to_owned(),
            source: source.into(),
        }
    }
}

/// The minimum cacheable prefix of each model family of one provider, each
/// with the day it was read and its source: the table, overridable.
///
/// A model that matches no family gets the table's largest minimum, the
/// conservative choice (a warning that is not needed costs less than a cache
/// that silently never works), and the lookup says it was unknown.
///
/// ```
/// use prompt_providers::anthropic::{CacheMinimums, MinimumSource};
///
/// let table = CacheMinimums::anthropic();
/// assert_eq!(table.lookup("claude-sonnet-4-5-20250929").tokens, 1024);
/// assert_eq!(table.lookup("claude-opus-4-5").tokens, 4096);
///
/// // Sonnet 4.6 caches from 2,048 tokens, though its page says 1,024.
/// let sonnet = &table.families()[table.family_index("claude-sonnet-4-6").unwrap()];
/// assert_eq!(sonnet.min_tokens, 2048);
/// assert!(matches!(sonnet.source, MinimumSource::Observed { documented: 1024, .. }));
///
/// let unknown = table.lookup("claude-mystery-9");
/// assert_eq!((unknown.tokens, unknown.family), (4096, None));
///
/// let mine = table.set("claude-mystery-9", 1024);
/// assert_eq!(mine.lookup("claude-mystery-9").tokens, 1024);
///
/// assert_eq!(CacheMinimums::openai().lookup("gpt-5.6").tokens, 1024);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CacheMinimums {
    checked: String,
    families: Vec<ModelFamily>,
}

/// What [`CacheMinimums::lookup`] found for a model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CacheMinimum {
    /// The minimum cacheable prefix, in tokens.
    pub tokens: usize,
    /// The family that matched; `None` for an unknown model, whose minimum is
    /// the table's most conservative.
    pub family: Option<String>,
}

impl Default for CacheMinimums {
    fn default() -> Self {
        Self::anthropic()
    }
}

impl CacheMinimums {
    /// Anthropic's minimums as checked on [`MINIMUMS_CHECKED`].
    pub fn anthropic() -> Self {
        Self::of(ANTHROPIC)
    }

    /// OpenAI's minimum (one for every model that caches) as checked on
    /// [`MINIMUMS_CHECKED`].
    pub fn openai() -> Self {
        Self::of(OPENAI)
    }

    /// Google's Gemini minimums (2.5 and 3.x), read on 2026-12-07.
    ///
    /// ```
    /// use prompt_providers::anthropic::CacheMinimums;
    ///
    /// let gemini = CacheMinimums::gemini();
    /// assert_eq!(gemini.lookup("gemini-2.5-flash").tokens, 2048);
    /// assert_eq!(gemini.lookup("gemini-3.1-pro").tokens, 4096);
    /// ```
    pub fn gemini() -> Self {
        Self::of(GEMINI)
    }

    fn of(rows: &[Row]) -> Self {
        Self {
            checked: MINIMUMS_CHECKED.to_owned(),
            families: rows.iter().map(ModelFamily::of).collect(),
        }
    }

    /// Sets the minimum for model ids starting with `id`, ahead of the table's
    /// own entries.
    pub fn set(mut self, id: impl Into<String>, min_tokens: usize) -> Self {
        let id = normalize(&id.into());
        self.families.insert(
            0,
            ModelFamily {
                name: id.clone(),
                ids: vec![id],
                min_tokens,
                read: String::new(),
                source: MinimumSource::Caller,
            },
        );
        self
    }

    /// When the built-in values were checked.
    pub fn checked(&self) -> &str {
        &self.checked
    }

    /// The families, caller overrides first.
    pub fn families(&self) -> &[ModelFamily] {
        &self.families
    }

    /// The minimum for `model`: the family whose id is the longest match
    /// (`claude-opus-4-5` before `claude-opus-4`; an override before a table
    /// entry of the same id), else the most conservative value.
    pub fn lookup(&self, model: &str) -> CacheMinimum {
        match self.family_index(model).map(|i| &self.families[i]) {
            Some(family) => CacheMinimum {
                tokens: family.min_tokens,
                family: Some(family.name.clone()),
            },
            None => CacheMinimum {
                tokens: self.most_conservative(),
                family: None,
            },
        }
    }

    /// The index in [`families`](Self::families) of the family `model`
    /// belongs to, as [`lookup`](Self::lookup) finds it; `None` when unknown.
    pub fn family_index(&self, model: &str) -> Option<usize> {
        let model = normalize(model);
        let mut best: Option<(usize, usize)> = None;
        for (index, family) in self.families.iter().enumerate() {
            for id in &family.ids {
                let len = id.trim_end_matches('*').len();
                if matches_id(&model, id) && best.is_none_or(|(best_len, _)| len > best_len) {
                    best = Some((len, index));
                }
            }
        }
        best.map(|(_, index)| index)
    }

    /// The largest minimum in the table: what an unknown model gets.
    pub fn most_conservative(&self) -> usize {
        self.families
            .iter()
            .map(|f| f.min_tokens)
            .max()
            .unwrap_or(0)
    }
}

/// Lowercase, with `.` as `-`: `claude-opus-4.5` is `claude-opus-4-5`.
pub(crate) fn normalize(model: &str) -> String {
    model.to_ascii_lowercase().replace('.', "-")
}

/// Whether `id` occurs in `model` as a whole family name: not inside a word
/// before it, and not followed by a further version number (`-1`, `-50`)
/// after it. A date (`-20250514`) or a platform suffix (`-v1:0`, `@2025..`)
/// may follow. An `id` ending in `*` takes a further version too (`gpt-5*`
/// matches `gpt-5-6`), but not more of the same word (`gpt-50`).
pub(crate) fn matches_id(model: &str, id: &str) -> bool {
    let (id, any_version) = match id.strip_suffix('*') {
        Some(line) => (line, true),
        None => (id, false),
    };
    model.match_indices(id).any(|(start, _)| {
        let before_ok = model[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_ascii_alphanumeric());
        let rest = &model[start + id.len()..];
        let after_ok = match rest.chars().next() {
            None => true,
            Some('-') if any_version => true,
            Some('-') => {
                let segment = rest[1..].split(['-', ':', '@', '[']).next().unwrap_or("");
                !(segment.len() <= 2
                    && !segment.is_empty()
                    && segment.bytes().all(|b| b.is_ascii_digit()))
            }
            Some(c) => !c.is_ascii_alphanumeric(),
        };
        before_ok && after_ok
    })
}

/// The stable prefix is shorter than the model caches: every call pays the
/// full input price, and the API does not say so.
///
/// Log it, or keep it with the trace. `Display` says what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct BelowCacheMinimum {
    /// The model asked about.
    pub model: String,
    /// The matched family; `None` when the model is not in the table.
    pub family: Option<String>,
    /// The stable prefix's length, by `counter`.
    pub stable_tokens: usize,
    /// The minimum that applies.
    pub minimum: usize,
    /// The counter that measured the prefix.
    pub counter: &'static str,
    /// When the table was checked.
    pub checked: String,
}

impl fmt::Display for BelowCacheMinimum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the stable prefix is {} tokens ({}), below the {} tokens {} caches at the least: \
             the API will cache nothing and report no error; grow the stable prefix or expect \
             to pay full input price on every call",
            self.stable_tokens,
            self.counter,
            self.minimum,
            self.family.as_deref().unwrap_or(&self.model),
        )?;
        if self.family.is_none() {
            write!(
                f,
                " (model `{}` is not in the minimum table checked {}, so the most conservative \
                 minimum was assumed; set its own with `CacheMinimums::set`)",
                self.model, self.checked
            )?;
        }
        Ok(())
    }
}

/// Warns when `prompt`'s stable prefix is too short for `model` to cache.
///
/// `None` when it is long enough, or when nothing is marked for caching (the
/// Basic path, an empty stable prefix). `Some` is also logged with
/// `tracing::warn!` (target `prompt_providers`).
///
/// ```
/// use prompt_providers::anthropic::{check_cache_minimum, CacheMinimums};
/// use prompt_core::tokens::ApproxCounter;
/// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
/// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
/// # struct DocMinimum;
/// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocMinimum)]
/// # struct Persona;
/// # let pipeline = Pipeline::of::<DocMinimum>()?;
/// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
///
/// let table = CacheMinimums::anthropic();
/// let warning = check_cache_minimum(&prompt, "claude-sonnet-4-5", &ApproxCounter, &table)
///     .expect("a four-token prefix is below 1,024");
/// assert_eq!(warning.minimum, 1024);
/// assert!(warning.to_string().contains("cache nothing"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_cache_minimum(
    prompt: &AssembledPrompt,
    model: &str,
    counter: &dyn TokenCounter,
    minimums: &CacheMinimums,
) -> Option<BelowCacheMinimum> {
    let cached = prompt
        .parts()
        .iter()
        .find(|p| p.cache && !p.content.is_empty())?;
    let stable_tokens = counter.count(&cached.content);
    let minimum = minimums.lookup(model);
    if stable_tokens >= minimum.tokens {
        return None;
    }
    let warning = BelowCacheMinimum {
        model: model.to_owned(),
        family: minimum.family,
        stable_tokens,
        minimum: minimum.tokens,
        counter: counter.name(),
        checked: minimums.checked.clone(),
    };
    tracing::warn!(
        target: "prompt_providers",
        model = %warning.model,
        stable_tokens = warning.stable_tokens,
        minimum = warning.minimum,
        "{warning}",
    );
    Some(warning)
}
