//! Collection, ordering, filtering and validation of pipelines.

use prompt_core::{
    AssemblyPath, Context, LayerEntry, LayerInput, Pipeline, Problem, PromptBuilder, PromptMode,
    Render, Stability, prompt_layer,
};
use prompt_tests::{Fixed, leak, spec};

// Declared out of order on purpose: the pipeline sorts by priority.
#[prompt_layer(priority = 10_500, stability = Dynamic, paths = [Cached], text = "dynamic-late")]
struct DynamicLate;

#[prompt_layer(priority = 300, stability = Stable, paths = [Basic, Cached], text = "stable-mid")]
struct StableMid;

#[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Basic, Cached], modes = [Full], text = "dynamic-first")]
struct DynamicFirst;

#[prompt_layer(priority = 9_999, stability = Stable, paths = [Basic], modes = [Minimal, Compact], text = "stable-last")]
struct StableLast;

#[prompt_layer(priority = 1, stability = Stable, paths = [Basic, Cached], text = "stable-first")]
struct StableFirst;

#[prompt_layer(priority = 1, stability = Stable, paths = [Basic], text = "reviewer", pipeline = "reviewer")]
struct ReviewerPersona;

#[prompt_layer(priority = 5, stability = Stable, paths = [Basic], text = "reviewer rules", pipeline = "reviewer", after = [ReviewerPersona])]
struct ReviewerRules;

fn names(pipeline: &Pipeline) -> Vec<&'static str> {
    pipeline.specs().map(|s| s.name).collect()
}

#[test]
fn collected_layers_are_in_ascending_priority() {
    let pipeline = Pipeline::collect().unwrap();
    assert_eq!(
        names(&pipeline),
        [
            "stable_first",
            "stable_mid",
            "stable_last",
            "dynamic_first",
            "dynamic_late"
        ]
    );
    let priorities: Vec<u32> = pipeline.specs().map(|s| s.priority).collect();
    assert!(priorities.windows(2).all(|w| w[0] < w[1]), "{priorities:?}");
}

#[test]
fn every_stable_layer_precedes_every_dynamic_layer() {
    let pipeline = Pipeline::collect().unwrap();
    let stabilities: Vec<Stability> = pipeline.specs().map(|s| s.stability).collect();
    let first_dynamic = stabilities
        .iter()
        .position(|s| *s == Stability::Dynamic)
        .unwrap();
    assert!(
        stabilities[..first_dynamic]
            .iter()
            .all(|s| *s == Stability::Stable)
    );
    assert!(
        stabilities[first_dynamic..]
            .iter()
            .all(|s| *s == Stability::Dynamic)
    );
}

#[test]
fn named_pipelines_hold_only_their_own_layers() {
    let reviewer = Pipeline::named("reviewer").unwrap();
    assert_eq!(names(&reviewer), ["reviewer_persona", "reviewer_rules"]);
    let default = Pipeline::collect().unwrap();
    assert!(default.specs().all(|s| s.pipeline == "default"));
    assert!(default.spec("reviewer_persona").is_none());
    assert_eq!(prompt_core::pipeline_names(), ["default", "reviewer"]);
}

#[test]
fn paths_filter_layers() {
    let pipeline = Pipeline::collect().unwrap();
    let builder = PromptBuilder::new(&pipeline).separator("|");
    let (session, turn) = (Context::new(), Context::new());
    assert_eq!(
        builder.build_basic(&session, &turn).unwrap().text(),
        "stable-first|stable-mid|dynamic-first"
    );
    assert_eq!(
        builder.build_cached(&session, &turn).unwrap().text(),
        "stable-first|stable-mid|dynamic-first|dynamic-late"
    );
}

#[test]
fn modes_filter_layers() {
    let pipeline = Pipeline::collect().unwrap();
    let (session, turn) = (Context::new(), Context::new());
    let basic = |mode| {
        PromptBuilder::new(&pipeline)
            .mode(mode)
            .separator("|")
            .build_basic(&session, &turn)
            .unwrap()
            .text()
    };
    assert_eq!(
        basic(PromptMode::Full),
        "stable-first|stable-mid|dynamic-first"
    );
    assert_eq!(
        basic(PromptMode::Compact),
        "stable-first|stable-mid|stable-last"
    );
    assert_eq!(
        basic(PromptMode::Minimal),
        "stable-first|stable-mid|stable-last"
    );
    let traced: Vec<&str> = PromptBuilder::new(&pipeline)
        .mode(PromptMode::Compact)
        .build_basic(&session, &turn)
        .unwrap()
        .trace()
        .layers
        .iter()
        .map(|l| l.name)
        .collect();
    assert_eq!(traced, ["stable_first", "stable_mid", "stable_last"]);
}

