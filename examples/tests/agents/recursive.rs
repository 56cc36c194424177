//! recursive: section order, the four channels, the run suffix, caps.

use prompt_core::AssemblyPath;
use prompt_examples::agents::recursive::{
    self, AGENT_TOOL, BaseFold, CliFlags, RecursiveConfig, RunRequest,
};
use prompt_examples::agents::{Agent, Layout, unreachable_layers};
use prompt_layers::QUOTED_FILES_RULE;

fn fixture() -> RecursiveConfig {
    RecursiveConfig::fixture(&Agent::Recursive.fixture()).unwrap()
}

fn system(config: &RecursiveConfig, fold: &BaseFold) -> String {
    recursive::assemble(config, fold, AssemblyPath::Basic)
        .unwrap()
        .prompt
        .text()
}

/// The byte offset of each heading, asserting that each occurs once.
fn position(text: &str, heading: &str) -> usize {
    assert_eq!(
        text.matches(heading).count(),
        1,
        "{heading} once in:\n{text}"
    );
    text.find(heading).unwrap()
}

#[test]
fn every_path_of_the_fixture() {
    let config = fixture();
    for path in recursive::PATHS {
        let prompt = recursive::assemble(&config, &BaseFold::default(), *path)
            .unwrap()
            .prompt;
        insta::assert_snapshot!(format!("fixture_{path}_full"), prompt.text());
        if *path == AssemblyPath::Cached {
            assert_eq!(prompt.dynamic(), "", "every recursive layer is Stable");
        }
    }
}

#[test]
fn sections_run_in_recursive_order_with_its_rules_and_sub_headers() {
    let text = system(&fixture(), &BaseFold::default());
    // The framework's rule on quotes (divergence 10), then recursive's
    // `prepend_project_context`: the project context, its files under `## `
    // sub-headers, then a rule, the base, a rule, the memory sections
    // (`# Heading` then a single newline).
    assert!(text.starts_with(&format!(
        "{QUOTED_FILES_RULE}\n\n# Project context\n\n## AGENTS.md\n\n<file path=\"AGENTS.md\">\n"
    )));
    let order = [
        "# Project context\n\n## AGENTS.md\n\n<file path=\"AGENTS.md\">\n",
        "</file>\n\n## CLAUDE.md\n\n<file path=\"CLAUDE.md\">\n",
        "</file>\n\n---\n\nYou are recursive,",
        "\n\n---\n\n# User preferences\n<file",
        "</file>\n\n# Project memory\n<file",
        "</file>\n\n# Memory summary\n",
        "\n\n# Scratchpad\n",
        "\n\n# Facts\n## Most recently used first",
        "\n\n# Episodic recall\n## The last 5 sessions",
        "\n\n---\n\n## Coordinator workflow\n\n",
    ];
    let positions: Vec<usize> = order.iter().map(|h| position(&text, h)).collect();
    assert!(positions.is_sorted(), "{positions:?}\n{text}");
    // Past sessions from the session folders under the user's folder, newest first.
    assert!(text.contains(
        "\n- 2026-11-27T15-40-00Z-nightly-imports (17 msgs, interrupted): Move station imports to a nightly job.\n- 2026-11-26T17-05-00Z-high-tide (42 msgs, completed): "
    ), "{text}");
    // The skill index is not in the system prompt: as in recursive, it is a
    // per-turn reminder, one line per skill from the workspace and the home.
    assert!(!text.contains("Available skills"), "{text}");
    let prompt = recursive::assemble(&fixture(), &BaseFold::default(), AssemblyPath::Cached)
        .unwrap()
        .prompt;
    assert!(!prompt.stable().contains("Available skills"));
    let reminder = prompt.reminder().expect("the fixture has skills");
    assert!(
        reminder.starts_with(&format!(
            "# Available skills\n\n\n{}\n- ",
            recursive::SKILLS_LINE
        )),
        "{reminder}"
    );
    assert!(reminder.contains("\n- bisect: Find the commit"));
    assert!(reminder.contains("\n- commit-style: Write commit messages"));
    assert!(reminder.contains("(~/.claude/skills/commit-style/SKILL.md)"));
    // Delivered as recursive's `skill_reminder` wraps it.
    let block = prompt_providers::reminder_block(reminder).unwrap();
    assert!(block.starts_with("<system-reminder>\n# Available skills\n\n\n"));
    assert!(block.ends_with("\n</system-reminder>"));
}

