//! The closed vocabularies of a layer and a pipeline: stability, paths,
//! modes, budget policy and channel, each parsed case-insensitively and
//! serialized in lowercase.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Which cache partition a layer belongs to.
///
/// There is no default, on purpose: a layer that silently defaulted to
/// `Stable` is how a clock ends up in the cached prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stability {
    /// Identical for every call of a session; rendered into the cached prefix.
    /// Priority band `0..10_000`.
    Stable,
    /// May change per call; rendered into the uncached suffix.
    /// Priority band `10_000..20_000`.
    Dynamic,
}

impl Stability {
    /// Every stability, in band order.
    pub const ALL: &'static [Stability] = &[Stability::Stable, Stability::Dynamic];

    /// The half-open priority band `[start, end)` of this stability.
    ///
    /// Because the Stable band lies wholly below the Dynamic band, ascending
    /// priority order *is* stable-before-dynamic order.
    ///
    /// ```
    /// use prompt_core::Stability;
    /// assert_eq!(Stability::Stable.band(), 0..10_000);
    /// assert!(Stability::Dynamic.band().contains(&15_000));
    /// ```
    pub const fn band(self) -> std::ops::Range<u32> {
        match self {
            Stability::Stable => 0..10_000,
            Stability::Dynamic => 10_000..20_000,
        }
    }

    /// The band as every message about it writes it (`0..10_000`): the
    /// compile-time assert and the run-time check share this wording.
    pub(crate) const fn band_text(self) -> &'static str {
        match self {
            Stability::Stable => "0..10_000",
            Stability::Dynamic => "10_000..20_000",
        }
    }

    /// The variant as written in the attribute: `Stable`, `Dynamic`.
    pub(crate) const fn ident(self) -> &'static str {
        match self {
            Stability::Stable => "Stable",
            Stability::Dynamic => "Dynamic",
        }
    }

    /// The other stability.
    pub(crate) const fn other(self) -> Stability {
        match self {
            Stability::Stable => Stability::Dynamic,
            Stability::Dynamic => Stability::Stable,
        }
    }

    /// Whether `priority` lies in this stability's band.
    pub const fn admits(self, priority: u32) -> bool {
        let band = self.band();
        priority >= band.start && priority < band.end
    }

    /// The lowercase name, as in serde and the manifest.
    pub const fn as_str(self) -> &'static str {
        match self {
            Stability::Stable => "stable",
            Stability::Dynamic => "dynamic",
        }
    }
}

/// The entry point a prompt is assembled through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AssemblyPath {
    /// One flat string, e.g. an inline sub-agent prompt.
    Basic,
    /// A cacheable stable prefix plus a dynamic suffix, for the main loop.
    Cached,
}

impl AssemblyPath {
    /// Every path, in order. The default paths of [`LayerSpec::new`](crate::LayerSpec::new).
    pub const ALL: &'static [AssemblyPath] = &[AssemblyPath::Basic, AssemblyPath::Cached];

    /// The lowercase name, as in serde and the manifest.
    pub const fn as_str(self) -> &'static str {
        match self {
            AssemblyPath::Basic => "basic",
            AssemblyPath::Cached => "cached",
        }
    }
}

/// How much a prompt says.
///
/// `#[non_exhaustive]`: a fourth mode is the likeliest addition after 0.1, so
/// a `match` over modes outside this crate needs a `_` arm (a layer that does
/// not know a mode can render as it does for `Full`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PromptMode {
    /// Everything; the default.
    #[default]
    Full,
    /// Shorter sections for tight context windows.
    Compact,
    /// Only what the agent cannot work without.
    Minimal,
}

impl PromptMode {
    /// Every mode, in order. The default of the attribute's `modes` key.
    pub const ALL: &'static [PromptMode] =
        &[PromptMode::Full, PromptMode::Compact, PromptMode::Minimal];

    /// The lowercase name, as in serde and the manifest.
    pub const fn as_str(self) -> &'static str {
        match self {
            PromptMode::Full => "full",
            PromptMode::Compact => "compact",
            PromptMode::Minimal => "minimal",
        }
    }
}

/// How a Dynamic layer gives way when a token budget is short.
///
/// Set with the attribute's `yields` key. Stable layers are never cut (the
/// cached prefix must stay byte-identical), so the key is rejected on them.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Yields {
    /// Dropped whole, highest priority number first; the default.
    #[default]
    Shed,
    /// Cut on a character boundary, after every `Shed` layer is gone.
    Truncate,
    /// Never touched.
    Keep,
}

impl Yields {
    /// Every way to yield, in order.
    pub const ALL: &'static [Yields] = &[Yields::Shed, Yields::Truncate, Yields::Keep];

    /// The lowercase name, as in serde and the manifest.
    pub const fn as_str(self) -> &'static str {
        match self {
            Yields::Shed => "shed",
            Yields::Truncate => "truncate",
            Yields::Keep => "keep",
        }
    }
}