#[test]
fn global_is_collected_once() {
    let a = Pipeline::global().unwrap();
    let b = Pipeline::global().unwrap();
    assert!(std::ptr::eq(a, b));
    assert_eq!(names(a), names(&Pipeline::collect().unwrap()));
}

#[test]
fn an_unknown_pipeline_is_an_error_that_lists_the_known_ones() {
    let error = Pipeline::named("reveiwer").unwrap_err();
    assert_eq!(
        error.problems,
        [Problem::Empty {
            known: vec!["default".into(), "reviewer".into()]
        }]
    );
    let message = error.to_string();
    assert!(message.contains("pipeline `reveiwer`"), "{message}");
    assert!(message.contains("[default, reviewer]"), "{message}");
}

fn entry(name: &str, priority: u32, stability: Stability) -> LayerEntry {
    LayerEntry::new(spec(name, priority, stability), Fixed(name.to_owned()))
}

#[test]
fn runtime_validation_reports_every_problem_with_its_location() {
    let no_paths = leak(prompt_core::LayerSpec {
        paths: &[],
        ..*spec("no_paths", 50, Stability::Stable)
    });
    let no_modes = leak(prompt_core::LayerSpec {
        modes: &[],
        ..*spec("no_modes", 60, Stability::Stable)
    });
    let elsewhere = leak(prompt_core::LayerSpec {
        pipeline: "elsewhere",
        ..*spec("elsewhere", 70, Stability::Stable)
    });
    let error = Pipeline::from_layers(
        "test",
        [
            entry("persona", 100, Stability::Stable),
            entry("rules", 100, Stability::Stable),
            entry("persona", 200, Stability::Stable),
            entry("clock", 5, Stability::Dynamic),
            entry("Bad-Name", 300, Stability::Stable),
            LayerEntry::new(no_paths, Fixed(String::new())),
            LayerEntry::new(no_modes, Fixed(String::new())),
            LayerEntry::new(elsewhere, Fixed(String::new())),
        ],
    )
    .unwrap_err();

    let kinds: Vec<&str> = error
        .problems
        .iter()
        .map(|p| match p {
            Problem::OutOfBand { layer, .. } => layer.name,
            Problem::NoPaths { layer }
            | Problem::NoModes { layer }
            | Problem::BadName { layer } => layer.name,
            Problem::WrongPipeline { layer, .. } => layer.name,
            Problem::DuplicatePriority { second, .. } | Problem::DuplicateName { second, .. } => {
                second.name
            }
            _ => "?",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "clock",
            "no_paths",
            "no_modes",
            "elsewhere",
            "rules",
            "persona",
            "Bad-Name"
        ]
    );

    let message = error.to_string();
    assert!(
        message.starts_with("pipeline `test` is invalid (7 problems):"),
        "{message}"
    );
    assert!(
        message.contains("layers `persona` (TestLayer at tests/src/lib.rs:100) and `rules` (TestLayer at tests/src/lib.rs:100) both have priority 100"),
        "{message}"
    );
    assert!(
        message.contains("layers `persona` (TestLayer at tests/src/lib.rs:100) and `persona` (TestLayer at tests/src/lib.rs:200) are both named `persona`"),
        "{message}"
    );
    assert!(
        message.contains("is Dynamic with priority 5, outside the Dynamic band 10000..20000"),
        "{message}"
    );
    assert!(
        message.contains("declares pipeline `elsewhere`"),
        "{message}"
    );
}

#[test]
fn from_layers_accepts_attribute_layers_and_sorts_them() {
    let pipeline = Pipeline::from_layers(
        "default",
        [
            LayerEntry::of(DynamicLate),
            LayerEntry::of(StableFirst),
            LayerEntry::of(StableMid),
        ],
    )
    .unwrap();
    assert_eq!(
        names(&pipeline),
        ["stable_first", "stable_mid", "dynamic_late"]
    );
}

#[test]
fn the_input_reports_path_and_mode() {
    struct Echo;
    impl Render for Echo {
        fn render(&self, out: &mut String, input: &LayerInput<'_>) {
            out.push_str(&format!(
                "{}/{}/{}",
                input.spec().name,
                input.path(),
                input.mode()
            ));
        }
    }
    let pipeline = Pipeline::from_layers(
        "test",
        [LayerEntry::new(spec("echo", 1, Stability::Stable), Echo)],
    )
    .unwrap();
    let builder = PromptBuilder::new(&pipeline).mode(PromptMode::Minimal);
    let (s, t) = (Context::new(), Context::new());
    assert_eq!(
        builder.build_basic(&s, &t).unwrap().text(),
        "echo/basic/minimal"
    );
    assert_eq!(
        builder.build_cached(&s, &t).unwrap().stable(),
        "echo/cached/minimal"
    );
    assert_eq!(
        builder.build_cached(&s, &t).unwrap().path(),
        AssemblyPath::Cached
    );
}
