//! A named fixture session the contract renders the pipeline for.

use std::fmt;

use crate::context::{Context, TurnContext};

/// A named fixture: a session context, the turn contexts to render it with,
/// and the environment facts those contexts state.
///
/// Give a pipeline at least two: a bare session (what a new user has) and a
/// rich one (every source present), so every layer speaks in one of them.
/// Two or more turns that differ only in per-call values (date, model, ...)
/// let the contract prove that the stable prefix does not move between calls.
///
/// ```
/// use prompt_core::{Context, TurnValue};
/// use prompt_checks::contract::Scenario;
///
/// struct Date(&'static str);
/// impl TurnValue for Date {}
///
/// let rich = Scenario::new("rich", Context::new())
///     .turn(Context::new().with(Date("2026-11-29")))
///     .turn(Context::new().with(Date("2026-11-30")))
///     .fact("date", "2026-11-29")
///     .fact("date", "2026-11-30");
/// assert_eq!(rich.name(), "rich");
/// assert_eq!(rich.turns().len(), 2);
/// assert_eq!(rich.facts().len(), 2);
/// ```
pub struct Scenario {
    name: String,
    session: Context,
    turns: Vec<TurnContext>,
    facts: Vec<(String, String)>,
}

impl Scenario {
    /// A scenario called `name` with `session` and, until [`turn`](Self::turn)
    /// adds one, a single empty turn context.
    pub fn new(name: impl Into<String>, session: Context) -> Self {
        Self {
            name: name.into(),
            session,
            turns: Vec::new(),
            facts: Vec::new(),
        }
    }

    /// Adds a turn context: every path and mode is rendered once per turn.
    #[must_use]
    pub fn turn(mut self, turn: TurnContext) -> Self {
        self.turns.push(turn);
        self
    }

    /// Declares an environment fact the contexts state (e.g. `("cwd",
    /// "/repo")`): the contract checks that at most one layer states `value`.
    #[must_use]
    pub fn fact(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.facts.push((name.into(), value.into()));
        self
    }

    /// The scenario's name, as reports show it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The session context.
    pub fn session(&self) -> &Context {
        &self.session
    }

    /// The turn contexts added with [`turn`](Self::turn).
    pub fn turns(&self) -> &[TurnContext] {
        &self.turns
    }

    /// The declared facts, as `(name, value)`.
    pub fn facts(&self) -> &[(String, String)] {
        &self.facts
    }
}

impl fmt::Debug for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scenario")
            .field("name", &self.name)
            .field("session", &self.session)
            .field("turns", &self.turns.len())
            .field("facts", &self.facts)
            .finish()
    }
}
