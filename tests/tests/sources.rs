//! Sources: loading from disk, every error naming its file, discovery, caps,
//! project docs, memory, dated entries, skills and templates.

use std::collections::BTreeMap;
use std::path::Path;

use prompt_layers::sources::{
    BasePromptConfig, Budget, CappedText, DatedEntries, MemoryFile, ProjectDocs, ProjectDocsConfig,
    PromptOrigin, Scratchpad, SkillIndex, SourceError, Templates, approx_tokens, find_upward,
    read_capped, repo_root,
};
use prompt_tests::FixtureWorkspace;

fn vars() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("app".to_owned(), "agent".to_owned()),
        ("workspace".to_owned(), "repo".to_owned()),
    ])
}

// ---- capped files --------------------------------------------------------

#[test]
fn a_file_under_the_cap_is_read_whole_without_a_marker() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("AGENTS.md");
    std::fs::write(&path, "short\n").unwrap();
    let text = read_capped(&path, "AGENTS.md", 6).unwrap();
    assert_eq!(text.text, "short\n");
    assert!(!text.is_truncated());
    assert_eq!(text.marker(), None);
    assert_eq!(text.render(), "short");
}

#[test]
fn a_file_over_the_cap_is_cut_and_marked_with_name_size_and_cap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("AGENTS.md");
    std::fs::write(&path, "x".repeat(41 * 1024)).unwrap();
    let text = read_capped(&path, "AGENTS.md", 16 * 1024).unwrap();
    assert_eq!(text.text.len(), 16 * 1024);
    assert_eq!(text.size, 41 * 1024);
    assert_eq!(
        text.render().rsplit("\n\n").next(),
        Some("[…truncated: AGENTS.md is 41 KiB, cap 16 KiB]")
    );
    assert_eq!(
        text.note().unwrap(),
        "AGENTS.md: cut to 16 KiB of 41 KiB (cap 16 KiB)"
    );
}

#[test]
fn a_cut_inside_a_multibyte_character_drops_the_whole_character() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.md");
    std::fs::write(&path, "ab日本").unwrap(); // 2 + 3 + 3 bytes
    for cap in 2..5 {
        assert_eq!(
            read_capped(&path, "notes.md", cap).unwrap().text,
            "ab",
            "cap {cap}"
        );
    }
    assert_eq!(read_capped(&path, "notes.md", 5).unwrap().text, "ab日");
}

#[test]
fn invalid_utf8_is_an_error_naming_the_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("CLAUDE.md");
    std::fs::write(&path, b"fine\xff\xfe").unwrap();
    let error = read_capped(&path, "CLAUDE.md", 1024).unwrap_err();
    assert!(
        matches!(error, SourceError::InvalidUtf8 { offset: 4, .. }),
        "{error:?}"
    );
    assert_eq!(error.path(), path);
    assert!(
        error.to_string().starts_with(&path.display().to_string()),
        "{error}"
    );
    assert!(error.to_string().contains("offset 4"), "{error}");
}

#[test]
fn a_directory_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let error = read_capped(dir.path(), "AGENTS.md", 1024).unwrap_err();
    assert!(
        matches!(error, SourceError::IsDirectory { .. }),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains(&dir.path().display().to_string()),
        "{error}"
    );
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.md");
    let error = read_capped(&path, "missing.md", 1024).unwrap_err();
    assert!(error.is_not_found());
    assert_eq!(
        error.to_string(),
        format!("{}: no such file", path.display())
    );
}

