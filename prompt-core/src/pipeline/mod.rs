//! The pipeline: every layer of one name, sorted by priority and validated.

mod error;
mod manifest;
mod validate;

use std::fmt;
use std::sync::OnceLock;

pub use error::{LayerRef, PipelineError, Problem};

use crate::layer::{LayerSpec, PromptLayer, Render};
use crate::registry::{pipeline_names, registrations};

/// The name of the pipeline a layer joins when its attribute names none.
pub const DEFAULT_PIPELINE: &str = "default";

/// One layer of a pipeline: its spec and the value that renders it.
pub struct LayerEntry {
    spec: &'static LayerSpec,
    layer: Box<dyn Render + Send + Sync>,
}

impl LayerEntry {
    /// An entry from a spec and any renderer. Used by [`Pipeline::from_layers`]
    /// for layers that are chosen at run time rather than registered.
    pub fn new(spec: &'static LayerSpec, layer: impl Render + Send + Sync + 'static) -> Self {
        Self {
            spec,
            layer: Box::new(layer),
        }
    }

    /// An entry for an attribute-declared layer, without going through the registry.
    pub fn of<L: PromptLayer + Render>(layer: L) -> Self {
        Self::new(&L::SPEC, layer)
    }

    /// The layer's spec.
    pub fn spec(&self) -> &'static LayerSpec {
        self.spec
    }

    pub(crate) fn render(&self, out: &mut String, input: &crate::LayerInput<'_>) {
        self.layer.render(out, input);
    }
}

impl fmt::Debug for LayerEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("LayerEntry").field(&self.spec.name).finish()
    }
}

/// An ordered, validated list of layers.
///
/// Built from every `#[prompt_layer]` registration linked into the binary
/// ([`collect`](Pipeline::collect), [`named`](Pipeline::named)), or from
/// explicit entries ([`from_layers`](Pipeline::from_layers)). Layers are in
/// ascending priority, which by the priority bands puts every Stable layer
/// before every Dynamic one.
#[derive(Debug)]
pub struct Pipeline {
    name: String,
    layers: Vec<LayerEntry>,
}

impl Pipeline {
    /// The default pipeline: every registered layer without a `pipeline` key.
    pub fn collect() -> Result<Self, PipelineError> {
        Self::named(DEFAULT_PIPELINE)
    }

    /// The pipeline `name`: every registered layer with `pipeline = "name"`.
    ///
    /// Fails, listing every problem with its `file:line`, when two layers share a
    /// priority or a name, a priority is outside its band, a layer renders on
    /// no path or mode, or no layer is registered under `name` at all.
    pub fn named(name: &str) -> Result<Self, PipelineError> {
        let entries: Vec<LayerEntry> = registrations()
            .filter(|r| r.spec.pipeline == name)
            .map(|r| LayerEntry {
                spec: r.spec,
                layer: (r.build)(),
            })
            .collect();
        if entries.is_empty() {
            return Err(PipelineError {
                pipeline: name.to_owned(),
                problems: vec![Problem::Empty {
                    known: pipeline_names().into_iter().map(str::to_owned).collect(),
                }],
            });
        }
        Self::from_layers(name, entries)
    }

    /// The default pipeline, collected once per process and then shared.
    pub fn global() -> Result<&'static Self, PipelineError> {
        static GLOBAL: OnceLock<Result<Pipeline, PipelineError>> = OnceLock::new();
        GLOBAL
            .get_or_init(Self::collect)
            .as_ref()
            .map_err(Clone::clone)
    }

    /// A pipeline from explicit entries, sorted and validated like a collected one.
    ///
    /// ```
    /// use prompt_core::{prompt_layer, LayerEntry, Pipeline};
    ///
    /// #[prompt_layer(priority = 10, stability = Stable, paths = [Basic], text = "Hi.", pipeline = "doc")]
    /// struct Hello;
    ///
    /// let pipeline = Pipeline::from_layers("doc", [LayerEntry::of(Hello)]).unwrap();
    /// assert_eq!(pipeline.specs().map(|s| s.name).collect::<Vec<_>>(), ["hello"]);
    /// ```
    pub fn from_layers(
        name: &str,
        layers: impl IntoIterator<Item = LayerEntry>,
    ) -> Result<Self, PipelineError> {
        let mut layers: Vec<LayerEntry> = layers.into_iter().collect();
        layers.sort_by(|a, b| {
            (a.spec.priority, a.spec.name, a.spec.file, a.spec.line).cmp(&(
                b.spec.priority,
                b.spec.name,
                b.spec.file,
                b.spec.line,
            ))
        });
        let specs: Vec<&'static LayerSpec> = layers.iter().map(|l| l.spec).collect();
        let problems = validate::problems(name, &specs);
        if problems.is_empty() {
            Ok(Self {
                name: name.to_owned(),
                layers,
            })
        } else {
            Err(PipelineError {
                pipeline: name.to_owned(),
                problems,
            })
        }
    }

    /// The pipeline's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The layers' specs, in render order.
    pub fn specs(&self) -> impl ExactSizeIterator<Item = &'static LayerSpec> + '_ {
        self.layers.iter().map(|l| l.spec)
    }

    /// The spec of the layer called `name`.
    pub fn spec(&self, name: &str) -> Option<&'static LayerSpec> {
        self.specs().find(|s| s.name == name)
    }

    /// How many layers the pipeline has.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Whether the pipeline has no layer (only possible through `from_layers`).
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    pub(crate) fn entries(&self) -> &[LayerEntry] {
        &self.layers
    }
}
