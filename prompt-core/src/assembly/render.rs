//! The one place layers are run and their outputs joined.

use std::cell::RefCell;

use super::prompt::{AssembledPrompt, SystemPromptPart};
use super::trace::{AssemblyTrace, LayerTrace};
use crate::context::{Context, LayerInput};
use crate::fingerprint::Fingerprint;
use crate::layer::{AssemblyPath, LayerSpec, PromptMode, Stability};
use crate::pipeline::Pipeline;

/// What one layer wrote.
#[derive(Debug, Clone)]
pub(crate) struct LayerOutput {
    pub(crate) spec: &'static LayerSpec,
    pub(crate) text: String,
    pub(crate) notes: Vec<String>,
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
                let notes = RefCell::new(Vec::new());
                entry.render(
                    &mut text,
                    &LayerInput::new(spec, session, turn, path, self.mode).with_notes(&notes),
                );
                LayerOutput {
                    spec,
                    text,
                    notes: notes.into_inner(),
                }
            })
            .collect()
    }

    /// Joins the outputs into the prompt for `path` and records the trace.
    /// `stable` and `dynamic` are the outputs of [`render`](Self::render).
    pub(crate) fn assemble(
        &self,
        path: AssemblyPath,
        stable: &[LayerOutput],
        dynamic: &[LayerOutput],
    ) -> AssembledPrompt {
        let stable_text = self.join(stable);
        let dynamic_text = self.join(dynamic);
        let trace = AssemblyTrace {
            pipeline: self.pipeline.name().to_owned(),
            path,
            mode: self.mode,
            layers: stable.iter().chain(dynamic).map(layer_trace).collect(),
            stable_bytes: stable_text.len(),
            dynamic_bytes: dynamic_text.len(),
            stable_fingerprint: Fingerprint::of(&stable_text),
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
