//! What a layer does: the [`Render`] it performs, and the [`PromptLayer`]
//! trait the attribute implements. What it *is* (its [`LayerSpec`]) lives in
//! the bottom module, `spec`.

use std::fmt;
use std::marker::PhantomData;

use crate::context::{Band, Dynamic, LayerInput, Stable};
use crate::spec::{LayerLink, LayerSpec, Stability};

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

/// Where a layer writes its text: the end of the prompt being assembled.
///
/// It appends (`push_str`, `push`, `write!`), and can tell what this layer
/// wrote so far, but cannot read or change what other layers wrote. The
/// separator between layers is written lazily, before the layer's first
/// non-empty append: a layer that writes nothing leaves no trace in the text
/// and is recorded as silent.
///
/// ```
/// use prompt_core::LayerWriter;
///
/// let mut prompt = String::from("Earlier layer.");
/// let mut out = LayerWriter::new(&mut prompt, "\n\n");
/// out.push_str("");
/// assert!(out.is_empty());
/// write!(out, "Turn {}.", 3);
/// assert_eq!(out.as_str(), "Turn 3.");
/// assert_eq!(prompt, "Earlier layer.\n\nTurn 3.");
/// ```
#[derive(Debug)]
pub struct LayerWriter<'a> {
    buf: &'a mut String,
    separator: &'a str,
    /// Where this layer's text begins in `buf`, once it wrote something.
    start: Option<usize>,
}

impl<'a> LayerWriter<'a> {
    /// A writer appending to `buf`, after `separator` if `buf` already holds
    /// text and the layer writes any.
    pub fn new(buf: &'a mut String, separator: &'a str) -> Self {
        Self {
            buf,
            separator,
            start: None,
        }
    }

    /// The byte range of `buf` this layer wrote (its separator excluded);
    /// empty, at the end of `buf`, when it wrote nothing.
    pub(crate) fn range(&self) -> std::ops::Range<usize> {
        self.start.unwrap_or(self.buf.len())..self.buf.len()
    }

    #[inline]
    fn begin(&mut self) {
        if self.start.is_none() {
            if !self.buf.is_empty() {
                // The usual separator as a constant: a two-byte store, not a
                // `memcpy` call of a length known only at run time.
                if self.separator == "\n\n" {
                    self.buf.push_str("\n\n");
                } else {
                    self.buf.push_str(self.separator);
                }
            }
            self.start = Some(self.buf.len());
        }
    }

    /// Appends `text`.
    #[inline]
    pub fn push_str(&mut self, text: &str) {
        if !text.is_empty() {
            self.begin();
            self.buf.push_str(text);
        }
    }

    /// Appends `c`.
    #[inline]
    pub fn push(&mut self, c: char) {
        self.begin();
        self.buf.push(c);
    }

    /// Appends formatted text: what `write!(out, ..)` calls. Writing into a
    /// prompt cannot fail; the `Result` is `fmt::Write`'s, always `Ok`.
    #[inline]
    pub fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> fmt::Result {
        match args.as_str() {
            Some(text) => {
                self.push_str(text);
                Ok(())
            }
            None => fmt::Write::write_fmt(self, args),
        }
    }

    /// What this layer wrote so far (never another layer's text).
    pub fn as_str(&self) -> &str {
        self.start.map_or("", |start| &self.buf[start..])
    }

    /// Bytes this layer wrote so far.
    pub fn len(&self) -> usize {
        self.as_str().len()
    }

    /// Whether this layer wrote nothing so far.
    pub fn is_empty(&self) -> bool {
        self.start.is_none_or(|start| start == self.buf.len())
    }
}

impl fmt::Write for LayerWriter<'_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push_str(s);
        Ok(())
    }

    #[inline]
    fn write_char(&mut self, c: char) -> fmt::Result {
        self.push(c);
        Ok(())
    }
}

