//! The base prompt: who the agent is.

use prompt_core::{LayerInput, LayerWriter, Render, Stable, prompt_layer};

use super::short_path;

use crate::priorities;
use crate::sources::{BasePromptText, DEFAULT_BASE_PROMPT, PromptOrigin};

/// Who the agent is: the session's [`BasePromptText`], or the built-in default.
#[prompt_layer(
    priority = priorities::BASE_PROMPT,
    stability = Stable,
    scope = Global,
    paths = [Basic, Cached],
    pipeline = []
)]
pub struct BasePromptLayer;

impl Render<Stable> for BasePromptLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        let Some(base) = input.get::<BasePromptText>() else {
            out.push_str(DEFAULT_BASE_PROMPT.trim_end());
            return;
        };
        if let Some(problem) = &base.problem {
            input.note(format!(
                "{}; using the built-in base prompt",
                crate::sources::report(problem)
            ));
        }
        match &base.origin {
            PromptOrigin::Override(path) => input.note(format!("override {}", short_path(path, 2))),
            PromptOrigin::SearchPath(path) => {
                input.note(format!("search path {}", short_path(path, 2)))
            }
            PromptOrigin::BuiltIn => {}
        }
        out.push_str(base.text.trim_end());
    }
}