#[test]
fn the_four_channels_produce_the_same_prompt_for_the_same_inputs() {
    let config = fixture();
    let flags = CliFlags::default();
    let run = recursive::cli_run(&config, &flags, "tidy up the handlers").unwrap();
    let looped = recursive::cli_loop(&config, &flags).unwrap();
    let http = recursive::http(&config, &RunRequest::default()).unwrap();
    let tui = recursive::tui(&config).unwrap();
    assert!(
        run.suffix
            .as_deref()
            .is_some_and(|s| !s.contains("release-notes")),
        "only the always-on skill: no trigger matches this goal"
    );
    for other in [&looped, &http, &tui] {
        assert_eq!(other.prompt.text(), run.prompt.text());
        assert_eq!(other.tools, run.tools);
    }

    // The same appended text through the CLI and through HTTP.
    let append = "Answer in British English.".to_owned();
    let cli = recursive::cli_loop(
        &config,
        &CliFlags {
            append_system_prompt: Some(append.clone()),
            ..CliFlags::default()
        },
    )
    .unwrap();
    let http = recursive::http(
        &config,
        &RunRequest {
            system_prompt: None,
            append_system_prompt: Some(append.clone()),
        },
    )
    .unwrap();
    assert_eq!(cli.system(), http.system());
    assert!(
        cli.system()
            .contains(&format!(".\n{append}\n\n---\n\n## Coordinator workflow"))
    );
}

#[test]
fn a_replaced_base_still_gets_the_project_context_in_front() {
    let config = fixture();
    let request: RunRequest = serde_json::from_str(
        r#"{"system_prompt": "You are a release engineer.", "append_system_prompt": "ignored"}"#,
    )
    .unwrap();
    let http = recursive::http(&config, &request).unwrap().system();
    let cli = recursive::cli_loop(
        &config,
        &CliFlags {
            system_prompt: Some("You are a release engineer.".into()),
            ..CliFlags::default()
        },
    )
    .unwrap()
    .system();
    assert_eq!(http, cli);
    // The replacement drops the persona, not the rule on the quotes that
    // still come before it.
    assert!(
        http.starts_with(&format!(
            "{QUOTED_FILES_RULE}\n\n# Project context\n\n## AGENTS.md\n\n<file path=\"AGENTS.md\">\n"
        )),
        "{http}"
    );
    assert!(position(&http, "You are a release engineer.") > position(&http, "# Project context"));
    assert!(
        !http.contains("ignored"),
        "HTTP ignores the append when it replaces the base"
    );
    for gone in [
        "You are recursive,",
        "# User preferences",
        "# Memory summary",
        "# Scratchpad",
    ] {
        assert!(!http.contains(gone), "{gone} belongs to the replaced base");
    }
    insta::assert_snapshot!("replaced_base", http);
}

#[test]
fn a_system_prompt_file_replaces_the_base_and_errors_name_the_file() {
    let config = fixture();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("prompt.md");
    std::fs::write(&file, "From a file.\n").unwrap();
    let flags = CliFlags {
        system_prompt_file: Some(file.clone()),
        ..CliFlags::default()
    };
    assert!(
        recursive::cli_loop(&config, &flags)
            .unwrap()
            .system()
            .contains("</file>\n\n---\n\nFrom a file.\n\n\n---\n\n## Coordinator workflow")
    );

    let missing = CliFlags {
        system_prompt_file: Some(dir.path().join("absent.md")),
        ..CliFlags::default()
    };
    let error = recursive::cli_loop(&config, &missing).unwrap_err();
    // The option, then the file's own error as its source (printed once).
    let chain: Vec<String> =
        std::iter::successors(Some(&error as &dyn std::error::Error), |e| e.source())
            .map(ToString::to_string)
            .collect();
    assert_eq!(chain[0], "--system-prompt-file cannot be used", "{chain:?}");
    assert!(chain[1].contains("absent.md"), "{chain:?}");
}

