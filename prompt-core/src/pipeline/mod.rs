//! The pipeline: every layer of one declared pipeline, sorted by priority and validated.

mod error;
mod manifest;
mod tools;
mod validate;

use std::any::TypeId;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Mutex, OnceLock, PoisonError};

pub use crate::layer_set::{IncludedLayer, LayerSet};
pub use crate::registry::{pipeline_names, registered_layers};
pub use error::{LayerRef, PipelineError, Problem, Relation};
pub(crate) use validate::joined;

use crate::context::{Band, LayerInput};
use crate::layer::{BoxedRender, LayerWriter, PromptLayer, Render};
use crate::registry::{pipelines, registrations};
use crate::spec::{DefaultPipeline, LayerSpec, PipelineSpec, PromptPipeline};

/// One layer of a pipeline: its spec and the value that renders it.
pub struct LayerEntry {
    spec: LayerSpec,
    layer: BoxedRender,
}

impl LayerEntry {
    /// An entry from a spec and any renderer: for layers chosen at run time
    /// rather than registered. The spec is kept by value, so nothing is leaked.
    ///
    /// The renderer's band need not match the spec's stability: a Stable
    /// spec's layer never sees the turn context, whatever its band (a
    /// `Render<Dynamic>` renderer reads the session context only, and the
    /// trace notes a value it asked for that only the turn holds).
    ///
    /// ```
    /// use prompt_core::{LayerInput, LayerSpec, LayerWriter, Pipeline, Render, Stability, Stable};
    /// use prompt_core::pipeline::LayerEntry;
    /// use prompt_core::spec::PipelineSpec;
    ///
    /// struct Greeting(String);
    /// impl Render<Stable> for Greeting {
    ///     fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_, Stable>) {
    ///         out.push_str(&self.0);
    ///     }
    /// }
    ///
    /// let configured = "Be brief.".to_owned(); // e.g. read from a config file
    /// let spec = LayerSpec::new("greeting", 10, Stability::Stable);
    /// let pipeline = Pipeline::from_layers(PipelineSpec::new("default"), [LayerEntry::new(spec, Greeting(configured))])?;
    /// assert_eq!(pipeline.len(), 1);
    /// # Ok::<(), prompt_core::PipelineError>(())
    /// ```
    pub fn new<B: Band>(spec: LayerSpec, layer: impl Render<B> + Send + Sync + 'static) -> Self {
        Self {
            spec,
            layer: BoxedRender::new(layer),
        }
    }

    /// An entry for the attribute-declared layer `L`, built as the registry
    /// builds it, without going through the registry.
    pub fn of<L: PromptLayer>() -> Self {
        Self {
            spec: L::SPEC,
            layer: L::__renderer(),
        }
    }

    /// The same entry, joining the pipelines named `pipelines`: how a
    /// pipeline built by hand with [`Pipeline::from_layers`] takes a layer
    /// declared for another (a declared pipeline uses `include = [..]`).
    ///
    /// ```
    /// use prompt_core::{prompt_layer, Pipeline};
    /// use prompt_core::pipeline::LayerEntry;
    /// use prompt_core::spec::PipelineSpec;
    ///
    /// #[prompt_layer(priority = 10, stability = Stable, paths = [Basic], text = "Cite lines.")]
    /// struct Citations; // in the default pipeline
    ///
    /// let review = PipelineSpec::new("review");
    /// assert!(Pipeline::from_layers(review, [LayerEntry::of::<Citations>()]).is_err());
    /// let entry = LayerEntry::of::<Citations>().pipelines(&["review"]);
    /// assert_eq!(Pipeline::from_layers(review, [entry])?.len(), 1);
    /// # Ok::<(), prompt_core::PipelineError>(())
    /// ```
    #[must_use]
    pub fn pipelines(mut self, pipelines: &'static [&'static str]) -> Self {
        self.spec = self.spec.pipelines(pipelines);
        self
    }

    /// The layer's spec.
    pub fn spec(&self) -> &LayerSpec {
        &self.spec
    }

    #[inline]
    pub(crate) fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
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
/// ([`collect`](Pipeline::collect), [`of`](Pipeline::of),
/// [`named`](Pipeline::named)), or from explicit entries
/// ([`from_layers`](Pipeline::from_layers)). Layers are in ascending
/// priority, which by the priority bands puts every Stable layer before every
/// Dynamic one. Every way to build one validates it again (bands, unique
/// priorities and names, paths, modes, `after`/`before`) and lists every
/// problem with its `file:line`.
#[derive(Debug)]
pub struct Pipeline {
    spec: PipelineSpec,
    layers: Vec<LayerEntry>,
    tools: crate::tools::ToolSet,
}

