//! Helpers for test and bench binaries that name `prompt_layers`. Kept out of
//! the `prompt_tests` library on purpose: linking `prompt_layers` there would
//! put its layers into `tests/unlinked.rs`, which proves an unnamed crate is dropped.

use prompt_layers::SessionConfig;
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
