//! Link-time collection of every layer and pipeline in the binary, through `inventory`.

use crate::layer::{BoxedRender, StaticText};
use crate::spec::LayerSpec;
use crate::spec::{DefaultPipeline, PipelineSpec, PromptPipeline};

/// One layer as `#[prompt_layer]` registers it. Built only through
/// [`Registration::new`], so a new field is not a breaking change for
/// generated code.
#[doc(hidden)]
pub struct Registration {
    spec: &'static LayerSpec,
    build: Build,
}

/// How the registry builds a layer's renderer.
enum Build {
    /// The layer's own `__renderer` (a struct that implements `Render`).
    Layer(fn() -> BoxedRender),
    /// A `text = ".."` or `file = ".."` layer: one renderer type for every
    /// one of them, so the attribute writes no function per layer.
    Text(StaticText),
}

impl Registration {
    /// A registration of the layer described by `spec`, built by `build`.
    pub const fn new(spec: &'static LayerSpec, build: fn() -> BoxedRender) -> Self {
        Self {
            spec,
            build: Build::Layer(build),
        }
    }

    /// A registration of the static-text layer described by `spec`, which
    /// renders `text` (its trailing whitespace trimmed, as
    /// [`StaticText::new`] does).
    pub const fn text(spec: &'static LayerSpec, text: &'static str) -> Self {
        Self {
            spec,
            build: Build::Text(StaticText::new(text)),
        }
    }

    pub(crate) fn spec(&self) -> &'static LayerSpec {
        self.spec
    }

    pub(crate) fn build(&self) -> BoxedRender {
        match self.build {
            Build::Layer(build) => build(),
            Build::Text(text) => text.boxed_as(self.spec.stability),
        }
    }
}

inventory::collect!(Registration);

/// One pipeline as `#[prompt_pipeline]` registers it.
#[doc(hidden)]
pub struct PipelineRegistration {
    spec: &'static PipelineSpec,
}

impl PipelineRegistration {
    /// A registration of the pipeline described by `spec`.
    pub const fn new(spec: &'static PipelineSpec) -> Self {
        Self { spec }
    }
}

inventory::collect!(PipelineRegistration);

inventory::submit! {
    PipelineRegistration::new(&<DefaultPipeline as PromptPipeline>::SPEC)
}

/// Every layer registration linked into this binary, in no particular order.
pub(crate) fn registrations() -> impl Iterator<Item = &'static Registration> {
    inventory::iter::<Registration>.into_iter()
}

/// The spec of every layer registered in this binary: each `#[prompt_layer]`
/// type that joins a pipeline at link time, in no particular order. An
/// include-only layer (`pipeline = []`) is never among them: the sets and
/// pipelines that include it build it. A test can assert with it what
/// linking a crate added to the registry.
///
/// ```
/// use prompt_core::{prompt_layer, pipeline::registered_layers};
///
/// #[prompt_layer(priority = 1, stability = Stable, paths = [Basic], text = "Mine.")]
/// struct Mine;
/// #[prompt_layer(priority = 2, stability = Stable, paths = [Basic], text = "Lent.", pipeline = [])]
/// struct IncludeOnly;
///
/// let names: Vec<&str> = registered_layers().map(|s| s.name).collect();
/// assert!(names.contains(&"mine"));
/// assert!(!names.contains(&"include_only"));
/// ```
pub fn registered_layers() -> impl Iterator<Item = &'static LayerSpec> {
    registrations().map(Registration::spec)
}

/// Every pipeline declared in this binary, sorted by name, then definition site.
pub(crate) fn pipelines() -> Vec<&'static PipelineSpec> {
    let mut specs: Vec<&'static PipelineSpec> = inventory::iter::<PipelineRegistration>
        .into_iter()
        .map(|r| r.spec)
        .collect();
    specs.sort_by_key(|s| (s.name, s.krate, s.file, s.line));
    specs
}

/// The names of every pipeline declared in this binary (with
/// `#[prompt_pipeline]`, plus `"default"`), sorted.
///
/// A test that snapshots each pipeline's manifest can assert this list, so a
/// new pipeline does not go unreviewed.
pub fn pipeline_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = pipelines().into_iter().map(|s| s.name).collect();
    names.dedup();
    names
}
