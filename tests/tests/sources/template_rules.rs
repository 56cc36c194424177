//! What a template may do: its size, include depth and output limits, the
//! files an include may name, the syntax the check accepts, and the
//! documented filters.

use std::collections::BTreeMap;
use std::path::Path;

use prompt_layers::sources::{SourceError, TemplateLimits, Templates};

use crate::support::{render_with, shared};

fn render(templates: &Templates, source: &str) -> Result<String, SourceError> {
    render_with(templates, source, &[])
}

/// The template size limit is 256 KiB: a 100 KiB template renders whole.
#[test]
fn a_template_under_the_256_kib_limit_renders_whole() {
    let big = "x".repeat(100 * 1024);
    let dir = shared(&[("big.md", &big)]);
    let templates = Templates::new(Some(dir.path().to_owned()))
        .limits(TemplateLimits::DEFAULT.max_output(1 << 20));
    let text = render(&templates, "{% include \"@shared/big.md\" %}").unwrap();
    assert_eq!(text.len(), big.len());
}

/// A computed include of a file that exists but may not be read (over
/// the size limit) says so; it is not reported as "not found".
#[test]
fn a_computed_include_of_an_oversized_file_names_the_real_problem() {
    let dir = shared(&[("big.md", &"x".repeat(300 * 1024))]);
    let templates = Templates::new(Some(dir.path().to_owned()));
    let error = render(
        &templates,
        "{% set f = \"@shared/big.md\" %}{% include f %}",
    )
    .unwrap_err();
    assert!(!error.is_not_found(), "{error:?}");
    assert!(
        error
            .to_string()
            .contains("larger than the 256 KiB template limit"),
        "{error}"
    );
}

