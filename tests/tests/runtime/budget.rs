//! Fallible assembly: budgets trim only the dynamic suffix, and a panicking
//! layer is an error that names it while the pipeline keeps working.

use std::sync::atomic::{AtomicBool, Ordering};

use prompt_core::budget::{BudgetError, TokenBudget};
use prompt_core::pipeline::{LayerEntry, LayerRef};
use prompt_core::spec::Channel;
use prompt_core::spec::Yields;
use prompt_core::tokens::{ApproxCounter, TokenCounter};
use prompt_core::{
    AssemblyError, Context, LayerInput, LayerWriter, Pipeline, PromptBuilder, Render, Stability,
};
use prompt_providers::Message;
use prompt_providers::anthropic::MessagesRequest;
use prompt_tests::{Fixed, TEST, fixed, spec};

fn pipeline() -> Pipeline {
    fixed(&[
        (
            "persona",
            100,
            Stability::Stable,
            "You are a careful agent.",
        ),
        ("rules", 200, Stability::Stable, "Never push to main."),
        ("runtime", 10_000, Stability::Dynamic, "cwd: /repo"),
        (
            "summary",
            10_100,
            Stability::Dynamic,
            &"older turns ".repeat(20),
        ),
        ("hints", 10_200, Stability::Dynamic, &"a hint ".repeat(40)),
    ])
}

#[test]
fn an_unbudgeted_build_has_no_budget_trace() {
    let prompt = PromptBuilder::new(&pipeline())
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(prompt.trace().budget, None);
}

#[test]
fn a_budget_that_fits_changes_nothing_and_records_the_size() {
    let pipeline = pipeline();
    let free = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let size = free.text().chars().count();
    let fitted = PromptBuilder::new(&pipeline)
        .budget(TokenBudget::chars(size))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(fitted.parts(), free.parts());
    let budget = fitted.trace().budget.as_ref().unwrap();
    assert_eq!((budget.before, budget.after), (size, size));
    assert!(!budget.trimmed());
}

#[test]
fn over_budget_sheds_the_least_important_dynamic_layer_and_keeps_the_stable_prefix() {
    let pipeline = pipeline();
    let free = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let size = free.text().chars().count();
    let fitted = PromptBuilder::new(&pipeline)
        .budget(TokenBudget::chars(size - 20))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    // The cached part is byte-for-byte the unbudgeted one.
    assert_eq!(fitted.parts()[0], free.parts()[0]);
    let budget = fitted.trace().budget.as_ref().unwrap();
    assert!(budget.trimmed(), "shedding a layer is trimming");
    assert_eq!(budget.shed, ["hints"]);
    assert!(budget.after <= size - 20);
    assert_eq!(fitted.text().chars().count(), budget.after);
    let notice = budget.notice.as_deref().unwrap();
    assert!(fitted.dynamic().ends_with(notice));
    assert!(!fitted.dynamic().contains("a hint"));
    assert!(fitted.dynamic().contains("older turns"));
    // The trace says so at the layer, too.
    let hints = fitted.trace().layer("hints").unwrap();
    assert!(
        hints.notes.iter().any(|n| n.starts_with("shed to fit")),
        "{:?}",
        hints.notes
    );
}

#[test]
fn a_stable_prefix_over_the_budget_is_an_error_naming_the_largest_stable_layers() {
    let error = PromptBuilder::new(&pipeline())
        .budget(TokenBudget::chars(10))
        .build_cached(&Context::new(), &Context::new())
        .unwrap_err();
    assert!(matches!(
        error,
        AssemblyError::OverBudget(BudgetError::StablePrefixOverBudget { limit: 10, .. })
    ));
    let message = error.to_string();
    assert!(
        message.contains("Largest stable layers: persona (24), rules (19)"),
        "{message}"
    );
}

#[test]
fn zero_and_tiny_budgets_are_errors_on_both_paths() {
    let pipeline = pipeline();
    for budget in [
        TokenBudget::chars(0),
        TokenBudget::tokens(0),
        TokenBudget::tokens(1),
    ] {
        let builder = PromptBuilder::new(&pipeline).budget(budget);
        assert!(
            builder
                .build_cached(&Context::new(), &Context::new())
                .is_err()
        );
        assert!(
            builder
                .build_basic(&Context::new(), &Context::new())
                .is_err()
        );
    }
}

