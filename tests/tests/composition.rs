//! Composition: pipelines that serve some paths and modes, layers shared by
//! pipelines, and what a build asks of a pipeline that does not serve it.

use prompt_core::pipeline::LayerEntry;
use prompt_core::pipeline::Problem;
use prompt_core::spec::PipelineSpec;
use prompt_core::{
    AssemblyError, AssemblyPath, Context, Pipeline, PromptBuilder, PromptLayer, PromptMode,
    prompt_layer, prompt_pipeline,
};

/// Speaks in Minimal only (default pipeline, not collected by these tests).
#[prompt_layer(priority = 10, stability = Stable, scope = Global, paths = [Basic, Cached], modes = [Minimal, Compact], text = "Terse.")]
pub struct Terse;

/// Renders on Cached only (default pipeline).
#[prompt_layer(priority = 20, stability = Stable, scope = Global, paths = [Cached], text = "Cached.")]
pub struct CachedOnly;

/// A sub-agent: one flat prompt, in Full only.
#[prompt_pipeline(paths = [Basic], modes = [Full])]
pub struct SubAgent;

/// The main agent: both paths, every mode.
#[prompt_pipeline(paths = [Basic, Cached])]
pub struct MainAgent;

/// Shared by both pipelines: Cached is served by `MainAgent` only, and that
/// is no reason to reject it.
#[prompt_layer(priority = 100, stability = Stable, paths = [Basic, Cached], text = "Be brief.",
    pipeline = [MainAgent, SubAgent])]
pub struct Persona;

#[test]
fn a_layer_shared_by_a_basic_only_pipeline_keeps_its_cached_path_in_the_other() {
    let main = Pipeline::of::<MainAgent>().unwrap();
    let prompt = PromptBuilder::new(&main)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(prompt.stable(), "Be brief.");
    let sub = Pipeline::of::<SubAgent>().unwrap();
    let prompt = PromptBuilder::new(&sub)
        .build_basic(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(prompt.text(), "Be brief.");
}

#[test]
fn a_path_the_pipeline_does_not_serve_is_an_error_not_an_empty_prompt() {
    let sub = Pipeline::of::<SubAgent>().unwrap();
    let error = PromptBuilder::new(&sub)
        .build_cached(&Context::new(), &Context::new())
        .unwrap_err();
    assert_eq!(
        error,
        AssemblyError::PathNotServed {
            pipeline: "sub_agent".into(),
            asked: AssemblyPath::Cached,
            serves: &[AssemblyPath::Basic],
        }
    );
    let message = error.to_string();
    assert!(
        message.contains("pipeline `sub_agent` serves the path(s) [basic], not `cached`"),
        "{message}"
    );
    // The session's builds say the same.
    let session = PromptBuilder::new(&sub).session(Context::new());
    assert!(matches!(
        session.build_cached(&Context::new()),
        Err(AssemblyError::PathNotServed { .. })
    ));
    assert_eq!(
        session.build_basic(&Context::new()).unwrap().text(),
        "Be brief."
    );
}

#[test]
fn a_mode_the_pipeline_does_not_serve_is_an_error_not_an_empty_prompt() {
    let sub = Pipeline::of::<SubAgent>().unwrap();
    for mode in [PromptMode::Compact, PromptMode::Minimal] {
        let error = PromptBuilder::new(&sub)
            .mode(mode)
            .build_basic(&Context::new(), &Context::new())
            .unwrap_err();
        assert_eq!(
            error,
            AssemblyError::ModeNotServed {
                pipeline: "sub_agent".into(),
                asked: mode,
                serves: &[PromptMode::Full],
            }
        );
        let session = PromptBuilder::new(&sub).mode(mode).session(Context::new());
        assert!(session.build_basic(&Context::new()).is_err());
    }
}

#[test]
fn run_time_validation_rejects_a_layer_whose_modes_the_pipeline_never_assembles() {
    const FULL_ONLY: PipelineSpec = PipelineSpec::new("default").modes(&[PromptMode::Full]);
    let error = Pipeline::from_layers(FULL_ONLY, [LayerEntry::of::<Terse>()]).unwrap_err();
    assert!(
        matches!(
            &error.problems[..],
            [Problem::NeverRenders { what: "modes", .. }]
        ),
        "{error}"
    );
    // A pipeline that serves one of its modes among others takes it.
    const COMPACT: PipelineSpec =
        PipelineSpec::new("default").modes(&[PromptMode::Full, PromptMode::Compact]);
    assert!(Pipeline::from_layers(COMPACT, [LayerEntry::of::<Terse>()]).is_ok());
}

#[test]
fn run_time_validation_accepts_a_path_only_another_pipeline_serves() {
    const BASIC_ONLY: PipelineSpec = PipelineSpec::new("default").paths(&[AssemblyPath::Basic]);
    assert!(Pipeline::from_layers(BASIC_ONLY, [LayerEntry::of::<Terse>()]).is_ok());
    let error = Pipeline::from_layers(BASIC_ONLY, [LayerEntry::of::<CachedOnly>()]).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("lists paths [cached], but pipeline `default` serves only [basic]"),
        "{message}"
    );
}

// ---- include = [..] ----

/// A Dynamic layer of the default pipeline, which knows no other pipeline.
#[prompt_layer(priority = 10_100, stability = Dynamic, paths = [Basic, Cached], modes = [Full, Compact], text = "Turn notes.")]
pub struct TurnNotes;

/// Takes the standard set, a default-pipeline layer narrowed to Full and
/// given another budget policy, and its own persona.
#[prompt_pipeline(paths = [Basic], modes = [Full, Compact],
    include = [prompt_layers::Standard, TurnNotes(modes = [Full], yields = Truncate)])]
