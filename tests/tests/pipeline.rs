//! Collection, ordering, filtering and validation of pipelines.

use prompt_core::pipeline::{LayerEntry, Problem, Relation};
use prompt_core::spec::{DefaultPipeline, LayerLink, PipelineSpec, PromptPipeline};
use prompt_core::{
    AssemblyPath, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, PromptMode, Render,
    Stability, prompt_layer, prompt_pipeline,
};
use prompt_tests::{Fixed, TEST, spec};

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

/// A second agent in the same binary: one flat prompt, joined by one newline.
#[prompt_pipeline(paths = [Basic], modes = [Full, Compact], separator = "\n")]
pub struct Reviewer;

#[prompt_layer(priority = 1, stability = Stable, paths = [Basic], text = "reviewer", pipeline = Reviewer)]
struct ReviewerPersona;

#[prompt_layer(priority = 5, stability = Stable, paths = [Basic], modes = [Full], text = "reviewer rules", pipeline = Reviewer, after = [ReviewerPersona])]
struct ReviewerRules;

/// One layer type in two pipelines: the default one and the reviewer's.
#[prompt_layer(priority = 2, stability = Stable, paths = [Basic], text = "shared", pipeline = [DefaultPipeline, Reviewer])]
struct SharedRules;

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
            "shared_rules",
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
fn pipelines_hold_only_their_own_layers_and_shared_ones() {
    let reviewer = Pipeline::of::<Reviewer>().unwrap();
    assert_eq!(
        names(&reviewer),
        ["reviewer_persona", "shared_rules", "reviewer_rules"]
    );
    let default = Pipeline::collect().unwrap();
    assert!(default.specs().all(|s| s.in_pipeline("default")));
    assert!(default.layer("reviewer_persona").is_none());
    assert!(default.layer("shared_rules").is_some());
    assert_eq!(
        prompt_core::pipeline::pipeline_names(),
        ["default", "reviewer"]
    );
    assert_eq!(
        Pipeline::named("reviewer").unwrap().specs().count(),
        reviewer.len()
    );
}

#[test]
fn a_pipeline_type_brings_its_separator() {
    let reviewer = Pipeline::of::<Reviewer>().unwrap();
    let prompt = PromptBuilder::new(&reviewer)
        .build_basic(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(prompt.text(), "reviewer\nshared\nreviewer rules");
    assert_eq!(Reviewer::SPEC.paths, [AssemblyPath::Basic]);
    assert_eq!(
        Reviewer::SPEC.location(),
        "prompt-tests: tests/pipeline.rs:28"
    );
}

#[test]
fn a_layer_of_a_pipeline_can_be_dropped_or_replaced_by_name() {
    let without = Pipeline::collect()
        .unwrap()
        .without(&["stable_mid", "dynamic_late"])
        .unwrap();
    assert_eq!(
        names(&without),
        [
            "stable_first",
            "shared_rules",
            "stable_last",
            "dynamic_first"
        ]
    );
    assert_eq!(without.len(), 4);
    assert!(!without.is_empty());
    let replaced = without
        .with_layer(LayerEntry::new(
            spec("my_mid", 300, Stability::Stable).pipelines(&["default"]),
            Fixed("mine".into()),
        ))
        .unwrap();
    assert_eq!(replaced.layer("my_mid").unwrap().priority, 300);

    let error = Pipeline::collect()
        .unwrap()
        .without(&["stable_midd"])
        .unwrap_err();
    assert!(matches!(
        &error.problems[..],
        [Problem::UnknownLayer { name, known }] if name == "stable_midd" && known.contains(&"stable_mid".to_owned())
    ));

    let all = Pipeline::collect().unwrap();
    let every: Vec<&str> = names(&all);
    let none = Pipeline::collect().unwrap().without(&every).unwrap();
    assert!(none.is_empty(), "every layer removed: {:?}", names(&none));
}

#[test]
fn a_required_crate_or_layer_that_is_not_linked_is_an_error_naming_it() {
    let pipeline = Pipeline::collect()
        .unwrap()
        .require_crates(&["prompt-tests", "prompt_tests"])
        .unwrap()
        .require_layers(&["stable_first"])
        .unwrap();
    let error = pipeline.require_crates(&["prompt-layers"]).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("no layer from package `prompt-layers`"),
        "{message}"
    );
    assert!(
        message.contains("add `use prompt_layers as _;`"),
        "{message}"
    );
    let error = Pipeline::collect()
        .unwrap()
        .require_layers(&["base_prompt"])
        .unwrap_err();
    assert_eq!(
        error.problems,
        [Problem::MissingLayer {
            name: "base_prompt".into()
        }]
    );
}

