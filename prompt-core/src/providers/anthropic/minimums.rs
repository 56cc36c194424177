//! The shortest prefix each model caches, and the warning below it.

use std::fmt;

use serde::Serialize;

use crate::AssembledPrompt;
use crate::tokens::TokenCounter;

/// When the table below was last checked against Anthropic's documentation.
pub const MINIMUMS_CHECKED: &str = "2026-11";

/// `(family, model id prefixes, minimum tokens)`, checked [`MINIMUMS_CHECKED`].
///
/// Sources:
/// - Opus 4.5/4.6 and Haiku 4.5 (4,096), Sonnet 4.5/4.6, Sonnet 4, Opus 4/4.1
///   (1,024), Haiku 3.5/3 (2,048): Anthropic's prompt-caching documentation,
///   as quoted verbatim in anthropics/anthropic-sdk-python issue #1194;
///   Haiku 4.5 and Opus 4.5/4.6 agree with the gateway docs of orq.ai and
///   nano-gpt. (orq.ai lists Sonnet 4.6 at 2,048; Anthropic's text says 1,024.)
/// - Opus 4.7 (2,048) and Opus 5 (512): the team's survey of late 2026, from
///   secondary sources not confirmed here; two third-party guides list Opus
///   4.7 at 4,096. Override with [`CacheMinimums::set`] if the API disagrees:
///   a prefix that reports `cache_creation_input_tokens: 0` is below it.
const ANTHROPIC: &[(&str, &[&str], usize)] = &[
    ("Claude Opus 5", &["claude-opus-5"], 512),
    ("Claude Opus 4.7", &["claude-opus-4-7"], 2048),
    ("Claude Opus 4.6", &["claude-opus-4-6"], 4096),
    ("Claude Opus 4.5", &["claude-opus-4-5"], 4096),
    ("Claude Opus 4.1", &["claude-opus-4-1"], 1024),
    ("Claude Opus 4", &["claude-opus-4", "claude-4-opus"], 1024),
    ("Claude Sonnet 4.6", &["claude-sonnet-4-6"], 1024),
    ("Claude Sonnet 4.5", &["claude-sonnet-4-5"], 1024),
    (
        "Claude Sonnet 4",
        &["claude-sonnet-4", "claude-4-sonnet"],
        1024,
    ),
    ("Claude Haiku 4.5", &["claude-haiku-4-5"], 4096),
    ("Claude Haiku 3.5", &["claude-3-5-haiku"], 2048),
    ("Claude Haiku 3", &["claude-3-haiku"], 2048),
];

/// A model family and the shortest prefix it caches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelFamily {
    /// A name for people, e.g. `Claude Opus 4.5`.
    pub name: String,
    /// Model id prefixes of the family, e.g. `claude-opus-4-5`; they match
    /// `claude-opus-4-5`, `claude-opus-4-5-20251101`, `claude-opus-4.5` and
    /// `anthropic.claude-opus-4-5-20251101-v1:0`, never `claude-opus-4-50`.
    pub ids: Vec<String>,
    /// The minimum cacheable prefix, in tokens.
    pub min_tokens: usize,
}

/// The minimum cacheable prefix of each model family: one table, overridable.
///
/// A model that matches no family gets the table's largest minimum, the
/// conservative choice (a warning that is not needed costs less than a cache
/// that silently never works), and the lookup says it was unknown.
///
/// ```
/// use prompt_core::providers::anthropic::CacheMinimums;
///
/// let table = CacheMinimums::anthropic();
/// assert_eq!(table.lookup("claude-sonnet-4-5-20250929").tokens, 1024);
/// assert_eq!(table.lookup("claude-opus-4-5").tokens, 4096);
///
/// let unknown = table.lookup("claude-mystery-9");
/// assert_eq!((unknown.tokens, unknown.family), (4096, None));
///
/// let mine = table.set("claude-mystery-9", 1024);
/// assert_eq!(mine.lookup("claude-mystery-9").tokens, 1024);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CacheMinimums {
    checked: String,
    families: Vec<ModelFamily>,
}

/// What [`CacheMinimums::lookup`] found for a model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
        Self {
            checked: MINIMUMS_CHECKED.to_owned(),
            families: ANTHROPIC
                .iter()
                .map(|(name, ids, min_tokens)| ModelFamily {
                    name: (*name).to_owned(),
                    ids: ids.iter().map(|id| (*id).to_owned()).collect(),
                    min_tokens: *min_tokens,
                })
                .collect(),
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
        let model = normalize(model);
        let mut best: Option<(usize, &ModelFamily)> = None;
        for family in &self.families {
            for id in &family.ids {
                if matches_id(&model, id) && best.is_none_or(|(len, _)| id.len() > len) {
                    best = Some((id.len(), family));
                }
            }
        }
        match best {
            Some((_, family)) => CacheMinimum {
                tokens: family.min_tokens,
                family: Some(family.name.clone()),
            },
            None => CacheMinimum {
                tokens: self.most_conservative(),
                family: None,
            },
        }
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
fn normalize(model: &str) -> String {
    model.to_ascii_lowercase().replace('.', "-")
}

/// Whether `id` occurs in `model` as a whole family name: not inside a word
/// before it, and not followed by a further version number (`-1`, `-50`)
/// after it. A date (`-20250514`) or a platform suffix (`-v1:0`, `@2025..`)
/// may follow.
fn matches_id(model: &str, id: &str) -> bool {
    model.match_indices(id).any(|(start, _)| {
        let before_ok = model[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_ascii_alphanumeric());
        let rest = &model[start + id.len()..];
        let after_ok = match rest.chars().next() {
            None => true,
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
/// `tracing::warn!` (target `prompt_core::providers`).
///
/// ```
/// use prompt_core::providers::anthropic::{check_cache_minimum, CacheMinimums};
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
        target: "prompt_core::providers",
        model = %warning.model,
        stable_tokens = warning.stable_tokens,
        minimum = warning.minimum,
        "{warning}",
    );
    Some(warning)
}