#[test]
fn the_coordinator_section_and_the_agent_tool_come_together_or_not_at_all() {
    for sub_agents in [true, false] {
        let config = RecursiveConfig {
            sub_agents,
            ..fixture()
        };
        let channels = [
            recursive::cli_run(&config, &CliFlags::default(), "fix a bug").unwrap(),
            recursive::cli_loop(&config, &CliFlags::default()).unwrap(),
            recursive::http(&config, &RunRequest::default()).unwrap(),
            recursive::tui(&config).unwrap(),
        ];
        for channel in channels {
            let section = channel.system().contains("## Coordinator workflow");
            let tool = channel.tools.iter().any(|t| t.name == AGENT_TOOL);
            assert_eq!(section, sub_agents);
            assert_eq!(tool, sub_agents);
            assert_eq!(channel.system().contains("`agent` tool"), sub_agents);
        }
    }
}

#[test]
fn cli_run_alone_appends_always_on_bodies_and_triggered_hints() {
    let config = fixture();
    let run = recursive::cli_run(&config, &CliFlags::default(), "Write the RELEASE notes").unwrap();
    let suffix = run.suffix.clone().expect("commit-style is always on");
    // As recursive's `skills_for_injection`: the `mode: always` skill's body,
    // fenced, then the triggered skill's hint (not its body), each block
    // ending in a blank line.
    assert!(
        suffix.starts_with("=== Skill: commit-style (auto-loaded) ===\n<file path=\"~/.claude/skills/commit-style/SKILL.md\">\nSubject in the imperative"),
        "{suffix}"
    );
    assert!(
        suffix.ends_with(
            "</file>\n\n=== Skill: release-notes (auto-loaded) ===\nUse the release-notes skill for changelogs.\n\n"
        ),
        "{suffix}"
    );
    assert!(
        !suffix.contains("# Release notes"),
        "a triggered skill gives its hint only"
    );
    assert!(
        !suffix.contains("name: commit-style"),
        "frontmatter is stripped"
    );
    assert!(
        !suffix.contains("Bisect"),
        "a manual skill is never auto-loaded"
    );
    assert_eq!(run.system(), format!("{}\n\n{suffix}", run.prompt.text()));
    // A goal that triggers nothing: the always-on body alone.
    let other = recursive::cli_run(&config, &CliFlags::default(), "tidy up").unwrap();
    let other = other.suffix.unwrap();
    assert!(other.starts_with("=== Skill: commit-style") && !other.contains("release-notes"));
    // The suffix is after assembly: the assembled prompt is the loop's.
    let looped = recursive::cli_loop(&config, &CliFlags::default()).unwrap();
    assert_eq!(run.prompt.text(), looped.prompt.text());
    assert_eq!(looped.suffix, None);
    insta::assert_snapshot!("cli_run_suffix", suffix);
}

#[test]
fn a_triggered_skill_without_a_hint_gives_name_and_description_and_triggers_may_be_comma_separated()
{
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join(".recursive/skills/traits");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: traits\ndescription: Explain Rust traits.\nmode: Trigger\ntriggers: trait, generic\n---\nBody.\n",
    )
    .unwrap();
    let config = RecursiveConfig::new(dir.path());
    let run = recursive::cli_run(&config, &CliFlags::default(), "a GENERIC question").unwrap();
    assert_eq!(
        run.suffix.as_deref(),
        Some("=== Skill: traits (auto-loaded) ===\ntraits: Explain Rust traits.\n\n")
    );
    let none = recursive::cli_run(&config, &CliFlags::default(), "lifetimes").unwrap();
    assert_eq!(none.suffix, None);
}

/// A workspace whose user.md is `size` bytes of ASCII then a character of `width` bytes.
fn over_cap_user_md(straddler: char) -> (tempfile::TempDir, String) {
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("workspace");
    let home = root.path().join("home");
    std::fs::create_dir_all(ws.join(".recursive/memory")).unwrap();
    std::fs::create_dir_all(home.join(".recursive/memory")).unwrap();
    // The character starts one byte before the cap, so the cap splits it.
    let mut text = "a".repeat(recursive::MEMORY_CAP - 1);
    text.push(straddler);
    text.push_str(&"b".repeat(100));
    std::fs::write(home.join(".recursive/memory/user.md"), &text).unwrap();
    let config = RecursiveConfig::fixture(root.path()).unwrap();
    let prompt = system(&config, &BaseFold::default());
    (root, prompt)
}

