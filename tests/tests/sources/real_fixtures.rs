//! The standard layers on real public AGENTS.md, CLAUDE.md and SKILL.md files
//! (`tests/fixtures/real`, byte-exact vendored copies; see SOURCES.md there).

use prompt_core::pipeline::LayerEntry;
use prompt_core::spec::DefaultPipeline;
use prompt_core::spec::PromptPipeline;
use prompt_core::{Context, Pipeline, PromptBuilder};
use prompt_layers::sources::__private::read_capped;
use prompt_layers::sources::{
    CappedText, MemoryFile, MemoryLimits, ProjectDocs, ProjectDocsConfig, Root, SkillIndex,
    SkillLimits,
};
use prompt_layers::{ProjectContextLayer, SkillsIndexLayer};
use prompt_tests::real_fixture;

const CAP: usize = 16 * 1024;

fn read(rel: &str) -> String {
    std::fs::read_to_string(real_fixture(rel)).unwrap()
}

/// A workspace holding the given real files under the given names.
fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (fixture, name) in files {
        let target = dir.path().join(name);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(real_fixture(fixture), target).unwrap();
    }
    dir
}

/// Renders one layer over `session`.
fn render(entry: LayerEntry, session: &Context) -> prompt_core::AssembledPrompt {
    let pipeline =
        Pipeline::from_layers(DefaultPipeline::SPEC, [entry.pipelines(&["default"])]).unwrap();
    PromptBuilder::new(&pipeline)
        .build_cached(session, &Context::new())
        .unwrap()
}

#[test]
fn project_context_from_real_agents_and_claude_files() {
    // Sentry's AGENTS.md (8 KiB) and a CLAUDE.md that starts with a blank line.
    let ws = workspace(&[
        ("agents/getsentry__sentry__AGENTS.md", "AGENTS.md"),
        ("claude/xerrors__Yuxi-Know__CLAUDE.md", "CLAUDE.md"),
    ]);
    let docs = ProjectDocs::load(
        &Root::new(ws.path(), ""),
        ws.path(),
        &ProjectDocsConfig::default(),
    );
    assert!(docs.docs.iter().all(|d| !d.text.is_truncated()));
    let prompt = render(
        LayerEntry::of::<ProjectContextLayer>(),
        &Context::new().with(docs),
    );
    assert!(prompt.trace().layers[0].notes.is_empty());
    insta::assert_snapshot!(prompt.stable());
}

#[test]
fn files_over_the_cap_are_cut_to_a_prefix_and_marked() {
    for (fixture, size) in [
        ("agents/vercel__next.js__AGENTS.md", "20.8 KiB"),
        ("nested/apache__airflow/AGENTS.md", "23.2 KiB"),
    ] {
        let ws = workspace(&[(fixture, "AGENTS.md")]);
        let docs = ProjectDocs::load(
            &Root::new(ws.path(), ""),
            ws.path(),
            &ProjectDocsConfig::default(),
        );
        let doc = &docs.docs[0].text;
        let original = read(fixture);
        assert!(original.len() > CAP);
        assert!(doc.text.len() <= CAP);
        assert!(original.starts_with(&doc.text));
        assert!(original.len() - doc.text.len() > 0);
        let marker = format!("[…truncated: AGENTS.md is {size}, cap 16 KiB]");
        assert_eq!(doc.marker().as_deref(), Some(marker.as_str()));

        let prompt = render(
            LayerEntry::of::<ProjectContextLayer>(),
            &Context::new().with(docs),
        );
        assert!(
            prompt.stable().ends_with(&format!("\n\n{marker}")),
            "{fixture}"
        );
        assert_eq!(
            prompt.trace().layers[0].notes,
            [format!("AGENTS.md: cut to 16 KiB of {size} (cap 16 KiB)")]
        );
    }
}

#[test]
fn a_memory_file_over_the_memory_cap_is_cut_and_marked() {
    // Codex's AGENTS.md (12,209 bytes, Japanese and English) used as a memory file.
    let fixture = "agents/openai__codex__AGENTS.md";
    let path = real_fixture(fixture);
    let memory = MemoryFile::load(
        &path,
        &Root::new(path.parent().unwrap(), ""),
        &MemoryLimits::DEFAULT.max_bytes(8 * 1024),
    );
    let text = memory.text.as_ref().unwrap();
    assert_eq!(text.text.len(), 8 * 1024);
    assert_eq!(text.size, 12209);
    assert!(read(fixture).starts_with(&text.text));
    assert!(
        memory
            .rendered()
            .unwrap()
            .ends_with("[…truncated: openai__codex__AGENTS.md is 11.9 KiB, cap 8 KiB]")
    );
}

