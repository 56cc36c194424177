//! Hostile templates (docs/RELIABILITY.md, R5 and R6): a template is text from a
//! repository, checked against the subset where minijinja finds its tags and
//! rendered with filters that pay for what they read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use prompt_layers::sources::__private::check_syntax;
use prompt_layers::sources::{
    BasePromptConfig, PromptOrigin, Root, SourceError, TemplateLimits, Templates,
};
use proptest::prelude::*;

use crate::support::{render_with, shared};

fn render(source: &str) -> Result<String, SourceError> {
    render_with(&Templates::new(None), source, &[("app", "agent")])
}

/// The message of a check refusal, asserting it names `base.md` and `line`.
fn refusal(error: &SourceError, line: usize) -> String {
    match error {
        SourceError::Template { path, line: at, .. } => {
            assert_eq!(path, Path::new("base.md"), "{error}");
            assert_eq!(*at, line, "{error}");
        }
        other => panic!("expected a template error, got {other:?}"),
    }
    error.to_string()
}

/// The limit of a `TemplateLimit` error naming `base.md`.
fn limit(error: &SourceError) -> String {
    match error {
        SourceError::TemplateLimit { path, limit } => {
            assert_eq!(path, Path::new("base.md"), "{error}");
            limit.clone()
        }
        other => panic!("expected a template limit, got {other:?}"),
    }
}

/// Row 5, as filed: `{% raw %}{%{% endraw %}` made the old scanner's idea of
/// where the raw block ends differ from minijinja's, so the string bomb after
/// it went unchecked (2 GB, then abort). The check now ends a raw block
/// where minijinja ends it: the bomb is refused at its line, before anything
/// renders.
#[test]
fn row5_a_raw_block_cannot_hide_a_string_bomb() {
    let mut source = String::from("{% raw %}{%{% endraw %}\n{% set s = \"x\" * 99999999 %}\n");
    for _ in 0..12 {
        source.push_str("{% set s = s ~ s %}\n");
    }
    let error = render(&source).unwrap_err();
    assert!(
        refusal(&error, 2).contains("the `*` operator is not supported"),
        "{error}"
    );
    // Without the `*`, the doubling itself is refused at its line.
    let doubling = "{% raw %}{%{% endraw %}\n{% set s = app %}\n{% set s = s ~ s %}";
    let error = render(doubling).unwrap_err();
    assert!(
        refusal(&error, 3).contains("the `~` operator is not supported"),
        "{error}"
    );
    // And the raw block is what minijinja says it is: `{%` as text.
    assert_eq!(
        render("{% raw %}{%{% endraw %}{{ app }}").unwrap(),
        "{%agent"
    );
}

/// Row 5 through the base prompt: the override is refused with its file and
/// line, and the built-in prompt is used (no render, no allocation).
#[test]
fn row5_the_bomb_in_an_override_falls_back_with_file_and_line() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join(".agent")).unwrap();
    let mut source = String::from("{% raw %}{%{% endraw %}{% set s = \"x\" * 99999999 %}");
    source.push_str(&"{% set s = s ~ s %}".repeat(12));
    std::fs::write(repo.path().join(".agent/system-prompt.md"), source).unwrap();
    let base = BasePromptConfig::for_app("agent").resolve(
        &Root::new(repo.path(), ""),
        repo.path(),
        &Templates::new(None),
        &BTreeMap::new(),
    );
    assert_eq!(base.text, prompt_layers::sources::DEFAULT_BASE_PROMPT);
    let problem = base.problem.unwrap().to_string();
    assert!(
        problem.starts_with(".agent/system-prompt.md:1: template error: the `*` operator"),
        "{problem}"
    );
}