impl Pipeline {
    /// The default pipeline ([`DefaultPipeline`]): every registered layer
    /// without a `pipeline` key.
    pub fn collect() -> Result<Self, PipelineError> {
        Self::of::<DefaultPipeline>()
    }

    /// The pipeline `P` (declared with `#[prompt_pipeline]`): every registered
    /// layer whose `pipeline` key names `P`, and every layer `P` takes with
    /// `include = [..]`, narrowed as it says.
    ///
    /// ```
    /// use prompt_core::{prompt_layer, prompt_pipeline, Pipeline};
    ///
    /// #[prompt_pipeline(paths = [Basic])]
    /// pub struct Reviewer;
    ///
    /// #[prompt_layer(priority = 1, stability = Stable, paths = [Basic], text = "Review.", pipeline = Reviewer)]
    /// struct Persona;
    ///
    /// let pipeline = Pipeline::of::<Reviewer>()?;
    /// assert_eq!(pipeline.name(), "reviewer");
    /// assert_eq!(pipeline.specs().map(|s| s.name).collect::<Vec<_>>(), ["persona"]);
    /// # Ok::<(), prompt_core::PipelineError>(())
    /// ```
    pub fn of<P: PromptPipeline>() -> Result<Self, PipelineError> {
        Self::registered(P::SPEC)
    }

    /// The pipeline called `name`, looked up among the pipeline types declared
    /// in this binary: the run-time form of [`of`](Self::of), e.g. for a
    /// command-line option. An unknown name is an error that lists the known ones.
    pub fn named(name: &str) -> Result<Self, PipelineError> {
        let declared: Vec<&'static PipelineSpec> =
            pipelines().into_iter().filter(|s| s.name == name).collect();
        match declared.as_slice() {
            [spec] => Self::registered(**spec),
            [] => Err(PipelineError::new(
                name,
                vec![Problem::UnknownPipeline {
                    known: pipeline_names().into_iter().map(str::to_owned).collect(),
                }],
            )),
            [first, rest @ ..] => Err(PipelineError::new(
                name,
                rest.iter()
                    .map(|second| Problem::DuplicatePipeline {
                        first: pipeline_location(first),
                        second: pipeline_location(second),
                    })
                    .collect(),
            )),
        }
    }

    /// The manifest of the pipeline called `name` (see [`named`](Self::named))
    /// even when it is invalid: the table of every layer it would hold, in
    /// priority order, and the error listing its problems, so a tool can show
    /// what is wrong beside where it is. An unknown name gives an empty table.
    ///
    /// ```
    /// use prompt_core::{prompt_layer, prompt_pipeline, Pipeline};
    ///
    /// #[prompt_pipeline(paths = [Basic])]
    /// pub struct Review;
    /// #[prompt_layer(priority = 1, stability = Stable, paths = [Basic], text = "A.", pipeline = Review)]
    /// struct First;
    /// // A literal `1` here would fail the build; a const is only seen when collected.
    /// const ONE: u32 = 1;
    /// #[prompt_layer(priority = ONE, stability = Stable, paths = [Basic], text = "B.", pipeline = Review, name = "second")]
    /// struct Other;
    ///
    /// let (manifest, error) = Pipeline::manifest_named("review");
    /// assert!(manifest.contains("| first |") && manifest.contains("| second |"));
    /// assert!(error.unwrap().to_string().contains("both have priority 1"));
    /// ```
    pub fn manifest_named(name: &str) -> (String, Option<PipelineError>) {
        let error = match Self::named(name) {
            Ok(pipeline) => return (pipeline.manifest(), None),
            Err(error) => Some(error),
        };
        // Invalid: its layers as declared, for a table with the problems.
        let declared: Vec<&'static PipelineSpec> =
            pipelines().into_iter().filter(|s| s.name == name).collect();
        let Some(spec) = declared.first() else {
            return (String::new(), error);
        };
        let mut layers = Self::gather(**spec);
        sort(&mut layers);
        let shown = Self {
            spec: **spec,
            layers,
            tools: crate::tools::ToolSet::new(),
        };
        (shown.manifest(), error)
    }

