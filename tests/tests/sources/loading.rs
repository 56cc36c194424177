//! Sources: loading from disk, every error naming its file, discovery, caps,
//! project docs, memory, dated entries, skills and templates.

use std::collections::BTreeMap;
use std::path::Path;

use std::path::PathBuf;

use prompt_core::tokens::ApproxCounter;
use prompt_layers::sources::__private::{find_upward, parse_skill, read_capped, repo_root};
use prompt_layers::sources::{
    BasePromptConfig, CappedText, DatedConfig, DatedEntries, EntryBudget, EntryLimits, MemoryFile,
    MemoryLimits, ProjectDocs, ProjectDocsConfig, PromptOrigin, Root, Scratchpad, SkillIndex,
    SkillLimits, SourceError, TemplateLimits, Templates, fence,
};
use prompt_tests::FixtureWorkspace;

/// A root at `dir` shown without a label (as the workspace is).
fn root(dir: &Path) -> Root {
    Root::new(dir, "")
}

fn spec(budget: EntryBudget, max_entries: usize) -> DatedConfig<'static> {
    DatedConfig::new(
        "text",
        "created_at",
        "2026-11-30T00:00:00Z".parse().unwrap(),
    )
    .limits(
        EntryLimits::DEFAULT
            .budget(budget)
            .max_entries(max_entries)
            .read_cap(64 * 1024),
    )
}

fn files(paths: &[(&Path, &Path)]) -> Vec<(PathBuf, Root)> {
    paths
        .iter()
        .map(|(file, dir)| (file.to_path_buf(), root(dir)))
        .collect()
}

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
    let text = read_capped(&path, &root(dir.path()), 6).unwrap();
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
    let text = read_capped(&path, &root(dir.path()), 16 * 1024).unwrap();
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
            read_capped(&path, &root(dir.path()), cap).unwrap().text,
            "ab",
            "cap {cap}"
        );
    }
    assert_eq!(
        read_capped(&path, &root(dir.path()), 5).unwrap().text,
        "ab日"
    );
}

#[test]
fn invalid_utf8_is_an_error_naming_the_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("CLAUDE.md");
    std::fs::write(&path, b"fine\xff\xfe").unwrap();
    let error = read_capped(&path, &root(dir.path()), 1024).unwrap_err();
    assert!(
        matches!(error, SourceError::InvalidUtf8 { offset: 4, .. }),
        "{error:?}"
    );
    // Named relative to its root: the same on every machine.
    assert_eq!(error.path(), Path::new("CLAUDE.md"));
    assert!(error.to_string().starts_with("CLAUDE.md: "), "{error}");
    assert!(error.to_string().contains("offset 4"), "{error}");
}

#[test]
fn a_directory_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let error = read_capped(dir.path(), &root(dir.path()), 1024).unwrap_err();
    assert!(
        matches!(error, SourceError::IsDirectory { .. }),
        "{error:?}"
    );
    assert_eq!(error.to_string(), ".: is a directory, expected a file");
    let sub = dir.path().join("AGENTS.md");
    std::fs::create_dir(&sub).unwrap();
    let error = read_capped(&sub, &root(dir.path()), 1024).unwrap_err();
    assert_eq!(
        error.to_string(),
        "AGENTS.md: is a directory, expected a file"
    );
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.md");
    let error = read_capped(&path, &root(dir.path()), 1024).unwrap_err();
    assert!(error.is_not_found());
    assert_eq!(error.to_string(), "missing.md: no such file");
}

#[test]
fn an_unreadable_path_is_an_error_naming_it() {
    // A path through a regular file cannot be opened (ENOTDIR), even as root.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("file"), "x").unwrap();
    let path = dir.path().join("file/AGENTS.md");
    let error = read_capped(&path, &root(dir.path()), 1024).unwrap_err();
    assert!(matches!(error, SourceError::Unreadable { .. }), "{error:?}");
    assert!(
        error.to_string().starts_with("file/AGENTS.md: cannot read"),
        "{error}"
    );
}

// ---- discovery ---------------------------------------------------------

