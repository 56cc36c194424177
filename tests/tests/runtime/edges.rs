//! Tests that kill the mutants cargo-mutants found surviving in prompt-core
//! (issue 11): context visibility, assembly, pipeline validation, budget.

use prompt_core::budget::{BudgetError, TokenBudget};
use prompt_core::context::Notes;
use prompt_core::pipeline::{LayerRef, Problem, Relation};
use prompt_core::spec::LayerLink;
use prompt_core::{
    AssemblyError, Channel, Context, DefaultPipeline, LayerEntry, LayerSpec, Pipeline,
    PromptBuilder, PromptPipeline, Stability, Yields, prompt_layer,
};
use prompt_tests::{Fixed, TEST, spec};

/// A Stable prefix and one Dynamic layer that yields by truncation.
fn truncating(text: &str) -> Pipeline {
    Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(
                spec("persona", 100, Stability::Stable),
                Fixed("You are terse.".to_owned()),
            ),
            LayerEntry::new(
                spec("notes", 10_000, Stability::Dynamic).with_yields(Yields::Truncate),
                Fixed(text.to_owned()),
            ),
        ],
    )
    .unwrap()
}

/// The cut is *the* longest that fits, not merely one that fits: with text that
/// has no whitespace to trim and a removed count that keeps its digits, one more
/// kept character costs exactly one more character, so the longest cut fills the
/// budget to the character. Short texts keep less than half, long ones more
/// (a binary search that runs the wrong way finds one side but not the other).
#[test]
fn the_truncated_layer_keeps_the_longest_cut_that_fits() {
    for len in [300, 1000] {
        let text: String = ('a'..='z').cycle().take(len).collect();
        let pipeline = truncating(&text);
        let free = PromptBuilder::new(&pipeline)
            .build_cached(&Context::new(), &Context::new())
            .unwrap();
        let whole = free.text().chars().count();
        // Each cut leaves out between 100 and 999 characters (the notice
        // takes about 130 of the budget).
        for limit in [whole - 100, whole - 123, whole - 140] {
            let fitted = PromptBuilder::new(&pipeline)
                .budget(TokenBudget::chars(limit))
                .build_cached(&Context::new(), &Context::new())
                .unwrap();
            let budget = fitted.trace().budget.as_ref().unwrap();
            assert!(budget.shed.is_empty(), "{budget:?}");
            assert_eq!(budget.truncated.len(), 1, "{budget:?}");
            assert_eq!(budget.after, limit, "not the longest cut: {budget:?}");
            assert_eq!(fitted.text().chars().count(), limit);
            let body = fitted.dynamic().split("\n[…]").next().unwrap();
            assert!(text.starts_with(body), "{body:?}");
            let cut = &budget.truncated[0];
            assert_eq!((cut.from, cut.to), (len, body.chars().count() + 4));
        }
    }
}

/// A session value for the context tests.
struct Count(u32);
impl prompt_core::SessionValue for Count {}

/// Another session value for the context tests.
struct Label(String);
impl prompt_core::SessionValue for Label {}

/// `len` counts the types stored and `is_empty` says whether there are none.
#[test]
fn a_context_counts_its_values_one_per_type() {
    let mut ctx = prompt_core::SessionContext::new();
    assert_eq!(ctx.len(), 0);
    assert!(ctx.is_empty());
    ctx.insert(Count(1));
    ctx.insert(Label(String::from("a")));
    ctx.insert(Count(2));
    assert_eq!(ctx.len(), 2);
    assert!(!ctx.is_empty());
    assert_eq!(ctx.get::<Count>().map(|c| c.0), Some(2));
    assert_eq!(ctx.get::<Label>().map(|l| l.0.as_str()), Some("a"));
}

/// `{:?}` of a context lists the types it holds, sorted by name (not the values,
/// which need not be `Debug`).
#[test]
fn a_context_debug_lists_its_type_names_in_order() {
    let ctx = prompt_core::SessionContext::new()
        .with(Label(String::from("secret")))
        .with(Count(7));
    assert_eq!(
        format!("{ctx:?}"),
        r#"Context { types: ["runtime::edges::Count", "runtime::edges::Label"] }"#
    );
    assert_eq!(
        format!("{:?}", prompt_core::TurnContext::new()),
        "Context { types: [] }"
    );
}

/// A notes sink counts what it was given and hands it back in order.
#[test]
fn notes_count_and_keep_their_order() {
    let notes = Notes::new();
    assert_eq!(notes.len(), 0);
    assert!(notes.is_empty());
    notes.push("first");
    notes.push(String::from("second"));
    assert_eq!(notes.len(), 2);
    assert!(!notes.is_empty());
    assert_eq!(notes.into_vec(), ["first", "second"]);
}