pub struct Reviewer;

/// The reviewer's own persona.
#[prompt_layer(priority = 100, stability = Stable, scope = Global, paths = [Basic], text = "You review.", pipeline = Reviewer)]
pub struct ReviewerPersona;

#[test]
fn a_pipeline_takes_a_standard_set_and_layers_it_did_not_define() {
    let pipeline = Pipeline::of::<Reviewer>().unwrap();
    let names: Vec<&str> = pipeline.specs().map(|s| s.name).collect();
    // The set's Cached-only layers (episodic recall, coordinator, scratchpad)
    // are left out of a Basic-only pipeline; the rest keep their priorities.
    assert_eq!(
        names,
        [
            "reviewer_persona",
            "base_prompt",
            "quoted_files",
            "project_memory",
            "project_context",
            "skills_index",
            "user_preferences",
            "facts",
            "runtime_context",
            "turn_notes",
        ]
    );
    let notes = pipeline.layer("turn_notes").unwrap();
    assert_eq!(notes.modes, [PromptMode::Full]);
    assert_eq!(notes.yields, prompt_core::spec::Yields::Truncate);
    assert_eq!(notes.included_by(), Some("reviewer"));
    assert!(notes.in_pipeline("reviewer"));
    // The layer's own spec is untouched: the default pipeline still has it in both modes.
    assert_eq!(
        <TurnNotes as PromptLayer>::SPEC.modes,
        [PromptMode::Full, PromptMode::Compact]
    );
    let prompt = PromptBuilder::new(&pipeline)
        .build_basic(&Context::new(), &Context::new())
        .unwrap();
    assert!(
        prompt.text().starts_with("You review.\n\n"),
        "{}",
        prompt.text()
    );
    assert!(prompt.text().ends_with("Turn notes."), "{}", prompt.text());
    let compact = PromptBuilder::new(&pipeline)
        .mode(PromptMode::Compact)
        .build_basic(&Context::new(), &Context::new())
        .unwrap();
    assert!(
        !compact.text().contains("Turn notes."),
        "narrowed to Full in this pipeline"
    );
    assert!(matches!(
        PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new()),
        Err(AssemblyError::PathNotServed { .. })
    ));
}

#[test]
fn a_pipeline_found_by_name_takes_its_includes_too() {
    let by_name = Pipeline::named("reviewer").unwrap();
    let by_type = Pipeline::of::<Reviewer>().unwrap();
    assert!(by_name.specs().eq(by_type.specs()));
}

#[test]
fn the_default_pipeline_is_unchanged_by_another_pipeline_including_its_layers() {
    let default = Pipeline::collect().unwrap();
    let notes = default.layer("turn_notes").unwrap();
    assert_eq!(notes.modes, [PromptMode::Full, PromptMode::Compact]);
    assert_eq!(notes.included_by(), None);
    assert!(default.layer("reviewer_persona").is_none());
}

/// A Dynamic layer's text, for pipelines built by hand.
struct Mine;

impl prompt_core::Render for Mine {
    fn render(&self, out: &mut prompt_core::LayerWriter<'_>, _input: &prompt_core::LayerInput<'_>) {
        out.push_str("Mine.");
    }
}

/// The runtime second net: a declared pipeline's own layer at an included
/// layer's priority is a build error (`tests/ui/fail/include_own_priority.rs`);
/// a pipeline built by hand gets the same clash at run time, with both places.
#[test]
fn an_included_layer_clashing_with_the_pipeline_s_own_is_named_with_both_locations() {
    let spec = PipelineSpec::new("clash").paths(&[AssemblyPath::Basic]);
    let mine = prompt_core::LayerSpec::new("clash_notes", 10_100, prompt_core::Stability::Dynamic)
        .paths(&[AssemblyPath::Basic])
        .pipelines(&["clash"])
        .defined_at("prompt-tests", "tests/composition.rs", line!());
    let error = Pipeline::from_layers(
        spec,
        [
            LayerEntry::of::<TurnNotes>().pipelines(&["clash"]),
            LayerEntry::new(mine, Mine),
        ],
    )
    .unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("both have priority 10100")
            || message.contains("both have priority 10_100"),
        "{message}"
    );
    let file = "tests/composition.rs";
    assert!(message.matches(file).count() >= 2, "{message}");
    assert!(
        error
            .problems
            .iter()
            .any(|p| matches!(p, Problem::DuplicatePriority { .. })),
        "{message}"
    );
}

/// An include-only layer of a layer library: it joins no pipeline of its
/// own, so linking its crate changes no existing prompt.
#[prompt_layer(priority = 50, stability = Stable, scope = Global, paths = [Basic, Cached], text = "House style: short sentences.", pipeline = [])]
pub struct HouseStyle;

/// The one pipeline that takes it.
#[prompt_pipeline(paths = [Basic], include = [HouseStyle])]
pub struct Styled;

#[test]
fn an_include_only_layer_joins_only_the_pipelines_that_include_it() {
    assert!(<HouseStyle as PromptLayer>::SPEC.pipelines.is_empty());
    let default = Pipeline::collect().unwrap();
    assert!(default.layer("house_style").is_none());
    let prompt = PromptBuilder::new(&default)
        .mode(PromptMode::Compact)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert!(!prompt.text().contains("House style"), "{}", prompt.text());
    let styled = Pipeline::of::<Styled>().unwrap();
    assert_eq!(
        styled.specs().map(|s| s.name).collect::<Vec<_>>(),
        ["house_style"]
    );
}