    /// The layers of `spec`: those registered that join it, and those it
    /// includes, built from the sets that carry them (never looked up in
    /// the registry: an include-only layer is not registered at all).
    fn gather(spec: PipelineSpec) -> Vec<LayerEntry> {
        let mut entries: Vec<LayerEntry> = registrations()
            .filter(|r| r.spec().in_pipeline(spec.name))
            .map(|r| LayerEntry {
                spec: *r.spec(),
                layer: r.build(),
            })
            .collect();
        for include in spec.include {
            for (index, layer) in include.layers.iter().enumerate() {
                // The included spec is the layer's own, narrowed.
                if let Some(member) = include.member(index, &spec) {
                    entries.push(LayerEntry {
                        spec: member,
                        layer: layer.renderer(),
                    });
                }
            }
        }
        entries
    }

    fn registered(spec: PipelineSpec) -> Result<Self, PipelineError> {
        let entries = Self::gather(spec);
        let missing = missing_crates(spec.required_crates, entries.iter().map(|e| &e.spec));
        if !missing.is_empty() {
            return Err(PipelineError::new(spec.name, missing));
        }
        if entries.is_empty() {
            return Err(PipelineError::new(
                spec.name,
                vec![Problem::Empty {
                    known: pipeline_names().into_iter().map(str::to_owned).collect(),
                }],
            ));
        }
        Self::from_layers(spec, entries)
    }

    /// The default pipeline, collected once per process and then shared.
    pub fn global() -> Result<&'static Self, PipelineError> {
        static GLOBAL: OnceLock<Result<Pipeline, PipelineError>> = OnceLock::new();
        GLOBAL
            .get_or_init(Self::collect)
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The pipeline `P`, collected once per process and then shared: what
    /// [`global`](Self::global) is for the default pipeline, for a pipeline
    /// declared with `#[prompt_pipeline]`. A server holds sessions of it
    /// (`PromptSession<'static>`) without a pipeline of its own to keep
    /// alive; `global_of::<DefaultPipeline>()` is `global()`.
    ///
    /// ```
    /// use prompt_core::{prompt_layer, prompt_pipeline, Context, Pipeline, PromptBuilder, PromptSession};
    ///
    /// #[prompt_pipeline(paths = [Cached])]
    /// pub struct Support;
    ///
    /// #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "Help.", pipeline = Support)]
    /// struct Persona;
    ///
    /// fn open() -> Result<PromptSession<'static>, prompt_core::PipelineError> {
    ///     Ok(PromptBuilder::new(Pipeline::global_of::<Support>()?).session(Context::new()))
    /// }
    ///
    /// let sessions = [open()?, open()?];
    /// assert_eq!(sessions[1].build_cached(&Context::new())?.stable(), "Help.");
    /// assert!(std::ptr::eq(Pipeline::global_of::<Support>()?, Pipeline::global_of::<Support>()?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// What [`of`](Self::of) returns for `P`, on every call.
    pub fn global_of<P: PromptPipeline>() -> Result<&'static Self, PipelineError> {
        /// Each pipeline type's collection, kept for the process (one per
        /// type, as `global`'s static is for the default pipeline).
        type Collected = &'static Result<Pipeline, PipelineError>;
        static COLLECTED: Mutex<BTreeMap<TypeId, Collected>> = Mutex::new(BTreeMap::new());