/// A name is snake_case only when its first character is a lowercase letter
/// *and* the rest are lowercase letters, digits or underscores.
#[test]
fn runtime_validation_checks_both_halves_of_snake_case() {
    let bad = |name: &'static str| {
        let error = Pipeline::from_layers(
            TEST,
            [LayerEntry::new(
                spec(name, 1, Stability::Stable),
                Fixed(String::new()),
            )],
        )
        .unwrap_err();
        assert_eq!(
            error.problems,
            [Problem::BadName {
                layer: LayerRef {
                    name,
                    type_name: "TestLayer",
                    location: "prompt-tests: src/lib.rs:1".to_owned(),
                },
            }],
            "{name}"
        );
    };
    bad("Persona"); // first character wrong, the rest fine
    bad("9lives");
    bad("_private");
    bad("persona-rules"); // first character fine, the rest wrong
    bad("personaRules");
    bad("");
    for good in ["p", "persona", "rules_2", "a_b_c9"] {
        assert!(
            Pipeline::from_layers(
                TEST,
                [LayerEntry::new(
                    spec(good, 1, Stability::Stable),
                    Fixed(String::new())
                )]
            )
            .is_ok(),
            "{good}"
        );
    }
}

#[prompt_layer(priority = 500, stability = Stable, paths = [Basic, Cached], text = "anchor")]
struct Anchor;

const AFTER_ANCHOR: &[LayerLink] = &[LayerLink::of::<Anchor>()];
const BEFORE_ANCHOR: &[LayerLink] = &[LayerLink::of::<Anchor>()];

/// The `Order` problems for `spec` placed beside [`Anchor`] (priority 500).
fn order_problems(spec: LayerSpec) -> Vec<(&'static str, Relation, &'static str)> {
    let result = Pipeline::from_layers(
        DefaultPipeline::SPEC,
        [
            LayerEntry::of::<Anchor>(),
            LayerEntry::new(spec.with_pipelines(&["default"]), Fixed(String::new())),
        ],
    );
    match result {
        Ok(_) => Vec::new(),
        Err(error) => error
            .problems
            .iter()
            .filter_map(|p| match p {
                Problem::Order {
                    layer,
                    relation,
                    other,
                    ..
                } => Some((layer.name, *relation, other.name)),
                _ => None,
            })
            .collect(),
    }
}

/// `after` needs a strictly higher priority and `before` a strictly lower one:
/// a tie contradicts both, and the right side of the anchor satisfies them.
#[test]
fn after_and_before_are_strict_at_runtime() {
    let tied = spec("tied", 500, Stability::Stable);
    assert_eq!(
        order_problems(tied.with_after(AFTER_ANCHOR)),
        [("tied", Relation::After, "anchor")]
    );
    assert_eq!(
        order_problems(tied.with_before(BEFORE_ANCHOR)),
        [("tied", Relation::Before, "anchor")]
    );
    let later = spec("later", 501, Stability::Stable).with_after(AFTER_ANCHOR);
    assert_eq!(order_problems(later), []);
    let earlier = spec("earlier", 499, Stability::Stable).with_before(BEFORE_ANCHOR);
    assert_eq!(order_problems(earlier), []);
    let wrong_side = spec("wrong_side", 499, Stability::Stable).with_after(AFTER_ANCHOR);
    assert_eq!(
        order_problems(wrong_side),
        [("wrong_side", Relation::After, "anchor")]
    );
    let wrong_side = spec("wrong_side", 501, Stability::Stable).with_before(BEFORE_ANCHOR);
    assert_eq!(
        order_problems(wrong_side),
        [("wrong_side", Relation::Before, "anchor")]
    );
}