/// Where a Dynamic layer's text travels.
///
/// Set with the attribute's `channel` key. A Stable layer is always part of
/// the cached system prompt and never moves, so the key is rejected on them.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Channel {
    /// In the system prompt's dynamic suffix; the default.
    #[default]
    System,
    /// As a trailing `<system-reminder>` block in the last user message, so
    /// the whole system prompt stays cacheable.
    Reminder,
}

impl Channel {
    /// Every channel, in order.
    pub const ALL: &'static [Channel] = &[Channel::System, Channel::Reminder];

    /// The lowercase name, as in serde and the manifest.
    pub const fn as_str(self) -> &'static str {
        match self {
            Channel::System => "system",
            Channel::Reminder => "reminder",
        }
    }
}

/// How widely a Stable layer's text is shared: with everyone, with everyone
/// on the repository, with one person, or with one session only.
///
/// Set with the attribute's `scope` key (Stable layers only; default
/// [`Scope::Session`], the narrowest, so nothing is assumed shared that is
/// not). A provider's prompt cache is shared wider than a session
/// (Anthropic's by everyone on one organization's key, OpenAI's by whoever
/// sends the same `prompt_cache_key`), so within the Stable band the wider
/// scopes come first ([`Scope::ORDER_TEXT`]): then a teammate's first call
/// reads the Global and Project part from the cache and writes only its own.
///
/// The variants are declared widest first, so `Ord` is render order:
///
/// ```
/// use prompt_core::spec::Scope;
/// assert!(Scope::Global < Scope::Project && Scope::User < Scope::Session);
/// assert!(Scope::Project.is_wider_than(Scope::User));
/// assert_eq!(Scope::default(), Scope::Session);
/// assert_eq!("project".parse::<Scope>(), Ok(Scope::Project));
/// ```
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Scope {
    /// The same for everyone: a persona, the framework's rules.
    Global,
    /// The same for everyone on the repository: AGENTS.md, project memory, skills.
    Project,
    /// The same for one person across sessions: `~/.agent/memory/user.md`, facts.
    User,
    /// The same for one session only; the default.
    #[default]
    Session,
}

impl Scope {
    /// Every scope, widest first: the order the Stable band renders them in.
    pub const ALL: &'static [Scope] = &[Scope::Global, Scope::Project, Scope::User, Scope::Session];

    /// The rule as every message about it words it: the compile-time assert,
    /// the pipeline's validation and the contract check share this text.
    pub const ORDER_TEXT: &'static str =
        "wider scopes come first in the Stable band (Global, Project, User, Session)";

    /// The lowercase name, as in serde and the manifest.
    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::Project => "project",
            Scope::User => "user",
            Scope::Session => "session",
        }
    }

    /// The variant as written in the attribute: `Global`, `Project`, ...
    pub const fn ident(self) -> &'static str {
        match self {
            Scope::Global => "Global",
            Scope::Project => "Project",
            Scope::User => "User",
            Scope::Session => "Session",
        }
    }

    /// Who shares text of this scope: `everyone`, `everyone on the repository`, ...
    pub const fn audience(self) -> &'static str {
        match self {
            Scope::Global => "everyone",
            Scope::Project => "everyone on the repository",
            Scope::User => "one person",
            Scope::Session => "one session",
        }
    }

    /// Whether text of this scope is shared by more callers than `other`'s
    /// (and so must come before it).
    pub const fn is_wider_than(self, other: Scope) -> bool {
        (self as u8) < (other as u8)
    }
}

/// Whether a pipeline holds its Stable layers to [`Scope`] order.
///
/// Set with `#[prompt_pipeline(scope_order = Relaxed)]`. `Strict` (the
/// default) rejects a layer ordered before a wider-scoped one, at compile
/// time where the attribute sees both and when the pipeline is collected;
/// `Relaxed` is for a pipeline whose order is fixed from outside (a
/// reproduction of an agent whose prompt puts the user's preferences first):
/// it gives up cross-user cache sharing, which the contract check
/// `scope_sharing` still reports.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ScopeOrder {
    /// Wider scopes first, checked; the default.
    #[default]
    Strict,
    /// Any order; the check is off for this pipeline.
    Relaxed,
}

impl ScopeOrder {
    /// Both, in order.
    pub const ALL: &'static [ScopeOrder] = &[ScopeOrder::Strict, ScopeOrder::Relaxed];

    /// The lowercase name, as in serde and the manifest.
    pub const fn as_str(self) -> &'static str {
        match self {
            ScopeOrder::Strict => "strict",
            ScopeOrder::Relaxed => "relaxed",
        }
    }
}

macro_rules! display_and_parse {
    ($ty:ident, $what:literal, [$($variant:ident),+]) => {
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $ty {
            type Err = ParseEnumError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                const EXPECTED: &[&str] = &[$($ty::$variant.as_str()),+];
                $(
                    if s.eq_ignore_ascii_case($ty::$variant.as_str()) {
                        return Ok($ty::$variant);
                    }
                )+
                Err(ParseEnumError {
                    what: $what,
                    got: s.to_owned(),
                    expected: EXPECTED,
                })
            }
        }
    };
}

