//! The bottom of the crate: what layers and pipelines are, as plain data.
//!
//! Everything here is `const`-constructible and imports nothing else of the
//! crate, so every other module may depend on it and it depends on none of
//! them (a test, `tests/tests/architecture.rs`, keeps it so). The modules
//! above it, bottom up: `fingerprint`, `tokens`, `context`, `layer`,
//! `registry`, `pipeline`, `budget`, `assembly`, then the tools behind
//! features.

mod enums;
mod include;
mod layer;
mod pipeline;

pub use enums::{
    AssemblyPath, Channel, ParseEnumError, PromptMode, Scope, ScopeOrder, Stability, Yields,
};
pub use include::{Include, IncludedLayer, ScopeBounds};
pub(crate) use include::{mode_mask, modes_of, path_mask, paths_of};
pub(crate) use layer::same as str_eq;
pub use layer::{LayerLink, LayerSpec};
pub use pipeline::{DefaultPipeline, PipelineSpec, PromptPipeline};

/// The name of the pipeline a layer joins when its attribute names none:
/// [`DefaultPipeline`]'s.
pub const DEFAULT_PIPELINE: &str = "default";

/// What joins two non-empty layer outputs unless a pipeline or builder says
/// otherwise: one blank line.
pub const DEFAULT_SEPARATOR: &str = "\n\n";
