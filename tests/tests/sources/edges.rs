//! Tests that kill the mutants cargo-mutants found surviving in
//! `prompt-layers`' sources (issue 11). Each test names the guarantee it
//! pins; CONTRIBUTING.md, "Mutation testing", has the recipe.

use prompt_layers::sources::{CappedText, Root};

/// A file that is longer than its metadata says (a file growing while it is
/// read; `/proc` files all report size 0) is still reported as over the cap:
/// the size in the marker is at least what was read, cap plus the byte that
/// showed the cut, so the marker never reads "is 10 B, cap 10 B".
#[cfg(target_os = "linux")]
#[test]
fn a_file_longer_than_its_metadata_says_is_reported_over_the_cap() {
    let root = Root::new("/proc/self", "/proc/self");
    let status = std::path::Path::new("/proc/self/status");
    assert_eq!(std::fs::metadata(status).unwrap().len(), 0, "the premise");
    let text = CappedText::read(status, &root, 10).unwrap();
    assert!(text.is_truncated());
    assert_eq!(text.text.len(), 10);
    assert_eq!(text.size, 11, "cap + the one byte that showed the cut");
    assert!(
        text.render().ends_with("is 11 B, cap 10 B]"),
        "{}",
        text.render()
    );
}

use prompt_layers::sources::{DatedEntries, DatedSpec, EntryBudget};

/// An absent facts file is the common case (a new workspace), not a problem:
/// it adds no error and no note. A present file beside it is still read.
#[test]
fn an_absent_dated_file_is_skipped_without_a_problem() {
    let ws = tempfile::tempdir().unwrap();
    let root = Root::new(ws.path(), "");
    std::fs::write(
        ws.path().join("facts.jsonl"),
        r#"{"text": "The API is versioned.", "created_at": "2026-11-02T09:30:00Z"}"#,
    )
    .unwrap();
    let spec = dated_spec("2026-11-30T00:00:00Z");
    let files = [
        (ws.path().join("absent.jsonl"), root.clone()),
        (ws.path().join("facts.jsonl"), root),
    ];
    let read = DatedEntries::load(&files, &spec);
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    assert_eq!(read.notes(), Vec::<String>::new());
    assert_eq!(read.entries.len(), 1);
    assert_eq!(read.entries[0].text, "The API is versioned.");
}

/// A line of invalid UTF-8 in a dated file is a malformed line, counted and
/// noted like any other, and the valid lines around it are kept.
#[test]
fn a_dated_line_of_invalid_utf8_is_counted_as_malformed() {
    let ws = tempfile::tempdir().unwrap();
    let mut bytes = br#"{"text": "Kept.", "created_at": "2026-11-02T09:30:00Z"}"#.to_vec();
    bytes.extend_from_slice(b"\n\xff\xfe not utf-8\n");
    std::fs::write(ws.path().join("facts.jsonl"), bytes).unwrap();
    let spec = dated_spec("2026-11-30T00:00:00Z");
    let read = DatedEntries::load(
        &[(ws.path().join("facts.jsonl"), Root::new(ws.path(), ""))],
        &spec,
    );
    assert_eq!(read.malformed, 1);
    assert_eq!(read.notes(), ["skipped 1 malformed line(s)"]);
    assert_eq!(read.entries.len(), 1);
}

mod templates {
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
        let templates = Templates::new(Some(dir.path().to_owned())).with_limits(TemplateLimits {
            max_output: 1 << 20,
            ..TemplateLimits::default()
        });
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
        let templates = Templates::new(Some(dir.path().to_owned())).with_limits(TemplateLimits {
            max_include_depth: 2,
            ..TemplateLimits::default()
        });
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
        let templates = Templates::new(None).with_limits(TemplateLimits {
            max_output: 10,
            ..TemplateLimits::default()
        });
        assert_eq!(render(&templates, "0123456789").unwrap(), "0123456789");
        let error = render(&templates, "0123456789A").unwrap_err();
        assert!(
            matches!(error, SourceError::TemplateLimit { .. }),
            "{error:?}"
        );
        assert!(error.to_string().contains("output over 10 B"), "{error}");
    }
}

fn dated_spec(now: &str) -> DatedSpec<'static> {
    DatedSpec {
        text_key: "text",
        time_key: "created_at",
        budget: EntryBudget::Bytes(1024),
        max_entries: 10,
        read_cap: 1024,
        now: now.parse().unwrap(),
    }
}

fn load_lines(lines: &[&str], now: &str) -> DatedEntries {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("facts.jsonl"), lines.join("\n")).unwrap();
    DatedEntries::load(
        &[(ws.path().join("facts.jsonl"), Root::new(ws.path(), ""))],
        &dated_spec(now),
    )
}

/// An entry dated exactly now is kept (only later ones are "in the future");
/// a date without a time or offset is malformed, not future, even dated today.
#[test]
fn an_entry_dated_now_is_kept_and_a_bare_date_is_malformed() {
    let read = load_lines(
        &[
            r#"{"text": "Now.", "created_at": "2026-11-30T00:00:00Z"}"#,
            r#"{"text": "Bare past.", "created_at": "2026-11-02"}"#,
            r#"{"text": "Bare today.", "created_at": "2026-11-30"}"#,
        ],
        "2026-11-30T00:00:00Z",
    );
    let kept: Vec<&str> = read.entries.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(kept, ["Now."]);
    assert_eq!((read.future, read.malformed), (0, 2));
}

