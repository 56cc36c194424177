//! Why a build fails.

use crate::budget::BudgetError;

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
        "layer `{layer}` ({location}) panicked while rendering: {message}; \
         fix its `Render` impl (layers must not panic on any input)"
    )]
    LayerPanicked {
        /// The layer's name.
        layer: &'static str,
        /// `file:line` of its definition.
        location: String,
        /// The panic's message, when it was a string.
        message: String,
    },
}