/// Row 6, as filed: a 240 KB template looping `x|title` over a 240 KB
/// string (315 s of CPU). The string is a literal, over the 4 KiB literal
/// limit: refused before rendering, naming the file, line and limit. With
/// one instruction of fuel the refusal is the same, so it comes before the
/// render runs anything.
#[test]
fn row6_a_title_loop_over_a_long_literal_is_refused_before_rendering() {
    let source = format!(
        "{{% set x = \"{}\" %}}\n{{% for c in x %}}{{% set y = x|title %}}{{% endfor %}}",
        "ab ".repeat(80 * 1024)
    );
    for templates in [
        Templates::new(None),
        Templates::new(None).limits(TemplateLimits::DEFAULT.fuel(1)),
    ] {
        let error = render_with(&templates, &source, &[("app", "agent")]).unwrap_err();
        let message = refusal(&error, 1);
        assert!(
            message.contains("a string literal of 240 KiB is over the 4 KiB limit"),
            "{message}"
        );
    }
}

/// Row 6 with the long string in a variable (the caller's, e.g. a kitsoki
/// argument): the filters' budget (1 MiB read per render) stops the loop
/// at its fifth call, with an error naming the file, the limit and the
/// filter. It stops the loop within 60 instructions of fuel, of the 240K
/// iterations the loop would run: with fuel for 60, the render ends at the
/// filter budget, not at the fuel.
#[test]
fn row6_a_title_loop_over_a_long_variable_stops_at_the_filter_budget() {
    let long = "ab ".repeat(80 * 1024);
    let source = "{% for c in x %}{% set y = x|title %}{% endfor %}";
    let filter_limit =
        "filters read over 1 MiB in one render (the `title` filter was given 240 KiB)";
    let error = render_with(&long_variables(), source, &[("x", &long)]).unwrap_err();
    assert_eq!(limit(&error), filter_limit);
    let little_fuel =
        long_variables().limits(TemplateLimits::DEFAULT.max_variable(usize::MAX).fuel(60));
    let error = render_with(&little_fuel, source, &[("x", &long)]).unwrap_err();
    assert_eq!(limit(&error), filter_limit);
    // Four calls fit the budget: the same loop over four characters ends.
    let four = "{% for c in \"abcd\" %}{% set y = x|title %}{% endfor %}done";
    assert_eq!(
        render_with(&little_fuel, four, &[("x", &long)]).unwrap(),
        "done"
    );
}

/// Templates whose caller may pass variables of any length, so the filter
/// budget, not the variable cap, is what a test meets.
fn long_variables() -> Templates {
    Templates::new(None).limits(TemplateLimits::DEFAULT.max_variable(usize::MAX))
}

/// A comparison or `in` is one instruction whatever it compares: a caller's
/// 240 KiB variable searched in a loop ran for 6.9 s inside the fuel. A
/// variable over 16 KiB is refused before rendering, naming it, one byte
/// over as much as 240 KiB; exactly 16 KiB renders, and the same loop then
/// stops at the fuel: what the loop searches is bounded by the fuel times
/// 16 KiB.
#[test]
fn a_long_caller_variable_is_refused_before_a_loop_can_search_it() {
    let source = "{% for c in x %}{% if \"zzz\" in x %}!{% endif %}{% endfor %}";
    let long = "ab ".repeat(80 * 1024);
    let error = render_with(&Templates::new(None), source, &[("x", &long)]).unwrap_err();
    assert_eq!(
        limit(&error),
        "the variable `x` holds 240 KiB, over the 16 KiB a template variable may hold"
    );
    let over = "a".repeat(16 * 1024 + 1);
    let error = render_with(&Templates::new(None), source, &[("x", &over)]).unwrap_err();
    assert!(
        limit(&error).starts_with("the variable `x` holds 16 KiB"),
        "{error}"
    );
    let exact = "a".repeat(16 * 1024);
    let error = render_with(&Templates::new(None), source, &[("x", &exact)]).unwrap_err();
    assert!(limit(&error).starts_with("fuel of 100000"), "{error}");
}

