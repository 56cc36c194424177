//! What a layer does: the [`Render`] it performs, and the [`PromptLayer`]
//! trait the attribute implements. What it *is* (its [`LayerSpec`]) lives in
//! the bottom module, `spec`.

use crate::context::LayerInput;
use crate::spec::{LayerLink, LayerSpec};

/// `L`'s spec, as a `fn` a [`LayerLink`] can hold.
const fn spec_of<L: PromptLayer>() -> LayerSpec {
    L::SPEC
}

impl LayerLink {
    /// A link to the attribute-declared layer `L`.
    pub const fn of<L: PromptLayer>() -> Self {
        Self(spec_of::<L>)
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
