//! Contract checks that keep a pipeline's prompts honest, callable from your
//! own tests.
//!
//! The contract renders a pipeline for every [`Scenario`] (a named fixture
//! session with its turns), every path and every mode its layers declare,
//! and checks:
//!
//! | check | fails when |
//! |---|---|
//! | [`Check::Reachable`] | a layer writes nothing anywhere and does not declare `silent = ".."` (a declared-silent layer no scenario wakes is a note) |
//! | [`Check::PrefixInvariance`] | a Stable layer's bytes move between turns or between two builds from the same inputs (it reads a clock, a counter, a global) |
//! | [`Check::RepeatedSentence`] | two layers (or a layer and a tool's description: the pipeline's [declared tools](prompt_core::Pipeline::with_tools), [`Contract::tool`]; or an [extra text](Contract::extra_text)) state the same sentence of 8+ words |
//! | [`Check::RepeatedFact`] | two layers state the value of one declared [fact](Scenario::fact) |
//! | [`Check::VolatileValue`] | a Stable layer states a date, time, UUID, digest or counter it is not [allowed](Contract::allow) |
//! | [`Check::Ratchet`] | the worst stable or dynamic bytes of a path and mode exceed the [committed ceiling](Contract::ratchet), or fall far under it |
//! | [`Check::ScopeSharing`] | a Stable layer writes text after a narrower-scoped one, so a team cannot share it ([`Scope`](crate::spec::Scope)); a note in a pipeline that says `scope_order = Relaxed` |
//!
//! Every failure names the layer, what is wrong and how to fix it.
//!
//! # One line in a test
//!
//! ```standalone_crate
//! use prompt_core::{prompt_layer, Context, LayerInput, LayerWriter, Pipeline, Render, TurnContext, TurnValue};
//! use prompt_core::pipeline::LayerEntry;
//! use prompt_checks::contract::{self, Check, Scenario};
//!
//! /// The pipeline of this example.
//! #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
//! struct Doc;
//! #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are a careful agent.", pipeline = Doc)]
//! struct Persona;
//!
//! /// Today's date, a per-turn fact.
//! struct Today(&'static str);
//! impl TurnValue for Today {}
//!
//! #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], pipeline = Doc, silent = "the turn has a date")]
//! struct Date;
//! impl Render for Date {
//!     fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
//!         if let Some(Today(day)) = input.get::<Today>() {
//!             out.push_str("Date: ");
//!             out.push_str(day);
//!         }
//!     }
//! }
//!
//! let pipeline = Pipeline::of::<Doc>().unwrap();
//! let scenarios = [
//!     Scenario::new("bare", Context::new()),
//!     Scenario::new("dated", Context::new())
//!         .turn(TurnContext::new().with(Today("2026-11-29")))
//!         .turn(TurnContext::new().with(Today("2026-11-30")))
//!         .fact("date", "2026-11-29"),
//! ];
//! contract::check(&pipeline, &scenarios).assert_ok();
//!
//! // With every option: extra texts, allowances and a ratchet file.
//! let ratchets = std::env::temp_dir().join(format!("doc-ratchets-{}.json", std::process::id()));
//! let report = contract::Contract::new(&pipeline, &scenarios)
//!     .extra_text("tool `delegate`", "Hand a self-contained task to a sub-agent.")
//!     .ratchet(&ratchets)
//!     .run();
//! // No ceilings committed yet: the ratchet says how to create them.
//! assert_eq!(report.failures_of(Check::Ratchet).count(), 1);
//! assert!(report.to_string().contains("PROMPT_RATCHET=update"));
//! ```
//!
//! In a repository's tests, `PROMPT_RATCHET=update cargo test` writes the
//! ceilings (atomically: a temp file, then a rename); commit the file.

mod facts;
mod invariance;
mod ratchet;
mod reachable;
mod renders;
mod report;
mod scenario;
mod scopes;
mod sentences;
mod size;
mod volatile;

use std::path::{Path, PathBuf};

pub use ratchet::{FAR_UNDER_PERCENT, RATCHET_ENV, RatchetMode};
pub use report::{Check, Finding, Report};
pub use scenario::Scenario;
pub use size::{AssemblySize, LayerMeasure, Sizes, measure, measure_tokens};
pub use volatile::{Allowance, Volatile};

use renders::Renders;

use crate::pipeline::Pipeline;
use crate::testing::Segment;

/// The shortest sentence, in words, that [`Check::RepeatedSentence`] looks at by default.
pub const MIN_SENTENCE_WORDS: usize = 8;

/// Runs every check except the ratchet (which needs a file: see
/// [`Contract::ratchet`]) on `pipeline` over `scenarios`.
pub fn check(pipeline: &Pipeline, scenarios: &[Scenario]) -> Report {
    Contract::new(pipeline, scenarios).run()
}

/// The contract of one pipeline, with its options. [`run`](Self::run) renders
/// every assembly once and runs the chosen checks over them.
#[derive(Debug)]
pub struct Contract<'a> {
    pipeline: &'a Pipeline,
    scenarios: &'a [Scenario],
    checks: Vec<Check>,
    extras: Vec<(String, String)>,
    allowances: Vec<Allowance>,
    ratchet: Option<(PathBuf, RatchetMode)>,
    min_words: usize,
}

