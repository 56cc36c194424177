//! Helpers for test and bench binaries that name `prompt_layers`. Kept out of
//! the `prompt_tests` library on purpose: linking `prompt_layers` there would
//! put its layers into `tests/unlinked.rs`, which proves an unnamed crate is dropped.

#![allow(dead_code)] // each binary that includes this module uses the part it needs

use prompt_core::{AssembledPrompt, Context, Pipeline, PromptBuilder};
use prompt_layers::{SessionConfig, load_session};
use prompt_tests::FixtureWorkspace;

/// The fixture workspace with every source on: home, shared templates, nested
/// docs, working directory `services/api/src`.
pub fn full_config(ws: &FixtureWorkspace) -> SessionConfig {
    let mut config = SessionConfig::new("agent", &ws.repo);
    config.cwd = ws.repo.join("services/api/src");
    config.home = Some(ws.home.clone());
    config.shared_dir = Some(ws.shared.clone());
    config.project_docs.nested = true;
    config
}

/// The session `config` loads, assembled over the default pipeline with an
/// empty turn, cached.
pub fn render(config: &SessionConfig) -> AssembledPrompt {
    let session = load_session(config).unwrap();
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    PromptBuilder::new(&pipeline)
        .build_cached(&session, &Context::new())
        .unwrap()
}

/// The notes the trace holds for `layer`.
pub fn notes(prompt: &AssembledPrompt, layer: &str) -> Vec<String> {
    prompt.trace().layer(layer).unwrap().notes.clone()
}