#[test]
fn discovery_finds_the_nearest_file_upward() {
    let ws = FixtureWorkspace::new();
    let start = ws.repo.join("services/api/src");
    assert_eq!(
        find_upward(&ws.repo, &start, "AGENTS.md").unwrap(),
        ws.repo.join("services/api/AGENTS.md")
    );
    assert_eq!(
        find_upward(&ws.repo, &start, "CLAUDE.md").unwrap(),
        start.join("CLAUDE.md")
    );
    assert_eq!(repo_root(&ws.repo, &start).unwrap(), ws.repo);
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
        find_upward(
            &ws.repo,
            &ws.repo.join("services/api/src"),
            ".agent/system-prompt.md"
        ),
        None
    );
    // Without the marker the walk still ends at the workspace root: never above it.
    std::fs::remove_dir(ws.repo.join(".git")).unwrap();
    assert_eq!(
        find_upward(
            &ws.repo,
            &ws.repo.join("services"),
            ".agent/system-prompt.md"
        ),
        None
    );
    assert_eq!(repo_root(&ws.repo, &ws.repo.join("services")), None);
    // Even when the caller names the outer folder as the start, it is not in the workspace.
    assert_eq!(
        find_upward(
            &ws.repo,
            ws.repo.parent().unwrap(),
            ".agent/system-prompt.md"
        ),
        None
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
    let ws = dir.path().canonicalize().unwrap();
    assert_eq!(
        find_upward(&ws, &ws.join("a/x"), "AGENTS.md").unwrap(),
        ws.join("AGENTS.md")
    );
    // A looping link is found (so the reader can refuse it with a note), never followed.
    assert_eq!(find_upward(&ws, &ws, "a"), Some(ws.join("a")));
    let error = read_capped(&ws.join("a"), &root(&ws), 64).unwrap_err();
    assert!(matches!(error, SourceError::BadSymlink { .. }), "{error:?}");
    assert_eq!(
        find_upward(&ws, &ws.join("no/such/dir"), "nothing.md"),
        None
    );
}

// ---- project docs --------------------------------------------------------

#[test]
fn root_docs_are_agents_then_claude() {
    let ws = FixtureWorkspace::new();
    let docs = ProjectDocs::load(
        &Root::new(&ws.repo, ""),
        &ws.repo,
        &ProjectDocsConfig::default(),
    );
    let headings: Vec<&str> = docs.docs.iter().map(|d| d.heading.as_str()).collect();
    assert_eq!(headings, ["AGENTS.md", "CLAUDE.md"]);
    assert!(docs.problems.is_empty());
}