/// Without any `.git`, the upward walk stops at the workspace root, and
/// finds a file there from a sub-folder.
#[test]
fn without_git_a_file_at_the_workspace_root_is_found_from_below() {
    use prompt_layers::sources::__private::{find_upward, repo_root};
    let ws = tempfile::tempdir().unwrap();
    let sub = ws.path().join("a/b");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(ws.path().join("AGENTS.md"), "root").unwrap();
    let found = find_upward(ws.path(), &sub, "AGENTS.md").unwrap();
    assert_eq!(
        found.canonicalize().unwrap(),
        ws.path().join("AGENTS.md").canonicalize().unwrap()
    );
    assert_eq!(repo_root(ws.path(), &sub), None);
}

mod fs {
    use prompt_layers::sources::{CappedText, Root, SourceError};

    /// A root given through a symlink (`/tmp` on macOS, a linked checkout)
    /// reads its files: being inside is judged by where the file really is.
    #[cfg(unix)]
    #[test]
    fn a_root_given_through_a_symlink_reads_its_files() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir(ws.path().join("real")).unwrap();
        std::fs::write(ws.path().join("real/AGENTS.md"), "hello").unwrap();
        std::os::unix::fs::symlink(ws.path().join("real"), ws.path().join("link")).unwrap();
        let root = Root::new(ws.path().join("link"), "");
        let text = CappedText::read(&ws.path().join("link/AGENTS.md"), &root, 100).unwrap();
        assert_eq!(text.text, "hello");
        assert_eq!(text.name, "AGENTS.md");
    }

    /// A path outside the root is refused as outside before anything is
    /// looked up there: whether it exists is not revealed.
    #[test]
    fn a_path_outside_the_root_is_refused_whether_or_not_it_exists() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir(ws.path().join("root")).unwrap();
        std::fs::write(ws.path().join("there.md"), "x").unwrap();
        let root = Root::new(ws.path().join("root"), "");
        for name in ["there.md", "not-there.md"] {
            let error = CappedText::read(&ws.path().join(name), &root, 100).unwrap_err();
            assert!(
                matches!(&error, SourceError::OutsideRoot { target, .. } if target.is_empty()),
                "{name}: {error:?}"
            );
        }
    }

    /// A dangling symlink names its missing target; a loop says it cannot be resolved.
    #[cfg(unix)]
    #[test]
    fn a_broken_symlink_says_why() {
        let ws = tempfile::tempdir().unwrap();
        let root = Root::new(ws.path(), "");
        std::os::unix::fs::symlink("gone.md", ws.path().join("dangling.md")).unwrap();
        std::os::unix::fs::symlink("loop.md", ws.path().join("loop.md")).unwrap();
        let dangling = CappedText::read(&ws.path().join("dangling.md"), &root, 100).unwrap_err();
        assert!(
            matches!(&dangling, SourceError::BadSymlink { reason, .. } if reason == "a symlink to gone.md, which does not exist"),
            "{dangling:?}"
        );
        let looping = CappedText::read(&ws.path().join("loop.md"), &root, 100).unwrap_err();
        assert!(
            matches!(&looping, SourceError::BadSymlink { reason, .. } if reason == "a symlink loop"),
            "{looping:?}"
        );
    }
}