#[test]
fn an_unreadable_path_is_an_error_naming_it() {
    // A path through a regular file cannot be opened (ENOTDIR), even as root.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("file"), "x").unwrap();
    let path = dir.path().join("file/AGENTS.md");
    let error = read_capped(&path, "AGENTS.md", 1024).unwrap_err();
    assert!(matches!(error, SourceError::Unreadable { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with(&format!("{}: cannot read", path.display())),
        "{error}"
    );
}

// ---- discovery ---------------------------------------------------------

#[test]
fn discovery_finds_the_nearest_file_upward() {
    let ws = FixtureWorkspace::new();
    let start = ws.repo.join("services/api/src");
    assert_eq!(
        find_upward(&start, "AGENTS.md").unwrap(),
        ws.repo.join("services/api/AGENTS.md")
    );
    assert_eq!(
        find_upward(&start, "CLAUDE.md").unwrap(),
        start.join("CLAUDE.md")
    );
    assert_eq!(repo_root(&start).unwrap(), ws.repo);
}

#[test]
fn discovery_stops_at_the_repository_root() {
    let ws = FixtureWorkspace::new();
    // `<tmp>/outer/.agent/system-prompt.md` exists, but above the repository root.
    assert!(
        ws.repo
            .parent()
            .unwrap()
            .join(".agent/system-prompt.md")
            .is_file()
    );
    std::fs::remove_file(ws.repo.join(".agent/system-prompt.md")).unwrap();
    assert_eq!(
        find_upward(&ws.repo.join("services/api/src"), ".agent/system-prompt.md"),
        None
    );
    // Without the marker the walk goes on to the filesystem root and finds it.
    std::fs::remove_dir(ws.repo.join(".git")).unwrap();
    assert_eq!(
        find_upward(&ws.repo.join("services"), ".agent/system-prompt.md").unwrap(),
        ws.repo.parent().unwrap().join(".agent/system-prompt.md")
    );
}

#[cfg(unix)]
#[test]
fn discovery_survives_symlink_loops_and_missing_starts() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join("AGENTS.md"), "root").unwrap();
    // `a/x` cannot be resolved (a loop): it is walked as written, and ends at the root.
    assert_eq!(
        find_upward(&a.join("x"), "AGENTS.md").unwrap(),
        dir.path().join("AGENTS.md")
    );
    // A file named like a loop is not a file.
    assert_eq!(find_upward(dir.path(), "a"), None);
    assert_eq!(
        find_upward(&dir.path().join("no/such/dir"), "nothing.md"),
        None
    );
}

// ---- project docs --------------------------------------------------------

#[test]
fn root_docs_are_agents_then_claude() {
    let ws = FixtureWorkspace::new();
    let docs = ProjectDocs::load(&ws.repo, &ws.repo, &ProjectDocsConfig::default());
    let headings: Vec<&str> = docs.docs.iter().map(|d| d.heading.as_str()).collect();
    assert_eq!(headings, ["AGENTS.md", "CLAUDE.md"]);
    assert!(docs.problems.is_empty());
}

#[test]
fn nested_docs_go_root_first_down_to_the_cwd_and_an_override_replaces_agents_md() {
    let ws = FixtureWorkspace::new();
    let config = ProjectDocsConfig {
        nested: true,
        ..ProjectDocsConfig::default()
    };
    let docs = ProjectDocs::load(&ws.repo, &ws.repo.join("services/api/src"), &config);
    let headings: Vec<&str> = docs.docs.iter().map(|d| d.heading.as_str()).collect();
    assert_eq!(
        headings,
        [
            "AGENTS.md",
            "CLAUDE.md",
            "services/api/AGENTS.md",
            "services/api/src/CLAUDE.md"
        ]
    );
    let api = &docs.docs[2];
    assert!(api.path.ends_with("AGENTS.override.md"));
    assert!(api.text.text.contains("(override)"));
    // services/web is not on the path.
    assert!(!docs.docs.iter().any(|d| d.heading.contains("web")));
}

#[test]
fn nested_docs_share_one_budget() {
    let ws = FixtureWorkspace::new();
    let override_len = std::fs::metadata(ws.repo.join("services/api/AGENTS.override.md"))
        .unwrap()
        .len() as usize;
    let config = ProjectDocsConfig {
        nested: true,
        nested_budget: override_len + 10,
        ..ProjectDocsConfig::default()
    };
    let docs = ProjectDocs::load(&ws.repo, &ws.repo.join("services/api/src"), &config);
    let last = docs.docs.last().unwrap();
    assert_eq!(last.heading, "services/api/src/CLAUDE.md");
    assert_eq!(last.text.text.len(), 10);
    assert!(last.text.is_truncated());

    let config = ProjectDocsConfig {
        nested: true,
        nested_budget: override_len,
        ..ProjectDocsConfig::default()
    };
    let docs = ProjectDocs::load(&ws.repo, &ws.repo.join("services/api/src"), &config);
    assert_eq!(docs.over_budget, ["services/api/src/CLAUDE.md"]);
}

