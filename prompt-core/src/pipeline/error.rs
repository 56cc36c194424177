//! Why a pipeline was refused.

use std::fmt;

use crate::layer::{LayerSpec, Stability};

/// A pipeline that failed validation, with every problem found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct PipelineError {
    /// The pipeline's name.
    pub pipeline: String,
    /// Every problem, in a stable order (by layer priority, then kind).
    pub problems: Vec<Problem>,
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        write!(
            f,
            "pipeline `{}` is invalid ({n} problem{}):",
            self.pipeline,
            if n == 1 { "" } else { "s" }
        )?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

/// A layer as named in an error: its name, type and definition site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerRef {
    /// The layer's name.
    pub name: &'static str,
    /// The Rust type's name.
    pub type_name: &'static str,
    /// `file:line` of the definition.
    pub location: String,
}

impl From<&LayerSpec> for LayerRef {
    fn from(spec: &LayerSpec) -> Self {
        Self {
            name: spec.name,
            type_name: spec.type_name,
            location: spec.location(),
        }
    }
}

impl fmt::Display for LayerRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` ({} at {})",
            self.name, self.type_name, self.location
        )
    }
}

/// One thing wrong with a pipeline. Each says what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    /// No layer is registered for the pipeline.
    #[error(
        "no layer is registered in this pipeline; pipelines this binary has: [{}]. \
         Check the `pipeline = \"..\"` key, and that the binary names the crate that defines the layers (`use my_layers as _;`)",
        .known.join(", ")
    )]
    Empty {
        /// The pipelines that do have layers.
        known: Vec<String>,
    },
    /// Priority outside the stability's band.
    #[error(
        "layer {layer} is {stability:?} with priority {priority}, outside the {stability:?} band {}..{}; move the priority into the band or change its stability",
        .stability.band().start, .stability.band().end
    )]
    OutOfBand {
        /// The layer.
        layer: LayerRef,
        /// Its priority.
        priority: u32,
        /// Its stability.
        stability: Stability,
    },
    /// Two layers share a priority, so their order is undefined.
    #[error(
        "layers {first} and {second} both have priority {priority}; give one of them another priority"
    )]
    DuplicatePriority {
        /// The first layer.
        first: LayerRef,
        /// The second layer.
        second: LayerRef,
        /// The shared priority.
        priority: u32,
    },
    /// Two layers share a name, so traces and manifests are ambiguous.
    #[error(
        "layers {first} and {second} are both named `{name}`; rename one with `name = \"...\"`"
    )]
    DuplicateName {
        /// The first layer.
        first: LayerRef,
        /// The second layer.
        second: LayerRef,
        /// The shared name.
        name: &'static str,
    },
    /// A layer that renders on no path.
    #[error(
        "layer {layer} has no assembly path, so it never renders; list at least one of Basic, Cached in `paths`"
    )]
    NoPaths {
        /// The layer.
        layer: LayerRef,
    },
    /// A layer that speaks in no mode.
    #[error(
        "layer {layer} has no mode, so it never renders; list at least one of Full, Compact, Minimal in `modes` or drop the key"
    )]
    NoModes {
        /// The layer.
        layer: LayerRef,
    },
    /// A layer whose name is not snake_case.
    #[error(
        "layer {layer} has a name that is not snake_case (lowercase ASCII letters, digits, `_`, starting with a letter); rename it"
    )]
    BadName {
        /// The layer.
        layer: LayerRef,
    },
    /// A layer handed to a pipeline it does not declare.
    #[error(
        "layer {layer} declares pipeline `{declared}`; give it `pipeline = \"{expected}\"` or build it into `{declared}`"
    )]
    WrongPipeline {
        /// The layer.
        layer: LayerRef,
        /// The pipeline its spec names.
        declared: &'static str,
        /// The pipeline being built.
        expected: String,
    },
}
