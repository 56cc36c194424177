//! Template checking and rendering under limits: any template renders or
//! fails with an error, within the fuel, the output limit and the filter
//! budget, without panicking; and the subset check refuses every template
//! minijinja does not compile and every operator or literal that builds
//! strings or collections wherever minijinja lexes one in a tag, and is
//! enforced by the render (RELIABILITY.md, R5: a second lexer once
//! disagreed with minijinja about where a raw block ends).
//!
//! Run with a timeout and a memory limit, so a template that runs long or
//! grows is a crash: `-timeout=10 -rss_limit_mb=1024`.
#![no_main]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use prompt_layers::sources::__private::check_syntax;
use prompt_layers::sources::{TemplateLimits, Templates};

struct Fixture {
    _dir: tempfile::TempDir,
    shared: PathBuf,
    vars: BTreeMap<String, String>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().canonicalize().unwrap().join("shared");
        std::fs::create_dir_all(&shared).unwrap();
        for (name, text) in [
            ("a.md", "A {{ app }} {% include \"@shared/b.md\" %}"),
            ("b.md", "B {% for c in app %}{{ c|upper }}{% endfor %}"),
            ("loop.md", "{% include \"@shared/loop.md\" %}"),
            // Row 5 behind an include: refused by the same check.
            (
                "bomb.md",
                "{% raw %}{%{% endraw %}{% set s = app %}{% set s = s ~ s %}",
            ),
            // A commented include is text.
            ("note.md", "{# {% include \"@shared/none.md\" %} #}note"),
            // Row 6 behind an include: stopped by the filter budget.
            ("title.md", "{% for c in long %}{% set t = long|title %}{% endfor %}"),
        ] {
            std::fs::write(shared.join(name), text).unwrap();
        }
        let vars = BTreeMap::from([
            ("app".to_owned(), "agent".to_owned()),
            ("workspace".to_owned(), "repo".to_owned()),
            ("long".to_owned(), "ab ".repeat(100 * 1024)),
        ]);
        Fixture {
            _dir: dir,
            shared,
            vars,
        }
    })
}

const LIMITS: TemplateLimits = TemplateLimits::DEFAULT
    .fuel(20_000)
    .max_output(16 * 1024)
    .max_include_depth(8)
    .max_variable(16 * 1024);

/// Whether minijinja, with the settings the engine renders with, compiles
/// `source`.
fn compiles(source: &str) -> bool {
    let mut env = minijinja::Environment::empty();
    env.set_keep_trailing_newline(true);
    env.template_from_str(source).is_ok()
}

/// Whether minijinja lexes, in a tag, a token that builds a string or
/// collection (`~`, `+`, `*`, `**`, `[` or `{`), found through its public
/// API alone: in a template it compiles, a `$` put before such a character
/// stays text in text, comments, `raw` blocks and strings, and is a lexing
/// error in a tag. Left out: the characters a `$` would split from a
/// delimiter (the second `{` of `{{`, a `+` of `{%+` or `+%}`) or from a
/// number (the `+` of `1e+5`).
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

fuzz_target!(|source: &str| {
    let fixture = fixture();
    let checked = check_syntax(source);
    if builds(source) {
        assert!(checked.is_err(), "a builder passed the check: {source:?}");
    }
    if !compiles(source) {
        assert!(
            checked.is_err(),
            "minijinja refuses it, the check passed it: {source:?}"
        );
    }
    if let Err((line, message)) = &checked {
        assert!(!message.is_empty());
        assert!(*line <= source.lines().count().max(1) + 1, "line {line}");
    }
    let templates = Templates::new(Some(fixture.shared.clone())).limits(LIMITS);
    let rendered = templates.render_str("base.md".as_ref(), source, &fixture.vars);
    if let Ok(text) = rendered {
        assert!(
            checked.is_ok(),
            "rendered but refused by the check: {source:?}"
        );
        assert!(text.len() <= LIMITS.max_output);
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t')
        );
    }
});