impl<'a> Contract<'a> {
    /// Every check on `pipeline` over `scenarios`; the ratchet only once a file is given.
    ///
    /// The descriptions of the tools the pipeline declares
    /// ([`Pipeline::with_tools`]) are read beside the layers, as
    /// [`tool`](Self::tool) reads one.
    pub fn new(pipeline: &'a Pipeline, scenarios: &'a [Scenario]) -> Self {
        Self {
            pipeline,
            scenarios,
            checks: Check::ALL.to_vec(),
            extras: pipeline.tools().tools().iter().map(tool_extra).collect(),
            allowances: Vec::new(),
            ratchet: None,
            min_words: MIN_SENTENCE_WORDS,
        }
    }

    /// Runs only `checks`.
    #[must_use]
    pub fn only(mut self, checks: &[Check]) -> Self {
        self.checks = checks.to_vec();
        self
    }

    /// A text sent beside the prompt (a tool description, a reminder) that no
    /// layer should repeat a sentence or fact of. `name` appears in reports.
    #[must_use]
    pub fn extra_text(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.extras.push((name.into(), text.into()));
        self
    }

    /// A tool whose description no layer should repeat a sentence or fact
    /// of: a sentence a tool owns belongs in its description, sent only to
    /// requests that can call it. Reports name it as the tool `name`.
    /// (The pipeline's own declared tools are read already; name here the
    /// tools a session supplies for its slots.)
    #[must_use]
    pub fn tool(mut self, tool: &prompt_core::tools::Tool) -> Self {
        self.extras.push(tool_extra(tool));
        self
    }

    /// Lets the Stable layer `layer` state values of `kind`, for `reason`
    /// (shown in review; an empty reason is a failure).
    #[must_use]
    pub fn allow(
        mut self,
        layer: impl Into<String>,
        kind: Volatile,
        reason: impl Into<String>,
    ) -> Self {
        self.allowances.push(Allowance {
            layer: layer.into(),
            kind,
            reason: reason.into(),
        });
        self
    }

    /// Checks sizes against the ceilings in `file` (JSON), or rewrites them
    /// when `PROMPT_RATCHET=update` ([`RatchetMode::from_env`]).
    #[must_use]
    pub fn ratchet(self, file: impl AsRef<Path>) -> Self {
        self.ratchet_mode(file, RatchetMode::from_env())
    }

    /// [`ratchet`](Self::ratchet) with an explicit mode instead of the environment's.
    #[must_use]
    pub fn ratchet_mode(mut self, file: impl AsRef<Path>, mode: RatchetMode) -> Self {
        self.ratchet = Some((file.as_ref().to_owned(), mode));
        self
    }

    /// The shortest sentence [`Check::RepeatedSentence`] looks at (default 8 words).
    #[must_use]
    pub fn min_sentence_words(mut self, words: usize) -> Self {
        self.min_words = words.max(1);
        self
    }

    /// Renders every assembly and runs the checks.
    pub fn run(&self) -> Report {
        let extras = &self.extras;
        let renders = Renders::new(self.pipeline, self.scenarios);
        let mut failures = renders.problems.clone();
        let mut notes = Vec::new();
        for check in Check::ALL.iter().filter(|c| self.checks.contains(c)) {
            match check {
                // Build failures are found while rendering, in `renders.problems`.
                Check::Builds => {}
                Check::Reachable => {
                    let (fail, note) = reachable::check(&renders);
                    failures.extend(fail);
                    notes.extend(note);
                }
                Check::PrefixInvariance => failures.extend(invariance::check(&renders)),
                Check::RepeatedSentence => {
                    failures.extend(sentences::check(&renders, extras, self.min_words));
                }
                Check::RepeatedFact => failures.extend(facts::check(&renders, extras)),
                Check::VolatileValue => {
                    failures.extend(volatile::check(&renders, &self.allowances))
                }
                Check::ScopeSharing => {
                    let (fail, note) = scopes::check(&renders);
                    failures.extend(fail);
                    notes.extend(note);
                }
                Check::Ratchet => {
                    if let Some((file, mode)) = &self.ratchet {
                        let sizes = size::sizes(&renders, self.scenarios);
                        let (fail, note) = ratchet::check(&sizes, file, *mode);
                        failures.extend(fail);
                        notes.extend(note);
                    }
                }
            }
        }
        Report {
            pipeline: self.pipeline.name().to_owned(),
            scenarios: self.scenarios.iter().map(|p| p.name().to_owned()).collect(),
            assemblies: renders.count(),
            failures,
            notes,
        }
    }
}

/// A text a check compares: a layer's output or an extra text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Source<'t> {
    name: &'t str,
    text: &'t str,
    extra: bool,
}

/// How a tool's description is named among the extra texts.
const TOOL_EXTRA: &str = "tool:";

fn tool_extra(tool: &prompt_core::tools::Tool) -> (String, String) {
    (
        format!("{TOOL_EXTRA}{}", tool.name()),
        tool.description().to_owned(),
    )
}

impl Source<'_> {
    /// The tool whose description this is, if it is one.
    fn tool(&self) -> Option<&str> {
        self.name.strip_prefix(TOOL_EXTRA).filter(|_| self.extra)
    }

    fn describe(&self, renders: &Renders<'_>) -> String {
        if let Some(tool) = self.tool() {
            format!("the description of tool `{tool}`")
        } else if self.extra {
            format!("extra text `{}`", self.name)
        } else {
            renders.layer(self.name)
        }
    }
}

/// The speaking layers of one assembly, then the extra texts.
fn sources<'t>(segments: &'t [Segment<'t>], extras: &'t [(String, String)]) -> Vec<Source<'t>> {
    segments
        .iter()
        .filter(|s| !s.text.is_empty())
        .map(|s| Source {
            name: s.layer.name,
            text: s.text,
            extra: false,
        })
        .chain(extras.iter().map(|(name, text)| Source {
            name,
            text,
            extra: true,
        }))
        .collect()
}