/// The budget is exactly 1 MiB: two calls on 512 KiB render, a third byte
/// more is refused. Every documented filter pays.
#[test]
fn the_filter_budget_is_exactly_one_mib_and_every_filter_pays() {
    let half = "a".repeat(512 * 1024);
    let templates = long_variables();
    for filter in [
        "upper",
        "lower",
        "title",
        "capitalize",
        "trim",
        "default",
        "d",
        "length",
        "first",
        "last",
    ] {
        let two = format!("{{% set y = x|{filter} %}}{{% set y = x|{filter} %}}.");
        assert_eq!(
            render_with(&templates, &two, &[("x", &half)]).unwrap(),
            ".",
            "{filter}"
        );
        let more = format!("{two}{{% set y = b|{filter} %}}");
        let error = render_with(&templates, &more, &[("x", &half), ("b", "b")]).unwrap_err();
        assert_eq!(
            limit(&error),
            format!("filters read over 1 MiB in one render (the `{filter}` filter was given 1 B)"),
        );
    }
}

/// `trim` with a set of characters compares each character with the whole
/// set: it pays the product, so a long set cannot multiply the work.
#[test]
fn trim_with_a_set_pays_for_the_set() {
    // 60 KiB read once is well within the budget; with a set of 20
    // characters it costs 1.2 MiB, over it.
    let spaces = " ".repeat(60 * 1024);
    let templates = long_variables();
    let plain = render_with(&templates, "[{{ x|trim }}]", &[("x", &spaces)]).unwrap();
    assert!(plain == "[]", "{} bytes", plain.len());
    let set = "abdefghijklmnopqrst ";
    let short = render_with(
        &templates,
        &format!("[{{{{ x|trim(\"{set}\") }}}}]"),
        &[("x", "ab c ")],
    )
    .unwrap();
    assert_eq!(short, "[c]");
    let error = render_with(
        &templates,
        &format!("{{{{ x|trim(\"{set}\") }}}}"),
        &[("x", &spaces)],
    )
    .unwrap_err();
    assert_eq!(
        limit(&error),
        "filters read over 1 MiB in one render (the `trim` filter was given 1.2 MiB)"
    );
}

/// Literals: exactly 4 KiB is fine, one byte more is refused.
#[test]
fn a_literal_of_exactly_4_kib_is_fine_and_one_byte_more_is_refused() {
    let ok = format!("{{{{ \"{}\"|length }}}}", "a".repeat(4096));
    assert_eq!(render(&ok).unwrap(), "4096");
    let over = format!("{{{{ \"{}\"|length }}}}", "a".repeat(4097));
    let error = render(&over).unwrap_err();
    assert!(
        refusal(&error, 1).contains("a string literal of 4 KiB + 1 B is over the 4 KiB limit"),
        "{error}"
    );
}

/// Chains that parse into trees as deep as they are long overflowed the
/// stack inside minijinja (a 20 KB `{{ a.b.b… }}` or a thousand `elif`s:
/// abort, exit 134). Tags are capped at 256 tokens and templates at 256
/// `elif`s, before minijinja parses: each is a refusal with its line.
#[test]
fn deep_chains_are_refused_before_minijinja_recurses_over_them() {
    for (source, why) in [
        (
            format!("\n{{{{ app{} }}}}", ".b".repeat(60_000)),
            "a tag of more than 256 tokens",
        ),
        (
            format!("\n{{{{ 1{} }}}}", "-1".repeat(60_000)),
            "a tag of more than 256 tokens",
        ),
        (
            format!("\n{{{{ app{} }}}}", "|trim".repeat(30_000)),
            "a tag of more than 256 tokens",
        ),
        (
            format!("\n{{% if not {}app %}}{{% endif %}}", "not ".repeat(30_000)),
            "a tag of more than 256 tokens",
        ),
        (
            format!(
                "\n{{% if app %}}{}{{% endif %}}",
                "{% elif app %}".repeat(10_000)
            ),
            "more than 256 `elif` tags",
        ),
    ] {
        let error = render(&source).unwrap_err();
        assert!(refusal(&error, 2).contains(why), "{error}");
    }
    // At the limits: 256 tokens (`-`, `1`, then 127 × `-1`) and 256 `elif`s.
    let tokens = format!("{{{{ -1{} }}}}", "-1".repeat(127));
    assert_eq!(render(&tokens).unwrap(), "-128");
    let tokens = format!("{{{{ --1{} }}}}", "-1".repeat(127));
    assert!(
        render(&tokens)
            .unwrap_err()
            .to_string()
            .contains("256 tokens")
    );
    let elifs = format!(
        "{{% if not app %}}{}{{% else %}}ok{{% endif %}}",
        "{% elif not app %}".repeat(256)
    );
    assert_eq!(render(&elifs).unwrap(), "ok");
    let elifs = format!(
        "{{% if not app %}}{}{{% endif %}}",
        "{% elif not app %}".repeat(257)
    );
    let error = render(&elifs).unwrap_err();
    assert!(
        refusal(&error, 1).contains("more than 256 `elif` tags"),
        "{error}"
    );
}

