//! Why a build fails.

use crate::budget::BudgetError;
use crate::pipeline::{LayerRef, joined};
use crate::spec::{AssemblyPath, PromptMode};

/// Why an assembly produced no prompt.
///
/// A build fails only for these reasons; everything else (a silent layer, a
/// source that could not be read) is recorded in the trace instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AssemblyError {
    /// The prompt does not fit its [`TokenBudget`](crate::budget::TokenBudget):
    /// the stable prefix alone, or with the layers that may not yield, is over it.
    #[error(transparent)]
    OverBudget(#[from] BudgetError),
    /// A layer's `Render` impl panicked. The panic was caught: the pipeline,
    /// the session and other threads keep working.
    #[error(
        "layer {layer} panicked while rendering: {message}; \
         fix its `Render` impl (layers must not panic on any input)"
    )]
    LayerPanicked {
        /// The layer: its name, type and definition site.
        layer: LayerRef,
        /// The panic's message, when it was a string.
        message: String,
    },
    /// The build asked for a path the pipeline's callers never assemble
    /// (`build_cached` on a `#[prompt_pipeline(paths = [Basic])]`): its
    /// layers were checked for the paths it serves only, so there is no
    /// prompt to give, and an empty one would be a silent mistake.
    #[error(
        "pipeline `{pipeline}` serves the path(s) [{}], not `{asked}`: call the builder for a path it serves, or add `{asked}` to its `#[prompt_pipeline(paths = [..])]`",
        joined(.serves)
    )]
    PathNotServed {
        /// The pipeline's name.
        pipeline: String,
        /// The path asked for.
        asked: AssemblyPath,
        /// The paths it serves.
        serves: &'static [AssemblyPath],
    },
    /// The builder's mode is one the pipeline's callers never assemble.
    #[error(
        "pipeline `{pipeline}` serves the mode(s) [{}], not `{asked}`: set a mode it serves with `PromptBuilder::mode`, or add `{asked}` to its `#[prompt_pipeline(modes = [..])]`",
        joined(.serves)
    )]
    ModeNotServed {
        /// The pipeline's name.
        pipeline: String,
        /// The mode asked for.
        asked: PromptMode,
        /// The modes it serves.
        serves: &'static [PromptMode],
    },
}
