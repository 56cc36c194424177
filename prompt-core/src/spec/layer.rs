//! A layer's static description: [`LayerSpec`] and the [`LayerLink`]s of its
//! `after`/`before` relations.

use std::fmt;

use super::enums::{AssemblyPath, Channel, PromptMode, Scope, Stability, Yields};

/// Everything the framework knows about a layer without running it.
///
/// The attribute writes one as the associated const [`PromptLayer::SPEC`](crate::PromptLayer::SPEC);
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
///     .paths(&[AssemblyPath::Cached])
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
    /// How widely the layer's text is shared (Stable layers only; see
    /// [`Scope`]). Wider scopes come first in the Stable band.
    pub scope: Scope,
    /// Layers this one must come after (`after = [..]`).
    pub after: &'static [LayerLink],
    /// Layers this one must come before (`before = [..]`).
    pub before: &'static [LayerLink],
    /// When set, the layer is declared conditionally silent: this says which
    /// session content wakes it.
    pub silent: Option<&'static str>,
    /// The Rust type's name as written at the definition.
    pub type_name: &'static str,
    /// The package that defines the layer: [`package`](Self::package).
    pub(crate) krate: &'static str,
    /// Source file of the definition: [`file`](Self::file).
    pub(crate) file: &'static str,
    /// Source line of the definition: [`line`](Self::line).
    pub(crate) line: u32,
    /// The pipeline that took this layer with `include = [..]`, on the copy
    /// of the spec that pipeline holds (see [`Include`](super::Include)).
    pub(crate) included_by: Option<&'static str>,
    /// Set only on the stand-in spec of a layer whose attribute had errors:
    /// relations naming it hold silently, so one mistake gives one error.
    pub(crate) stub: bool,
}