#[test]
fn a_broken_project_doc_is_reported_not_fatal() {
    let ws = FixtureWorkspace::new();
    std::fs::write(ws.repo.join("CLAUDE.md"), b"\xc3\x28 not utf-8").unwrap();
    let docs = ProjectDocs::load(&ws.repo, &ws.repo, &ProjectDocsConfig::default());
    assert_eq!(docs.docs.len(), 1);
    assert_eq!(docs.problems.len(), 1);
    assert_eq!(docs.problems[0].path(), ws.repo.join("CLAUDE.md"));
}

// ---- memory ------------------------------------------------------------

#[test]
fn memory_files_are_capped_and_absence_is_not_a_problem() {
    let ws = FixtureWorkspace::new();
    let user = MemoryFile::load(&ws.home.join(".agent/memory/user.md"), "user.md", 8);
    assert_eq!(user.text.as_ref().unwrap().text, "I use vi");
    assert_eq!(
        user.rendered().unwrap(),
        "I use vi\n\n[…truncated: user.md is 48 B, cap 8 B]"
    );
    let absent = MemoryFile::load(&ws.home.join("nope.md"), "nope.md", 8);
    assert!(absent.text.is_none() && absent.problem.is_none());
    let dir = MemoryFile::load(&ws.home, "home", 8);
    assert!(matches!(dir.problem, Some(SourceError::IsDirectory { .. })));
}

// ---- facts and episodes ------------------------------------------------

#[test]
fn facts_merge_newest_first_skip_malformed_lines_and_drop_repeats() {
    let ws = FixtureWorkspace::new();
    let global = ws.home.join(".agent/memory/facts.jsonl");
    let local = ws.repo.join(".agent/memory/facts.jsonl");
    let facts = DatedEntries::load(
        &[&global, &local],
        "text",
        "created_at",
        Budget::Bytes(4096),
        50,
    );
    let texts: Vec<&str> = facts.entries.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "The user's name is Ada.",
            "CI runs on two cores.",
            "The API is versioned under /v2.",
            "The staging database is read-only.",
        ]
    );
    // "not JSON", "missing timestamp" and "[1, 2, 3]".
    assert_eq!(facts.malformed, 3);
    assert_eq!(facts.over_budget, 0);
    assert_eq!(facts.notes(), ["skipped 3 malformed line(s)"]);
}

#[test]
fn facts_are_bounded_by_bytes_tokens_and_count() {
    let ws = FixtureWorkspace::new();
    let local = ws.repo.join(".agent/memory/facts.jsonl");
    let by_bytes = DatedEntries::load(&[&local], "text", "created_at", Budget::Bytes(25), 50);
    assert_eq!(by_bytes.entries.len(), 1); // "CI runs on two cores." is 21 bytes
    assert_eq!(by_bytes.over_budget, 2);
    let by_tokens = DatedEntries::load(
        &[&local],
        "text",
        "created_at",
        Budget::Tokens {
            max: 14,
            count: approx_tokens,
        },
        50,
    );
    assert_eq!(by_tokens.entries.len(), 2); // 6 + 8 tokens
    let by_count = DatedEntries::load(&[&local], "text", "created_at", Budget::Bytes(4096), 1);
    assert_eq!((by_count.entries.len(), by_count.over_budget), (1, 2));
}

#[test]
fn an_unreadable_facts_file_is_reported_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let facts = DatedEntries::load(&[dir.path()], "text", "created_at", Budget::Bytes(10), 5);
    assert_eq!(facts.problems.len(), 1);
    assert_eq!(facts.problems[0].path(), dir.path());
}

// ---- skills ------------------------------------------------------------

#[test]
fn skills_are_indexed_by_name_with_the_workspace_winning_and_broken_ones_reported() {
    let ws = FixtureWorkspace::new();
    let roots = [ws.repo.join(".agent/skills"), ws.home.join(".agent/skills")];
    let index = SkillIndex::load(&roots, |p| {
        p.strip_prefix(ws.dir.path().canonicalize().unwrap())
            .unwrap()
            .display()
            .to_string()
    });
    let names: Vec<&str> = index.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["deploy", "review"]);
    assert_eq!(
        index.skills[0].description,
        "Deploy the API to staging. Use when asked to ship or deploy."
    );
    assert_eq!(
        index.skills[0].location,
        "outer/repo/.agent/skills/deploy/SKILL.md"
    );
    assert_eq!(index.skills[0].extra["allowed-tools"], "Bash");
    let problems: Vec<String> = index.problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(
        problems[0].contains(
            "skills/broken/SKILL.md: bad frontmatter: line 4: did not find expected ',' or ']'"
        ),
        "{}",
        problems[0]
    );
    assert!(problems[1].contains("home/.agent/skills/deploy/SKILL.md: bad frontmatter: skill name `deploy` is already taken"), "{}", problems[1]);
}

