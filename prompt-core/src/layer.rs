//! What a layer is: its static [`LayerSpec`] and the [`Render`] it performs.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::context::LayerInput;

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
    /// The lowercase name, as in serde and the manifest.
    pub const fn as_str(self) -> &'static str {
        match self {
            AssemblyPath::Basic => "basic",
            AssemblyPath::Cached => "cached",
        }
    }
}

/// How much a prompt says.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
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

/// How a Dynamic layer gives way to a token budget (the attribute's `yields` key).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Yields {
    /// Removed whole when the prompt is over budget; the default.
    #[default]
    Shed,
    /// Cut on a character boundary, after every `Shed` layer is gone.
    Truncate,
    /// Never touched; a prompt over budget with only `Keep` layers left is an error.
    Keep,
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

/// A string that names no variant of [`Stability`], [`AssemblyPath`] or [`PromptMode`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{got}`: expected one of {}", expected.join(", "))]
pub struct ParseEnumError {
    what: &'static str,
    got: String,
    expected: &'static [&'static str],
}

/// Everything the framework knows about a layer without running it.
///
/// The attribute writes one as the associated const [`PromptLayer::SPEC`];
/// the compile-time checks read it, and the pipeline sorts and validates by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerSpec {
    /// Unique (per pipeline) snake_case name.
    pub name: &'static str,
    /// Position: lower renders first. Must lie in `stability.band()`.
    pub priority: u32,
    /// Cache partition.
    pub stability: Stability,
    /// Entry points this layer renders on. Never empty.
    pub paths: &'static [AssemblyPath],
    /// Modes this layer speaks in. Never empty.
    pub modes: &'static [PromptMode],
    /// The pipeline this layer joins (`"default"` unless the attribute says otherwise).
    pub pipeline: &'static str,
    /// When set, the layer is declared conditionally silent: this says which
    /// session content wakes it.
    pub silent: Option<&'static str>,
    /// The Rust type's name as written at the definition.
    pub type_name: &'static str,
    /// Source file of the definition, as `file!()` reports it.
    pub file: &'static str,
    /// Source line of the definition.
    pub line: u32,
}

impl LayerSpec {
    /// Whether the layer renders on `path`.
    pub fn on_path(&self, path: AssemblyPath) -> bool {
        self.paths.contains(&path)
    }

    /// Whether the layer speaks in `mode`.
    pub fn in_mode(&self, mode: PromptMode) -> bool {
        self.modes.contains(&mode)
    }

    /// `file:line` of the definition, for error messages.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// Writes a layer's text.
///
/// Layers are pure: format from `input` only, with no I/O, clock or
/// environment. Loading belongs in sources, before assembly. Writing nothing
/// makes the layer silent for this call.
///
/// ```
/// use prompt_core::{LayerInput, Render};
///
/// struct Greeting;
///
/// impl Render for Greeting {
///     fn render(&self, out: &mut String, _input: &LayerInput<'_>) {
///         out.push_str("Be brief.");
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "layer `{Self}` has no `Render` impl, so it cannot write its text",
    label = "`{Self}` needs `impl prompt_core::Render for {Self}`",
    note = "write `impl Render for {Self} {{ fn render(&self, out: &mut String, input: &LayerInput<'_>) {{ .. }} }}`, or give the attribute static content with `text = \"...\"` or `file = \"path.md\"`"
)]
pub trait Render {
    /// Appends this layer's text for one assembly to `out`.
    fn render(&self, out: &mut String, input: &LayerInput<'_>);
}

/// A layer: a type with a static [`LayerSpec`], rendered through its [`Render`] impl.
///
/// Implemented by `#[prompt_layer]`; there is no reason to write it by hand.
/// `Render` is not a supertrait so that an attribute with an error still
/// yields a `PromptLayer` impl (and other layers naming it in `after`/`before`
/// get no second error); registration requires `Render`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt layer",
    label = "not declared with `#[prompt_layer]`",
    note = "only types declared with `#[prompt_layer(..)]` can be registered or named in `after`/`before`"
)]
pub trait PromptLayer: Send + Sync + 'static {
    /// The layer's static description.
    const SPEC: LayerSpec;
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn bands_are_adjacent_and_disjoint() {
        assert_eq!(
            Stability::Stable.band().end,
            Stability::Dynamic.band().start
        );
        assert!(Stability::Stable.admits(9_999) && !Stability::Stable.admits(10_000));
        assert!(Stability::Dynamic.admits(10_000) && !Stability::Dynamic.admits(20_000));
    }
}