/// On the Basic path the separator goes only *between* a non-empty prefix and
/// a non-empty suffix: neither half alone gains a leading or trailing one.
#[test]
fn the_basic_path_joins_the_halves_only_when_both_speak() {
    let build = |layers: &[(&'static str, u32, Stability, &str)]| {
        PromptBuilder::new(&prompt_tests::fixed(layers))
            .build_basic(&Context::new(), &Context::new())
            .unwrap()
            .text()
    };
    assert_eq!(build(&[("persona", 1, Stability::Stable, "S")]), "S");
    assert_eq!(build(&[("clock", 10_000, Stability::Dynamic, "D")]), "D");
    assert_eq!(
        build(&[
            ("persona", 1, Stability::Stable, "S"),
            ("clock", 10_000, Stability::Dynamic, "D"),
        ]),
        "S\n\nD"
    );
    assert_eq!(
        build(&[
            ("persona", 1, Stability::Stable, ""),
            ("clock", 10_000, Stability::Dynamic, ""),
        ]),
        ""
    );
}

/// No Reminder layer, or only silent ones: no reminder at all, not an empty one.
#[test]
fn a_prompt_without_reminder_text_has_no_reminder() {
    let pipeline = Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(spec("persona", 1, Stability::Stable), Fixed("S".to_owned())),
            LayerEntry::new(
                spec("todo", 10_000, Stability::Dynamic).with_channel(Channel::Reminder),
                Fixed(String::new()),
            ),
        ],
    )
    .unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(prompt.reminder(), None);
    assert_eq!(prompt.trace().reminder_bytes, 0);
}

/// Two Dynamic layers, the less important one yielding by truncation.
fn shed_and_cut() -> Pipeline {
    Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(spec("persona", 1, Stability::Stable), Fixed("S".to_owned())),
            LayerEntry::new(
                spec("runtime", 10_000, Stability::Dynamic).with_yields(Yields::Keep),
                Fixed("cwd: /repo".to_owned()),
            ),
            LayerEntry::new(
                spec("history", 10_100, Stability::Dynamic).with_yields(Yields::Truncate),
                Fixed("h".repeat(400)),
            ),
            LayerEntry::new(
                spec("hints", 10_200, Stability::Dynamic),
                Fixed("i".repeat(50)),
            ),
        ],
    )
    .unwrap()
}

/// The budget's notes go on the layers they are about, and the notice follows
/// the surviving Dynamic text after one separator.
#[test]
fn budget_notes_land_on_the_layer_they_describe() {
    let prompt = PromptBuilder::new(&shed_and_cut())
        .budget(TokenBudget::chars(300))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let budget = prompt.trace().budget.clone().unwrap();
    assert_eq!(budget.shed, ["hints"]);
    assert_eq!(budget.truncated.len(), 1);
    let cut = &budget.truncated[0];
    let notes = |name| prompt.trace().layer(name).unwrap().notes.clone();
    assert_eq!(notes("runtime"), Vec::<String>::new());
    assert_eq!(notes("hints"), ["shed to fit the budget of 300 chars"]);
    assert_eq!(
        notes("history"),
        [format!(
            "cut from 400 to {} chars to fit the budget of 300 chars",
            cut.to
        )]
    );
    let notice = budget.notice.as_deref().unwrap();
    let expected_tail = format!("\n[…]\n\n{notice}");
    assert!(prompt.dynamic().starts_with("cwd: /repo\n\nhhh"));
    assert!(prompt.dynamic().ends_with(&expected_tail), "{prompt:?}");
}

/// When everything Dynamic is shed the notice is the whole Dynamic part: no
/// separator before it.
#[test]
fn a_notice_alone_has_no_leading_separator() {
    let pipeline = prompt_tests::fixed(&[
        ("persona", 1, Stability::Stable, "S"),
        ("hints", 10_000, Stability::Dynamic, &"i".repeat(200)),
    ]);
    let prompt = PromptBuilder::new(&pipeline)
        .budget(TokenBudget::chars(150))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let budget = prompt.trace().budget.as_ref().unwrap();
    assert_eq!(budget.shed, ["hints"]);
    assert_eq!(prompt.dynamic(), budget.notice.as_deref().unwrap());
}

const FETCH: &str = ". Fetch details again with your tools if you need them.]";

/// The notice counts what was left out exactly, and lists omitted and
/// shortened layers separately: a Truncate layer that cannot fit even empty
/// goes whole (omitted, all of it counted) and the next one is cut (shortened,
/// the difference counted).
#[test]
fn the_notice_counts_and_sorts_what_gave_way() {
    let pipeline = Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(spec("persona", 1, Stability::Stable), Fixed("S".to_owned())),
            LayerEntry::new(
                spec("recent", 10_000, Stability::Dynamic).with_yields(Yields::Truncate),
                Fixed("r".repeat(100)),
            ),
            LayerEntry::new(
                spec("older", 10_100, Stability::Dynamic).with_yields(Yields::Truncate),
                Fixed("o".repeat(100)),
            ),
        ],
    )
    .unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .budget(TokenBudget::chars(200))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let budget = prompt.trace().budget.clone().unwrap();
    assert!(budget.shed.is_empty());
    let cuts: Vec<(&str, usize, bool)> = budget
        .truncated
        .iter()
        .map(|t| (t.name, t.from, t.to == 0))
        .collect();
    assert_eq!(cuts, [("older", 100, true), ("recent", 100, false)]);
    let kept = budget.truncated[1].to;
    assert!(kept > 4, "{budget:?}");
    assert_eq!(
        budget.notice.as_deref().unwrap(),
        format!(
            "[Trimmed to fit the prompt budget: {} chars left out; omitted: older; shortened: recent{FETCH}",
            200 - kept
        )
    );
    assert_eq!(budget.after, 200);
}

