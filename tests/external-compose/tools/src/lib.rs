//! A layer crate that knows no pipeline but the default one.
#![forbid(unsafe_code)]

use prompt_core::prompt_layer;

/// The tools the agent has.
#[prompt_layer(priority = 1_500, stability = Stable, scope = Global, paths = [Basic, Cached], text = "Tools: grep, edit.")]
pub struct ToolsLayer;