#[test]
fn a_budget_from_a_context_window_reserves_the_rest() {
    assert_eq!(
        TokenBudget::from_context_window(200_000, 150_000),
        TokenBudget::tokens(50_000)
    );
    assert_eq!(TokenBudget::from_context_window(8_000, 10_000).limit(), 0);
}

static PANIC_NEXT: AtomicBool = AtomicBool::new(true);

/// Panics on its first render only.
struct Flaky;

impl Render for Flaky {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_>) {
        if PANIC_NEXT.swap(false, Ordering::SeqCst) {
            panic!("index out of bounds in the flaky layer");
        }
        out.push_str("flaky but fine");
    }
}

#[test]
fn a_panicking_layer_is_an_error_naming_it_and_the_next_build_works() {
    let pipeline = Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(spec("persona", 100, Stability::Stable), Fixed("Hi.".into())),
            LayerEntry::new(spec("flaky", 10_000, Stability::Dynamic), Flaky),
        ],
    )
    .unwrap();
    let session = PromptBuilder::new(&pipeline).session(Context::new());
    let error = session.build_cached(&Context::new()).unwrap_err();
    assert_eq!(
        error,
        AssemblyError::LayerPanicked {
            layer: LayerRef::new("flaky", "TestLayer", "prompt-tests: src/lib.rs:10000"),
            message: "index out of bounds in the flaky layer".into(),
        }
    );
    assert!(error.to_string().starts_with(
        "layer `flaky` (TestLayer at prompt-tests: src/lib.rs:10000) panicked while rendering: index out of bounds"
    ));
    // The same session and pipeline keep working.
    let prompt = session.build_cached(&Context::new()).unwrap();
    assert_eq!(prompt.text(), "Hi.\n\nflaky but fine");
}

/// A Stable layer that panics on every render.
struct Broken;

impl Render for Broken {
    fn render(&self, _out: &mut LayerWriter<'_>, _input: &LayerInput<'_>) {
        panic!("{}", String::from("formatted panic"));
    }
}

#[test]
fn a_panicking_stable_layer_fails_every_build_of_the_session_without_poisoning_it() {
    let pipeline = Pipeline::from_layers(
        TEST,
        [LayerEntry::new(
            spec("broken", 100, Stability::Stable),
            Broken,
        )],
    )
    .unwrap();
    let session = PromptBuilder::new(&pipeline).session(Context::new());
    for _ in 0..2 {
        match session.build_basic(&Context::new()) {
            Err(AssemblyError::LayerPanicked { layer, message, .. }) => {
                assert_eq!(
                    (layer.name, message.as_str()),
                    ("broken", "formatted panic")
                );
            }
            other => panic!("expected a caught panic, got {other:?}"),
        }
    }
}

fn with_reminder() -> Pipeline {
    Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(
                spec("persona", 100, Stability::Stable),
                Fixed("You are careful.".into()),
            ),
            LayerEntry::new(
                spec("runtime", 10_000, Stability::Dynamic),
                Fixed("cwd: /repo".into()),
            ),
            LayerEntry::new(
                spec("todo", 10_100, Stability::Dynamic).channel(Channel::Reminder),
                Fixed("Open todos: fix the login test.".into()),
            ),
            LayerEntry::new(
                spec("hints", 10_200, Stability::Dynamic),
                Fixed("a hint ".repeat(40)),
            ),
        ],
    )
    .unwrap()
}

#[test]
fn a_reminder_layer_travels_outside_the_system_prompt() {
    let prompt = PromptBuilder::new(&with_reminder())
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(prompt.reminder(), Some("Open todos: fix the login test."));
    assert!(!prompt.text().contains("Open todos"));
    assert_eq!(prompt.stable(), "You are careful.");
    assert!(prompt.dynamic().starts_with("cwd: /repo\n\na hint"));
    assert_eq!(prompt.trace().reminder_bytes, 31);
    assert_eq!(
        prompt.trace().layer("todo").unwrap().channel,
        Channel::Reminder
    );

    // The Anthropic request carries it as a trailing block of the last user turn.
    let mut request =
        MessagesRequest::new(&prompt, "claude-sonnet-4-5", 1024).message(Message::user("Fix it."));
    request.with_reminder(prompt.reminder()).unwrap();
    let body = serde_json::to_value(&request).unwrap();
    let last = &body["messages"][0]["content"];
    assert_eq!(last[0]["text"], "Fix it.");
    assert_eq!(
        last[1]["text"],
        "<system-reminder>\nOpen todos: fix the login test.\n</system-reminder>"
    );
    assert!(!body["system"].to_string().contains("Open todos"));
}