display_and_parse!(Stability, "stability", [Stable, Dynamic]);
display_and_parse!(AssemblyPath, "assembly path", [Basic, Cached]);
display_and_parse!(PromptMode, "prompt mode", [Full, Compact, Minimal]);
display_and_parse!(Yields, "yield", [Shed, Truncate, Keep]);
display_and_parse!(Channel, "channel", [System, Reminder]);
display_and_parse!(Scope, "scope", [Global, Project, User, Session]);
display_and_parse!(ScopeOrder, "scope order", [Strict, Relaxed]);

/// A string that names no variant of [`Stability`], [`AssemblyPath`],
/// [`PromptMode`], [`Yields`], [`Channel`], [`Scope`] or [`ScopeOrder`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{got}`: expected one of {}", expected.join(", "))]
pub struct ParseEnumError {
    what: &'static str,
    got: String,
    expected: &'static [&'static str],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_band_text_is_the_band() {
        for stability in Stability::ALL {
            let band = stability.band();
            let literal = |n: u32| {
                let digits = n.to_string();
                let mut out = String::new();
                for (i, c) in digits.chars().enumerate() {
                    if n >= 10_000 && i > 0 && (digits.len() - i).is_multiple_of(3) {
                        out.push('_');
                    }
                    out.push(c);
                }
                out
            };
            assert_eq!(
                stability.band_text(),
                format!("{}..{}", literal(band.start), literal(band.end))
            );
            assert_eq!(stability.other().other(), *stability);
            assert_eq!(stability.ident().to_lowercase(), stability.as_str());
        }
    }

    #[test]
    fn names_parse_case_insensitively_and_round_trip() {
        for mode in PromptMode::ALL {
            assert_eq!(mode.to_string().parse::<PromptMode>(), Ok(*mode));
        }
        assert_eq!("COMPACT".parse::<PromptMode>(), Ok(PromptMode::Compact));
        assert_eq!("Cached".parse::<AssemblyPath>(), Ok(AssemblyPath::Cached));
        assert_eq!("dynamic".parse::<Stability>(), Ok(Stability::Dynamic));
    }

    #[test]
    fn a_bad_name_says_what_was_expected() {
        let error = "verbose".parse::<PromptMode>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown prompt mode `verbose`: expected one of full, compact, minimal"
        );
    }

    #[test]
    fn serde_uses_lowercase_names() {
        assert_eq!(
            serde_json::to_string(&PromptMode::Minimal).unwrap(),
            "\"minimal\""
        );
        assert_eq!(
            serde_json::to_string(&Stability::Stable).unwrap(),
            "\"stable\""
        );
        assert_eq!(
            serde_json::to_string(&AssemblyPath::Basic).unwrap(),
            "\"basic\""
        );
        let mode: PromptMode = serde_json::from_str("\"compact\"").unwrap();
        assert_eq!(mode, PromptMode::Compact);
        assert!(serde_json::from_str::<PromptMode>("\"Compact\"").is_err());
    }

    #[test]
    fn yields_and_channel_default_and_serialize_lowercase() {
        assert_eq!(Yields::default(), Yields::Shed);
        assert_eq!(Channel::default(), Channel::System);
        assert_eq!(
            serde_json::to_string(&Yields::Truncate).unwrap(),
            "\"truncate\""
        );
        assert_eq!(
            serde_json::to_string(&Channel::Reminder).unwrap(),
            "\"reminder\""
        );
        for y in Yields::ALL {
            assert_eq!(y.to_string().parse::<Yields>(), Ok(*y));
        }
        for c in Channel::ALL {
            assert_eq!(c.to_string().parse::<Channel>(), Ok(*c));
        }
    }

    #[test]
    fn scopes_are_widest_first_and_serialize_lowercase() {
        for pair in Scope::ALL.windows(2) {
            assert!(pair[0] < pair[1] && pair[0].is_wider_than(pair[1]));
            assert!(!pair[1].is_wider_than(pair[0]) && !pair[0].is_wider_than(pair[0]));
        }
        for scope in Scope::ALL {
            assert_eq!(scope.to_string().parse::<Scope>(), Ok(*scope));
            assert_eq!(scope.ident().to_lowercase(), scope.as_str());
            assert_eq!(
                serde_json::to_string(scope).unwrap(),
                format!("\"{}\"", scope.as_str())
            );
        }
        assert_eq!(Scope::default(), Scope::Session);
        assert_eq!(ScopeOrder::default(), ScopeOrder::Strict);
        assert_eq!("RELAXED".parse::<ScopeOrder>(), Ok(ScopeOrder::Relaxed));
    }

    #[test]
    fn bands_are_adjacent_and_disjoint() {
        assert_eq!(
            Stability::Stable.band().end,
            Stability::Dynamic.band().start
        );
        assert!(Stability::Stable.admits(9_999) && !Stability::Stable.admits(10_000));
        assert!(Stability::Dynamic.admits(10_000) && !Stability::Dynamic.admits(20_000));
    }
}
