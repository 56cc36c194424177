//! The one place layers are run and their outputs joined.

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use super::error::AssemblyError;
use super::prompt::{AssembledPrompt, Parts, SystemPromptPart};
use super::text::PromptText;
use super::trace::{
    AssemblyTrace, DynamicSpec, Ends, LayerTrace, LayerTraces, LazyFingerprint, StableTrace,
    dynamic_ranges,
};
use crate::budget::{self, BudgetUnit, Candidate, TokenBudget};
use crate::context::{LayerInput, Notes, SessionContext, TurnContext};
use crate::layer::LayerWriter;
use crate::pipeline::{LayerEntry, LayerRef, Pipeline};
use crate::spec::{AssemblyPath, Channel, LayerSpec, PromptMode, Stability};
use crate::tokens::{ApproxCounter, TokenCounter};

/// What one layer wrote.
#[derive(Debug, Clone)]
pub(crate) struct LayerOutput {
    pub(crate) spec: LayerSpec,
    pub(crate) text: String,
    pub(crate) notes: Vec<String>,
}

/// The Stable layers' outputs, joined once and shared by every prompt of a
/// session; fingerprinted only when someone reads a fingerprint.
pub(crate) type StablePrefix = Arc<StableTrace>;

/// The Dynamic layers' joined outputs and traces for one call.
struct DynamicOutput {
    system: String,
    reminder: String,
    layers: LayerTraces,
    budget: Option<budget::BudgetTrace>,
}

/// What a build needs besides the contexts.
#[derive(Clone, Copy)]
pub(crate) struct Plan<'a> {
    pub(crate) pipeline: &'a Pipeline,
    pub(crate) mode: PromptMode,
    pub(crate) separator: &'a Cow<'static, str>,
    pub(crate) budget: Option<TokenBudget>,
    pub(crate) counter: Option<&'a dyn TokenCounter>,
}

/// One call: the path it assembles and the contexts its layers read.
#[derive(Clone, Copy)]
pub(crate) struct Call<'c> {
    pub(crate) path: AssemblyPath,
    pub(crate) session: &'c SessionContext,
    pub(crate) turn: &'c TurnContext,
}

/// Whether `spec`'s layer runs among the layers of `stability` on `path` in `mode`.
fn runs(spec: &LayerSpec, stability: Stability, path: AssemblyPath, mode: PromptMode) -> bool {
    spec.stability == stability && spec.on_path(path) && spec.in_mode(mode)
}

/// The Dynamic layers of `pipeline` that run on `path` in `mode`, in order.
/// A build finds them once; a session, once per path for all its calls.
pub(crate) fn dynamic_entries(
    pipeline: &Pipeline,
    path: AssemblyPath,
    mode: PromptMode,
) -> Box<[&LayerEntry]> {
    pipeline
        .entries()
        .iter()
        .filter(|e| runs(e.spec(), Stability::Dynamic, path, mode))
        .collect()
}