/// `max_include_depth` is the number of nested includes allowed: with 2,
/// base -> a -> b renders and base -> a -> b -> c is refused.
#[test]
fn includes_nest_exactly_as_deep_as_the_limit() {
    let dir = shared(&[
        ("a.md", "A {% include \"@shared/b.md\" %}"),
        ("b.md", "B"),
        ("a3.md", "A {% include \"@shared/b3.md\" %}"),
        ("b3.md", "B {% include \"@shared/c3.md\" %}"),
        ("c3.md", "C"),
    ]);
    let templates = Templates::new(Some(dir.path().to_owned()))
        .limits(TemplateLimits::DEFAULT.max_include_depth(2));
    assert_eq!(
        render(&templates, "{% include \"@shared/a.md\" %}").unwrap(),
        "A B"
    );
    let error = render(&templates, "{% include \"@shared/a3.md\" %}").unwrap_err();
    assert!(
        matches!(error, SourceError::TemplateLimit { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("deeper than 2"), "{error}");
}

/// `ignore missing` forgives an absent file only: an include that exists
/// but is not a regular file is still refused, and named.
#[cfg(unix)]
#[test]
fn ignore_missing_does_not_forgive_a_fifo() {
    let dir = shared(&[]);
    let fifo = dir.path().join("pipe.md");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let templates = Templates::new(Some(dir.path().to_owned()));
    let error = render(
        &templates,
        "{% include \"@shared/pipe.md\" ignore missing %}",
    )
    .unwrap_err();
    assert!(matches!(error, SourceError::NotRegular { .. }), "{error:?}");
    assert_eq!(error.path(), Path::new("@shared/pipe.md"));
    // And an absent one is forgiven.
    assert_eq!(
        render(
            &templates,
            "a{% include \"@shared/none.md\" ignore missing %}b"
        )
        .unwrap(),
        "ab"
    );
}

/// A render error inside an include names the included file; one in the
/// template itself names the template exactly as given, even a file name
/// that is not UTF-8.
#[test]
fn a_render_error_names_the_file_it_happened_in() {
    let dir = shared(&[("x.md", "fine\n{{ nope }}")]);
    let templates = Templates::new(Some(dir.path().to_owned()));
    let error = render(&templates, "ok\n{% include \"@shared/x.md\" %}").unwrap_err();
    assert!(
        matches!(error, SourceError::Template { line: 2, .. }),
        "{error:?}"
    );
    assert_eq!(error.path(), Path::new("@shared/x.md"));

    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let name = Path::new(std::ffi::OsStr::from_bytes(b"base\xff.md"));
        let error = templates
            .render_str(name, "{{ nope }}", &BTreeMap::new())
            .unwrap_err();
        assert_eq!(error.path(), name);
    }
}

/// A comment is skipped whole by the check, whatever it holds (here
/// refused operators, and an opening `{{` just before its end).
#[test]
fn a_comment_is_skipped_whole_by_the_syntax_check() {
    let templates = Templates::new(None);
    assert_eq!(
        render(&templates, "a{# say {{ x ~ y }} or {{#}b").unwrap(),
        "ab"
    );
}

/// An expression after plain text is checked as itself: the text before
/// it (here holding `+` and `=`) is not part of it.
#[test]
fn an_expression_after_text_is_checked_alone() {
    let templates = Templates::new(None);
    let text = render_with(&templates, "x + y = {{ sum }}", &[("sum", "3")]).unwrap();
    assert_eq!(text, "x + y = 3");
}

/// A raw block is text up to its own `endraw`, whatever tags and refused
/// operators it holds, with or without whitespace control on `endraw`.
#[test]
fn a_raw_block_is_text_up_to_its_endraw() {
    let templates = Templates::new(None);
    assert_eq!(
        render(&templates, "{% raw %}{% if %}{{ x ~ y }}{%%}{% endraw %}").unwrap(),
        "{% if %}{{ x ~ y }}{%%}"
    );
    assert_eq!(
        render(&templates, "a{% raw %}b {%- endraw %}c").unwrap(),
        "abc"
    );
}

/// A closing `}}` inside a string literal (escaped quotes included) does
/// not end the expression, so it cannot hide a refused operator after it.
#[test]
fn a_closer_inside_a_string_cannot_hide_an_operator() {
    let templates = Templates::new(None);
    let vars = [("x", "!")];
    for source in [r#"{{ "a}}" ~ x }}"#, r#"{{ "a\"}}" ~ x }}"#] {
        let error = render_with(&templates, source, &vars).unwrap_err();
        assert!(error.to_string().contains('~'), "{source}: {error}");
    }
    // The same strings without the operator render.
    let text = render_with(&templates, r#"{{ "a\"}}" }}"#, &vars).unwrap();
    assert_eq!(text, "a\"}}");
}

/// Commas: between a filter's arguments (spaces allowed before the
/// parenthesis) they are fine; after the call, at the top level, they
/// are refused (minijinja's own parser stops there), and a tuple in
/// parentheses is refused by the subset.
#[test]
fn commas_are_for_arguments_not_tuples() {
    let templates = Templates::new(None);
    assert_eq!(
        render(&templates, r#"{{ missing | default ("a", true) }}"#).unwrap(),
        "a"
    );
    let error = render(&templates, r#"{{ missing | default("a"), 1 }}"#).unwrap_err();
    assert!(
        matches!(error, SourceError::Template { line: 1, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("unexpected `,`"), "{error}");
    let error = render(&templates, r#"{{ (missing | default("a"), 1) }}"#).unwrap_err();
    assert!(error.to_string().contains("tuples"), "{error}");
    // A `for` may unpack (its body cannot keep what it builds).
    let text = render_with(
        &templates,
        "[{% for a, b in e %}{{ a }}{% endfor %}]",
        &[("e", "")],
    )
    .unwrap();
    assert_eq!(text, "[]");
}

/// A `set` with only a comparison in it is not an assignment: it is
/// refused, saying an assignment was expected; a block `set` is refused
/// with the hint to write `{% set name = value %}`.
#[test]
fn a_set_with_only_a_comparison_is_not_an_assignment() {
    let error = render(&Templates::new(None), "{% set x == y %}").unwrap_err();
    assert!(
        error.to_string().contains("expected assignment operator"),
        "{error}"
    );
    let error = render(&Templates::new(None), "{% set x %}y{% endset %}").unwrap_err();
    assert!(error.to_string().contains("block `{% set %}`"), "{error}");
}

/// A `{` that opens no tag is text, wherever it stands.
#[test]
fn a_lone_brace_is_text() {
    let templates = Templates::new(None);
    let source = r#"{ "json": {"a": 1} } and { alone"#;
    assert_eq!(render(&templates, source).unwrap(), source);
}

/// The filters the subset documents are there.
#[test]
fn the_documented_filters_work() {
    let templates = Templates::new(None);
    let text = render_with(
        &templates,
        "{{ name | trim | upper }}/{{ name | trim | title }}/{{ name | length }}/{{ missing | default(\"none\") }}",
        &[("name", "  ada lovelace ")],
    )
    .unwrap();
    assert_eq!(text, "ADA LOVELACE/Ada Lovelace/15/none");
}

/// `max_output` is the most bytes a render may write: exactly that many
/// render, one more is refused.
#[test]
fn output_of_exactly_the_limit_renders_and_one_byte_more_is_refused() {
    let templates = Templates::new(None).limits(TemplateLimits::DEFAULT.max_output(10));
    assert_eq!(render(&templates, "0123456789").unwrap(), "0123456789");
    let error = render(&templates, "0123456789A").unwrap_err();
    assert!(
        matches!(error, SourceError::TemplateLimit { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("output over 10 B"), "{error}");
}
