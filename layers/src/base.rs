//! The base prompt: who the agent is.

use prompt_core::{LayerInput, Render, prompt_layer};

use crate::priorities;

/// The built-in base prompt, used when the session provides none.
pub const DEFAULT_BASE_PROMPT: &str = include_str!("../prompts/base.md");

/// The base prompt's text for a session, resolved before assembly.
///
/// Put it in the session context; without it [`BasePrompt`] renders
/// [`DEFAULT_BASE_PROMPT`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BasePromptText(pub String);

/// Who the agent is: the session's [`BasePromptText`], or the built-in default.
#[prompt_layer(priority = priorities::BASE, stability = Stable, paths = [Basic, Cached])]
pub struct BasePrompt;

impl Render for BasePrompt {
    fn render(&self, out: &mut String, input: &LayerInput<'_>) {
        match input.get::<BasePromptText>() {
            Some(BasePromptText(text)) => out.push_str(text.trim_end()),
            None => out.push_str(DEFAULT_BASE_PROMPT.trim_end()),
        }
    }
}