#[test]
fn frontmatter_errors_name_the_file_and_what_is_missing() {
    let path = Path::new("x/SKILL.md");
    let cases = [
        ("# no frontmatter\n", "line 1: expected `---`"),
        ("---\nname: x\n", "no closing `---`"),
        ("---\nname: x\n---\n", "missing `description`"),
        ("---\ndescription: d\n---\n", "missing `name`"),
        (
            "---\nname: [1]\ndescription: d\n---\n",
            "`name` must be a non-empty string",
        ),
    ];
    for (text, expected) in cases {
        let error = prompt_layers::sources::parse_skill(path, text, String::new()).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("x/SKILL.md: bad frontmatter: "),
            "{message}"
        );
        assert!(message.contains(expected), "{text:?}: {message}");
    }
}

// ---- templates and the base prompt ---------------------------------------

#[test]
fn the_base_prompt_comes_from_the_override_found_upward_and_renders_shared_includes() {
    let ws = FixtureWorkspace::new();
    let config = BasePromptConfig::for_app("agent");
    let templates = Templates::new(Some(ws.shared.clone()));
    let base = config.resolve(&ws.repo.join("services/api/src"), &templates, &vars());
    assert_eq!(
        base.origin,
        PromptOrigin::Override(ws.repo.join(".agent/system-prompt.md"))
    );
    assert_eq!(
        base.text,
        "You are agent's coding agent for the repo repository.\nWrite plainly; no filler.\n"
    );
    assert!(base.problem.is_none());
}

#[test]
fn without_an_override_the_search_path_then_the_built_in_default_is_used() {
    let ws = FixtureWorkspace::new();
    std::fs::remove_file(ws.repo.join(".agent/system-prompt.md")).unwrap();
    let mut config = BasePromptConfig::for_app("agent");
    let templates = Templates::new(None);
    assert_eq!(config.locate(&ws.repo), PromptOrigin::BuiltIn);
    let base = config.resolve(&ws.repo, &templates, &vars());
    assert_eq!(base.text, prompt_layers::DEFAULT_BASE_PROMPT);

    let search = tempfile::tempdir().unwrap();
    std::fs::write(
        search.path().join("system-prompt.md"),
        "From the search path.",
    )
    .unwrap();
    config.search_path = vec![ws.home.clone(), search.path().to_owned()];
    let base = config.resolve(&ws.repo, &templates, &vars());
    assert_eq!(
        base.origin,
        PromptOrigin::SearchPath(search.path().join("system-prompt.md"))
    );
    assert_eq!(base.text, "From the search path.");
}

#[test]
fn a_broken_override_falls_back_to_the_default_and_keeps_the_error() {
    let ws = FixtureWorkspace::new();
    let path = ws.repo.join(".agent/system-prompt.md");
    std::fs::write(&path, "line one\n{% if %}\n").unwrap();
    let base = BasePromptConfig::for_app("agent").resolve(&ws.repo, &Templates::new(None), &vars());
    assert_eq!(base.text, prompt_layers::DEFAULT_BASE_PROMPT);
    let problem = base.problem.unwrap();
    assert!(
        matches!(problem, SourceError::Template { line: 2, .. }),
        "{problem:?}"
    );
    assert!(
        problem
            .to_string()
            .starts_with(&format!("{}:2: template error", path.display())),
        "{problem}"
    );
}

fn render(templates: &Templates, source: &str) -> Result<String, SourceError> {
    templates.render_str(Path::new("base.md"), source, &vars())
}