#[test]
fn an_over_cap_file_ends_with_the_marker_and_a_split_character_is_dropped_whole() {
    for straddler in ['潮', '🌊'] {
        let (_root, prompt) = over_cap_user_md(straddler);
        let kept = "a".repeat(recursive::MEMORY_CAP - 1);
        // The file is named as the user's root shows it.
        let expected = format!(
            "# User preferences\n<file path=\"~/.recursive/memory/user.md\">\n{kept}\n</file>\n\n[…truncated at 8KB]\n\n"
        );
        assert!(
            prompt.contains(&expected),
            "{straddler}: no whole-character cut and marker"
        );
        assert!(!prompt.contains(straddler) && !prompt.contains('\u{FFFD}'));
    }
}

#[test]
fn an_over_cap_project_doc_ends_with_the_marker() {
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("workspace");
    std::fs::create_dir_all(&ws).unwrap();
    let mut text = "x".repeat(recursive::PROJECT_DOC_CAP - 2);
    text.push('語');
    std::fs::write(ws.join("AGENTS.md"), &text).unwrap();
    let prompt = system(&RecursiveConfig::new(&ws), &BaseFold::default());
    let kept = "x".repeat(recursive::PROJECT_DOC_CAP - 2);
    let tail = &prompt[prompt.len().saturating_sub(200)..];
    assert!(
        prompt.contains(&format!(
            "{kept}\n</file>\n\n[…truncated, AGENTS.md is 16 KB; {}]\n\n---\n\n",
            recursive::DOC_MARKER_TAIL
        )),
        "the 3-byte character straddles the cap and goes whole: ...{tail}"
    );
}

#[test]
fn every_layer_speaks_in_some_scenario() {
    let pipeline = recursive::pipeline().unwrap();
    assert_eq!(pipeline.len(), 14);
    let scenarios = Agent::Recursive
        .scenarios(&Agent::Recursive.fixture(), Layout::Fixture)
        .unwrap();
    let names: Vec<&str> = scenarios.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["default_base", "replaced_base"]);
    let unreachable =
        unreachable_layers(pipeline, &scenarios, recursive::PATHS, recursive::MODES).unwrap();
    assert!(unreachable.is_empty(), "{unreachable:?}");
}

#[test]
fn every_layer_but_the_skill_reminder_is_stable_and_the_manifest_is_reviewed() {
    let pipeline = recursive::pipeline().unwrap();
    for spec in pipeline.specs() {
        let reminder = spec.name == "skills";
        assert_eq!(
            spec.stability,
            if reminder {
                prompt_core::Stability::Dynamic
            } else {
                prompt_core::Stability::Stable
            },
            "{}",
            spec.name
        );
        assert_eq!(
            spec.channel,
            if reminder {
                prompt_core::spec::Channel::Reminder
            } else {
                prompt_core::spec::Channel::System
            },
            "{}",
            spec.name
        );
    }
    insta::assert_snapshot!("manifest", pipeline.manifest());
}

#[test]
fn a_workspace_without_files_is_just_the_persona() {
    let dir = tempfile::tempdir().unwrap();
    let config = RecursiveConfig::new(dir.path());
    let text = system(&config, &BaseFold::default());
    assert_eq!(
        text,
        format!("{QUOTED_FILES_RULE}\n\n{}", recursive::PERSONA)
    );
}

/// The `agent` tool is declared on the pipeline, documented by the
/// coordinator section: the framework holds the lockstep, and a pipeline
/// without the section cannot keep the tool.
#[test]
fn the_agent_tool_is_declared_with_the_coordinator_section() {
    let declared = recursive::declared_tools();
    assert_eq!(declared.tools()[0].name(), AGENT_TOOL);
    assert_eq!(declared.tools()[0].documenting_layer(), Some("coordinator"));
    let pipeline = prompt_core::Pipeline::named(recursive::PIPELINE)
        .unwrap()
        .with_tools(declared)
        .unwrap();
    let error = pipeline.without(&["coordinator"]).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("documented by layer `coordinator`"),
        "{error}"
    );
    // The assembled tools are the canonical bytes of the declared one.
    let on = recursive::assemble(&fixture(), &BaseFold::default(), AssemblyPath::Cached).unwrap();
    assert_eq!(on.tools.len(), 1);
    assert_eq!(
        serde_json::to_string(&on.tools[0].input_schema).unwrap(),
        r#"{"properties":{"task":{"description":"The whole task: the worker sees nothing else.","type":"string"}},"required":["task"],"type":"object"}"#
    );
}
