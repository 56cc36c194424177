//! Token budgets: fitting the dynamic suffix into a model's window.
//!
//! A [`TokenBudget`] caps the whole system prompt (stable prefix, dynamic
//! suffix and any reminder text). Fitting touches **only the dynamic
//! suffix**: the stable prefix is what the provider caches, so cutting it
//! would cost a cache write on every call. When the prompt is over budget,
//! Dynamic layers give way in the order their `yields` key declares (a
//! [`Yields`](crate::spec::Yields)):
//!
//! 1. whole `Shed` layers go, highest priority number (least important) first;
//! 2. then `Truncate` layers are cut on a character boundary, again highest
//!    priority number first, each ending with a visible `[…]`;
//! 3. a short notice for the model says what was trimmed and that details can
//!    be fetched again with tools. The notice counts inside the budget: the
//!    steps above go on until it fits too. When no step makes room for it,
//!    it is dropped and the prompt is sent as it was at the first step that
//!    fit without it; the notice is never the reason a prompt fails.
//!
//! So the order is predictable from the pipeline's layers alone: every
//! `Shed` layer before any `Truncate` layer, whatever their priorities (a
//! `Shed` layer at 10 000, such as the standard `runtime_context`, goes
//! before a `Truncate` layer at 19 000), and within each group the highest
//! priority number first (the manifest lists priorities; `yields` is on each
//! layer's attribute, default `Shed`). Fitting stops at the first state that
//! fits. `prompt render --budget-chars N --trace` prints what was shed and cut.
//!
//! `Keep` layers are never touched. When the stable prefix alone, or the
//! stable prefix plus the `Keep` layers, exceed the budget, the build is an
//! [`BudgetError`] (inside [`AssemblyError::OverBudget`](crate::AssemblyError::OverBudget)) naming the largest layers: never a
//! silent cut of the cached prefix.
//!
//! ```
//! use prompt_core::budget::{BudgetUnit, TokenBudget};
//!
//! // A 200k-token window; keep 32k for the reply, 8k for tool definitions
//! // and 120k for the conversation: the system prompt gets the rest.
//! let budget = TokenBudget::from_context_window(200_000, 32_000 + 8_000 + 120_000);
//! assert_eq!(budget.limit(), 40_000);
//! assert_eq!(budget.unit(), BudgetUnit::Tokens);
//!
//! assert_eq!(TokenBudget::chars(4_000).unit(), BudgetUnit::Chars);
//! ```

mod error;
mod fit;

use std::fmt;

use serde::Serialize;

pub use error::BudgetError;
pub(crate) use fit::{Candidate, fit};

/// What a [`TokenBudget`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BudgetUnit {
    /// Tokens, as the builder's token counter
    /// counts them (the approximate counter when none is set).
    Tokens,
    /// Unicode scalar values (`str::chars`), not bytes: a CJK character counts one.
    Chars,
}

impl BudgetUnit {
    /// The plural noun used in messages: `"tokens"` or `"chars"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            BudgetUnit::Tokens => "tokens",
            BudgetUnit::Chars => "chars",
        }
    }
}

impl fmt::Display for BudgetUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The most a system prompt may measure, in tokens or characters.
///
/// Set it with [`PromptBuilder::budget`](crate::PromptBuilder::budget).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct TokenBudget {
    limit: usize,
    unit: BudgetUnit,
}

impl TokenBudget {
    /// At most `limit` tokens.
    pub const fn tokens(limit: usize) -> Self {
        Self {
            limit,
            unit: BudgetUnit::Tokens,
        }
    }

    /// At most `limit` characters (Unicode scalar values).
    pub const fn chars(limit: usize) -> Self {
        Self {
            limit,
            unit: BudgetUnit::Chars,
        }
    }

    /// The system prompt's share of a model's context window, in tokens.
    ///
    /// The sizing rule: `window - reserve` (zero when the reserve is larger),
    /// where `reserve` is everything else the window must hold on the call
    /// that sends this prompt: the reply (`max_tokens`), the tool
    /// definitions, and the conversation so far. Reserve for the longest
    /// conversation you intend to keep before compacting it, not the current
    /// one, so the prompt does not shrink turn after turn.
    pub const fn from_context_window(window: usize, reserve: usize) -> Self {
        Self::tokens(window.saturating_sub(reserve))
    }

    /// The limit, in [`unit`](Self::unit)s.
    pub const fn limit(&self) -> usize {
        self.limit
    }

    /// What the limit counts.
    pub const fn unit(&self) -> BudgetUnit {
        self.unit
    }
}

impl fmt::Display for TokenBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.limit, self.unit)
    }
}

/// What fitting a budget did, recorded in the
/// [`AssemblyTrace`](crate::AssemblyTrace) of a budgeted build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct BudgetTrace {
    /// The budget applied.
    pub budget: TokenBudget,
    /// The prompt's size before fitting, in the budget's unit.
    pub before: usize,
    /// Its size after fitting (notice included); at most the limit.
    pub after: usize,
    /// Layers removed whole, in the order they were shed.
    pub shed: Vec<&'static str>,
    /// Layers cut short, in the order they were cut.
    pub truncated: Vec<TruncatedLayer>,
    /// The notice appended to the dynamic suffix, when anything was trimmed
    /// and trimming could make room for it (else the prompt goes without it).
    pub notice: Option<String>,
}

impl BudgetTrace {
    /// Whether fitting changed anything.
    pub fn trimmed(&self) -> bool {
        !self.shed.is_empty() || !self.truncated.is_empty()
    }
}

/// One layer cut short by the budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TruncatedLayer {
    /// The layer.
    pub name: &'static str,
    /// Its size before the cut, in the budget's unit.
    pub from: usize,
    /// Its size after the cut (marker included).
    pub to: usize,
}

/// A layer and its size, as errors report the largest ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LayerSize {
    /// The layer.
    pub name: &'static str,
    /// Its size, in the budget's unit.
    pub size: usize,
}

impl fmt::Display for LayerSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name, self.size)
    }
}
