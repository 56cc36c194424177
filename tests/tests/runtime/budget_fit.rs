//! What a budget leaves and what it says: the longest cut that fits, the
//! notes on the layers that gave way, the notice and its counts, a prefix at
//! or over the limit, and the separator the fitted suffix is joined with.

use prompt_core::budget::{BudgetError, TokenBudget};
use prompt_core::pipeline::LayerEntry;
use prompt_core::spec::Channel;
use prompt_core::spec::Yields;
use prompt_core::{AssemblyError, Context, Pipeline, PromptBuilder, Stability};
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
                spec("notes", 10_000, Stability::Dynamic).yields(Yields::Truncate),
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

/// Two Dynamic layers, the less important one yielding by truncation.
fn shed_and_cut() -> Pipeline {
    Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(spec("persona", 1, Stability::Stable), Fixed("S".to_owned())),
            LayerEntry::new(
                spec("runtime", 10_000, Stability::Dynamic).yields(Yields::Keep),
                Fixed("cwd: /repo".to_owned()),
            ),
            LayerEntry::new(
                spec("history", 10_100, Stability::Dynamic).yields(Yields::Truncate),
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
                spec("recent", 10_000, Stability::Dynamic).yields(Yields::Truncate),
                Fixed("r".repeat(100)),
            ),
            LayerEntry::new(
                spec("older", 10_100, Stability::Dynamic).yields(Yields::Truncate),
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

// The separator under a budget. With a budget the Dynamic layers render each
// into its own text and are joined after the fit (`render.rs`'s `join`), a
// different path from the unbudgeted one, where each layer writes straight
// into the joined text; these pin that the budgeted join, the notice and the
// fit's own measure all use the pipeline's separator, not the default.

/// A Stable layer, then two speaking Dynamic layers on the System channel
/// (`git` says `git`) with a silent one between them, and, with
/// `reminders`, two speaking Reminder layers.
fn two_speaking(git: &str, reminders: bool) -> Pipeline {
    let dynamic = |name, priority, text: &str| {
        LayerEntry::new(
            spec(name, priority, Stability::Dynamic),
            Fixed(text.to_owned()),
        )
    };
    let reminder = |name, priority, text: &str| {
        LayerEntry::new(
            spec(name, priority, Stability::Dynamic).channel(Channel::Reminder),
            Fixed(text.to_owned()),
        )
    };
    let mut layers = vec![
        LayerEntry::new(spec("persona", 1, Stability::Stable), Fixed("S".to_owned())),
        dynamic("runtime", 10_000, "cwd: /repo"),
        dynamic("silent", 10_050, ""),
        dynamic("git", 10_100, git),
    ];
    if reminders {
        layers.push(reminder("todo", 10_200, "todo: tests"));
        layers.push(reminder("mode", 10_300, "mode: plan"));
    }
    Pipeline::from_layers(TEST, layers).unwrap()
}

const SEPARATOR: &str = " <> ";

#[test]
fn a_budget_that_fits_joins_the_suffix_and_the_reminder_with_the_custom_separator() {
    let pipeline = two_speaking("branch: main", true);
    let free = PromptBuilder::new(&pipeline)
        .separator(SEPARATOR)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let fitted = PromptBuilder::new(&pipeline)
        .separator(SEPARATOR)
        .budget(TokenBudget::chars(10_000))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert!(!fitted.trace().budget.as_ref().unwrap().trimmed());
    assert_eq!(fitted.dynamic(), "cwd: /repo <> branch: main");
    assert_eq!(fitted.reminder(), Some("todo: tests <> mode: plan"));
    assert_eq!(fitted.text(), "S <> cwd: /repo <> branch: main");
    // Byte for byte what the unbudgeted build sends.
    assert_eq!(fitted.parts(), free.parts());
    assert_eq!(fitted.reminder(), free.reminder());

    // The Basic path joins the halves with it too.
    let basic = PromptBuilder::new(&pipeline)
        .separator(SEPARATOR)
        .budget(TokenBudget::chars(10_000))
        .build_basic(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(basic.text(), "S <> cwd: /repo <> branch: main");
}

#[test]
fn the_notice_follows_the_kept_suffix_after_the_custom_separator() {
    let pipeline = two_speaking(&"b".repeat(300), false);
    // Room for the prefix, `runtime` and the notice, not for `git`.
    let prompt = PromptBuilder::new(&pipeline)
        .separator(SEPARATOR)
        .budget(TokenBudget::chars(200))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let budget = prompt.trace().budget.as_ref().unwrap();
    assert_eq!(budget.shed, ["git"]);
    let notice = budget.notice.as_deref().unwrap();
    assert_eq!(prompt.dynamic(), format!("cwd: /repo <> {notice}"));
    assert!(prompt.text().chars().count() <= 200);
}

/// The fit measures the prompt with the separator it will be joined with:
/// with a long one, a budget of exactly the unbudgeted size keeps
/// everything, and one character less trims, never sending more than the
/// budget (a fit that counted the default two-character separator would
/// think the long one fits).
#[test]
fn the_fit_measures_with_the_custom_separator() {
    let long = "\n------------------------\n";
    let pipeline = two_speaking(&"b".repeat(300), false);
    let free = PromptBuilder::new(&pipeline)
        .separator(long)
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    let size = free.text().chars().count();
    let exact = PromptBuilder::new(&pipeline)
        .separator(long)
        .budget(TokenBudget::chars(size))
        .build_cached(&Context::new(), &Context::new())
        .unwrap();
    assert_eq!(exact.parts(), free.parts());
    assert!(!exact.trace().budget.as_ref().unwrap().trimmed());
    for budget in [size - 1, size - long.len(), size - long.len() - 1] {
        let fitted = PromptBuilder::new(&pipeline)
            .separator(long)
            .budget(TokenBudget::chars(budget))
            .build_cached(&Context::new(), &Context::new())
            .unwrap();
        let trace = fitted.trace().budget.as_ref().unwrap();
        assert!(trace.trimmed(), "budget {budget}");
        assert!(fitted.text().chars().count() <= budget, "budget {budget}");
        assert_eq!(
            fitted.text().chars().count(),
            trace.after,
            "budget {budget}"
        );
    }
}
