//! Every assembly the checks look at, rendered once.

use std::fmt;

use super::report::{Check, Finding};
use super::scenario::Scenario;
use crate::assembly::AssembledPrompt;
use crate::context::TurnContext;
use crate::pipeline::Pipeline;
use crate::spec::{AssemblyPath, LayerSpec, PromptMode};
use crate::testing::{Segment, build, modes_of, paths_of, segments};

/// One assembly: which scenario, turn, path and mode, and the prompt.
pub(crate) struct Rendered<'a> {
    pub(crate) scenario: &'a Scenario,
    pub(crate) turn: usize,
    pub(crate) path: AssemblyPath,
    pub(crate) mode: PromptMode,
    pub(crate) prompt: AssembledPrompt,
    /// A second build from the same inputs (the first turn only).
    pub(crate) again: Option<AssembledPrompt>,
}

impl Rendered<'_> {
    /// The layers' texts; empty if the trace does not tile the text (reported once, by [`Renders::new`]).
    pub(crate) fn segments(&self) -> Vec<Segment<'_>> {
        segments(&self.prompt).unwrap_or_default()
    }

    /// Where this assembly came from, for messages.
    pub(crate) fn at(&self) -> At<'_> {
        At(self)
    }
}

/// `scenario `rich`, cached/full, turn 2`.
pub(crate) struct At<'r>(&'r Rendered<'r>);

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.0;
        write!(f, "scenario `{}`, {}/{}", r.scenario.name(), r.path, r.mode)?;
        if r.scenario.turns().len() > 1 {
            write!(f, ", turn {}", r.turn + 1)?;
        }
        Ok(())
    }
}

/// The pipeline rendered for every scenario, turn, path and mode.
pub(crate) struct Renders<'a> {
    pub(crate) pipeline: &'a Pipeline,
    pub(crate) items: Vec<Rendered<'a>>,
    /// Problems rendering itself ran into (a trace that does not tile its text).
    pub(crate) problems: Vec<Finding>,
}

impl<'a> Renders<'a> {
    pub(crate) fn new(pipeline: &'a Pipeline, scenarios: &'a [Scenario]) -> Self {
        let empty = TurnContext::new();
        let mut items = Vec::new();
        let mut problems = Vec::new();
        for scenario in scenarios {
            let turns: Vec<&TurnContext> = if scenario.turns().is_empty() {
                vec![&empty]
            } else {
                scenario.turns().iter().collect()
            };
            for path in paths_of(pipeline) {
                for mode in modes_of(pipeline) {
                    for (turn, context) in turns.iter().enumerate() {
                        let built = build(pipeline, path, mode, scenario.session(), context)
                            .and_then(|prompt| {
                                let again = (turn == 0)
                                    .then(|| {
                                        build(pipeline, path, mode, scenario.session(), context)
                                    })
                                    .transpose()?;
                                Ok((prompt, again))
                            });
                        let (prompt, again) = match built {
                            Ok(built) => built,
                            Err(error) => {
                                problems.push(Finding {
                                    check: Check::Builds,
                                    subject: format!("pipeline `{}`", pipeline.name()),
                                    problem: format!(
                                        "the build failed (scenario `{}`, {path}/{mode}): {error}",
                                        scenario.name()
                                    ),
                                    fix: "make every layer render without panicking on this scenario's contexts".to_owned(),
                                });
                                continue;
                            }
                        };
                        items.push(Rendered {
                            scenario,
                            turn,
                            path,
                            mode,
                            prompt,
                            again,
                        });
                    }
                }
            }
        }
        for item in &items {
            if let Err(error) = segments(&item.prompt) {
                problems.push(Finding {
                    check: Check::Reachable,
                    subject: format!("pipeline `{}`", pipeline.name()),
                    problem: format!("{} ({})", error, item.at()),
                    fix: "report this as a bug in prompt-core: the trace of a fresh assembly must account for every byte".to_owned(),
                });
                break;
            }
        }
        Self {
            pipeline,
            items,
            problems,
        }
    }

    /// How many prompts were assembled, rebuilds included.
    pub(crate) fn count(&self) -> usize {
        self.items.len() + self.items.iter().filter(|i| i.again.is_some()).count()
    }

    /// ``layer `name` (file:line)``, or ``layer `name` `` for a name the pipeline does not have.
    pub(crate) fn layer(&self, name: &str) -> String {
        match self.pipeline.layer(name) {
            Some(spec) => describe(spec),
            None => format!("layer `{name}`"),
        }
    }
}

/// ``layer `name` (file:line)``.
pub(crate) fn describe(spec: &LayerSpec) -> String {
    format!(
        "layer `{}` ({})",
        spec.name,
        spec.location().replace('\\', "/")
    )
}
