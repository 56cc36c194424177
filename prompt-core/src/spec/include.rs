//! What a pipeline takes from elsewhere: one entry of
//! `#[prompt_pipeline(include = [..])]`, an [`Include`].

use std::any::Any;
use std::fmt;

use super::enums::{AssemblyPath, PromptMode, Scope, Stability, Yields};
use super::layer::LayerSpec;
use super::pipeline::PipelineSpec;

/// One layer of a [`Include`] (of a `LayerSet`): its spec, as its own
/// attribute declares it, and how to build the value that renders it, as
/// the registry would build a registered layer (the unit struct,
/// `Default::default()`, or the attribute's static text).
///
/// A set carries what a pipeline needs to build its members, so
/// `include = [..]` never searches the registry, and a layer that is only
/// ever included (`pipeline = []`) is not registered at all. Made with
/// `IncludedLayer::of::<L>()`.
#[derive(Clone, Copy)]
pub struct IncludedLayer {
    /// The layer's spec, as its own attribute declares it.
    pub spec: LayerSpec,
    /// Builds the layer's renderer (a `BoxedRender`, which this bottom
    /// module cannot name).
    build: fn() -> Box<dyn Any + Send + Sync>,
}

impl IncludedLayer {
    /// A member from its spec and its erased builder: what
    /// `IncludedLayer::of` (in `layer_set`) calls. Not public API.
    #[doc(hidden)]
    pub const fn __new(spec: LayerSpec, build: fn() -> Box<dyn Any + Send + Sync>) -> Self {
        Self { spec, build }
    }

    /// A member with `spec` that cannot be built: for the unit tests of
    /// the `include` checks, which read specs only.
    #[cfg(test)]
    pub(crate) const fn spec_only(spec: LayerSpec) -> Self {
        fn unit() -> Box<dyn Any + Send + Sync> {
            Box::new(())
        }
        Self { spec, build: unit }
    }

    /// The layer's renderer, erased.
    pub(crate) fn build(&self) -> Box<dyn Any + Send + Sync> {
        (self.build)()
    }
}

impl PartialEq for IncludedLayer {
    /// The same spec: a layer is built one way only.
    fn eq(&self, other: &Self) -> bool {
        self.spec == other.spec
    }
}

impl Eq for IncludedLayer {}

impl fmt::Debug for IncludedLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("IncludedLayer")
            .field(&self.spec.name)
            .finish()
    }
}

/// One entry of `#[prompt_pipeline(include = [..])]`: a layer, or a named set
/// of layers, that a pipeline takes without the layer's crate knowing the
/// pipeline, with what this pipeline narrows.
///
/// A narrowing may take a shorter `paths` or `modes` list, or another
/// `yields` (for a Dynamic layer): priority and stability stay the layer's
/// own, since the order checks rest on them. A layer renders in the pipeline
/// on the paths and modes the layer, the narrowing and the pipeline all list.
///
/// ```
/// use prompt_core::spec::{Include, IncludedLayer, PipelineSpec};
/// use prompt_core::{prompt_layer, AssemblyPath};
///
/// #[prompt_layer(priority = 10, stability = Stable, paths = [Basic, Cached], text = "Docs.", pipeline = [])]
/// struct Docs;
///
/// const DOCS: [IncludedLayer; 1] = [IncludedLayer::of::<Docs>()];
/// const SUB_AGENT: PipelineSpec = PipelineSpec::new("sub_agent")
///     .include(&[Include::layer(&DOCS, "Docs").paths(&[AssemblyPath::Basic])]);
/// let docs = SUB_AGENT.include[0].member(0, &SUB_AGENT).unwrap();
/// assert_eq!(docs.paths, [AssemblyPath::Basic]);
/// assert!(docs.in_pipeline("sub_agent"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Include {
    /// The layers taken, as their own crates declare them.
    pub layers: &'static [IncludedLayer],
    /// Whether this is a named set: a set's members that cannot render in the
    /// pipeline (their paths or modes do not meet its) are left out, where a
    /// layer named on its own must render there.
    pub set: bool,
    /// The layer or set as the pipeline wrote it: `prompt_layers::Standard`.
    pub written: &'static str,
    /// The paths this pipeline narrows the layers to, if it does.
    pub paths: Option<&'static [AssemblyPath]>,
    /// The modes this pipeline narrows the layers to, if it does.
    pub modes: Option<&'static [PromptMode]>,
    /// Another budget policy for this pipeline (a Dynamic layer only).
    pub yields: Option<Yields>,
}

