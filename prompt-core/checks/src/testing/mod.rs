//! Snapshot help: an annotated rendering of a prompt, and every assembly of a
//! pipeline to snapshot.
//!
//! # Recipe: snapshot a pipeline with insta
//!
//! Snapshot the manifest (which layers, in which order) and the annotated
//! prompt of every path and mode the pipeline's layers declare. In review,
//! a moved, dropped or re-prioritised layer shows in the manifest, and a
//! changed line shows under the marker of the layer that wrote it.
//!
//! ```no_run
//! use prompt_checks::testing;
//! use prompt_core::{Context, Pipeline};
//! # fn my_fixture_session() -> Context { Context::new() }
//! # fn my_fixture_turn() -> Context { Context::new() }
//!
//! #[test]
//! fn prompt_snapshots() {
//!     let pipeline = Pipeline::collect().unwrap();
//!     insta::assert_snapshot!("manifest", pipeline.manifest());
//!     let (session, turn) = (my_fixture_session(), my_fixture_turn());
//!     for (label, prompt) in testing::every_assembly(&pipeline, &session, &turn).unwrap() {
//!         // One snapshot per path and mode: `prompt-basic-full`, `prompt-cached-minimal`, ...
//!         insta::assert_snapshot!(format!("prompt-{label}"), testing::annotate(&prompt).unwrap());
//!     }
//! }
//! ```
//!
//! The same, checked here without insta:
//!
//! ```standalone_crate
//! use prompt_checks::testing;
//! use prompt_core::{prompt_layer, Context, Pipeline};
//! use prompt_core::pipeline::LayerEntry;
//!
//! /// The pipeline of this example.
//! #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
//! struct Doc;
//! #[prompt_layer(priority = 1, stability = Stable, paths = [Basic, Cached], modes = [Full], text = "Be brief.", pipeline = Doc)]
//! struct Brief;
//!
//! let pipeline = Pipeline::of::<Doc>().unwrap();
//! let labels: Vec<String> = testing::every_assembly(&pipeline, &Context::new(), &Context::new())?
//!     .into_iter()
//!     .map(|(label, _prompt)| label)
//!     .collect();
//! assert_eq!(labels, ["basic-full", "cached-full"]);
//! # Ok::<(), prompt_core::AssemblyError>(())
//! ```

mod annotate;
mod pipelines;
mod segments;
mod workspace;

pub use annotate::annotate;
pub use pipelines::{PipelinesError, check_pipelines};
pub use segments::{Segment, SegmentError, segments};
pub use workspace::forgotten_crates;

use crate::assembly::{AssembledPrompt, AssemblyError, PromptBuilder};
use crate::context::{Context, TurnContext};
use crate::pipeline::Pipeline;
use crate::spec::{AssemblyPath, PromptMode};

pub(crate) use segments::split;

/// The paths at least one of `pipeline`'s layers renders on, in declaration order
/// (`Basic` before `Cached`).
pub fn paths_of(pipeline: &Pipeline) -> Vec<AssemblyPath> {
    [AssemblyPath::Basic, AssemblyPath::Cached]
        .into_iter()
        .filter(|path| pipeline.specs().any(|s| s.on_path(*path)))
        .collect()
}

/// The modes at least one of `pipeline`'s layers speaks in, in [`PromptMode::ALL`] order.
pub fn modes_of(pipeline: &Pipeline) -> Vec<PromptMode> {
    PromptMode::ALL
        .iter()
        .copied()
        .filter(|mode| pipeline.specs().any(|s| s.in_mode(*mode)))
        .collect()
}

/// Every path and mode of `pipeline` assembled from `session` and `turn`,
/// labelled `"<path>-<mode>"` (e.g. `"cached-full"`): paths from
/// [`paths_of`], modes from [`modes_of`].
///
/// # Errors
/// The first [`AssemblyError`] (a layer that panicked).
pub fn every_assembly(
    pipeline: &Pipeline,
    session: &Context,
    turn: &TurnContext,
) -> Result<Vec<(String, AssembledPrompt)>, AssemblyError> {
    let mut out = Vec::new();
    for path in paths_of(pipeline) {
        for mode in modes_of(pipeline) {
            out.push((
                format!("{path}-{mode}"),
                build(pipeline, path, mode, session, turn)?,
            ));
        }
    }
    Ok(out)
}

/// The one place `testing` and `contract` assemble a prompt.
pub(crate) fn build(
    pipeline: &Pipeline,
    path: AssemblyPath,
    mode: PromptMode,
    session: &Context,
    turn: &TurnContext,
) -> Result<AssembledPrompt, AssemblyError> {
    let builder = PromptBuilder::new(pipeline).mode(mode);
    match path {
        AssemblyPath::Basic => builder.build_basic(session, turn),
        AssemblyPath::Cached => builder.build_cached(session, turn),
    }
}
