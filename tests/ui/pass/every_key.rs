// Every key of the attribute, in one crate that depends on nothing but prompt-core.
use prompt_core::{prompt_layer, AssemblyPath, LayerInput, Pipeline, PromptLayer, PromptMode, Render, Stability};

mod reexport {
    pub use prompt_core as core_again;
}

const BASE: u32 = 100;

#[prompt_layer(priority = BASE, stability = Stable, paths = [Basic, Cached], text = "Persona.", pipeline = "every_key")]
pub struct Persona;

#[prompt_layer(
    priority = BASE + 10,
    stability = Stable,
    paths = [Cached],
    modes = [Full, Compact],
    name = "house_rules",
    pipeline = "every_key",
    after = [Persona],
    before = [Clock],
    silent = "when the session has house rules",
    crate = reexport::core_again,
)]
#[derive(Default)]
pub struct Rules {
    prefix: &'static str,
}

impl Render for Rules {
    fn render(&self, out: &mut String, input: &LayerInput<'_>) {
        if input.mode() == PromptMode::Full {
            out.push_str(self.prefix);
        }
    }
}

#[prompt_layer(priority = 10_000 + BASE, stability = Dynamic, paths = [Cached], pipeline = "every_key", after = [Persona, Rules])]
pub struct Clock;

impl Render for Clock {
    fn render(&self, _out: &mut String, _input: &LayerInput<'_>) {}
}

fn main() {
    assert_eq!(Rules::SPEC.name, "house_rules");
    assert_eq!(Rules::SPEC.priority, 110);
    assert_eq!(Rules::SPEC.paths, &[AssemblyPath::Cached]);
    assert_eq!(Rules::SPEC.modes, &[PromptMode::Full, PromptMode::Compact]);
    assert_eq!(Rules::SPEC.silent, Some("when the session has house rules"));
    assert_eq!(Clock::SPEC.stability, Stability::Dynamic);
    assert_eq!(Persona::SPEC.modes, PromptMode::ALL);

    let pipeline = Pipeline::named("every_key").expect("valid pipeline");
    let names: Vec<_> = pipeline.specs().map(|s| s.name).collect();
    assert_eq!(names, ["persona", "house_rules", "clock"]);
}
