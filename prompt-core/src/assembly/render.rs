//! The one place layers are run and their outputs joined.

use super::prompt::{AssembledPrompt, SystemPromptPart};
use super::trace::{AssemblyTrace, LayerTrace};
use crate::context::{Context, LayerInput, Notes};
use crate::fingerprint::Fingerprint;
use crate::layer::{AssemblyPath, LayerSpec, PromptMode, Stability};
use crate::pipeline::Pipeline;

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
    text: String,
    fingerprint: Fingerprint,
}

/// What a build needs besides the contexts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan<'a> {
    pub(crate) pipeline: &'a Pipeline,
    pub(crate) mode: PromptMode,
    pub(crate) separator: &'a str,
}

impl Plan<'_> {
    /// Runs every layer of `stability` that is on `path` and in the mode, in order.
    pub(crate) fn render(
        &self,
        path: AssemblyPath,
        stability: Stability,
        session: &Context,
        turn: &Context,
    ) -> Vec<LayerOutput> {
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
                entry.render(
                    &mut text,
                    &LayerInput::new(spec, session, turn, path, self.mode).with_notes(&notes),
                );
                LayerOutput {
                    spec: *spec,
                    text,
                    notes: notes.into_vec(),
                }
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
    ) -> StablePrefix {
        let outputs = self.render(path, Stability::Stable, session, turn);
        let text = self.join(&outputs);
        StablePrefix {
            fingerprint: Fingerprint::of(&text),
            outputs,
            text,
        }
    }

    /// Joins the prefix and the Dynamic outputs (from [`render`](Self::render))
    /// into the prompt for `path`, and records the trace.
    pub(crate) fn assemble(
        &self,
        path: AssemblyPath,
        stable: &StablePrefix,
        dynamic: &[LayerOutput],
    ) -> AssembledPrompt {
        let stable_text = stable.text.clone();
        let dynamic_text = self.join(dynamic);
        let trace = AssemblyTrace {
            pipeline: self.pipeline.name().to_owned(),
            path,
            mode: self.mode,
            layers: stable
                .outputs
                .iter()
                .chain(dynamic)
                .map(layer_trace)
                .collect(),
            stable_bytes: stable_text.len(),
            dynamic_bytes: dynamic_text.len(),
            stable_fingerprint: stable.fingerprint,
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
        AssembledPrompt::new(parts, self.separator.to_owned(), trace)
    }

    /// Non-empty outputs joined with the separator; silent layers leave no trace in the text.
    fn join(&self, outputs: &[LayerOutput]) -> String {
        let mut joined = String::new();
        for output in outputs.iter().filter(|o| !o.text.is_empty()) {
            if !joined.is_empty() {
                joined.push_str(self.separator);
            }
            joined.push_str(&output.text);
        }
        joined
    }
}

fn layer_trace(output: &LayerOutput) -> LayerTrace {
    LayerTrace {
        name: output.spec.name,
        priority: output.spec.priority,
        stability: output.spec.stability,
        bytes: output.text.len(),
        silent: output.text.is_empty(),
        notes: output.notes.clone(),
    }
}
