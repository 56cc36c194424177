//! Why a prompt does not fit its budget.

use super::{BudgetUnit, LayerSize};

/// Why fitting a prompt into a [`TokenBudget`](super::TokenBudget) failed.
///
/// Builds return it inside [`AssemblyError::OverBudget`](crate::AssemblyError::OverBudget).
/// Fitting fails only when what may never be cut (the stable prefix, and the
/// `yields = Keep` layers) is already over the budget: never a silent cut of
/// the cached prefix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BudgetError {
    /// The stable prefix alone is over the budget. It is never cut: it is
    /// what the provider caches.
    #[error(
        "the stable prefix alone measures {stable} {unit}, over the budget of {limit} {unit}; \
         it is never cut (it is what the provider caches). Largest stable layers: {}. \
         Raise the budget or shrink those layers",
        list(largest)
    )]
    StablePrefixOverBudget {
        /// The stable prefix's size.
        stable: usize,
        /// The budget's limit.
        limit: usize,
        /// What both count.
        unit: BudgetUnit,
        /// Up to five of the largest Stable layers, largest first.
        largest: Vec<LayerSize>,
    },
    /// Every layer that may yield was shed or cut, and the prompt (with the
    /// notice saying so) is still over budget.
    #[error(
        "the prompt still measures {total} {unit} after every Dynamic layer that may yield \
         was shed or cut, over the budget of {limit} {unit}. {}",
        kept_advice(largest, *total, *unit)
    )]
    KeptOverBudget {
        /// The prompt's size with only the stable prefix and the `Keep` layers.
        total: usize,
        /// The budget's limit.
        limit: usize,
        /// What both count.
        unit: BudgetUnit,
        /// Up to five of the largest `Keep` layers, largest first.
        largest: Vec<LayerSize>,
    },
}

/// What to do when only the stable prefix, the `Keep` layers and the notice are left.
fn kept_advice(largest: &[LayerSize], total: usize, unit: BudgetUnit) -> String {
    if largest.is_empty() {
        return format!(
            "No layer is declared `yields = Keep`: what is left is the stable prefix and the \
             short notice telling the model what was trimmed. Raise the budget to at least \
             {total} {unit}"
        );
    }
    format!(
        "Layers declared `yields = Keep`: {}. Raise the budget, or let some of them yield \
         (`yields = Shed` or `yields = Truncate`)",
        list(largest)
    )
}

fn list(layers: &[LayerSize]) -> String {
    if layers.is_empty() {
        return "none".to_owned();
    }
    layers
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
