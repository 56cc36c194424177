//! The one place layers are run and their outputs joined.

use std::panic::{AssertUnwindSafe, catch_unwind};

use super::error::AssemblyError;
use super::prompt::{AssembledPrompt, SystemPromptPart};
use super::trace::{AssemblyTrace, LayerTrace};
use crate::budget::{self, BudgetUnit, Candidate, TokenBudget};
use crate::context::{Context, LayerInput, Notes};
use crate::fingerprint::Fingerprint;
use crate::layer::{AssemblyPath, Channel, LayerSpec, PromptMode, Stability};
use crate::pipeline::Pipeline;
use crate::tokens::{ApproxCounter, TokenCounter};

/// What one layer wrote.
#[derive(Debug, Clone)]
pub(crate) struct LayerOutput {
    pub(crate) spec: LayerSpec,
    pub(crate) text: String,
    pub(crate) notes: Vec<String>,
}

/// The Stable layers' outputs, joined and fingerprinted once: a session reuses it for every turn.
#[derive(Debug, Clone)]
pub(crate) struct StablePrefix {
    outputs: Vec<LayerOutput>,
    /// One per output, in order: what the trace shows for each Stable layer.
    fingerprints: Vec<Fingerprint>,
    text: String,
    fingerprint: Fingerprint,
}

/// What a build needs besides the contexts.
#[derive(Clone, Copy)]
pub(crate) struct Plan<'a> {
    pub(crate) pipeline: &'a Pipeline,
    pub(crate) mode: PromptMode,
    pub(crate) separator: &'a str,
    pub(crate) budget: Option<TokenBudget>,
    pub(crate) counter: Option<&'a dyn TokenCounter>,
}

