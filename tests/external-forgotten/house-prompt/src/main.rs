//! The house's `prompt`: it depends on house-layers but never names it
//! (`use house_layers as _;` forgotten), and declares `quill`, whose mood
//! layer reads a turn value only this binary builds; with `HOUSE_ALLOW` set
//! it allows a date in the standard pipeline's project layer.

use prompt_checks::contract::Scenario;
use prompt_core::{prompt_layer, prompt_pipeline, LayerInput, LayerWriter, Render, TurnValue};
use prompt_cli::{standard_session, standard_turn, AgentError, Main, Options, Volatile};

/// The house's writing agent.
#[prompt_pipeline(paths = [Cached], modes = [Full])]
pub struct Quill;

/// The writer's mood: the house's own loop puts it in each turn.
pub struct Mood(pub String);
impl TurnValue for Mood {}

#[prompt_layer(priority = 100, stability = Stable, paths = [Cached], modes = [Full], pipeline = Quill,
    text = "You are Quill, the house writer.")]
pub struct QuillPersona;

#[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], modes = [Full], pipeline = Quill)]
pub struct MoodLayer;

impl Render for MoodLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        if let Some(Mood(mood)) = input.get::<Mood>() {
            out.push_str("Write in a ");
            out.push_str(mood);
            out.push_str(" voice.");
        }
    }
}

/// What `prompt lint --pipeline quill` checks.
fn quill_scenarios(options: &Options) -> Result<Vec<Scenario>, AgentError> {
    let session = standard_session(options)?;
    let turn = standard_turn(options).with(Mood("calm".into()));
    Ok(vec![Scenario::new("calm", session).turn(turn)])
}

fn main() -> std::process::ExitCode {
    let _ = house_runtime::session();
    let mut main = Main::new().scenarios("quill", quill_scenarios);
    // `HOUSE_ALLOW=1`: the allowance `lint`'s failure names, taken as printed.
    if std::env::var_os("HOUSE_ALLOW").is_some() {
        main = main.allow(
            "standard",
            "project_context",
            Volatile::Date,
            "the house reviews its rules once a release",
        );
    }
    // The test runs the binary both ways: `HOUSE_DEFAULT=quill` names the default.
    match std::env::var("HOUSE_DEFAULT") {
        Ok(name) if name == "quill" => main.default_pipeline("quill").run(),
        _ => main.run(),
    }
}

#[cfg(test)]
mod tests {
    /// The free test, with no crate listed: it asks Cargo, and names the one
    /// `main.rs` forgot, not the runtime-only one.
    #[test]
    fn the_free_test_names_the_forgotten_crate() {
        let error = prompt_checks::testing::check_pipelines(&[]).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("add `use house_layers as _;`"), "{text}");
        assert!(!text.contains("house_runtime"), "{text}");
    }
}