impl Include {
    /// One layer, taken as its crate declares it.
    pub const fn layer(layers: &'static [IncludedLayer], written: &'static str) -> Self {
        Self {
            layers,
            set: false,
            written,
            paths: None,
            modes: None,
            yields: None,
        }
    }

    /// A named set of layers.
    pub const fn set(layers: &'static [IncludedLayer], written: &'static str) -> Self {
        Self {
            set: true,
            ..Self::layer(layers, written)
        }
    }

    /// The same, rendering in this pipeline on `paths` only.
    #[must_use]
    pub const fn paths(mut self, paths: &'static [AssemblyPath]) -> Self {
        self.paths = Some(paths);
        self
    }

    /// The same, speaking in this pipeline in `modes` only.
    #[must_use]
    pub const fn modes(mut self, modes: &'static [PromptMode]) -> Self {
        self.modes = Some(modes);
        self
    }

    /// The same, giving way to a budget in this pipeline as `yields` says.
    #[must_use]
    pub const fn yields(mut self, yields: Yields) -> Self {
        self.yields = Some(yields);
        self
    }

    /// The `index`th layer as `pipeline` takes it: its paths and modes
    /// narrowed (to what it renders on in `pipeline`), its `yields` replaced, marked as included by `pipeline`.
    /// `None` past the end, and for a set's member that cannot render in
    /// `pipeline` (which the set leaves out).
    pub const fn member(&self, index: usize, pipeline: &PipelineSpec) -> Option<LayerSpec> {
        if index >= self.layers.len() {
            return None;
        }
        let mut spec = self.layers[index].spec;
        let mut paths = path_mask(spec.paths);
        if let Some(narrow) = self.paths {
            paths &= path_mask(narrow);
        }
        let mut modes = mode_mask(spec.modes);
        if let Some(narrow) = self.modes {
            modes &= mode_mask(narrow);
        }
        let (served_paths, served_modes) = (path_mask(pipeline.paths), mode_mask(pipeline.modes));
        let meets = paths & served_paths != 0 && modes & served_modes != 0;
        if self.set && !meets {
            return None;
        }
        if meets {
            // What renders here: the manifest and the trace show this.
            paths &= served_paths;
            modes &= served_modes;
        }
        spec.paths = paths_of(paths);
        spec.modes = modes_of(modes);
        if let Some(yields) = self.yields {
            spec.yields = yields;
        }
        spec.included_by = Some(pipeline.name);
        Some(spec)
    }
}

/// `paths` as bits: Basic 1, Cached 2.
pub(crate) const fn path_mask(paths: &[AssemblyPath]) -> u8 {
    let mut mask = 0;
    let mut i = 0;
    while i < paths.len() {
        mask |= match paths[i] {
            AssemblyPath::Basic => 1,
            AssemblyPath::Cached => 2,
        };
        i += 1;
    }
    mask
}

/// `modes` as bits: Full 1, Compact 2, Minimal 4.
pub(crate) const fn mode_mask(modes: &[PromptMode]) -> u8 {
    let mut mask = 0;
    let mut i = 0;
    while i < modes.len() {
        mask |= match modes[i] {
            PromptMode::Full => 1,
            PromptMode::Compact => 2,
            PromptMode::Minimal => 4,
        };
        i += 1;
    }
    mask
}

/// The paths of `mask`, as a `'static` list in declaration order.
pub(crate) const fn paths_of(mask: u8) -> &'static [AssemblyPath] {
    use AssemblyPath::{Basic, Cached};
    match mask & 3 {
        0 => &[],
        1 => &[Basic],
        2 => &[Cached],
        _ => &[Basic, Cached],
    }
}