/// A commented-out or raw `{% include %}` is text: it no longer fails the
/// template (before, it did, and the base prompt silently fell back to the
/// built-in one). Nothing is read for it.
#[test]
fn commented_and_raw_includes_are_text_not_includes() {
    let source = "a{# {% include \"@shared/../../etc/passwd\" %} #}b{% raw %}{% include \"@shared/missing.md\" %}{% endraw %}c";
    assert_eq!(
        render(source).unwrap(),
        "ab{% include \"@shared/missing.md\" %}c"
    );

    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join(".agent")).unwrap();
    std::fs::write(
        repo.path().join(".agent/system-prompt.md"),
        "You are {{ app }}.\n{# {% include \"@shared/old.md\" %} #}",
    )
    .unwrap();
    let vars = BTreeMap::from([("app".to_owned(), "agent".to_owned())]);
    let base = BasePromptConfig::for_app("agent").resolve(
        &Root::new(repo.path(), ""),
        repo.path(),
        &Templates::new(None),
        &vars,
    );
    assert!(base.problem.is_none(), "{:?}", base.problem);
    assert_eq!(
        base.origin,
        PromptOrigin::Override(PathBuf::from(".agent/system-prompt.md"))
    );
    assert_eq!(base.text, "You are agent.\n");
}

/// An included file is checked as the engine loads it, literal or
/// computed: a bomb behind a raw block in `@shared/x.md` is refused, naming
/// that file.
#[test]
fn an_included_file_is_checked_by_the_same_tree() {
    let bomb = "{% raw %}{%{% endraw %}\n{% set s = app %}{% set s = s ~ s %}";
    let dir = shared(&[
        ("x.md", bomb),
        ("ok.md", "{# {% include \"@shared/none.md\" %} #}fine"),
    ]);
    let templates = Templates::new(Some(dir.path().to_owned()));
    let vars = [("app", "agent")];
    let error = render_with(&templates, "{% include \"@shared/x.md\" %}", &vars).unwrap_err();
    assert!(
        matches!(&error, SourceError::Template { path, line: 2, .. } if path == Path::new("@shared/x.md")),
        "{error:?}"
    );
    assert!(error.to_string().contains("`~` operator"), "{error}");
    let error = render_with(
        &templates,
        "{% set f = \"@shared/x.md\" %}{% include f %}",
        &vars,
    )
    .unwrap_err();
    assert_eq!(error.path(), Path::new("@shared/x.md"), "{error:?}");
    assert!(error.to_string().contains("`~` operator"), "{error}");
    // A commented include inside an included file is text too.
    assert_eq!(
        render_with(&templates, "{% include \"@shared/ok.md\" %}", &vars).unwrap(),
        "fine"
    );
}

/// Fuel and output still bound a template that passes the check.
#[test]
fn limits_still_apply_after_the_check() {
    let templates = Templates::new(None).limits(TemplateLimits::DEFAULT.fuel(1_000));
    let error = render_with(
        &templates,
        "{% for a in x %}{% for b in x %}{{ a|upper }}{% endfor %}{% endfor %}",
        &[("x", "0123456789abcdefghij")],
    )
    .unwrap_err();
    assert_eq!(limit(&error), "fuel of 1000 instructions spent");
}