#[test]
fn cjk_files_are_cut_on_a_character_boundary() {
    for fixture in [
        "agents/openai__codex__AGENTS.md",
        "claude/halo-dev__halo__CLAUDE.md",
        "skills/internal-comms/SKILL.md",
    ] {
        let original = read(fixture);
        let path = real_fixture(fixture);
        // Every cap that falls inside a multi-byte character.
        let splitting: Vec<usize> = (1..original.len())
            .filter(|&i| !original.is_char_boundary(i))
            .collect();
        assert!(splitting.len() > 100, "{fixture} has multi-byte text");
        for &cap in splitting.iter().step_by(7) {
            let capped = read_capped(&path, &Root::new(real_fixture(""), ""), cap).unwrap();
            let boundary = (0..=cap)
                .rev()
                .find(|&i| original.is_char_boundary(i))
                .unwrap();
            assert_eq!(capped.text.len(), boundary, "{fixture} cap {cap}");
            assert!(original.starts_with(&capped.text));
            assert_eq!(capped, CappedText::from_text(fixture, &original, cap));
        }
    }
}

#[test]
fn nested_airflow_docs_root_first_within_one_budget() {
    let ws = workspace(&[
        ("nested/apache__airflow/AGENTS.md", "AGENTS.md"),
        (
            "nested/apache__airflow/providers/AGENTS.md",
            "providers/AGENTS.md",
        ),
    ]);
    let config = ProjectDocsConfig::default()
        .nested(true)
        .nested_budget(4 * 1024);
    let docs = ProjectDocs::load(
        &Root::new(ws.path(), ""),
        &ws.path().join("providers"),
        &config,
    );
    let outline: Vec<String> = docs
        .docs
        .iter()
        .map(|d| {
            format!(
                "{} {} of {} bytes",
                d.heading,
                d.text.text.len(),
                d.text.size
            )
        })
        .collect();
    assert_eq!(
        outline,
        [
            "AGENTS.md 16384 of 23802 bytes",
            // The 4 KiB budget pays for the fence too: 4096 - 44
            // (`<file path="providers/AGENTS.md">\n`, `\n</file>` and a blank line).
            "providers/AGENTS.md 4052 of 5284 bytes"
        ]
    );
}

#[test]
fn files_without_a_final_newline_render_like_those_with_one() {
    let ws = workspace(&[("claude/labring__FastGPT__CLAUDE.md", "CLAUDE.md")]);
    let docs = ProjectDocs::load(
        &Root::new(ws.path(), ""),
        ws.path(),
        &ProjectDocsConfig::default(),
    );
    let prompt = render(
        LayerEntry::of::<ProjectContextLayer>(),
        &Context::new().with(docs),
    );
    let original = read("claude/labring__FastGPT__CLAUDE.md");
    assert!(!original.ends_with('\n'));
    assert_eq!(
        prompt.stable(),
        format!(
            "# Project context\n\n<file path=\"CLAUDE.md\">\n{}\n</file>",
            original.trim_end()
        )
    );
}

#[test]
fn skills_index_from_real_skill_files() {
    let index = SkillIndex::load(
        &[(real_fixture("skills"), Root::new(real_fixture(""), ""))],
        &SkillLimits::default(),
    );
    assert!(index.problems.is_empty(), "{:?}", index.problems);
    assert_eq!(index.skills.len(), 6);
    let comms = index
        .skills
        .iter()
        .find(|s| s.name == "internal-comms")
        .unwrap();
    assert!(comms.description.starts_with("一组帮助撰写"));
    assert_eq!(comms.extra["license"], "Complete terms in LICENSE.txt");
    let branch = index
        .skills
        .iter()
        .find(|s| s.name == "create-branch")
        .unwrap();
    assert_eq!(
        branch.extra["argument-hint"],
        "[optional description of the work]"
    );
    let prompt = render(
        LayerEntry::of::<SkillsIndexLayer>(),
        &Context::new().with(index),
    );
    insta::assert_snapshot!(prompt.stable());
}

#[test]
fn vendored_fixtures_are_byte_exact_by_size() {
    // Every row of SOURCES.md names a file and its size as published; a copy
    // re-encoded, re-wrapped or "tidied" (a final newline added) fails here.
    let sources = read("SOURCES.md");
    let mut rows = 0;
    for line in sources.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let rel = cells[1].trim_matches('`');
        let bytes: u64 = cells[5]
            .parse()
            .unwrap_or_else(|_| panic!("bytes of {rel}"));
        let actual = std::fs::metadata(real_fixture(rel)).unwrap().len();
        assert_eq!(actual, bytes, "{rel}: SOURCES.md says {bytes} bytes");
        rows += 1;
    }
    // And every vendored file has a row.
    let mut files = 0;
    let mut stack = vec![real_fixture("")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().unwrap() != "SOURCES.md" {
                files += 1;
            }
        }
    }
    assert_eq!(rows, 14);
    assert_eq!(files, rows, "a vendored file without a row in SOURCES.md");
}