impl LayerSpec {
    /// The spec `#[prompt_layer]` starts from: [`new`](Self::new) on `paths`,
    /// of type `type_name`, defined in package `krate` at `file` and `line`,
    /// in one call, so a layer's generated `SPEC` is one call to type-check.
    /// Reached through `__private_v1`; not public API.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const fn __declared(
        name: &'static str,
        priority: u32,
        stability: Stability,
        paths: &'static [AssemblyPath],
        type_name: &'static str,
        krate: &'static str,
        file: &'static str,
        line: u32,
    ) -> Self {
        let mut spec = Self::new(name, priority, stability);
        spec.paths = paths;
        spec.type_name = type_name;
        spec.krate = krate;
        spec.file = file;
        spec.line = line;
        spec
    }

    /// A spec with the given name, priority and stability, on both paths, in
    /// every mode, in the default pipeline, yielding by [`Yields::Shed`] on
    /// the [`Channel::System`], of [`Scope::Session`], with no relations and
    /// no definition site.
    pub const fn new(name: &'static str, priority: u32, stability: Stability) -> Self {
        Self {
            name,
            priority,
            stability,
            paths: AssemblyPath::ALL,
            modes: PromptMode::ALL,
            pipelines: &[super::DEFAULT_PIPELINE],
            yields: Yields::Shed,
            channel: Channel::System,
            scope: Scope::Session,
            after: &[],
            before: &[],
            silent: None,
            type_name: name,
            krate: "",
            file: "",
            line: 0,
            included_by: None,
            stub: false,
        }
    }

    /// The same spec, rendering on `paths` only.
    #[must_use]
    pub const fn paths(mut self, paths: &'static [AssemblyPath]) -> Self {
        self.paths = paths;
        self
    }

    /// The same spec, speaking in `modes` only.
    #[must_use]
    pub const fn modes(mut self, modes: &'static [PromptMode]) -> Self {
        self.modes = modes;
        self
    }

    /// The same spec, joining the pipelines named `pipelines`.
    ///
    /// The way to put a layer into a pipeline built by hand with
    /// [`Pipeline::from_layers`](crate::Pipeline::from_layers), which checks
    /// that every entry joins it (for an attribute-declared layer,
    /// [`LayerEntry::pipelines`](crate::pipeline::LayerEntry::pipelines));
    /// a pipeline declared with `#[prompt_pipeline]` takes a layer it did not
    /// define with `include = [..]` instead.
    #[must_use]
    pub const fn pipelines(mut self, pipelines: &'static [&'static str]) -> Self {
        self.pipelines = pipelines;
        self
    }

    /// The same spec, giving way to a budget as `yields` says.
    #[must_use]
    pub const fn yields(mut self, yields: Yields) -> Self {
        self.yields = yields;
        self
    }

    /// The same spec, sending its text through `channel`.
    #[must_use]
    pub const fn channel(mut self, channel: Channel) -> Self {
        self.channel = channel;
        self
    }

    /// The same spec, shared as widely as `scope` says (Stable layers only).
    #[must_use]
    pub const fn scope(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }

    /// The same spec, ordered after the layers in `after`.
    #[must_use]
    pub const fn after(mut self, after: &'static [LayerLink]) -> Self {
        self.after = after;
        self
    }

    /// The same spec, ordered before the layers in `before`.
    #[must_use]
    pub const fn before(mut self, before: &'static [LayerLink]) -> Self {
        self.before = before;
        self
    }

    /// The same spec, declared conditionally silent: `wakes_it` says what
    /// session content makes it speak.
    #[must_use]
    pub const fn silent(mut self, wakes_it: &'static str) -> Self {
        self.silent = Some(wakes_it);
        self
    }

    /// The same spec, naming its Rust type.
    #[must_use]
    pub const fn type_name(mut self, type_name: &'static str) -> Self {
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

    /// The package that defines the layer (`CARGO_PKG_NAME`), e.g.
    /// `prompt-layers`; empty when unknown.
    pub const fn package(&self) -> &'static str {
        self.krate
    }

    /// Source file of the definition, relative to its package's manifest
    /// directory (e.g. `src/standard/base.rs`), as `file!()` wrote it; see
    /// [`location`](Self::location) for the form that reads the same on
    /// every machine.
    pub const fn file(&self) -> &'static str {
        self.file
    }

    /// Source line of the definition (0 when unknown).
    pub const fn line(&self) -> u32 {
        self.line
    }

    /// Whether the layer renders on `path`.
    pub fn on_path(&self, path: AssemblyPath) -> bool {
        self.paths.contains(&path)
    }

    /// Whether the layer speaks in `mode`.
    pub fn in_mode(&self, mode: PromptMode) -> bool {
        self.modes.contains(&mode)
    }

    /// Whether the layer joins the pipeline called `pipeline`: through its
    /// own `pipeline` key, or because that pipeline included it.
    pub fn in_pipeline(&self, pipeline: &str) -> bool {
        self.pipelines.contains(&pipeline) || self.included_by == Some(pipeline)
    }

    /// The pipeline that took this layer with `#[prompt_pipeline(include = [..])]`,
    /// on the copy of the spec that pipeline holds; `None` on the layer's own spec.
    pub fn included_by(&self) -> Option<&'static str> {
        self.included_by
    }

    /// Whether `other` is the same layer (the same definition), whatever a
    /// pipeline narrowed.
    pub const fn same_layer(&self, other: &LayerSpec) -> bool {
        self.line == other.line
            && same(self.name, other.name)
            && same(self.type_name, other.type_name)
            && same(self.krate, other.krate)
            && same(self.file, other.file)
    }

    /// Where the layer is defined, for error messages and the manifest:
    /// `prompt-layers: src/standard/base.rs:9` (the package is left out when unknown).
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

/// `a == b`, in a `const fn`.
pub(crate) const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A layer named in another layer's `after = [..]` or `before = [..]`.
///
/// Resolved when asked, not when the spec is built, so two layers may name
/// each other (`a` after `b`, `b` before `a`) without a cycle in their consts.
#[derive(Clone, Copy)]
pub struct LayerLink(pub(crate) fn() -> LayerSpec);

impl LayerLink {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_built_with_constructors_has_the_documented_defaults() {
        const SPEC: LayerSpec = LayerSpec::new("x", 1, Stability::Stable);
        assert_eq!(SPEC.paths, AssemblyPath::ALL);
        assert_eq!(SPEC.modes, PromptMode::ALL);
        assert_eq!(SPEC.pipelines, ["default"]);
        assert_eq!((SPEC.yields, SPEC.channel), (Yields::Shed, Channel::System));
        assert_eq!(SPEC.scope, Scope::Session);
        assert_eq!(SPEC.scope(Scope::Project).scope, Scope::Project);
        assert_eq!(SPEC.location(), ":0");
        let located = SPEC.defined_at("my-crate", "src\\x.rs", 3);
        assert_eq!(located.location(), "my-crate: src/x.rs:3");
    }
}