impl Plan<'_> {
    /// Runs `entries` in order, their notes into `notes`: `layer` renders
    /// each (`entry.render(writer, input)`) and records what it wrote.
    ///
    /// One `catch_unwind` for the whole run: a layer that panics is named
    /// (the one being rendered when it unwound), and the pipeline, the
    /// session and other threads keep working.
    fn run<'e>(
        &self,
        call: Call<'_>,
        entries: impl IntoIterator<Item = &'e LayerEntry>,
        notes: &Notes,
        mut layer: impl FnMut(&'e LayerEntry, &LayerInput<'_>),
    ) -> Result<(), AssemblyError> {
        let mut current: Option<&LayerEntry> = None;
        let run = catch_unwind(AssertUnwindSafe(|| {
            let mut entries = entries.into_iter();
            let Some(mut entry) = entries.next() else {
                return;
            };
            // One input for the run; each layer sees it with its own spec.
            let mut input =
                LayerInput::new(entry.spec(), call.session, call.turn, call.path, self.mode)
                    .notes(notes);
            loop {
                current = Some(entry);
                input.set_spec(entry.spec());
                layer(entry, &input);
                match entries.next() {
                    Some(next) => entry = next,
                    None => break,
                }
            }
        }));
        run.map_err(|payload| {
            let entry = current.expect("a layer was being rendered when the run unwound");
            let spec = entry.spec();
            AssemblyError::LayerPanicked {
                layer: LayerRef::from(spec),
                message: panic_message(payload.as_ref()),
            }
        })
    }

    /// Renders the Stable layers on the call's path and joins them into the
    /// prefix. `dynamic` are the Dynamic layers that follow it: the prefix
    /// keeps their specs, and the traces of its calls are built from them.
    ///
    /// They get the real turn context: their band keeps turn values from
    /// them at compile time, and [`LayerInput::get`] keeps the turn context
    /// from a Stable spec's layer of any band (and notes a value it asked for
    /// that only the turn holds), so the rule is exercised on every build
    /// rather than assumed.
    pub(crate) fn stable_prefix(
        &self,
        call: Call<'_>,
        dynamic: &[&LayerEntry],
    ) -> Result<StablePrefix, AssemblyError> {
        // Each layer writes straight into the prefix; the traces keep ranges.
        let mut text = String::new();
        let mut spoken = Vec::with_capacity(self.pipeline.len());
        let notes = Notes::new();
        let entries = self
            .pipeline
            .entries()
            .iter()
            .filter(|e| runs(e.spec(), Stability::Stable, call.path, self.mode));
        self.run(call, entries, &notes, |entry, input| {
            let mut out = LayerWriter::new(&mut text, self.separator);
            entry.render(&mut out, input);
            spoken.push((entry.spec(), out.range(), notes.take()));
        })?;
        let tokens = self.counter.map(|c| c.count(&text));
        let text = Arc::new(text);
        let layers = spoken
            .into_iter()
            .map(|(spec, range, notes)| {
                let mut trace = layer_trace(spec, &text[range.clone()], notes, self.counter);
                trace.fingerprint = LazyFingerprint::of(Arc::clone(&text), range.start, range.end);
                trace
            })
            .collect();
        Ok(Arc::new(StableTrace {
            tokens,
            text,
            layers,
            fingerprint: OnceLock::new(),
            dynamic: dynamic.iter().map(|e| DynamicSpec::of(e.spec())).collect(),
            separator_len: self.separator.len(),
        }))
    }

    /// Runs `entries`, the Dynamic layers `stable` was made with, straight
    /// into their channels' joined texts, and records where each layer's
    /// text ends. Their traces are built from those ends when first read,
    /// or here when token counts need the text. `capacity` is a guess at the
    /// system text's length.
    fn render_dynamic(
        &self,
        call: Call<'_>,
        entries: &[&LayerEntry],
        stable: &StablePrefix,
        capacity: usize,
    ) -> Result<DynamicOutput, AssemblyError> {
        let mut system = String::with_capacity(capacity);
        let mut reminder = String::new();
        let mut ends = Ends::with_capacity(entries.len());
        // Every layer's notes in one sink, each marked with its layer's index.
        let notes = Notes::new();
        let mut index = 0u32;
        self.run(call, entries.iter().copied(), &notes, |entry, input| {
            let joined = match entry.spec().channel {
                Channel::System => &mut system,
                Channel::Reminder => &mut reminder,
            };
            notes.set_layer(index);
            entry.render(&mut LayerWriter::new(joined, self.separator), input);
            // Cut past 4 GiB; checked once the texts are whole.
            ends.push(joined.len() as u32);
            index = index.saturating_add(1);
        })?;
        if u32::try_from(system.len().max(reminder.len())).is_err() {
            // An end past 4 GiB is not in the record: each layer again, into its own text.
            let outputs = self.render_each(call, entries)?;
            return Ok(self.join_outputs(outputs, stable, None));
        }
        let notes = notes.into_indexed();
        let layers = match self.counter {
            Some(counter) => {
                let traces = dynamic_ranges(stable, &ends)
                    .zip(0..)
                    .map(|((spec, range), index)| {
                        let joined = match spec.channel {
                            Channel::System => &system,
                            Channel::Reminder => &reminder,
                        };
                        let tokens = counter.count(&joined[range.clone()]);
                        let mut trace = spec.trace(index, range, &notes);
                        trace.tokens = Some(tokens);
                        trace
                    })
                    .collect();
                LayerTraces::new(Arc::clone(stable), traces)
            }
            None => LayerTraces::recorded(Arc::clone(stable), ends, notes),
        };
        Ok(DynamicOutput {
            system,
            reminder,
            layers,
            budget: None,
        })
    }

    /// Runs `entries`, each into its own `String`, and fits them into the
    /// budget: sheds and cuts them, and adds the budget's notice.
    fn render_fitted(
        &self,
        call: Call<'_>,
        entries: &[&LayerEntry],
        stable: &StablePrefix,
        budget: TokenBudget,
    ) -> Result<DynamicOutput, AssemblyError> {
        let mut outputs = self.render_each(call, entries)?;
        let trace = self.fit(budget, stable, &mut outputs)?;
        Ok(self.join_outputs(outputs, stable, Some(trace)))
    }

    /// Runs `entries`, each into its own `String`.
    fn render_each(
        &self,
        call: Call<'_>,
        entries: &[&LayerEntry],
    ) -> Result<Vec<LayerOutput>, AssemblyError> {
        let mut outputs = Vec::with_capacity(entries.len());
        let notes = Notes::new();
        self.run(call, entries.iter().copied(), &notes, |entry, input| {
            let mut text = String::new();
            entry.render(&mut LayerWriter::new(&mut text, ""), input);
            outputs.push(LayerOutput {
                spec: *entry.spec(),
                text,
                notes: notes.take(),
            });
        })?;
        Ok(outputs)
    }

    /// `outputs` joined per channel, with their traces; the budget's notice,
    /// when it left one, closes the system text.
    fn join_outputs(
        &self,
        outputs: Vec<LayerOutput>,
        stable: &StablePrefix,
        budget: Option<budget::BudgetTrace>,
    ) -> DynamicOutput {
        let mut system = self.join(outputs.iter().filter(|o| o.spec.channel == Channel::System));
        let reminder = self.join(
            outputs
                .iter()
                .filter(|o| o.spec.channel == Channel::Reminder),
        );
        if let Some(notice) = budget.as_ref().and_then(|b| b.notice.as_deref()) {
            if !system.is_empty() {
                system.push_str(self.separator);
            }
            system.push_str(notice);
        }
        let layers = outputs
            .into_iter()
            .map(|o| layer_trace(&o.spec, &o.text, o.notes, self.counter))
            .collect();
        DynamicOutput {
            system,
            reminder,
            layers: LayerTraces::new(Arc::clone(stable), layers),
            budget,
        }
    }

    /// Fits `dynamic` into `budget`: sheds and cuts Dynamic layers in place,
    /// and returns the budget's trace and its notice.
    fn fit(
        &self,
        budget: TokenBudget,
        stable: &StableTrace,
        dynamic: &mut [LayerOutput],
    ) -> Result<budget::BudgetTrace, AssemblyError> {
        let counter = self.counter.unwrap_or(&ApproxCounter);
        let measure = |text: &str| match budget.unit() {
            BudgetUnit::Chars => text.chars().count(),
            BudgetUnit::Tokens => counter.count(text),
        };
        let stable_layers: Vec<(&'static str, &str)> = stable
            .layers
            .iter()
            .map(|l| (l.name, l.stable_text()))
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
        Ok(trace)
    }

    /// Runs `entries`, the Dynamic layers `stable` was made with, and joins
    /// them after the prefix into the prompt for the call's path, with its
    /// trace.
    ///
    /// `hint` remembers the longest dynamic text seen, so that the next call
    /// sizes its `String` once.
    pub(crate) fn assemble(
        &self,
        call: Call<'_>,
        stable: &StablePrefix,
        entries: &[&LayerEntry],
        hint: Option<&AtomicUsize>,
    ) -> Result<AssembledPrompt, AssemblyError> {
        let longest = hint.map_or(0, |h| h.load(Ordering::Relaxed));
        let dynamic = match self.budget {
            // With room for a turn whose values are a little longer.
            None => self.render_dynamic(call, entries, stable, longest + longest / 8)?,
            Some(budget) => self.render_fitted(call, entries, stable, budget)?,
        };
        // Written only when the text grew: most calls just read it.
        if let Some(hint) = hint
            && dynamic.system.len() > longest
        {
            hint.fetch_max(dynamic.system.len(), Ordering::Relaxed);
        }
        let DynamicOutput {
            system: dynamic_text,
            reminder,
            layers,
            budget,
        } = dynamic;
        let path = call.path;
        let trace = AssemblyTrace {
            pipeline: self.pipeline.name(),
            path,
            mode: self.mode,
            layers,
            stable_bytes: stable.text.len(),
            dynamic_bytes: dynamic_text.len(),
            reminder_bytes: reminder.len(),
            tokenizer: self.counter.map(|c| c.name()),
            stable_tokens: stable.tokens,
            dynamic_tokens: self.counter.map(|c| c.count(&dynamic_text)),
            budget,
        };
        trace.emit();
        let parts = match path {
            AssemblyPath::Cached => Parts::Cached([
                SystemPromptPart {
                    content: PromptText::shared(Arc::clone(&stable.text)),
                    cache: true,
                },
                SystemPromptPart {
                    content: dynamic_text.into(),
                    cache: false,
                },
            ]),
            AssemblyPath::Basic => {
                let mut whole = String::with_capacity(
                    stable.text.len() + self.separator.len() + dynamic_text.len(),
                );
                whole.push_str(&stable.text);
                if !whole.is_empty() && !dynamic_text.is_empty() {
                    whole.push_str(self.separator);
                }
                whole.push_str(&dynamic_text);
                Parts::Basic([SystemPromptPart {
                    content: whole.into(),
                    cache: false,
                }])
            }
        };
        Ok(AssembledPrompt::new(
            parts,
            (!reminder.is_empty()).then_some(reminder),
            self.separator.clone(),
            trace,
        ))
    }

    /// Appends `text` to `joined`, after the separator if both are non-empty;
    /// silent layers leave no trace in the text.
    fn push_joined(&self, joined: &mut String, text: &str) {
        if text.is_empty() {
            return;
        }
        if !joined.is_empty() {
            joined.push_str(self.separator);
        }
        joined.push_str(text);
    }

    /// Non-empty outputs joined with the separator, in one allocation.
    fn join<'o>(&self, outputs: impl IntoIterator<Item = &'o LayerOutput> + Clone) -> String {
        let len = outputs
            .clone()
            .into_iter()
            .map(|o| o.text.len() + self.separator.len())
            .sum();
        let mut joined = String::with_capacity(len);
        for output in outputs {
            self.push_joined(&mut joined, &output.text);
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

/// A layer's trace, without a fingerprint.
fn layer_trace(
    spec: &LayerSpec,
    text: &str,
    notes: Vec<String>,
    counter: Option<&dyn TokenCounter>,
) -> LayerTrace {
    LayerTrace {
        name: spec.name,
        priority: spec.priority,
        stability: spec.stability,
        scope: (spec.stability == Stability::Stable).then_some(spec.scope),
        bytes: text.len(),
        silent: text.is_empty(),
        notes,
        channel: spec.channel,
        fingerprint: LazyFingerprint::None,
        tokens: counter.map(|c| c.count(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::{Call, dynamic_entries};
    use crate::pipeline::LayerEntry;
    use crate::spec::{AssemblyPath, Channel, LayerSpec, PipelineSpec, PromptMode, Stability};
    use crate::tokens::ApproxCounter;
    use crate::{Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render};

    /// Writes `text` (nothing when empty) after noting each of `notes`.
    struct Says(&'static str, &'static [&'static str]);

    impl Render for Says {
        fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
            for note in self.1 {
                input.note(*note);
            }
            out.push_str(self.0);
        }
    }

    /// Texts past 4 GiB are traced from each layer's own text: that path
    /// gives the texts and traces (bytes, silence, notes, channels, tokens)
    /// the recorded ends give.
    #[test]
    fn each_layer_into_its_own_text_gives_what_the_recorded_ends_give() {
        let dynamic = |name, priority| LayerSpec::new(name, priority, Stability::Dynamic);
        let pipeline = Pipeline::from_layers(
            PipelineSpec::new("default"),
            [
                LayerEntry::new(LayerSpec::new("s", 100, Stability::Stable), Says("S", &[])),
                LayerEntry::new(dynamic("a", 10_000), Says("Alpha", &["a1", "a2"])),
                LayerEntry::new(dynamic("b", 10_010), Says("", &["b"])),
                LayerEntry::new(
                    dynamic("r", 10_020).channel(Channel::Reminder),
                    Says("Remind", &["r"]),
                ),
                LayerEntry::new(dynamic("d", 10_030), Says("Delta", &[])),
                LayerEntry::new(
                    dynamic("q", 10_040).channel(Channel::Reminder),
                    Says("Quiet", &[]),
                ),
            ],
        )
        .unwrap();
        let (session, turn) = (Context::new(), Context::new());
        let call = Call {
            path: AssemblyPath::Cached,
            session: &session,
            turn: &turn,
        };
        let entries = dynamic_entries(&pipeline, AssemblyPath::Cached, PromptMode::Full);
        for builder in [
            PromptBuilder::new(&pipeline),
            PromptBuilder::new(&pipeline).counter(ApproxCounter),
        ] {
            let plan = builder.plan();
            let stable = plan.stable_prefix(call, &entries).unwrap();
            let recorded = plan.render_dynamic(call, &entries, &stable, 0).unwrap();
            let each = plan.join_outputs(plan.render_each(call, &entries).unwrap(), &stable, None);
            assert_eq!(recorded.system, "Alpha\n\nDelta");
            assert_eq!(recorded.reminder, "Remind\n\nQuiet");
            assert_eq!(
                (&each.system, &each.reminder),
                (&recorded.system, &recorded.reminder)
            );
            assert_eq!(each.layers, recorded.layers);
            let traced: Vec<_> = recorded
                .layers
                .dynamic()
                .iter()
                .map(|l| (l.name, l.bytes, l.silent, l.notes.len(), l.tokens.is_some()))
                .collect();
            let counted = plan.counter.is_some();
            assert_eq!(
                traced,
                [
                    ("a", 5, false, 2, counted),
                    ("b", 0, true, 1, counted),
                    ("r", 6, false, 1, counted),
                    ("d", 5, false, 0, counted),
                    ("q", 5, false, 0, counted),
                ]
            );
        }
    }
}