        let key = TypeId::of::<P>();
        if key == TypeId::of::<DefaultPipeline>() {
            return Self::global();
        }
        let lock = || COLLECTED.lock().unwrap_or_else(PoisonError::into_inner);
        let known = lock().get(&key).copied();
        let collected = match known {
            Some(collected) => collected,
            None => {
                // Collected outside the lock: building the layers runs their
                // `Default` impls. A thread that loses the race drops its copy.
                let fresh = Self::of::<P>();
                *lock()
                    .entry(key)
                    .or_insert_with(|| Box::leak(Box::new(fresh)))
            }
        };
        collected.as_ref().map_err(Clone::clone)
    }

    /// A pipeline from explicit entries, sorted and validated like a collected one.
    ///
    /// ```
    /// use prompt_core::{prompt_layer, Pipeline};
    /// use prompt_core::spec::DefaultPipeline;
    /// use prompt_core::pipeline::LayerEntry;
    /// use prompt_core::spec::PromptPipeline;
    ///
    /// #[prompt_layer(priority = 10, stability = Stable, paths = [Basic], text = "Hi.")]
    /// struct Hello;
    ///
    /// let pipeline = Pipeline::from_layers(DefaultPipeline::SPEC, [LayerEntry::of::<Hello>()])?;
    /// assert_eq!(pipeline.specs().map(|s| s.name).collect::<Vec<_>>(), ["hello"]);
    /// # Ok::<(), prompt_core::PipelineError>(())
    /// ```
    pub fn from_layers(
        pipeline: PipelineSpec,
        layers: impl IntoIterator<Item = LayerEntry>,
    ) -> Result<Self, PipelineError> {
        let mut layers: Vec<LayerEntry> = layers.into_iter().collect();
        sort(&mut layers);
        let specs: Vec<&LayerSpec> = layers.iter().map(|l| &l.spec).collect();
        let problems = validate::problems(&pipeline, &specs);
        if problems.is_empty() {
            Ok(Self {
                spec: pipeline,
                layers,
                tools: crate::tools::ToolSet::new(),
            })
        } else {
            Err(PipelineError::new(pipeline.name, problems))
        }
    }

    /// The same pipeline without the layers called `names`: to drop a
    /// layer chosen at run time (or replace it, with
    /// [`with_layer`](Self::with_layer)). To leave out a layer of a library
    /// set, include the set's other layers instead.
    /// A name the pipeline does not have is an error that lists the ones it has.
    ///
    /// ```standalone_crate
    /// use prompt_core::{prompt_layer, Context, Pipeline, PromptBuilder};
    ///
    /// #[prompt_layer(priority = 1, stability = Stable, paths = [Basic], text = "Built-in persona.")]
    /// struct BasePrompt;
    /// #[prompt_layer(priority = 2, stability = Stable, paths = [Basic], text = "Rules.")]
    /// struct Rules;
    ///
    /// let pipeline = Pipeline::collect()?.without(&["base_prompt"])?;
    /// let prompt = PromptBuilder::new(&pipeline).build_basic(&Context::new(), &Context::new()).unwrap();
    /// assert_eq!(prompt.text(), "Rules.");
    /// assert!(Pipeline::collect()?.without(&["base_promt"]).is_err());
    /// # Ok::<(), prompt_core::PipelineError>(())
    /// ```
    pub fn without(mut self, names: &[&str]) -> Result<Self, PipelineError> {
        let problems: Vec<Problem> = names
            .iter()
            .filter(|name| self.layer(name).is_none())
            .map(|name| Problem::UnknownLayer {
                name: (*name).to_owned(),
                known: self.specs().map(|s| s.name.to_owned()).collect(),
            })
            .collect();
        if !problems.is_empty() {
            return Err(PipelineError::new(self.spec.name, problems));
        }
        self.layers.retain(|l| !names.contains(&l.spec.name));
        // A tool documented by a removed layer is an error here, as at `with_tools`.
        let tools = std::mem::take(&mut self.tools);
        self.with_tools(tools)
    }

    /// The same pipeline with `entry` added, validated again: e.g. a
    /// replacement for a layer removed with [`without`](Self::without).
    pub fn with_layer(self, entry: LayerEntry) -> Result<Self, PipelineError> {
        let mut layers = self.layers;
        layers.push(entry);
        Self::from_layers(self.spec, layers)?.with_tools(self.tools)
    }

    /// Checks that every package in `crates` contributed at least one layer.
    ///
    /// A layer crate that nothing in a binary names is dropped by the linker,
    /// and its layers vanish without an error. State the crates your agent
    /// needs here, in the library function that builds its pipeline, so that
    /// every binary and test that uses it fails with a message naming the
    /// missing crate. Names may use `-` or `_`.
    ///
    /// ```standalone_crate
    /// use prompt_core::{prompt_layer, Pipeline};
    /// use prompt_core::pipeline::Problem;
    ///
    /// #[prompt_layer(priority = 1, stability = Stable, paths = [Basic], text = "Hi.")]
    /// struct Hello;
    ///
    /// // This doctest's own package is `rust_out`; `my-layers` is not linked.
    /// let error = Pipeline::collect()?.require_crates(&["my-layers"]).unwrap_err();
    /// assert!(matches!(&error.problems[0], Problem::MissingCrate { name, .. } if name == "my-layers"));
    /// # Ok::<(), prompt_core::PipelineError>(())
    /// ```
    pub fn require_crates(self, crates: &[&str]) -> Result<Self, PipelineError> {
        let problems = missing_crates(crates, self.specs());
        if problems.is_empty() {
            Ok(self)
        } else {
            Err(PipelineError::new(self.spec.name, problems))
        }
    }

    /// Checks that the pipeline has a layer called each of `names`: the
    /// finer-grained form of [`require_crates`](Self::require_crates).
    pub fn require_layers(self, names: &[&str]) -> Result<Self, PipelineError> {
        let problems: Vec<Problem> = names
            .iter()
            .filter(|name| self.layer(name).is_none())
            .map(|name| Problem::MissingLayer {
                name: (*name).to_owned(),
            })
            .collect();
        if problems.is_empty() {
            Ok(self)
        } else {
            Err(PipelineError::new(self.spec.name, problems))
        }
    }

    /// The pipeline's name.
    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// The pipeline's declaration: what it serves, its separator.
    pub fn spec(&self) -> &PipelineSpec {
        &self.spec
    }

    /// The layers' specs, in render order.
    pub fn specs(&self) -> impl ExactSizeIterator<Item = &LayerSpec> + '_ {
        self.layers.iter().map(|l| &l.spec)
    }

    /// The spec of the layer called `name`, when the pipeline has it.
    pub fn layer(&self, name: &str) -> Option<&LayerSpec> {
        self.specs().find(|s| s.name == name)
    }

    /// How many layers the pipeline has.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Whether the pipeline has no layer (only possible through `from_layers` or `without`).
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    pub(crate) fn entries(&self) -> &[LayerEntry] {
        &self.layers
    }
}