#[test]
fn paths_filter_layers() {
    let pipeline = Pipeline::collect().unwrap();
    let builder = PromptBuilder::new(&pipeline).separator("|");
    let (session, turn) = (Context::new(), Context::new());
    assert_eq!(
        builder.build_basic(&session, &turn).unwrap().text(),
        "stable-first|shared|stable-mid|dynamic-first"
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
        "stable-first|shared|stable-mid|dynamic-first"
    );
    assert_eq!(
        basic(PromptMode::Compact),
        "stable-first|shared|stable-mid|stable-last"
    );
    assert_eq!(
        basic(PromptMode::Minimal),
        "stable-first|shared|stable-mid|stable-last"
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
    assert_eq!(
        traced,
        ["stable_first", "shared_rules", "stable_mid", "stable_last"]
    );
}

#[test]
fn global_is_collected_once() {
    let a = Pipeline::global().unwrap();
    let b = Pipeline::global().unwrap();
    assert!(std::ptr::eq(a, b));
    assert_eq!(names(a), names(&Pipeline::collect().unwrap()));
}

#[test]
fn an_unknown_pipeline_name_is_an_error_that_lists_the_declared_ones() {
    let error = Pipeline::named("reveiwer").unwrap_err();
    assert_eq!(
        error.problems,
        [Problem::UnknownPipeline {
            known: vec!["default".into(), "reviewer".into()]
        }]
    );
    let message = error.to_string();
    assert!(message.contains("pipeline `reveiwer`"), "{message}");
    assert!(message.contains("[default, reviewer]"), "{message}");
}

/// `Debug` (what `.expect(..)` and `main`'s `Err` print) ends with the
/// readable message, after the struct.
#[test]
fn the_error_debug_prints_the_readable_message() {
    let error = Pipeline::named("reveiwer").unwrap_err();
    let debug = format!("{error:?}");
    assert!(
        debug.starts_with("PipelineError { pipeline: \"reveiwer\""),
        "{debug}"
    );
    assert!(debug.ends_with(&format!("\n\n{error}")), "{debug}");
}

fn entry(name: &'static str, priority: u32, stability: Stability) -> LayerEntry {
    LayerEntry::new(spec(name, priority, stability), Fixed(name.to_owned()))
}

#[test]
fn building_a_pipeline_rechecks_after_and_before_with_both_locations() {
    const AFTER_MID: &[LayerLink] = &[LayerLink::of::<StableMid>()];
    const BEFORE_FIRST: &[LayerLink] = &[LayerLink::of::<StableFirst>()];
    let late = spec("late", 10, Stability::Stable).after(AFTER_MID);
    let early = spec("early", 400, Stability::Stable).before(BEFORE_FIRST);
    let error = Pipeline::from_layers(
        DefaultPipeline::SPEC,
        [
            LayerEntry::new(late.pipelines(&["default"]), Fixed("late".into())),
            LayerEntry::new(early.pipelines(&["default"]), Fixed("early".into())),
            LayerEntry::of::<StableMid>(),
            LayerEntry::of::<StableFirst>(),
        ],
    )
    .unwrap_err();
    let orders: Vec<(&str, Relation, &str, u32, u32)> = error
        .problems
        .iter()
        .filter_map(|p| match p {
            Problem::Order {
                layer,
                priority,
                relation,
                other,
                other_priority,
            } => Some((
                layer.name,
                *relation,
                other.name,
                *priority,
                *other_priority,
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        orders,
        [
            ("late", Relation::After, "stable_mid", 10, 300),
            ("early", Relation::Before, "stable_first", 400, 1)
        ]
    );
    let message = error.to_string();
    assert!(
        message.contains("layer `late` (TestLayer at prompt-tests: src/lib.rs:10) declares `after = [StableMid]`, but its priority 10 is not higher than `stable_mid` (StableMid at prompt-tests: tests/pipeline.rs:"),
        "{message}"
    );
    assert!(
        message.contains("'s 300; move one of the priorities"),
        "{message}"
    );
    // A relation to a layer the pipeline does not hold constrains nothing.
    let alone = Pipeline::from_layers(
        DefaultPipeline::SPEC,
        [LayerEntry::new(
            late.pipelines(&["default"]),
            Fixed("late".into()),
        )],
    );
    assert!(alone.is_ok());
}

#[test]
fn runtime_validation_reports_every_problem_with_its_location() {
    let no_paths = spec("no_paths", 50, Stability::Stable).paths(&[]);
    let no_modes = spec("no_modes", 60, Stability::Stable).modes(&[]);
    let elsewhere = spec("elsewhere", 70, Stability::Stable).pipelines(&["elsewhere"]);
    let error = Pipeline::from_layers(
        TEST,
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
            Problem::WrongPipeline { layer, .. } | Problem::NeverRenders { layer, .. } => {
                layer.name
            }
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
        message.contains("layers `persona` (TestLayer at prompt-tests: src/lib.rs:100) and `rules` (TestLayer at prompt-tests: src/lib.rs:100) both have priority 100"),
        "{message}"
    );
    assert!(
        message.contains("layers `persona` (TestLayer at prompt-tests: src/lib.rs:100) and `persona` (TestLayer at prompt-tests: src/lib.rs:200) are both named `persona`"),
        "{message}"
    );
    let basic_only = PipelineSpec::new("test").paths(&[AssemblyPath::Basic]);
    // A layer renders on the paths both list: Cached, which this pipeline
    // does not serve, is no problem while Basic meets.
    assert!(Pipeline::from_layers(basic_only, [entry("docs", 1, Stability::Stable)]).is_ok());
    let cached_only = spec("docs", 1, Stability::Stable).paths(&[AssemblyPath::Cached]);
    let error = Pipeline::from_layers(
        basic_only,
        [LayerEntry::new(cached_only, Fixed(String::new()))],
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("lists paths [cached], but pipeline `test` serves only [basic], so the layer would never render in it"),
        "{error}"
    );
    assert!(
        message.contains("is Dynamic, so its priority must be in 10_000..20_000, but it is 5: change `priority`, or make the layer Stable (band 0..10_000)"),
        "{message}"
    );
    assert!(
        message.contains("joins [elsewhere], not `test`"),
        "{message}"
    );
}

#[test]
fn from_layers_accepts_attribute_layers_and_sorts_them() {
    let pipeline = Pipeline::from_layers(
        DefaultPipeline::SPEC,
        [
            LayerEntry::of::<DynamicLate>(),
            LayerEntry::of::<StableFirst>(),
            LayerEntry::of::<StableMid>(),
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
        fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
            out.push_str(&format!(
                "{}/{}/{}",
                input.spec().name,
                input.path(),
                input.mode()
            ));
        }
    }
    let pipeline = Pipeline::from_layers(
        TEST,
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
