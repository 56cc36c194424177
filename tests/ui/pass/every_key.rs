//! Every key of the attribute, in one crate that depends on nothing but prompt-core.
use prompt_core::spec::Channel;
use prompt_core::spec::Scope;
use prompt_core::spec::Yields;
use prompt_core::{
    AssemblyPath, LayerInput, LayerWriter, Pipeline, PromptLayer, PromptMode, Render, Stability,
    Stable, prompt_layer, prompt_pipeline,
};

mod reexport {
    pub use prompt_core as core_again;
}

const BASE: u32 = 100;

/// The main agent's pipeline.
#[prompt_pipeline(paths = [Basic, Cached], modes = [Full, Compact], separator = "\n---\n", scope_order = Strict, crate = reexport::core_again)]
pub struct EveryKey;

/// A sub-agent sharing a layer with it.
#[prompt_pipeline(paths = [Cached])]
pub struct SubAgent;

/// The persona, shared by both pipelines.
#[prompt_layer(priority = BASE, stability = Stable, scope = Global, paths = [Cached], text = "Persona.\n\n", pipeline = [EveryKey, SubAgent])]
pub struct PersonaLayer;

/// House rules, rendered by the layer itself.
#[prompt_layer(
    priority = BASE + 10,
    stability = Stable,
    paths = [Cached],
    modes = [Full, Compact],
    name = "house_rules",
    pipeline = EveryKey,
    after = [PersonaLayer],
    before = [Clock],
    silent = "when the session has house rules",
    scope = Project,
    crate = reexport::core_again,
)]
#[derive(Default)]
pub struct Rules {
    prefix: &'static str,
}

impl Render<Stable> for Rules {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if input.mode() == PromptMode::Full {
            out.push_str(self.prefix);
        }
    }
}

/// The time, a dynamic reminder after the others.
#[prompt_layer(
    priority = 10_000 + BASE,
    stability = Dynamic,
    paths = [Cached],
    pipeline = EveryKey,
    after = [PersonaLayer, Rules],
    yields = Keep,
    channel = Reminder,
)]
pub struct Clock;

impl Render for Clock {
    fn render(&self, _out: &mut LayerWriter<'_>, _input: &LayerInput<'_>) {}
}

/// Takes layers it did not define: one narrowed and given another budget
/// policy, one as declared.
#[prompt_pipeline(paths = [Cached], modes = [Full],
    include = [Clock(paths = [Cached], modes = [Full], yields = Shed), Rules], crate = reexport::core_again)]
pub struct Reviewer;

fn main() {
    assert_eq!(Rules::SPEC.name, "house_rules");
    assert_eq!(Rules::SPEC.priority, 110);
    assert_eq!(Rules::SPEC.paths, &[AssemblyPath::Cached]);
    assert_eq!(Rules::SPEC.modes, &[PromptMode::Full, PromptMode::Compact]);
    assert_eq!(Rules::SPEC.silent, Some("when the session has house rules"));
    assert_eq!(Clock::SPEC.stability, Stability::Dynamic);
    assert_eq!(
        (Clock::SPEC.yields, Clock::SPEC.channel),
        (Yields::Keep, Channel::Reminder)
    );
    assert_eq!(
        (Rules::SPEC.yields, Rules::SPEC.channel),
        (Yields::Shed, Channel::System)
    );
    assert_eq!(PersonaLayer::SPEC.name, "persona");
    assert_eq!(
        (PersonaLayer::SPEC.scope, Rules::SPEC.scope),
        (Scope::Global, Scope::Project)
    );
    assert_eq!(Clock::SPEC.scope, Scope::Session);
    assert_eq!(PersonaLayer::SPEC.modes, PromptMode::ALL);
    assert_eq!(PersonaLayer::SPEC.pipelines, ["every_key", "sub_agent"]);

    let pipeline = Pipeline::of::<EveryKey>().expect("valid pipeline");
    let names: Vec<_> = pipeline.specs().map(|s| s.name).collect();
    assert_eq!(names, ["persona", "house_rules", "clock"]);
    assert_eq!(pipeline.spec().separator, "\n---\n");
    let sub_agent = Pipeline::named("sub_agent").expect("valid pipeline");
    assert_eq!(sub_agent.len(), 1);
    let reviewer = Pipeline::of::<Reviewer>().expect("valid pipeline");
    let clock = reviewer.layer("clock").expect("included");
    assert_eq!(
        (clock.modes, clock.yields),
        (&[PromptMode::Full][..], Yields::Shed)
    );
    assert_eq!(reviewer.len(), 2);
}