/// The modes of `mask`, as a `'static` list in declaration order.
pub(crate) const fn modes_of(mask: u8) -> &'static [PromptMode] {
    use PromptMode::{Compact, Full, Minimal};
    match mask & 7 {
        0 => &[],
        1 => &[Full],
        2 => &[Compact],
        3 => &[Full, Compact],
        4 => &[Minimal],
        5 => &[Full, Minimal],
        6 => &[Compact, Minimal],
        _ => &[Full, Compact, Minimal],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Stability;

    #[test]
    fn masks_round_trip_in_declaration_order() {
        for mask in 0..4 {
            assert_eq!(path_mask(paths_of(mask)), mask);
        }
        for mask in 0..8 {
            assert_eq!(mode_mask(modes_of(mask)), mask);
        }
        assert_eq!(
            modes_of(mode_mask(&[PromptMode::Minimal, PromptMode::Full])),
            [PromptMode::Full, PromptMode::Minimal]
        );
    }

    #[test]
    fn a_set_leaves_out_a_member_that_cannot_render_and_a_layer_is_kept() {
        const LAYERS: [IncludedLayer; 2] = [
            IncludedLayer::spec_only(LayerSpec::new("docs", 10, Stability::Stable)),
            IncludedLayer::spec_only(
                LayerSpec::new("recall", 20, Stability::Stable).paths(&[AssemblyPath::Cached]),
            ),
        ];
        const BASIC: PipelineSpec = PipelineSpec::new("sub").paths(&[AssemblyPath::Basic]);
        let set = Include::set(&LAYERS, "Memory");
        assert_eq!(set.member(0, &BASIC).map(|s| s.name), Some("docs"));
        assert_eq!(set.member(1, &BASIC), None);
        assert_eq!(set.member(2, &BASIC), None);
        let layer = Include::layer(&LAYERS[1..], "Recall");
        assert_eq!(
            layer.member(0, &BASIC).map(|s| s.paths),
            Some(&[AssemblyPath::Cached][..])
        );
        // A member keeps only what the pipeline serves.
        const CACHED: PipelineSpec = PipelineSpec::new("main").paths(&[AssemblyPath::Cached]);
        assert_eq!(
            set.member(0, &CACHED).map(|s| s.paths),
            Some(&[AssemblyPath::Cached][..])
        );
    }
}

/// The priorities of the Stable layers a pipeline includes, summed up by
/// scope once per pipeline (`PromptPipeline::__SCOPE_BOUNDS`): for each
/// scope (by its discriminant, [`Scope::ALL`]'s order), the highest priority
/// among those layers wider-scoped than it and the lowest among those
/// narrower. The scope-order rule reads it (`checks::rules`). The layers are
/// taken as their crates declare them: a pipeline narrows paths, modes and
/// `yields`, never a priority, a stability or a scope. Not public API.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct ScopeBounds {
    pub(crate) wider_max: [u32; 4],
    pub(crate) narrower_min: [u32; 4],
}

impl ScopeBounds {
    /// The bounds of the Stable layers of `include`.
    pub const fn of(include: &[Include]) -> Self {
        let mut bounds = ScopeBounds {
            wider_max: [0; 4],
            narrower_min: [u32::MAX; 4],
        };
        let mut s = 0;
        while s < Scope::ALL.len() {
            let scope = Scope::ALL[s];
            let at = scope as usize;
            let mut j = 0;
            while j < include.len() {
                let layers = include[j].layers;
                let mut k = 0;
                while k < layers.len() {
                    let other = &layers[k].spec;
                    if matches!(other.stability, Stability::Stable) {
                        if other.scope.is_wider_than(scope) && other.priority > bounds.wider_max[at]
                        {
                            bounds.wider_max[at] = other.priority;
                        }
                        if scope.is_wider_than(other.scope)
                            && other.priority < bounds.narrower_min[at]
                        {
                            bounds.narrower_min[at] = other.priority;
                        }
                    }
                    k += 1;
                }
                j += 1;
            }
            s += 1;
        }
        bounds
    }
}