#[test]
fn nested_docs_go_root_first_down_to_the_cwd_and_an_override_replaces_agents_md() {
    let ws = FixtureWorkspace::new();
    let config = ProjectDocsConfig::default().nested(true);
    let docs = ProjectDocs::load(
        &Root::new(&ws.repo, ""),
        &ws.repo.join("services/api/src"),
        &config,
    );
    let headings: Vec<&str> = docs.docs.iter().map(|d| d.heading.as_str()).collect();
    assert_eq!(
        headings,
        [
            "AGENTS.md",
            "CLAUDE.md",
            // The heading names the file read, so the model is told the real file.
            "services/api/AGENTS.override.md",
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
fn nested_docs_share_one_budget_that_counts_their_headings() {
    let ws = FixtureWorkspace::new();
    let override_len = std::fs::metadata(ws.repo.join("services/api/AGENTS.override.md"))
        .unwrap()
        .len() as usize;
    // Each doc's fence (`<file path="…">\n`, `\n</file>`) and blank line are paid for.
    let headings = fence("services/api/AGENTS.override.md", "").len()
        + fence("services/api/src/CLAUDE.md", "").len()
        + 6;
    let config = ProjectDocsConfig::default()
        .nested(true)
        .nested_budget(headings + override_len + 10);
    let docs = ProjectDocs::load(
        &Root::new(&ws.repo, ""),
        &ws.repo.join("services/api/src"),
        &config,
    );
    let last = docs.docs.last().unwrap();
    assert_eq!(last.heading, "services/api/src/CLAUDE.md");
    assert_eq!(last.text.text.len(), 10);
    assert!(last.text.is_truncated());

    // Room for the text but not for its fence: the walk stops there, and says so.
    let config = ProjectDocsConfig::default()
        .nested(true)
        .nested_budget(headings + override_len);
    let docs = ProjectDocs::load(
        &Root::new(&ws.repo, ""),
        &ws.repo.join("services/api/src"),
        &config,
    );
    assert_eq!(
        docs.docs.last().unwrap().heading,
        "services/api/AGENTS.override.md"
    );
    assert!(docs.over_budget.is_empty(), "{:?}", docs.over_budget);
    assert_eq!(
        docs.limit_notes,
        [format!(
            "stopped at services/api/src: the {} B budget of directory-level docs is spent; \
             1 of 3 directories down to the working directory not looked at",
            headings + override_len
        )]
    );
}

#[test]
fn a_broken_project_doc_is_reported_not_fatal() {
    let ws = FixtureWorkspace::new();
    std::fs::write(ws.repo.join("CLAUDE.md"), b"\xc3\x28 not utf-8").unwrap();
    let docs = ProjectDocs::load(
        &Root::new(&ws.repo, ""),
        &ws.repo,
        &ProjectDocsConfig::default(),
    );
    assert_eq!(docs.docs.len(), 1);
    assert_eq!(docs.problems.len(), 1);
    assert_eq!(docs.problems[0].path(), Path::new("CLAUDE.md"));
}

// ---- memory ------------------------------------------------------------

#[test]
fn memory_files_are_capped_and_absence_is_not_a_problem() {
    let ws = FixtureWorkspace::new();
    let user_root = Root::new(ws.home.join(".agent"), "~/.agent");
    let user = MemoryFile::load(
        &ws.home.join(".agent/memory/user.md"),
        &user_root,
        &MemoryLimits::DEFAULT.max_bytes(8),
    );
    assert_eq!(user.text.as_ref().unwrap().text, "I use vi");
    assert_eq!(
        user.rendered().unwrap(),
        "I use vi\n\n[…truncated: ~/.agent/memory/user.md is 48 B, cap 8 B]"
    );
    let absent = MemoryFile::load(
        &ws.home.join(".agent/nope.md"),
        &user_root,
        &MemoryLimits::DEFAULT.max_bytes(8),
    );
    assert!(absent.text.is_none() && absent.problem.is_none());
    let dir = MemoryFile::load(
        &ws.home.join(".agent/memory"),
        &user_root,
        &MemoryLimits::DEFAULT.max_bytes(8),
    );
    assert!(matches!(dir.problem, Some(SourceError::IsDirectory { .. })));
}

// ---- facts and episodes ------------------------------------------------

#[test]
fn facts_merge_newest_first_skip_malformed_lines_and_drop_repeats() {
    let ws = FixtureWorkspace::new();
    let global = ws.home.join(".agent/memory/facts.jsonl");
    let local = ws.repo.join(".agent/memory/facts.jsonl");
    let facts = DatedEntries::load(
        &files(&[(&global, &ws.home), (&local, &ws.repo)]),
        &spec(EntryBudget::Bytes(4096), 50),
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
    let local = files(&[(&local, &ws.repo)]);
    let kept = |facts: &DatedEntries| -> Vec<String> {
        facts.entries.iter().map(|f| f.text.clone()).collect()
    };
    // Newest first: "CI runs on two cores." (21 B), "The API is versioned under /v2." (31 B),
    // "The staging database is read-only." (34 B).
    let by_bytes = DatedEntries::load(&local, &spec(EntryBudget::Bytes(25), 50));
    assert_eq!(kept(&by_bytes), ["CI runs on two cores."]);
    assert_eq!(by_bytes.over_budget, 2);
    let by_tokens = DatedEntries::load(
        &local,
        &spec(
            EntryBudget::Tokens {
                max: 14,
                counter: &ApproxCounter,
            },
            50,
        ),
    );
    // 6 + 8 tokens; the third (9) does not fit.
    assert_eq!(
        kept(&by_tokens),
        ["CI runs on two cores.", "The API is versioned under /v2."]
    );
    let by_count = DatedEntries::load(&local, &spec(EntryBudget::Bytes(4096), 1));
    assert_eq!(kept(&by_count), ["CI runs on two cores."]);
    assert_eq!((by_count.over_budget, by_count.over_limit), (0, 2));
    assert_eq!(
        by_count.notes(),
        [
            "skipped 2 malformed line(s)",
            "left out 2 older entr(ies) over the limit of 1"
        ]
    );
}

/// The selection rule: an entry that does not fit is skipped and the rest are
/// still considered. (Stopping at the first misfit would keep only the first.)
#[test]
fn a_fact_that_does_not_fit_is_skipped_and_older_ones_are_still_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("facts.jsonl");
    let big = "B".repeat(100);
    std::fs::write(
        &path,
        format!(
            "{{\"text\": \"old small\", \"created_at\": \"2026-01-01T00:00:00Z\"}}\n\
             {{\"text\": \"{big}\", \"created_at\": \"2026-06-01T00:00:00Z\"}}\n\
             {{\"text\": \"new small\", \"created_at\": \"2026-11-01T00:00:00Z\"}}\n"
        ),
    )
    .unwrap();
    let facts = DatedEntries::load(
        &files(&[(&path, dir.path())]),
        &spec(EntryBudget::Bytes(30), 50),
    );
    let texts: Vec<&str> = facts.entries.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(texts, ["new small", "old small"]);
    assert_eq!(facts.over_budget, 1);
    assert_eq!(
        facts.notes(),
        ["left out 1 entr(ies) that did not fit the budget of 30 B"]
    );
}

/// One oversized newest workspace fact must not drop the user's global facts.
#[test]
fn an_oversized_newest_fact_does_not_drop_the_global_ones() {
    let ws = FixtureWorkspace::new();
    let global = ws.home.join(".agent/memory/facts.jsonl");
    let local = ws.repo.join(".agent/memory/facts.jsonl");
    let huge = "x".repeat(5000);
    let mut text = std::fs::read_to_string(&local).unwrap();
    text.push_str(&format!(
        "{{\"text\": \"{huge}\", \"created_at\": \"2026-11-29T00:00:00Z\"}}\n"
    ));
    std::fs::write(&local, text).unwrap();
    let facts = DatedEntries::load(
        &files(&[(&global, &ws.home), (&local, &ws.repo)]),
        &spec(EntryBudget::Bytes(4096), 50),
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
    assert_eq!(facts.over_budget, 1);
}

#[test]
fn future_dates_are_skipped_and_counted_even_past_the_timestamp_range() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("facts.jsonl");
    std::fs::write(
        &path,
        "{\"text\": \"from 2999\", \"created_at\": \"2999-01-01T00:00:00Z\"}\n\
         {\"text\": \"from 9999\", \"created_at\": \"9999-12-31T23:59:59Z\"}\n\
         {\"text\": \"today\", \"created_at\": \"2026-11-29T00:00:00Z\"}\n\
         {\"text\": \"bad date\", \"created_at\": \"2026-13-45\"}\n",
    )
    .unwrap();
    let facts = DatedEntries::load(
        &files(&[(&path, dir.path())]),
        &spec(EntryBudget::Bytes(4096), 50),
    );
    let texts: Vec<&str> = facts.entries.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(texts, ["today"]);
    assert_eq!((facts.future, facts.malformed), (2, 1));
    assert_eq!(
        facts.notes(),
        [
            "skipped 1 malformed line(s)",
            "skipped 2 entr(ies) dated in the future"
        ]
    );
}

#[test]
fn an_unreadable_facts_file_is_reported_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("facts.jsonl");
    std::fs::create_dir(&sub).unwrap();
    let facts = DatedEntries::load(
        &files(&[(&sub, dir.path())]),
        &spec(EntryBudget::Bytes(10), 5),
    );
    assert_eq!(facts.problems.len(), 1);
    assert_eq!(facts.problems[0].path(), Path::new("facts.jsonl"));
}

// ---- skills ------------------------------------------------------------

#[test]
fn skills_are_indexed_by_name_with_the_workspace_winning_and_broken_ones_reported() {
    let ws = FixtureWorkspace::new();
    let dirs = [
        (ws.repo.join(".agent/skills"), root(&ws.repo)),
        (
            ws.home.join(".agent/skills"),
            Root::new(ws.home.join(".agent"), "~/.agent"),
        ),
    ];
    let index = SkillIndex::load(&dirs, &SkillLimits::default());
    let names: Vec<&str> = index.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["deploy", "review"]);
    assert_eq!(
        index.skills[0].description,
        "Deploy the API to staging. Use when asked to ship or deploy."
    );
    assert_eq!(index.skills[0].location, ".agent/skills/deploy/SKILL.md");
    assert_eq!(index.skills[1].location, "~/.agent/skills/review/SKILL.md");
    assert_eq!(index.skills[0].extra["allowed-tools"], "Bash");
    let problems: Vec<String> = index.problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert_eq!(
        problems[0],
        ".agent/skills/broken/SKILL.md: bad frontmatter: line 4: did not find expected ',' or ']'"
    );
    assert_eq!(
        problems[1],
        "~/.agent/skills/deploy/SKILL.md: bad frontmatter: skill name `deploy` is already taken by .agent/skills/deploy/SKILL.md; this one is skipped"
    );
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
        (
            "---\nname: a\nname: b\ndescription: d\n---\n",
            "line 2: duplicate entry with key \"name\"",
        ),
    ];
    for (text, expected) in cases {
        let error = parse_skill(path, text, String::new(), &SkillLimits::default()).unwrap_err();
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
    let base = config.resolve(
        &Root::new(&ws.repo, ""),
        &ws.repo.join("services/api/src"),
        &templates,
        &vars(),
    );
    assert_eq!(
        base.origin,
        PromptOrigin::Override(PathBuf::from(".agent/system-prompt.md"))
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
    assert_eq!(config.locate(&ws.repo, &ws.repo), PromptOrigin::BuiltIn);
    let base = config.resolve(&Root::new(&ws.repo, ""), &ws.repo, &templates, &vars());
    assert_eq!(base.text, prompt_layers::sources::DEFAULT_BASE_PROMPT);

    let search = tempfile::tempdir().unwrap();
    std::fs::write(
        search.path().join("system-prompt.md"),
        "From the search path.",
    )
    .unwrap();
    config.search_path = vec![ws.home.clone(), search.path().to_owned()];
    let base = config.resolve(&Root::new(&ws.repo, ""), &ws.repo, &templates, &vars());
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
    let base = BasePromptConfig::for_app("agent").resolve(
        &Root::new(&ws.repo, ""),
        &ws.repo,
        &Templates::new(None),
        &vars(),
    );
    assert_eq!(base.text, prompt_layers::sources::DEFAULT_BASE_PROMPT);
    let problem = base.problem.unwrap();
    assert!(
        matches!(problem, SourceError::Template { line: 2, .. }),
        "{problem:?}"
    );
    assert!(
        problem
            .to_string()
            .starts_with(".agent/system-prompt.md:2: template error"),
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
            assert_eq!(path, Path::new("@shared/bad.md"));
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
    assert_eq!(error.path(), Path::new("@shared/nope.md"));
}

/// The guard applies to computed names too, and says why (not "template not
/// found"). Without the guard call in the loader, `@shared/../secret.md`
/// would be read: the file exists there.
#[test]
fn a_computed_include_is_checked_by_the_shared_folder_guard() {
    let ws = FixtureWorkspace::new();
    let outside = ws.shared.parent().unwrap().join("secret.md");
    std::fs::write(&outside, "SECRET").unwrap();
    let templates = Templates::new(Some(ws.shared.clone()));
    for (source, reason) in [
        (
            "{% set f = \"@shared/../secret.md\" %}{% include f %}",
            "`..` is not allowed",
        ),
        (
            "{% set f = \"tone.md\" %}{% include f %}",
            "must name a file in the shared folder",
        ),
        (
            "{% include app|default(\"@shared//etc/passwd\") if false else \"@shared//etc/passwd\" %}",
            "absolute paths are not allowed",
        ),
    ] {
        let error = render(&templates, source).unwrap_err();
        assert!(
            matches!(error, SourceError::IncludeRejected { .. }),
            "{source}: {error:?}"
        );
        assert!(error.to_string().contains(reason), "{error}");
        assert!(!error.to_string().contains("not found"), "{error}");
    }
    // The same computed name inside the folder is fine.
    let ok = render(
        &templates,
        "{% set f = \"@shared/tone.md\" %}{% include f %}",
    )
    .unwrap();
    assert_eq!(ok, "Write plainly; no filler.");
}

#[test]
fn ignore_missing_is_honoured_for_literal_and_computed_includes() {
    let ws = FixtureWorkspace::new();
    let templates = Templates::new(Some(ws.shared.clone()));
    assert_eq!(
        render(
            &templates,
            "a{% include \"@shared/nope.md\" ignore missing %}b"
        )
        .unwrap(),
        "ab"
    );
    assert_eq!(
        render(
            &templates,
            "a{% set f = \"@shared/nope.md\" %}{% include f ignore missing %}b"
        )
        .unwrap(),
        "ab"
    );
    let error = render(
        &templates,
        "{% set f = \"@shared/nope.md\" %}{% include f %}",
    )
    .unwrap_err();
    assert!(error.is_not_found(), "{error:?}");
    assert_eq!(error.path(), Path::new("@shared/nope.md"));
}

/// A chain deeper than the limit is a depth error, not a cycle.
#[test]
fn a_deep_include_chain_is_a_depth_error_distinct_from_a_cycle() {
    let ws = FixtureWorkspace::new();
    for i in 0..40 {
        std::fs::write(
            ws.shared.join(format!("d{i}.md")),
            format!("{i} {{% include \"@shared/d{}.md\" %}}", i + 1),
        )
        .unwrap();
    }
    std::fs::write(ws.shared.join("d40.md"), "end").unwrap();
    let templates = Templates::new(Some(ws.shared.clone()));
    let error = render(&templates, "{% include \"@shared/d0.md\" %}").unwrap_err();
    assert!(
        matches!(error, SourceError::TemplateLimit { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.starts_with(
            "base.md: template stopped: includes nest deeper than 16 (base.md -> @shared/d0.md"
        ),
        "{message}"
    );
    // Within the limit the same chain renders.
    let shallow = render(&templates, "{% include \"@shared/d30.md\" %}").unwrap();
    assert!(shallow.starts_with("30 31 32"), "{shallow}");
    assert!(shallow.ends_with("end"), "{shallow}");
}

/// Each file includes the next twice: 2^30 renders without limits. Checking is
/// memoised (each file read once), and rendering stops at the fuel or output limit.
#[test]
fn a_doubling_include_chain_stops_at_a_limit() {
    let ws = FixtureWorkspace::new();
    for i in 0..30 {
        std::fs::write(
            ws.shared.join(format!("x{i}.md")),
            format!(
                "{{% include \"@shared/x{n}.md\" %}}{{% include \"@shared/x{n}.md\" %}}",
                n = i + 1
            ),
        )
        .unwrap();
    }
    std::fs::write(ws.shared.join("x30.md"), "ab").unwrap();
    let templates = Templates::new(Some(ws.shared.clone()))
        .limits(TemplateLimits::DEFAULT.max_include_depth(64));
    let error = render(&templates, "{% include \"@shared/x0.md\" %}").unwrap_err();
    assert!(
        matches!(error, SourceError::TemplateLimit { .. }),
        "{error:?}"
    );
}

#[test]
fn fuel_and_output_limits_stop_a_template_and_name_the_limit() {
    let loops = "{% for a in \"0123456789\" %}{% for b in \"0123456789\" %}{% for c in \"0123456789\" %}{% for d in \"0123456789\" %}{% for e in \"0123456789\" %}.{% endfor %}{% endfor %}{% endfor %}{% endfor %}{% endfor %}";
    let error = render(&Templates::new(None), loops).unwrap_err();
    assert_eq!(
        error.to_string(),
        "base.md: template stopped: fuel of 100000 instructions spent (simplify the template)"
    );
    let wide =
        Templates::new(None).limits(TemplateLimits::DEFAULT.max_output(100).fuel(10_000_000));
    let error = render(&wide, loops).unwrap_err();
    assert_eq!(
        error.to_string(),
        "base.md: template stopped: output over 100 B (simplify the template)"
    );
}

#[test]
fn constructs_that_grow_without_fuel_are_refused_before_rendering() {
    for (source, why) in [
        (
            "{% set s = \"xx\" %}{% set s = s ~ s %}{{ s }}",
            "`~` operator",
        ),
        ("{{ \"x\" * 99999999 }}", "`*` operator"),
        ("{% macro m(s) %}{{ m(s) }}{% endmacro %}", "`macro` tag"),
        ("{% set l = [app, app] %}", "list and map literals"),
    ] {
        let error = render(&Templates::new(None), source).unwrap_err();
        assert!(
            matches!(error, SourceError::Template { line: 1, .. }),
            "{source}: {error:?}"
        );
        assert!(error.to_string().contains(why), "{error}");
    }
}

/// Over a limit, the base prompt falls back to the built-in one and keeps
/// an error naming the file and the limit.
#[test]
fn a_template_over_a_limit_falls_back_to_the_built_in_prompt() {
    let ws = FixtureWorkspace::new();
    std::fs::write(
        ws.repo.join(".agent/system-prompt.md"),
        "{% for a in app %}{% for b in app %}{% for c in app %}{% for d in app %}{% for e in app %}{% for f in app %}{% for g in app %}{% for h in app %}x{% endfor %}{% endfor %}{% endfor %}{% endfor %}{% endfor %}{% endfor %}{% endfor %}{% endfor %}",
    )
    .unwrap();
    let base = BasePromptConfig::for_app("agent").resolve(
        &Root::new(&ws.repo, ""),
        &ws.repo,
        &Templates::new(None),
        &vars(),
    );
    assert_eq!(base.text, prompt_layers::sources::DEFAULT_BASE_PROMPT);
    assert_eq!(
        base.problem.unwrap().to_string(),
        ".agent/system-prompt.md: template stopped: fuel of 100000 instructions spent (simplify the template)"
    );
}

// ---- scratchpad ---------------------------------------------------------

#[test]
fn the_scratchpad_loads_sorted_and_a_malformed_one_names_file_and_line() {
    let ws = FixtureWorkspace::new();
    let path = ws.repo.join(".agent/scratchpad.json");
    let ws_root = root(&ws.repo);
    let pad = Scratchpad::load(&path, &ws_root).unwrap();
    assert_eq!(pad.0.keys().collect::<Vec<_>>(), ["branch", "plan"]);
    assert_eq!(
        Scratchpad::load(&ws.repo.join("none.json"), &ws_root).unwrap(),
        Scratchpad::default()
    );
    std::fs::write(&path, "{\n\"plan\": 3\n}").unwrap();
    let error = Scratchpad::load(&path, &ws_root).unwrap_err();
    // The file and what was expected; the parser's line is the source's.
    assert_eq!(
        error.to_string(),
        ".agent/scratchpad.json: malformed: expected a JSON object of strings"
    );
    let source = std::error::Error::source(&error).expect("the parser's error");
    assert!(source.to_string().contains("at line 2"), "{source}");
    // Keys and values are one line each: JSON escapes cannot forge lines.
    std::fs::write(&path, r#"{"a\n# Heading": "x\ny\u001b[2J"}"#).unwrap();
    let pad = Scratchpad::load(&path, &ws_root).unwrap();
    assert_eq!(
        pad.0.into_iter().collect::<Vec<_>>(),
        [("a # Heading".to_owned(), "x y[2J".to_owned())]
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
            read_capped(&path, &root(dir.path()), cap).unwrap(),
            CappedText::from_text("f.md", text, cap)
        );
    }
}

#[test]
fn a_skills_root_that_is_a_file_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let skills = dir.path().join("skills");
    std::fs::write(&skills, "not a directory").unwrap();
    let index = SkillIndex::load(
        &[(skills.clone(), root(dir.path()))],
        &SkillLimits::default(),
    );
    assert!(index.skills.is_empty());
    assert_eq!(index.problems.len(), 1);
    assert_eq!(index.problems[0].path(), Path::new("skills"));
}

/// An incomplete character at the end is the cap's doing only when the file
/// was longer than the cap. A file that itself ends mid-character (whatever
/// the cap, even exactly its length) is invalid UTF-8: an error, not a silent cut.
#[test]
fn a_file_that_ends_mid_character_is_invalid_whatever_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.md");
    std::fs::write(&path, b"ab\xe6\x97").unwrap(); // "ab" + the first two bytes of 日
    for cap in [4, 5, 100] {
        let error = read_capped(&path, &root(dir.path()), cap).unwrap_err();
        assert!(
            matches!(error, SourceError::InvalidUtf8 { offset: 2, .. }),
            "cap {cap}: {error:?}"
        );
    }
    // Cut by the cap inside a complete file: the split character is dropped.
    std::fs::write(&path, "ab日").unwrap();
    let text = read_capped(&path, &root(dir.path()), 4).unwrap();
    assert_eq!((text.text.as_str(), text.truncated), ("ab", true));
}
