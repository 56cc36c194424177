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
    /// Every path, in order. The default paths of [`LayerSpec::new`].
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

/// How a Dynamic layer gives way when a token budget is short.
///
/// Set with the attribute's `yields` key. Stable layers are never cut (the
/// cached prefix must stay byte-identical), so the key is rejected on them.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
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

/// A string that names no variant of [`Stability`], [`AssemblyPath`],
/// [`PromptMode`], [`Yields`] or [`Channel`].
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
///
/// The struct is `#[non_exhaustive]`: read its fields, but build one with
/// [`LayerSpec::new`] and the `with_*` methods, so that a field added in a
/// later release (a budget, a cache hint) breaks no one's code.
///
/// ```
/// use prompt_core::{AssemblyPath, LayerSpec, Stability};
///
/// // A layer chosen at run time, e.g. from a configuration file.
/// const RULES: LayerSpec = LayerSpec::new("house_rules", 150, Stability::Stable)
///     .with_paths(&[AssemblyPath::Cached])
///     .defined_at("my-agent", "src/rules.rs", 12);
/// assert_eq!(RULES.location(), "my-agent: src/rules.rs:12");
/// assert!(RULES.in_pipeline("default"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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
    /// The names of the pipelines this layer joins (`["default"]` unless the
    /// attribute's `pipeline` key says otherwise).
    pub pipelines: &'static [&'static str],
    /// How the layer gives way to a token budget (Dynamic layers only).
    pub yields: Yields,
    /// Where the layer's text travels (Dynamic layers only).
    pub channel: Channel,
    /// Layers this one must come after (`after = [..]`).
    pub after: &'static [LayerLink],
    /// Layers this one must come before (`before = [..]`).
    pub before: &'static [LayerLink],
    /// When set, the layer is declared conditionally silent: this says which
    /// session content wakes it.
    pub silent: Option<&'static str>,
    /// The Rust type's name as written at the definition.
    pub type_name: &'static str,
    /// The package that defines the layer (`CARGO_PKG_NAME`), e.g. `prompt-layers`.
    pub krate: &'static str,
    /// Source file of the definition, relative to its package's manifest
    /// directory (e.g. `src/layers/base.rs`), so it reads the same on every machine.
    pub file: &'static str,
    /// Source line of the definition.
    pub line: u32,
    /// Set only on the stand-in spec of a layer whose attribute had errors:
    /// relations naming it hold silently, so one mistake gives one error.
    pub(crate) stub: bool,
}

impl LayerSpec {
    /// A spec with the given name, priority and stability, on both paths, in
    /// every mode, in the default pipeline, yielding by [`Yields::Shed`] on
    /// the [`Channel::System`], with no relations and no definition site.
    pub const fn new(name: &'static str, priority: u32, stability: Stability) -> Self {
        Self {
            name,
            priority,
            stability,
            paths: AssemblyPath::ALL,
            modes: PromptMode::ALL,
            pipelines: &[crate::pipeline::DEFAULT_PIPELINE],
            yields: Yields::Shed,
            channel: Channel::System,
            after: &[],
            before: &[],
            silent: None,
            type_name: name,
            krate: "",
            file: "",
            line: 0,
            stub: false,
        }
    }

    /// The same spec, rendering on `paths` only.
    #[must_use]
    pub const fn with_paths(mut self, paths: &'static [AssemblyPath]) -> Self {
        self.paths = paths;
        self
    }

    /// The same spec, speaking in `modes` only.
    #[must_use]
    pub const fn with_modes(mut self, modes: &'static [PromptMode]) -> Self {
        self.modes = modes;
        self
    }