/// A notice names three layers, then counts the rest.
#[test]
fn the_notice_names_three_layers_and_counts_the_rest() {
    let shed = |n: usize| {
        let names = ["a", "b", "c", "d"];
        let mut layers = vec![("persona", 1, Stability::Stable, "S")];
        let text = "x".repeat(100);
        for (i, name) in names.iter().take(n).enumerate() {
            layers.push((*name, 10_000 + i as u32, Stability::Dynamic, text.as_str()));
        }
        let prompt = PromptBuilder::new(&prompt_tests::fixed(&layers))
            .budget(TokenBudget::chars(200))
            .build_cached(&Context::new(), &Context::new())
            .unwrap();
        prompt.trace().budget.clone().unwrap().notice.unwrap()
    };
    assert_eq!(
        shed(3),
        format!("[Trimmed to fit the prompt budget: 300 chars left out; omitted: c, b, a{FETCH}")
    );
    assert_eq!(
        shed(4),
        format!(
            "[Trimmed to fit the prompt budget: 400 chars left out; omitted: d, c, b and 1 more{FETCH}"
        )
    );
}

/// A prefix exactly at the limit is not over it: the build sheds the
/// Dynamic layer and sends the prefix alone; the notice, which cannot fit
/// beside it, is dropped rather than failing the build.
#[test]
fn a_stable_prefix_exactly_at_the_limit_is_not_over_budget() {
    let pipeline = prompt_tests::fixed(&[
        ("persona", 1, Stability::Stable, &"s".repeat(100)),
        ("hints", 10_000, Stability::Dynamic, "hint"),
    ]);
    let prompt = PromptBuilder::new(&pipeline)
        .budget(TokenBudget::chars(100))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let budget = prompt.trace().budget.clone().unwrap();
    assert_eq!(budget.shed, ["hints"]);
    assert_eq!((budget.after, budget.notice), (100, None));
    assert_eq!(prompt.text(), "s".repeat(100));
}

/// The error for a prefix over budget names its largest layers, never a
/// silent one.
#[test]
fn a_prefix_over_budget_names_no_silent_layer() {
    let pipeline = prompt_tests::fixed(&[
        ("persona", 1, Stability::Stable, &"s".repeat(100)),
        ("memory", 2, Stability::Stable, ""),
        ("rules", 3, Stability::Stable, "rrr"),
    ]);
    let error = PromptBuilder::new(&pipeline)
        .budget(TokenBudget::chars(50))
        .build_cached(&Context::new(), &Context::new())
        .unwrap_err();
    let AssemblyError::OverBudget(BudgetError::StablePrefixOverBudget { largest, .. }) = error
    else {
        panic!("{error:?}");
    };
    let largest: Vec<(&str, usize)> = largest.iter().map(|l| (l.name, l.size)).collect();
    assert_eq!(largest, [("persona", 100), ("rules", 3)]);
}

/// `LayerEntry`'s `Debug` names the layer, so a pipeline printed in a test
/// failure or a log says which layers it holds.
#[test]
fn a_layer_entry_debugs_as_its_name() {
    let entry = LayerEntry::new(
        spec("persona", 100, Stability::Stable),
        Fixed(String::new()),
    );
    assert_eq!(format!("{entry:?}"), r#"LayerEntry("persona")"#);
}

/// A session hands back the context it was given, so code holding only the
/// session (a tool, a sub-agent) reads the same session facts the layers saw.
#[test]
fn a_session_hands_back_its_context() {
    struct Branch(&'static str);

    impl prompt_core::SessionValue for Branch {}
    let pipeline = truncating("notes");
    let session = PromptBuilder::new(&pipeline).session(Context::new().with(Branch("main")));
    assert_eq!(session.context().get::<Branch>().map(|b| b.0), Some("main"));
}

fn persona(text: &str) -> Pipeline {
    Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(
                spec("persona", 100, Stability::Stable),
                Fixed(text.to_owned()),
            ),
            LayerEntry::new(
                spec("notes", 10_000, Stability::Dynamic),
                Fixed("a note".to_owned()),
            ),
        ],
    )
    .unwrap()
}

