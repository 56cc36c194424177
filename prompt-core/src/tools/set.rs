//! The tools a pipeline declares: its own, and the slots a session or turn fills.

use std::borrow::Cow;
use std::panic::Location;

use super::{RequestTools, Tool, ToolTier};

/// A tool the pipeline expects from the session or the turn (passed to
/// [`ToolSet::for_prompt`] with each call), because its definition depends on them
/// (e.g. an enum of the session's sub-agents).
///
/// A slot documented by a layer must be filled whenever that layer speaks:
/// a prompt that advertises a tool the request lacks is an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSlot {
    name: Cow<'static, str>,
    tier: ToolTier,
    documented_by: Option<&'static str>,
    location: &'static Location<'static>,
}

impl ToolSlot {
    /// A slot for the session's tool called `name`.
    #[track_caller]
    pub fn session(name: impl Into<Cow<'static, str>>) -> Self {
        Self::new(name.into(), ToolTier::Session)
    }

    /// A slot for the turn's tool called `name`.
    #[track_caller]
    pub fn turn(name: impl Into<Cow<'static, str>>) -> Self {
        Self::new(name.into(), ToolTier::Turn)
    }

    #[track_caller]
    fn new(name: Cow<'static, str>, tier: ToolTier) -> Self {
        Self {
            name,
            tier,
            documented_by: None,
            location: Location::caller(),
        }
    }

    /// The same slot, documented by the layer called `layer`: the tool is
    /// sent only when that layer speaks, and must be supplied when it does.
    #[must_use]
    pub fn documented_by(mut self, layer: &'static str) -> Self {
        self.documented_by = Some(layer);
        self
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its tier ([`ToolTier::Session`] or [`ToolTier::Turn`]).
    pub fn tier(&self) -> ToolTier {
        self.tier
    }

    /// The layer that documents it, if any.
    pub fn documenting_layer(&self) -> Option<&'static str> {
        self.documented_by
    }

    /// `file:line` of its declaration.
    pub fn location(&self) -> String {
        format!("{}:{}", self.location.file(), self.location.line())
    }
}

/// Why the tools of a call could not be chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// Two tools share a name.
    #[error(
        "two tools are called `{name}` ({first} and {second}); a request takes one of each name"
    )]
    Duplicate {
        /// The name.
        name: String,
        /// Where the first was declared.
        first: String,
        /// Where the second was.
        second: String,
    },
    /// The session or turn supplied a tool the pipeline has no slot for.
    #[error(
        "the {tier:?} tools supply `{name}`, which the pipeline does not declare; \
         declare it with `ToolSet::slot(ToolSlot::{}(\"{name}\"))`",
        if matches!(tier, ToolTier::Turn) { "turn" } else { "session" }
    )]
    Undeclared {
        /// The tool's name.
        name: String,
        /// Where it came from.
        tier: ToolTier,
    },
    /// A layer that documents a tool spoke, and the tool was not supplied:
    /// the prompt would advertise a tool the request lacks.
    #[error(
        "layer `{layer}` documents the tool `{tool}` (slot declared at {location}) and spoke, \
         but the {tier:?} tools supplied hold no `{tool}`; supply it, or leave the layer silent"
    )]
    Missing {
        /// The tool's name.
        tool: String,
        /// The layer that documents it.
        layer: String,
        /// The slot's tier.
        tier: ToolTier,
        /// Where the slot was declared.
        location: String,
    },
}

/// The tools a pipeline declares ([`Pipeline::with_tools`](crate::Pipeline::with_tools)):
/// its stable tools, and the slots of the tools a session or turn supplies.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolSet {
    tools: Vec<Tool>,
    slots: Vec<ToolSlot>,
}

impl ToolSet {
    /// No tools.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same set with the tool `tool`, defined here (usually
    /// [`ToolTier::Stable`]).
    #[must_use]
    pub fn tool(mut self, tool: Tool) -> Self {
        self.tools.push(tool);
        self
    }

    /// The same set with the slot `slot`, filled by the session or turn.
    #[must_use]
    pub fn slot(mut self, slot: ToolSlot) -> Self {
        self.slots.push(slot);
        self
    }

    /// The tools defined here, as declared.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The slots, as declared.
    pub fn slots(&self) -> &[ToolSlot] {
        &self.slots
    }

    /// Whether it declares nothing.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.slots.is_empty()
    }

    /// The tools of one call, given which layers spoke (`speaks(name)`):
    /// every tool defined here, then every tool of `session` and `turn` (the
    /// definitions this session and this call supply) that fills a slot, each dropped when the layer documenting it is silent.
    /// [`for_prompt`](Self::for_prompt) reads `speaks` from an assembled
    /// prompt's trace.
    ///
    /// # Errors
    /// [`ToolError::Undeclared`] for a supplied tool without a slot,
    /// [`ToolError::Missing`] for a documented slot whose layer spoke and
    /// which nothing filled, [`ToolError::Duplicate`] for two of one name.
    pub fn select(
        &self,
        speaks: impl Fn(&str) -> bool,
        session: &[Tool],
        turn: &[Tool],
    ) -> Result<RequestTools, ToolError> {
        let mut chosen: Vec<Tool> = self
            .tools
            .iter()
            .filter(|t| t.documented_by.is_none_or(&speaks))
            .cloned()
            .collect();
        for (tier, tools) in [(ToolTier::Session, session), (ToolTier::Turn, turn)] {
            for tool in tools {
                let Some(slot) = self
                    .slots
                    .iter()
                    .find(|s| s.tier == tier && s.name == tool.name)
                else {
                    return Err(ToolError::Undeclared {
                        name: tool.name().to_owned(),
                        tier,
                    });
                };
                if slot.documented_by.is_none_or(&speaks) {
                    let mut tool = tool.clone().tier_of(tier);
                    tool.documented_by = slot.documented_by;
                    chosen.push(tool);
                }
            }
        }
        for slot in &self.slots {
            let Some(layer) = slot.documented_by.filter(|l| speaks(l)) else {
                continue;
            };
            let supplied = if slot.tier == ToolTier::Turn {
                turn
            } else {
                session
            };
            let filled = supplied.iter().any(|t| t.name == slot.name);
            if !filled {
                return Err(ToolError::Missing {
                    tool: slot.name().to_owned(),
                    layer: layer.to_owned(),
                    tier: slot.tier,
                    location: slot.location(),
                });
            }
        }
        RequestTools::new(chosen)
    }

    /// Each declaration that names a documenting layer: the tool's or slot's
    /// name, the layer, and the declaration's `file:line`.
    pub(crate) fn documented(&self) -> impl Iterator<Item = (&str, &'static str, String)> + '_ {
        let tools = self
            .tools
            .iter()
            .filter_map(|t| t.documented_by.map(|l| (t.name(), l, t.location())));
        let slots = self
            .slots
            .iter()
            .filter_map(|s| s.documented_by.map(|l| (s.name(), l, s.location())));
        tools.chain(slots)
    }

    /// Every declared name with its `file:line`, tools then slots.
    pub(crate) fn declared(&self) -> impl Iterator<Item = (&str, String)> + '_ {
        self.tools
            .iter()
            .map(|t| (t.name(), t.location()))
            .chain(self.slots.iter().map(|s| (s.name(), s.location())))
    }
}