    /// The same spec, joining the pipelines named `pipelines`.
    #[must_use]
    pub const fn with_pipelines(mut self, pipelines: &'static [&'static str]) -> Self {
        self.pipelines = pipelines;
        self
    }

    /// The same spec, giving way to a budget as `yields` says.
    #[must_use]
    pub const fn with_yields(mut self, yields: Yields) -> Self {
        self.yields = yields;
        self
    }

    /// The same spec, sending its text through `channel`.
    #[must_use]
    pub const fn with_channel(mut self, channel: Channel) -> Self {
        self.channel = channel;
        self
    }

    /// The same spec, ordered after the layers in `after`.
    #[must_use]
    pub const fn with_after(mut self, after: &'static [LayerLink]) -> Self {
        self.after = after;
        self
    }

    /// The same spec, ordered before the layers in `before`.
    #[must_use]
    pub const fn with_before(mut self, before: &'static [LayerLink]) -> Self {
        self.before = before;
        self
    }

    /// The same spec, declared conditionally silent: `wakes_it` says what
    /// session content makes it speak.
    #[must_use]
    pub const fn with_silent(mut self, wakes_it: &'static str) -> Self {
        self.silent = Some(wakes_it);
        self
    }

    /// The same spec, naming its Rust type.
    #[must_use]
    pub const fn with_type_name(mut self, type_name: &'static str) -> Self {
        self.type_name = type_name;
        self
    }

    /// The same spec, defined in package `krate` at `file` (relative to the
    /// package's manifest directory) and `line`.
    #[must_use]
    pub const fn defined_at(mut self, krate: &'static str, file: &'static str, line: u32) -> Self {
        self.krate = krate;
        self.file = file;
        self.line = line;
        self
    }

    /// Whether the layer renders on `path`.
    pub fn on_path(&self, path: AssemblyPath) -> bool {
        self.paths.contains(&path)
    }

    /// Whether the layer speaks in `mode`.
    pub fn in_mode(&self, mode: PromptMode) -> bool {
        self.modes.contains(&mode)
    }

    /// Whether the layer joins the pipeline called `pipeline`.
    pub fn in_pipeline(&self, pipeline: &str) -> bool {
        self.pipelines.contains(&pipeline)
    }

    /// Where the layer is defined, for error messages and the manifest:
    /// `prompt-layers: src/layers/base.rs:9` (the package is left out when unknown).
    pub fn location(&self) -> String {
        // `file!()` uses the host's separator; a location must not depend on it.
        let file = self.file.replace('\\', "/");
        if self.krate.is_empty() {
            format!("{file}:{}", self.line)
        } else {
            format!("{}: {file}:{}", self.krate, self.line)
        }
    }
}

/// A layer named in another layer's `after = [..]` or `before = [..]`.
///
/// Resolved when asked, not when the spec is built, so two layers may name
/// each other (`a` after `b`, `b` before `a`) without a cycle in their consts.
#[derive(Clone, Copy)]
pub struct LayerLink(pub(crate) fn() -> LayerSpec);

impl LayerLink {
    /// A link to the attribute-declared layer `L`.
    pub const fn of<L: PromptLayer>() -> Self {
        Self(crate::__private_v1::layer_spec::<L>)
    }

    /// The linked layer's spec.
    pub fn spec(&self) -> LayerSpec {
        (self.0)()
    }
}

impl fmt::Debug for LayerLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("LayerLink").field(&self.spec().name).finish()
    }
}

impl PartialEq for LayerLink {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.spec(), other.spec());
        (a.name, a.krate, a.file, a.line) == (b.name, b.krate, b.file, b.line)
    }
}

impl Eq for LayerLink {}

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

/// A layer: a type with a static [`LayerSpec`], rendered through its [`Render`]
/// impl or the attribute's static `text`/`file`.
///
/// Implemented by `#[prompt_layer]`; there is no reason to write it by hand.
/// `Render` is not a supertrait so that an attribute with an error still
/// yields a `PromptLayer` impl (and other layers naming it in `after`/`before`
/// get no second error), and so that a `text = ".."` layer needs no impl.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt layer",
    label = "not declared with `#[prompt_layer]`",
    note = "only types declared with `#[prompt_layer(..)]` can be registered or named in `after`/`before`"
)]
pub trait PromptLayer: Send + Sync + 'static {
    /// The layer's static description.
    const SPEC: LayerSpec;

    /// Builds the value that renders the layer, as the registry does: the
    /// unit struct, `Default::default()`, or the attribute's static text.
    /// Written by the attribute; not part of the public API.
    #[doc(hidden)]
    fn __renderer() -> Box<dyn Render + Send + Sync>;
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
    fn a_spec_built_with_constructors_has_the_documented_defaults() {
        const SPEC: LayerSpec = LayerSpec::new("x", 1, Stability::Stable);
        assert_eq!(SPEC.paths, AssemblyPath::ALL);
        assert_eq!(SPEC.modes, PromptMode::ALL);
        assert_eq!(SPEC.pipelines, ["default"]);
        assert_eq!((SPEC.yields, SPEC.channel), (Yields::Shed, Channel::System));
        assert_eq!(SPEC.location(), ":0");
        let located = SPEC.defined_at("my-crate", "src\\x.rs", 3);
        assert_eq!(located.location(), "my-crate: src/x.rs:3");
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