/// Whether minijinja, with the settings the engine renders with, compiles
/// `source`.
fn compiles(source: &str) -> bool {
    let mut env = minijinja::Environment::empty();
    env.set_keep_trailing_newline(true);
    env.template_from_str(source).is_ok()
}

/// Operators and literals that build strings or collections (`~`, `+`, `*`,
/// `**`, `[`, `{`) where minijinja lexes them in a tag, found through its
/// public API alone: in a template it compiles, a `$` put before such a
/// character stays text in text, comments, `raw` blocks and strings, and
/// is a lexing error in a tag. Left out: the characters a `$` would split
/// from a delimiter (the second `{` of `{{`, a `+` of `{%+` or `+%}`) or
/// from a number (the `+` of `1e+5`).
fn builds(source: &str) -> bool {
    // An exponent's sign: `e` or `E` (then any `_`, which a number may
    // hold anywhere) ending a run of word characters and dots that starts
    // with a digit.
    let exponent = |head: &[u8]| {
        let word = head
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
            .count();
        let mark = head.iter().rev().find(|&&b| b != b'_');
        matches!(mark, Some(b'e' | b'E')) && head[head.len() - word].is_ascii_digit()
    };
    let bytes = source.as_bytes();
    compiles(source)
        && bytes.iter().enumerate().any(|(at, &b)| {
            let before = |s: &[u8]| at >= s.len() && &bytes[at - s.len()..at] == s;
            let after = |s: &[u8]| bytes[at + 1..].starts_with(s);
            let delimiter = match b {
                b'{' => before(b"{"),
                b'+' => {
                    before(b"{{")
                        || before(b"{%")
                        || before(b"{#")
                        || after(b"}}")
                        || after(b"%}")
                        || exponent(&bytes[..at])
                }
                b'~' | b'*' | b'[' => false,
                _ => return false,
            };
            !delimiter && !compiles(&format!("{}${}", &source[..at], &source[at..]))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    /// Row 5's invariant: whatever the raw, comment and string delimiters
    /// around it, a building operator that minijinja lexes in a tag is
    /// refused (and so is a template minijinja cannot compile), and a
    /// template that passes the check renders or fails within its limits,
    /// never over the output limit.
    #[test]
    fn the_check_refuses_every_builder_the_engine_would_run(
        parts in prop::collection::vec(
            prop::sample::select(vec![
                "{% raw %}", "{% endraw %}", "{%- endraw -%}", "{%", "%}", "{{", "}}", "{#", "#}",
                "\"", "'", "\\", " ~ ", " * ", " + ", "[", "{", "s", "{% set s = s ~ s %}",
                "{% set s = app %}", "{{ s }}", "x", "\n", "-", "{%-", "-%}", "{% if s %}",
                "{% endif %}", "{% for c in s %}", "{% endfor %}", " ", "|title", "|upper",
            ]),
            0..24,
        ),
    ) {
        let source = parts.concat();
        let checked = check_syntax(&source);
        if builds(&source) {
            prop_assert!(checked.is_err(), "{:?} passed the check", source);
        }
        if !compiles(&source) {
            prop_assert!(checked.is_err(), "{:?} does not compile but passed the check", source);
        }
        let templates = Templates::new(None).limits(TemplateLimits::DEFAULT.max_output(4096));
        match render_with(&templates, &source, &[("app", "agent")]) {
            Ok(text) => {
                prop_assert!(checked.is_ok(), "{:?} rendered but fails the check", source);
                prop_assert!(text.len() <= 4096);
            }
            Err(error) => prop_assert!(
                matches!(error, SourceError::Template { .. } | SourceError::TemplateLimit { .. }),
                "{:?}: {:?}", source, error
            ),
        }
    }
}