/// Writes a layer's text.
///
/// Layers are pure: format from `input` only, with no I/O, clock or
/// environment. Loading belongs in sources, before assembly. Writing nothing
/// makes the layer silent for this call.
///
/// `B` is the layer's band, its stability as a type: a Dynamic layer
/// implements `Render` (`Render<Dynamic>`), a Stable one `Render<Stable>`,
/// whose [`LayerInput::get`] reads session values only (a turn value is a
/// compile error at the read).
///
/// ```
/// use prompt_core::{LayerInput, LayerWriter, Render, SessionValue, Stable};
///
/// struct HouseRules(String);
/// impl SessionValue for HouseRules {}
///
/// struct HouseRulesLayer;
///
/// impl Render<Stable> for HouseRulesLayer {
///     fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
///         if let Some(HouseRules(rules)) = input.get::<HouseRules>() {
///             out.push_str(rules);
///         }
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "layer `{Self}` has no `Render<{B}>` impl, so it cannot write its text",
    label = "`{Self}` needs `impl prompt_core::Render<{B}> for {Self}`",
    note = "write `impl Render<{B}> for {Self} {{ fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, {B}>) {{ .. }} }}` (a layer's band is its stability: `Render<Stable>` for a Stable layer, `Render` for a Dynamic one), or give the attribute static content with `text = \"...\"` or `file = \"path.md\"`"
)]
pub trait Render<B: Band = Dynamic> {
    /// Appends this layer's text for one assembly to `out`.
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, B>);
}

/// A layer's renderer with its band erased, as pipelines keep it. Built by
/// generated code (`__private_v1::boxed`) and [`LayerEntry::new`](crate::pipeline::LayerEntry::new).
#[doc(hidden)]
pub struct BoxedRender(Box<dyn ErasedRender>);

impl BoxedRender {
    /// Boxes `layer`, a renderer of band `B`.
    pub fn new<B: Band, L: Render<B> + Send + Sync + 'static>(layer: L) -> Self {
        Self(Box::new(Banded::<B, L>(layer, PhantomData)))
    }

    /// Renders the layer with `input` seen through its own band.
    #[inline]
    pub(crate) fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        self.0.render_erased(out, input);
    }
}

impl fmt::Debug for BoxedRender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BoxedRender")
    }
}

/// [`Render`] of any band, callable with an input of any band.
trait ErasedRender: Send + Sync {
    /// Renders with `input` seen through the renderer's own band.
    fn render_erased(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>);
}

/// A renderer of band `B`.
struct Banded<B, L>(L, PhantomData<fn() -> B>);

impl<B: Band, L: Render<B> + Send + Sync> ErasedRender for Banded<B, L> {
    #[inline]
    fn render_erased(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        self.0.render(out, &input.with_band::<B>());
    }
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

    /// The pipelines the layer joins (`pipeline = [..]`) and their names as
    /// written, for its compile-time checks: named once per layer, so each
    /// check reads them rather than building its own copy. Written by the
    /// attribute; not part of the public API.
    #[doc(hidden)]
    const __PIPELINES: &'static [&'static crate::spec::PipelineSpec] = &[];

    /// The names of [`Self::__PIPELINES`] as the attribute wrote them.
    #[doc(hidden)]
    const __WRITTEN: &'static [&'static str] = &[];

    /// The attribute's static text (`text = ".."`, `file = ".."`), when the
    /// layer has one. Written by the attribute; not part of the public API.
    #[doc(hidden)]
    const __TEXT: &'static str = "";

    /// Builds the value that renders the layer, as the registry does: the
    /// unit struct, `Default::default()`, or the attribute's static text.
    /// Written by the attribute for a layer that renders itself; a text
    /// layer takes this one, which is generic, so it costs its crate no
    /// code unless something calls it (`LayerEntry::of`, `IncludedLayer::of`). Not part of the
    /// public API.
    #[doc(hidden)]
    fn __renderer() -> BoxedRender {
        StaticText::new(Self::__TEXT).boxed_as(Self::SPEC.stability)
    }
}

/// The renderer of a `text = ".."` or `file = ".."` layer.
#[derive(Debug, Clone, Copy)]
pub struct StaticText(&'static str);

impl StaticText {
    /// The renderer of `text`, its trailing whitespace trimmed (a file's last
    /// newline must not add to the separator).
    pub const fn new(text: &'static str) -> Self {
        Self(text.trim_ascii_end())
    }

    /// Boxed for the registry, as a layer of band `B`.
    pub fn boxed<B: Band>(self) -> BoxedRender {
        BoxedRender::new::<B, Self>(self)
    }

    /// Boxed for the registry, as a layer of band `stability`: one
    /// function for every text layer, however many a crate declares.
    pub fn boxed_as(self, stability: Stability) -> BoxedRender {
        match stability {
            Stability::Stable => self.boxed::<Stable>(),
            Stability::Dynamic => self.boxed::<Dynamic>(),
        }
    }
}

impl<B: Band> Render<B> for StaticText {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_, B>) {
        out.push_str(self.0);
    }
}
