//! Named sets of layers, for `#[prompt_pipeline(include = [..])]`:
//! [`LayerSet`] and its members, [`IncludedLayer`]s.

use crate::layer::{BoxedRender, PromptLayer};
pub use crate::spec::IncludedLayer;

/// `L`'s renderer, erased for a spec to hold (see [`IncludedLayer`]).
fn build_of<L: PromptLayer>() -> Box<dyn std::any::Any + Send + Sync> {
    Box::new(L::__renderer())
}

impl IncludedLayer {
    /// The member for the attribute-declared layer `L`: its spec, and how
    /// to build it as the registry would.
    pub const fn of<L: PromptLayer>() -> Self {
        Self::__new(L::SPEC, build_of::<L>)
    }

    /// Builds the value that renders the layer.
    pub(crate) fn renderer(&self) -> BoxedRender {
        match self.build().downcast::<BoxedRender>() {
            Ok(boxed) => *boxed,
            Err(_) => unreachable!("an IncludedLayer is built by `IncludedLayer::of` only"),
        }
    }
}

/// A named set of layers that any pipeline can take with
/// `#[prompt_pipeline(include = [..])]`, without the set's crate knowing the
/// pipeline. Every `#[prompt_layer]` type is a set of itself, so `include`
/// takes layers and sets alike.
///
/// A crate exports a set as a unit struct listing its layers, each with
/// [`IncludedLayer::of`]:
///
/// ```
/// use prompt_core::{prompt_layer, prompt_pipeline, Pipeline};
/// use prompt_core::pipeline::{IncludedLayer, LayerSet};
///
/// // `pipeline = []`: include-only, in no pipeline until one includes it.
/// #[prompt_layer(priority = 10, stability = Stable, paths = [Basic, Cached], text = "Be brief.", pipeline = [])]
/// pub struct Persona;
/// #[prompt_layer(priority = 20, stability = Stable, paths = [Cached], text = "Cache me.", pipeline = [])]
/// pub struct Rules;
///
/// /// The house style: persona and rules.
/// pub struct HouseStyle;
/// impl LayerSet for HouseStyle {
///     const LAYERS: &'static [IncludedLayer] = &[IncludedLayer::of::<Persona>(), IncludedLayer::of::<Rules>()];
/// }
///
/// // A Basic-only pipeline takes the set: `rules` cannot render on Basic, so the set leaves it out.
/// #[prompt_pipeline(paths = [Basic], include = [HouseStyle])]
/// pub struct SubAgent;
///
/// let pipeline = Pipeline::of::<SubAgent>()?;
/// assert_eq!(pipeline.specs().map(|s| s.name).collect::<Vec<_>>(), ["persona"]);
/// # Ok::<(), prompt_core::PipelineError>(())
/// ```
///
/// A set's members are `#[prompt_layer]` types: the pipeline builds each as
/// the registry would, from the set, never from the registry. Naming the set
/// in `include` links its crate.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is neither a prompt layer nor a layer set",
    label = "`include` takes `#[prompt_layer]` types and `LayerSet`s",
    note = "declare it with `#[prompt_layer(..)]`, or export a set with `impl LayerSet for {Self} {{ const LAYERS: &'static [IncludedLayer] = &[IncludedLayer::of::<MyLayer>(), ..]; }}`"
)]
pub trait LayerSet {
    /// The set's layers: each one's spec, as its own attribute declares it,
    /// and how to build it.
    const LAYERS: &'static [IncludedLayer];
    /// Whether this is a set (its members that cannot render in a pipeline
    /// are left out) rather than one layer (which must render there).
    const IS_SET: bool = true;
}

impl<L: PromptLayer> LayerSet for L {
    const LAYERS: &'static [IncludedLayer] = &[IncludedLayer::of::<L>()];
    const IS_SET: bool = false;
}