impl Plan<'_> {
    /// Runs every layer of `stability` that is on `path` and in the mode, in order.
    ///
    /// A layer that panics is caught and named: the pipeline, the session and
    /// other threads keep working.
    pub(crate) fn render(
        &self,
        path: AssemblyPath,
        stability: Stability,
        session: &Context,
        turn: &Context,
    ) -> Result<Vec<LayerOutput>, AssemblyError> {
        self.pipeline
            .entries()
            .iter()
            .filter(|e| {
                let spec = e.spec();
                spec.stability == stability && spec.on_path(path) && spec.in_mode(self.mode)
            })
            .map(|entry| {
                let spec = entry.spec();
                let mut text = String::new();
                let notes = Notes::new();
                let input =
                    LayerInput::new(spec, session, turn, path, self.mode).with_notes(&notes);
                catch_unwind(AssertUnwindSafe(|| entry.render(&mut text, &input))).map_err(
                    |payload| AssemblyError::LayerPanicked {
                        layer: spec.name,
                        location: spec.location(),
                        message: panic_message(payload.as_ref()),
                    },
                )?;
                Ok(LayerOutput {
                    spec: *spec,
                    text,
                    notes: notes.into_vec(),
                })
            })
            .collect()
    }

    /// Renders the Stable layers on `path` and joins them into the prefix.
    ///
    /// They get the real turn context: [`LayerInput::get`] keeps it from them
    /// (and notes a value they asked for that only the turn holds), so the
    /// rule is exercised on every build rather than assumed.
    pub(crate) fn stable_prefix(
        &self,
        path: AssemblyPath,
        session: &Context,
        turn: &Context,
    ) -> Result<StablePrefix, AssemblyError> {
        let outputs = self.render(path, Stability::Stable, session, turn)?;
        let text = self.join(&outputs);
        Ok(StablePrefix {
            fingerprint: Fingerprint::of(&text),
            fingerprints: outputs.iter().map(|o| Fingerprint::of(&o.text)).collect(),
            outputs,
            text,
        })
    }

    /// Fits `dynamic` into the budget, if one is set: sheds and cuts Dynamic
    /// layers in place, and returns the budget's trace and its notice.
    fn fit(
        &self,
        stable: &StablePrefix,
        dynamic: &mut [LayerOutput],
    ) -> Result<Option<budget::BudgetTrace>, AssemblyError> {
        let Some(budget) = self.budget else {
            return Ok(None);
        };
        let counter = self.counter.unwrap_or(&ApproxCounter);
        let measure = |text: &str| match budget.unit() {
            BudgetUnit::Chars => text.chars().count(),
            BudgetUnit::Tokens => counter.count(text),
        };
        let stable_layers: Vec<(&'static str, &str)> = stable
            .outputs
            .iter()
            .map(|o| (o.spec.name, o.text.as_str()))
            .collect();
        let mut candidates: Vec<Candidate> = dynamic
            .iter_mut()
            .map(|o| Candidate {
                name: o.spec.name,
                priority: o.spec.priority,
                yields: o.spec.yields,
                text: std::mem::take(&mut o.text),
            })
            .collect();
        let fitted = budget::fit(
            budget,
            &measure,
            &stable.text,
            &stable_layers,
            &mut candidates,
            self.separator,
        );
        // The texts go back whether or not the fit succeeded.
        for (output, candidate) in dynamic.iter_mut().zip(candidates) {
            output.text = candidate.text;
        }
        let trace = fitted?;
        for output in dynamic.iter_mut() {
            if trace.shed.contains(&output.spec.name) {
                output
                    .notes
                    .push(format!("shed to fit the budget of {budget}"));
            }
            if let Some(cut) = trace.truncated.iter().find(|t| t.name == output.spec.name) {
                output.notes.push(format!(
                    "cut from {} to {} {} to fit the budget of {budget}",
                    cut.from,
                    cut.to,
                    budget.unit()
                ));
            }
        }
        Ok(Some(trace))
    }

    /// Joins the prefix and the Dynamic outputs (from [`render`](Self::render))
    /// into the prompt for `path`, and records the trace.
    pub(crate) fn assemble(
        &self,
        path: AssemblyPath,
        stable: &StablePrefix,
        mut dynamic: Vec<LayerOutput>,
    ) -> Result<AssembledPrompt, AssemblyError> {
        let budget = self.fit(stable, &mut dynamic)?;
        let dynamic = &dynamic;
        let stable_text = stable.text.clone();
        let mut dynamic_text =
            self.join(dynamic.iter().filter(|o| o.spec.channel == Channel::System));
        let reminder = self.join(
            dynamic
                .iter()
                .filter(|o| o.spec.channel == Channel::Reminder),
        );
        if let Some(notice) = budget.as_ref().and_then(|b| b.notice.as_deref()) {
            if !dynamic_text.is_empty() {
                dynamic_text.push_str(self.separator);
            }
            dynamic_text.push_str(notice);
        }
        let trace = AssemblyTrace {
            pipeline: self.pipeline.name().to_owned(),
            path,
            mode: self.mode,
            layers: stable
                .outputs
                .iter()
                .zip(&stable.fingerprints)
                .map(|(output, fingerprint)| layer_trace(output, Some(*fingerprint), self.counter))
                .chain(
                    dynamic
                        .iter()
                        .map(|output| layer_trace(output, None, self.counter)),
                )
                .collect(),
            stable_bytes: stable_text.len(),
            dynamic_bytes: dynamic_text.len(),
            reminder_bytes: reminder.len(),
            tokenizer: self.counter.map(|c| c.name()),
            stable_tokens: self.counter.map(|c| c.count(&stable_text)),
            dynamic_tokens: self.counter.map(|c| c.count(&dynamic_text)),
            stable_fingerprint: stable.fingerprint,
            budget,
        };
        trace.emit();
        let parts = match path {
            AssemblyPath::Cached => vec![
                SystemPromptPart {
                    content: stable_text,
                    cache: true,
                },
                SystemPromptPart {
                    content: dynamic_text,
                    cache: false,
                },
            ],
            AssemblyPath::Basic => {
                let mut whole = stable_text;
                if !whole.is_empty() && !dynamic_text.is_empty() {
                    whole.push_str(self.separator);
                }
                whole.push_str(&dynamic_text);
                vec![SystemPromptPart {
                    content: whole,
                    cache: false,
                }]
            }
        };
        Ok(AssembledPrompt::new(
            parts,
            (!reminder.is_empty()).then_some(reminder),
            self.separator.to_owned(),
            trace,
        ))
    }

    /// Non-empty outputs joined with the separator; silent layers leave no trace in the text.
    fn join<'o>(&self, outputs: impl IntoIterator<Item = &'o LayerOutput>) -> String {
        let mut joined = String::new();
        for output in outputs.into_iter().filter(|o| !o.text.is_empty()) {
            if !joined.is_empty() {
                joined.push_str(self.separator);
            }
            joined.push_str(&output.text);
        }
        joined
    }
}

/// The message of a caught panic, when it carried one.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "a panic with a non-string payload".to_owned()
    }
}

fn layer_trace(
    output: &LayerOutput,
    fingerprint: Option<Fingerprint>,
    counter: Option<&dyn TokenCounter>,
) -> LayerTrace {
    LayerTrace {
        name: output.spec.name,
        priority: output.spec.priority,
        stability: output.spec.stability,
        bytes: output.text.len(),
        silent: output.text.is_empty(),
        notes: output.notes.clone(),
        channel: output.spec.channel,
        fingerprint,
        tokens: counter.map(|c| c.count(&output.text)),
    }
}