/// A dated file of exactly the read cap is read whole (not "read only its
/// last ..."); a longer one is read from its tail, and the line the cut
/// falls in is dropped whole rather than parsed as a malformed line.
#[test]
fn the_tail_of_a_dated_file_starts_at_a_whole_line() {
    let line =
        |n: usize| format!(r#"{{"text": "Entry {n}.", "created_at": "2026-11-0{n}T09:30:00Z"}}"#);
    let lines: Vec<String> = (1..=3).map(line).collect();
    let whole = lines.join("\n");
    let ws = tempfile::tempdir().unwrap();
    let path = ws.path().join("facts.jsonl");
    std::fs::write(&path, &whole).unwrap();
    let files = [(path, Root::new(ws.path(), ""))];

    let mut spec = dated_spec("2026-11-30T00:00:00Z");
    spec.read_cap = whole.len();
    let read = DatedEntries::load(&files, &spec);
    assert!(read.partial.is_empty(), "{:?}", read.partial);
    assert_eq!(read.entries.len(), 3);

    // Cut 5 bytes into the first line: it is dropped, the other two are kept.
    spec.read_cap = whole.len() - 5;
    let read = DatedEntries::load(&files, &spec);
    assert_eq!(read.partial.len(), 1);
    assert_eq!(read.malformed, 0);
    let kept: Vec<&str> = read.entries.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(kept, ["Entry 3.", "Entry 2."]);
}

mod skills {
    use std::path::Path;

    use prompt_layers::sources::{Root, SkillIndex, SkillLimits};

    fn skills(names: &[&str]) -> tempfile::TempDir {
        let ws = tempfile::tempdir().unwrap();
        for name in names {
            let dir = ws.path().join("skills").join(name);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(
                dir.join("SKILL.md"),
                format!("---\nname: {name}\ndescription: Do {name}.\n---\nBody.\n"),
            )
            .unwrap();
        }
        ws
    }

    fn load(ws: &Path, limits: &SkillLimits) -> SkillIndex {
        SkillIndex::load(&[(ws.join("skills"), Root::new(ws, ""))], limits)
    }

    fn kept(index: &SkillIndex) -> Vec<&str> {
        index.skills.iter().map(|s| s.name.as_str()).collect()
    }

    /// The byte limit counts each index line and its newline: lines that
    /// fill it exactly are all kept, one byte less leaves the last one out.
    #[test]
    fn the_byte_limit_counts_each_line_and_its_newline() {
        let ws = skills(&["a", "b"]);
        let all = load(ws.path(), &SkillLimits::default());
        let exact: usize = all.skills.iter().map(|s| s.index_line().len() + 1).sum();
        assert_eq!(exact, "- a: Do a. (skills/a/SKILL.md)\n".len() * 2);
        let fits = SkillLimits {
            max_bytes: exact,
            ..SkillLimits::default()
        };
        assert_eq!(kept(&load(ws.path(), &fits)), ["a", "b"]);
        let short = SkillLimits {
            max_bytes: exact - 1,
            ..SkillLimits::default()
        };
        let index = load(ws.path(), &short);
        assert_eq!(kept(&index), ["a"]);
        assert_eq!(index.over_budget, ["b"]);
    }

    /// `max_skills` is the most kept.
    #[test]
    fn at_most_max_skills_are_kept() {
        let ws = skills(&["a", "b", "c"]);
        let limits = SkillLimits {
            max_skills: 2,
            ..SkillLimits::default()
        };
        let index = load(ws.path(), &limits);
        assert_eq!(kept(&index), ["a", "b"]);
        assert_eq!(index.over_budget, ["c"]);
    }

    /// The note names up to ten skills left out, then counts the rest.
    #[test]
    fn the_note_names_ten_left_out_skills_then_counts() {
        let names: Vec<String> = (0..11).map(|i| format!("s{i:02}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let limits = SkillLimits {
            max_skills: 0,
            ..SkillLimits::default()
        };

        let ten = skills(&refs[..10]);
        let notes = load(ten.path(), &limits).notes(&limits);
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].ends_with(": s00, s01, s02, s03, s04, s05, s06, s07, s08, s09"),
            "{}",
            notes[0]
        );

        let eleven = skills(&refs);
        let notes = load(eleven.path(), &limits).notes(&limits);
        assert!(notes[0].ends_with("s09 and 1 more"), "{}", notes[0]);
    }

    /// A workspace without a skills folder has no skills and no problem.
    #[test]
    fn an_absent_skills_folder_is_no_problem() {
        let ws = tempfile::tempdir().unwrap();
        let index = load(ws.path(), &SkillLimits::default());
        assert!(index.skills.is_empty());
        assert!(index.problems.is_empty(), "{:?}", index.problems);
        assert!(index.notes(&SkillLimits::default()).is_empty());
    }
}

/// Frontmatter may nest `[` / `{` exactly 16 deep; 17 is refused unparsed.
/// Depth is nesting, not count: many lists side by side are fine.
#[test]
fn frontmatter_nests_exactly_sixteen_deep_and_siblings_do_not_add_up() {
    use prompt_layers::sources::__private::parse_frontmatter;
    let nested = |n: usize| {
        format!(
            "---\nname: x\ndeep: {}{}\n---\n",
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    assert!(parse_frontmatter(&nested(16)).is_ok());
    let error = parse_frontmatter(&nested(17)).unwrap_err();
    assert_eq!(error, "line 3: `[` / `{` nest deeper than 16");
    let siblings: String = (0..20).map(|i| format!("k{i}: [{i}]\n")).collect();
    let map = parse_frontmatter(&format!("---\n{siblings}---\n")).unwrap();
    assert_eq!(map.len(), 20);
}

/// A frontmatter of exactly 16 KiB between its `---` lines parses; one byte
/// more is refused unparsed.
#[test]
fn frontmatter_of_exactly_the_cap_parses_and_one_byte_more_is_refused() {
    use prompt_layers::sources::__private::{FRONTMATTER_CAP, parse_frontmatter};
    let frontmatter = |len: usize| {
        let head = "name: x\nd: ";
        let yaml = format!("{head}{}\n", "a".repeat(len - head.len() - 1));
        assert_eq!(yaml.len(), len);
        format!("---\n{yaml}---\n")
    };
    assert!(parse_frontmatter(&frontmatter(FRONTMATTER_CAP)).is_ok());
    let error = parse_frontmatter(&frontmatter(FRONTMATTER_CAP + 1)).unwrap_err();
    assert!(
        error.starts_with("the frontmatter is larger than 16 KiB"),
        "{error}"
    );
}
