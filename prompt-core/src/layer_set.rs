//! Named sets of layers, for `#[prompt_pipeline(include = [..])]`: [`LayerSet`].

use crate::layer::PromptLayer;
use crate::spec::LayerSpec;

/// A named set of layers that any pipeline can take with
/// `#[prompt_pipeline(include = [..])]`, without the set's crate knowing the
/// pipeline. Every `#[prompt_layer]` type is a set of itself, so `include`
/// takes layers and sets alike.
///
/// A crate exports a set as a unit struct with the specs of its layers:
///
/// ```
/// use prompt_core::{prompt_layer, prompt_pipeline, LayerSpec, Pipeline, PromptLayer};
/// use prompt_core::pipeline::LayerSet;
///
/// #[prompt_layer(priority = 10, stability = Stable, paths = [Basic, Cached], text = "Be brief.")]
/// pub struct Persona;
/// #[prompt_layer(priority = 20, stability = Stable, paths = [Cached], text = "Cache me.")]
/// pub struct Rules;
///
/// /// The house style: persona and rules.
/// pub struct HouseStyle;
/// impl LayerSet for HouseStyle {
///     const LAYERS: &'static [LayerSpec] = &[Persona::SPEC, Rules::SPEC];
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
/// A set's members must be `#[prompt_layer]` types of a linked crate: the
/// pipeline builds each as the registry does. Naming the set in `include`
/// links its crate.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is neither a prompt layer nor a layer set",
    label = "`include` takes `#[prompt_layer]` types and `LayerSet`s",
    note = "declare it with `#[prompt_layer(..)]`, or export a set with `impl LayerSet for {Self} {{ const LAYERS: &'static [LayerSpec] = &[..]; }}`"
)]
pub trait LayerSet {
    /// The specs of the set's layers, as their own attributes declare them.
    const LAYERS: &'static [LayerSpec];
    /// Whether this is a set (its members that cannot render in a pipeline
    /// are left out) rather than one layer (which must render there).
    const IS_SET: bool = true;
}

impl<L: PromptLayer> LayerSet for L {
    const LAYERS: &'static [LayerSpec] = &[L::SPEC];
    const IS_SET: bool = false;
}