/// A Stable layer's trace carries the fingerprint of exactly its own text
/// (how `prompt cache` names the layer that busted the cache); a Dynamic
/// layer's carries none, and serializes without the key.
#[test]
fn a_stable_layer_trace_fingerprints_its_own_text_and_a_dynamic_one_none() {
    let prompt = PromptBuilder::new(&persona("You are terse."))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let stable = prompt.trace().layer("persona").unwrap();
    let dynamic = prompt.trace().layer("notes").unwrap();
    assert_eq!(
        stable.fingerprint(),
        Some(prompt_core::fingerprint::Fingerprint::of("You are terse."))
    );
    assert_eq!(dynamic.fingerprint(), None);
    let json = |t| serde_json::to_value(t).unwrap();
    assert_eq!(
        json(stable)["fingerprint"],
        serde_json::json!(prompt_core::fingerprint::Fingerprint::of("You are terse."))
    );
    assert!(
        json(dynamic).get("fingerprint").is_none(),
        "{}",
        json(dynamic)
    );

    // Traces compare by what the layer wrote: another text, another trace.
    let again = PromptBuilder::new(&persona("You are terse."))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let other = PromptBuilder::new(&persona("You are wordy."))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(again.trace().layer("persona"), Some(stable));
    assert_ne!(other.trace().layer("persona"), Some(stable));
}

/// `LayerTraces` reads like the slice it stands for: its Stable and Dynamic
/// halves, a copy, emptiness, and equality with another trace or a slice.
#[test]
fn layer_traces_read_like_a_slice_split_by_stability() {
    let prompt = PromptBuilder::new(&persona("You are terse."))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let layers = &prompt.trace().layers;
    let names = |traces: &[prompt_core::assembly::LayerTrace]| {
        traces.iter().map(|t| t.name).collect::<Vec<_>>()
    };
    assert_eq!(names(layers.stable()), ["persona"]);
    assert_eq!(names(layers.dynamic()), ["notes"]);
    let copy = layers.to_vec();
    assert_eq!(names(&copy), ["persona", "notes"]);
    assert!(!layers.is_empty());
    assert!(*layers == copy[..]);
    assert!(*layers != copy[..1]);
    assert!(*layers == copy);
    assert!(*layers != copy[..1].to_vec());
    assert!(*layers == [copy[0].clone(), copy[1].clone()]);
    assert!(*layers != [copy[0].clone()]);
    assert_eq!(layers.len(), 2);
    let debug = format!("{layers:?}");
    assert!(
        debug.starts_with("[LayerTrace { name: \"persona\"") && debug.contains("name: \"notes\""),
        "{debug}"
    );
    // A Stable layer's fingerprint shows in Debug; a Dynamic layer has none.
    let fingerprint = prompt_core::fingerprint::Fingerprint::of("You are terse.");
    assert!(
        format!("{:?}", layers[0]).contains(&format!("fingerprint: Some({fingerprint:?})")),
        "{:?}",
        layers[0]
    );
    assert!(
        format!("{:?}", layers[1]).contains("fingerprint: None"),
        "{:?}",
        layers[1]
    );

    let other = PromptBuilder::new(&persona("You are wordy."))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert!(*layers == prompt.clone().trace().layers);
    assert!(*layers != other.trace().layers);

    let empty = Pipeline::from_layers(TEST, []).unwrap();
    let prompt = PromptBuilder::new(&empty)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert!(prompt.trace().layers.is_empty());
}

/// The serialized trace carries the token and budget fields when the build
/// had a counter and a budget, and leaves them out (not `null`) otherwise.
#[test]
fn the_serialized_trace_has_token_and_budget_fields_only_when_measured() {
    let pipeline = persona("You are terse.");
    let plain = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let measured = PromptBuilder::new(&pipeline)
        .counter(prompt_core::tokens::ApproxCounter)
        .budget(TokenBudget::tokens(1_000))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let keys = ["tokenizer", "stable_tokens", "dynamic_tokens", "budget"];
    let plain = serde_json::to_value(plain.trace()).unwrap();
    for key in keys {
        assert!(plain.get(key).is_none(), "{key} in {plain}");
    }
    let measured = serde_json::to_value(measured.trace()).unwrap();
    assert_eq!(measured["tokenizer"], "approx");
    for key in keys {
        assert!(!measured[key].is_null(), "{key} missing in {measured}");
    }
}