#[test]
fn annotations_show_the_reminder_and_the_budget_notice_and_still_tile_the_text() {
    let pipeline = with_reminder();
    let free = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let limit = free.text().chars().count() + free.reminder().unwrap().chars().count() - 40;
    let fitted = PromptBuilder::new(&pipeline)
        .budget(TokenBudget::chars(limit))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(fitted.trace().budget.as_ref().unwrap().shed, ["hints"]);
    let annotated = prompt_checks::testing::annotate(&fitted).unwrap();
    assert!(annotated.contains("@@ budget notice"), "{annotated}");
    assert!(
        annotated.contains(
            "@@ ======== reminder: sent in the last user message, not the system prompt ========\n@@ todo · dynamic · priority 10100 · 31 B\nOpen todos: fix the login test.\n"
        ),
        "{annotated}"
    );
    let segments = prompt_checks::testing::segments(&fitted).unwrap();
    let names: Vec<&str> = segments.iter().map(|s| s.layer.name).collect();
    assert_eq!(names, ["persona", "runtime", "todo", "hints"]);
    assert_eq!(segments[3].text, "");
}

#[test]
fn yields_from_the_spec_decide_who_gives_way() {
    let long = "step ".repeat(60);
    let pipeline = Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(
                spec("persona", 100, Stability::Stable),
                Fixed("You are careful.".into()),
            ),
            LayerEntry::new(
                spec("envelope", 10_000, Stability::Dynamic).yields(Yields::Keep),
                Fixed("approval: ask".into()),
            ),
            LayerEntry::new(
                spec("plan", 10_100, Stability::Dynamic).yields(Yields::Truncate),
                Fixed(long.clone()),
            ),
            LayerEntry::new(
                spec("tip", 10_200, Stability::Dynamic),
                Fixed("a tip".into()),
            ),
        ],
    )
    .unwrap();
    let fitted = PromptBuilder::new(&pipeline)
        .budget(TokenBudget::chars(250))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let budget = fitted.trace().budget.as_ref().unwrap();
    assert_eq!(budget.shed, ["tip"]);
    assert_eq!(budget.truncated.len(), 1);
    assert_eq!(budget.truncated[0].name, "plan");
    assert!(fitted.dynamic().starts_with("approval: ask\n\nstep step"));
    assert!(fitted.dynamic().contains("[…]"));
    assert!(fitted.text().chars().count() <= 250);

    // With room for nothing but the stable prefix and the Keep layer's text,
    // the Keep layer is not cut: the build fails and names it.
    let error = PromptBuilder::new(&pipeline)
        .budget(TokenBudget::chars(25))
        .build_cached(&Context::new(), &Context::new())
        .unwrap_err();
    assert!(
        matches!(
            error,
            AssemblyError::OverBudget(BudgetError::KeptOverBudget { .. })
        ),
        "{error}"
    );
    assert!(error.to_string().contains("envelope (13)"), "{error}");
}

#[test]
fn a_token_counter_puts_tokens_in_the_trace_and_measures_the_budget() {
    let pipeline = pipeline();
    let builder = PromptBuilder::new(&pipeline).counter(ApproxCounter);
    // A builder's Debug names its counter (a counter has no Debug of its own).
    assert!(
        format!("{builder:?}").contains("counter: Some(approx)"),
        "{builder:?}"
    );
    let prompt = builder
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let trace = prompt.trace();
    assert_eq!(trace.tokenizer, Some("approx"));
    assert_eq!(
        trace.stable_tokens,
        Some(ApproxCounter.count(prompt.stable()))
    );
    assert_eq!(
        trace.dynamic_tokens,
        Some(ApproxCounter.count(prompt.dynamic()))
    );
    assert_eq!(
        trace.layer("persona").unwrap().tokens,
        Some(ApproxCounter.count("You are a careful agent."))
    );
    // Without a counter, no token figures.
    let plain = PromptBuilder::new(&pipeline)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(plain.trace().stable_tokens, None);
    assert_eq!(plain.trace().layer("persona").unwrap().tokens, None);

    let total = ApproxCounter.count(&prompt.text());
    let fitted = PromptBuilder::new(&pipeline)
        .counter(ApproxCounter)
        .budget(TokenBudget::tokens(total - 5))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let budget = fitted.trace().budget.as_ref().unwrap();
    assert_eq!(budget.before, total);
    assert!(budget.after <= total - 5);
    assert_eq!(ApproxCounter.count(&fitted.text()), budget.after);
}