/// Render order: priority, then name and definition site (a tie is a problem
/// the validation reports; the order is still the same in every process).
fn sort(layers: &mut [LayerEntry]) {
    layers.sort_by(|a, b| {
        (a.spec.priority, a.spec.name, a.spec.file, a.spec.line).cmp(&(
            b.spec.priority,
            b.spec.name,
            b.spec.file,
            b.spec.line,
        ))
    });
}

/// A [`Problem::MissingCrate`] for each of `crates` (`-` or `_`) that no
/// layer of `specs` comes from.
pub fn missing_crates<'a>(
    crates: &[&str],
    specs: impl Iterator<Item = &'a LayerSpec>,
) -> Vec<Problem> {
    let normal = |name: &str| name.replace('-', "_");
    let mut linked: Vec<String> = specs.map(|s| normal(s.krate)).collect();
    linked.sort_unstable();
    linked.dedup();
    crates
        .iter()
        .filter(|name| !linked.contains(&normal(name)))
        .map(|name| Problem::MissingCrate {
            name: (*name).to_owned(),
            linked: linked.clone(),
        })
        .collect()
}

fn pipeline_location(spec: &PipelineSpec) -> String {
    format!(
        "`{}` ({} at {})",
        spec.name,
        spec.type_name,
        spec.location()
    )
}