#[test]
fn includes_may_not_leave_the_shared_folder() {
    let ws = FixtureWorkspace::new();
    let templates = Templates::new(Some(ws.shared.clone()));
    let cases = [
        (
            "{% include \"@shared/../outer/repo/AGENTS.md\" %}",
            "`..` is not allowed",
        ),
        (
            "{% include \"@shared//etc/passwd\" %}",
            "absolute paths are not allowed",
        ),
        (
            "{% include \"tone.md\" %}",
            "must name a file in the shared folder",
        ),
    ];
    for (source, reason) in cases {
        let error = render(&templates, source).unwrap_err();
        assert!(
            matches!(error, SourceError::IncludeRejected { .. }),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(message.starts_with("base.md: include \""), "{message}");
        assert!(message.contains(reason), "{message}");
    }
    let unconfigured =
        render(&Templates::new(None), "{% include \"@shared/tone.md\" %}").unwrap_err();
    assert!(
        unconfigured
            .to_string()
            .contains("no shared folder is configured"),
        "{unconfigured}"
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_shared_folder_is_rejected() {
    let ws = FixtureWorkspace::new();
    std::os::unix::fs::symlink(ws.repo.join("AGENTS.md"), ws.shared.join("escape.md")).unwrap();
    let error = render(
        &Templates::new(Some(ws.shared.clone())),
        "{% include \"@shared/escape.md\" %}",
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("base.md: include \"@shared/escape.md\" is not allowed"),
        "{error}"
    );
    assert!(
        error.to_string().contains("outside the shared folder"),
        "{error}"
    );
}

#[test]
fn include_cycles_are_errors_that_show_the_chain() {
    let ws = FixtureWorkspace::new();
    std::fs::write(ws.shared.join("a.md"), "A {% include \"@shared/b.md\" %}").unwrap();
    std::fs::write(ws.shared.join("b.md"), "B {% include \"@shared/a.md\" %}").unwrap();
    let error = render(
        &Templates::new(Some(ws.shared.clone())),
        "{% include \"@shared/a.md\" %}",
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "base.md: include cycle: base.md -> @shared/a.md -> @shared/b.md -> @shared/a.md"
    );
}

#[test]
fn a_syntax_error_in_an_include_names_that_file_and_line() {
    let ws = FixtureWorkspace::new();
    std::fs::write(ws.shared.join("bad.md"), "ok\nok\n{{ unclosed \n").unwrap();
    let error = render(
        &Templates::new(Some(ws.shared.clone())),
        "{% include \"@shared/bad.md\" %}",
    )
    .unwrap_err();
    match &error {
        SourceError::Template { path, line, .. } => {
            assert_eq!(path, &ws.shared.join("bad.md"));
            assert_eq!(*line, 3);
        }
        other => panic!("expected a template error, got {other:?}"),
    }
}

#[test]
fn an_undefined_variable_is_an_error_with_its_line() {
    let error = render(&Templates::new(None), "Hello\n{{ usr }}").unwrap_err();
    assert!(
        matches!(error, SourceError::Template { line: 2, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("undefined"), "{error}");
}

#[test]
fn a_missing_include_names_the_missing_file() {
    let ws = FixtureWorkspace::new();
    let error = render(
        &Templates::new(Some(ws.shared.clone())),
        "{% include \"@shared/nope.md\" %}",
    )
    .unwrap_err();
    assert!(error.is_not_found());
    assert_eq!(error.path(), ws.shared.join("nope.md"));
}

// ---- scratchpad ---------------------------------------------------------

#[test]
fn the_scratchpad_loads_sorted_and_a_malformed_one_names_file_and_line() {
    let ws = FixtureWorkspace::new();
    let path = ws.repo.join(".agent/scratchpad.json");
    let pad = Scratchpad::load(&path).unwrap();
    assert_eq!(pad.0.keys().collect::<Vec<_>>(), ["branch", "plan"]);
    assert_eq!(
        Scratchpad::load(&ws.repo.join("none.json")).unwrap(),
        Scratchpad::default()
    );
    std::fs::write(&path, "{\n\"plan\": 3\n}").unwrap();
    let error = Scratchpad::load(&path).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with(&format!("{}: malformed: line 2", path.display())),
        "{error}"
    );
}

#[test]
fn capped_text_from_memory_matches_capped_text_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.md");
    let text = "Ünïcödé — 日本語 text";
    std::fs::write(&path, text).unwrap();
    for cap in 0..=text.len() + 1 {
        assert_eq!(
            read_capped(&path, "f.md", cap).unwrap(),
            CappedText::from_text("f.md", text, cap)
        );
    }
}

#[test]
fn a_skills_root_that_is_a_file_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    std::fs::write(&root, "not a directory").unwrap();
    let index = SkillIndex::load(std::slice::from_ref(&root), |p| p.display().to_string());
    assert!(index.skills.is_empty());
    assert_eq!(index.problems.len(), 1);
    assert_eq!(index.problems[0].path(), root);
}
