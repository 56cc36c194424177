//! kitsoki: layer resolution, the `---` join, per-verb `claude` policy, Codex, trace.

use prompt_core::AssemblyPath;
use prompt_examples::agents::kitsoki::{
    self, Call, DEFAULT_FRAMEWORK, KitsokiError, SEPARATOR, Story, Verb, claude_args, codex_args,
};
use prompt_examples::agents::{Agent, Layout, unreachable_layers};

fn story_root() -> std::path::PathBuf {
    Agent::Kitsoki.fixture().join("stories/trail")
}

fn fixture() -> Story {
    Story::load_in(&Agent::Kitsoki.fixture(), &story_root(), &[]).unwrap()
}

fn ask(story: &Story, verb: Verb) -> kitsoki::Invocation {
    kitsoki::compose(story, &kitsoki::demo_call(verb), AssemblyPath::Basic).unwrap()
}

/// A story folder with `app.yaml` = `yaml` and the given files.
fn story_with(yaml: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("app.yaml"), yaml).unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

const GUIDE: &str = "app:\n  id: demo\nagents:\n  guide:\n    system_prompt: Be brief.\n";

#[test]
fn every_path_of_the_fixture() {
    let story = fixture();
    for path in kitsoki::PATHS {
        let invocation = kitsoki::compose(&story, &kitsoki::demo_call(Verb::Ask), *path).unwrap();
        let prompt = invocation.prompt.unwrap();
        let shown = match path {
            AssemblyPath::Basic => prompt.text(),
            AssemblyPath::Cached => format!(
                "=== stable (cache) ===\n{}\n=== dynamic ===\n{}",
                prompt.stable(),
                prompt.dynamic()
            ),
        };
        insta::assert_snapshot!(format!("ask_{path}_full"), shown);
    }
}

#[test]
fn three_layers_trimmed_and_joined_with_a_rule() {
    let story = fixture();
    let invocation = ask(&story, Verb::Ask);
    let parts: Vec<&str> = invocation.system_prompt.split(SEPARATOR).collect();
    assert_eq!(parts.len(), 3, "{}", invocation.system_prompt);
    // The story's sysprompt/kitsoki.md, with its @shared include from the story's shared/.
    assert!(parts[0].starts_with("# Kitsoki: The Trail\n"));
    assert!(
        parts[0].ends_with("Write for the trail: plain words, present tense, no modern slang.")
    );
    assert!(parts[1].starts_with("## Project: The Trail"));
    assert_eq!(
        parts[2],
        format!(
            "{}\n\nYou are a weathered frontier guide. Speak plainly, five sentences at most.",
            Verb::Ask.contract()
        )
    );
    for part in parts {
        assert_eq!(part, part.trim());
    }
    let names: Vec<&str> = invocation.trace.layers.iter().map(|l| l.name).collect();
    assert_eq!(names, ["framework", "project", "task"]);
}

#[test]
fn per_turn_data_is_the_user_message_not_the_system_prompt() {
    let invocation = ask(&fixture(), Verb::Ask);
    assert_eq!(
        invocation.user_message,
        "It is day 3 on the trail. Describe the morning in three sentences.\n"
    );
    assert!(!invocation.system_prompt.contains("day 3"));
}

#[test]
fn the_framework_layer_is_sysprompt_kitsoki_md_on_the_search_path_else_the_default() {
    let story = story_with(GUIDE, &[]);
    let loaded = Story::load(story.path(), &[]).unwrap();
    assert_eq!(loaded.framework, DEFAULT_FRAMEWORK.trim());
    assert_eq!(loaded.project, None);
    let invocation = kitsoki::compose(
        &loaded,
        &kitsoki::demo_call(Verb::Route),
        AssemblyPath::Basic,
    );
    let invocation = invocation.unwrap_err();
    assert!(
        invocation.to_string().contains("prompts/narrate.md"),
        "{invocation}"
    );

    // The story's own file, on kitsoki's search path.
    std::fs::create_dir(story.path().join("sysprompt")).unwrap();
    std::fs::write(
        story.path().join("sysprompt/kitsoki.md"),
        "Story framework.\n",
    )
    .unwrap();
    let loaded = Story::load(story.path(), &[]).unwrap();
    assert_eq!(loaded.framework, "Story framework.");

    // An overlay folder comes first, as kitsoki's overlay does. Its template
    // sees no variables: `{{ app }}` is empty, as in kitsoki.
    let overlay = tempfile::tempdir().unwrap();
    std::fs::create_dir(overlay.path().join("sysprompt")).unwrap();
    std::fs::write(
        overlay.path().join("sysprompt/kitsoki.md"),
        "Overlay for [{{ app }}].\n",
    )
    .unwrap();
    let loaded = Story::load(story.path(), &[overlay.path().to_owned()]).unwrap();
    assert_eq!(loaded.framework, "Overlay for [].");

    // A file that fails to render falls back to the built-in text, with a note.
    std::fs::write(story.path().join("sysprompt/kitsoki.md"), "{% if %}\n").unwrap();
    let loaded = Story::load(story.path(), &[]).unwrap();
    assert_eq!(loaded.framework, DEFAULT_FRAMEWORK.trim());
    assert!(
        loaded
            .notes
            .iter()
            .any(|n| n.contains("built-in framework layer")),
        "{:?}",
        loaded.notes
    );
}

#[test]
fn no_upward_kitsoki_system_prompt_md_is_read() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(outer.path().join(".kitsoki")).unwrap();
    std::fs::write(
        outer.path().join(".kitsoki/system-prompt.md"),
        "Not kitsoki's.\n",
    )
    .unwrap();
    let story = outer.path().join("story");
    std::fs::create_dir(&story).unwrap();
    std::fs::write(story.join("app.yaml"), GUIDE).unwrap();
    let loaded = Story::load_in(outer.path(), &story, &[]).unwrap();
    assert_eq!(loaded.framework, DEFAULT_FRAMEWORK.trim());
}

#[test]
fn a_missing_context_path_drops_the_project_layer_with_a_note() {
    let story = story_with(
        "app:\n  id: demo\n  context_path: docs/absent.md\nagents:\n  guide:\n    system_prompt: Be brief.\n",
        &[("prompts/_project.md", "Not read when context_path is set.")],
    );
    let loaded = Story::load(story.path(), &[]).unwrap();
    assert_eq!(loaded.project, None);
    assert!(
        loaded.notes.iter().any(|n| n.contains("docs/absent.md")),
        "{:?}",
        loaded.notes
    );
    // The note is in the project layer's trace, where `--trace` shows it.
    let prompt = kitsoki::compose(
        &loaded,
        &Call {
            prompt: None,
            ..kitsoki::demo_call(Verb::Ask)
        },
        AssemblyPath::Basic,
    )
    .unwrap()
    .prompt
    .unwrap();
    let project = prompt
        .trace()
        .layers
        .iter()
        .find(|l| l.name == "project")
        .unwrap();
    assert!(project.silent);
    assert!(
        project.notes.iter().any(|n| n.contains("docs/absent.md")),
        "{:?}",
        project.notes
    );
}

#[test]
fn an_over_cap_project_text_is_cut_with_the_marker() {
    let line = "- Berth: reserved for the ferry on weekdays.\n";
    let text = line.repeat(2 * kitsoki::PROJECT_CAP / line.len());
    let story = story_with(GUIDE, &[("prompts/_project.md", &text)]);
    let loaded = Story::load(story.path(), &[]).unwrap();
    let project = loaded.project.unwrap();
    assert!(
        project.len() < kitsoki::PROJECT_CAP + 100,
        "{}",
        project.len()
    );
    assert!(
        project.ends_with(", cap 64 KiB]")
            && project.contains("\n\n[…truncated: the project context is "),
        "{}",
        &project[project.len() - 120..]
    );
}

#[test]
fn undefined_names_render_empty_as_in_kitsoki() {
    let story = story_with(
        GUIDE,
        &[(
            "prompts/_project.md",
            "A{{ nothing }}B{{ args.day }}C{{ app }}D",
        )],
    );
    let loaded = Story::load(story.path(), &[]).unwrap();
    assert_eq!(loaded.project.as_deref(), Some("ABCD"));
}

#[test]
fn the_project_layer_comes_from_context_then_context_path_then_the_convention() {
    let inline = story_with(
        "app:\n  id: demo\n  context: \"Inline.\"\n",
        &[("prompts/_project.md", "Convention.")],
    );
    assert_eq!(
        Story::load(inline.path(), &[]).unwrap().project.as_deref(),
        Some("Inline.")
    );

    let by_path = story_with(
        "app:\n  id: demo\n  context_path: ctx/project.md\n",
        &[
            ("ctx/project.md", "  From a file.  \n"),
            ("prompts/_project.md", "Convention."),
        ],
    );
    assert_eq!(
        Story::load(by_path.path(), &[]).unwrap().project.as_deref(),
        Some("From a file.")
    );

    let convention = story_with(
        "app:\n  id: demo\n",
        &[("prompts/_project.md", "Convention.")],
    );
    assert_eq!(
        Story::load(convention.path(), &[])
            .unwrap()
            .project
            .as_deref(),
        Some("Convention.")
    );
}

#[test]
fn context_and_context_path_together_are_an_error_naming_the_file() {
    let story = story_with(
        "app:\n  id: demo\n  context: a\n  context_path: b.md\n",
        &[],
    );
    let error = Story::load(story.path(), &[]).unwrap_err();
    assert!(matches!(error, KitsokiError::ContextConflict { .. }));
    let message = error.to_string();
    assert!(
        message.contains("app.yaml: app.context and app.context_path are mutually exclusive"),
        "{message}"
    );
}

#[test]
fn every_verb_but_task_excludes_claude_codes_dynamic_sections() {
    let story = fixture();
    for verb in Verb::ALL {
        let invocation = ask(&story, verb);
        let args = claude_args(&invocation).unwrap();
        assert_eq!(args[0], "--system-prompt");
        assert_eq!(args[1], invocation.system_prompt);
        let excludes = args
            .iter()
            .any(|a| a == "--exclude-dynamic-system-prompt-sections");
        assert_eq!(excludes, verb != Verb::Task, "{verb:?}");
        assert_eq!(invocation.trace.exclude_dynamic, excludes);
    }
    // route has no contract: the task layer is the persona alone. It is
    // kitsoki's router: the built-in framework text, and no
    // prompts/_project.md (the router reads app.context / context_path only).
    let route = ask(&story, Verb::Route);
    assert_eq!(
        route.system_prompt,
        format!(
            "{}{SEPARATOR}You are a weathered frontier guide. Speak plainly, five sentences at most.",
            DEFAULT_FRAMEWORK.trim()
        )
    );
}

#[test]
fn inherit_claude_default_appends_the_persona_without_grounding() {
    let story = fixture();
    let call = Call {
        agent: "namer".into(),
        ..kitsoki::demo_call(Verb::Ask)
    };
    let invocation = kitsoki::compose(&story, &call, AssemblyPath::Basic).unwrap();
    assert!(invocation.legacy && invocation.prompt.is_none());
    assert_eq!(
        claude_args(&invocation).unwrap(),
        [
            "--append-system-prompt",
            "You name wagon parties. Reply with one name."
        ]
    );
    assert_eq!(invocation.trace.layers, []);
    assert_eq!(
        (invocation.trace.bytes, invocation.trace.exclude_dynamic),
        (0, false)
    );
}

#[test]
fn codex_receives_the_same_bytes_through_an_instructions_file() {
    let invocation = ask(&fixture(), Verb::Decide);
    let dir = tempfile::tempdir().unwrap();
    let args = codex_args(&invocation, dir.path()).unwrap();
    let path = dir.path().join(kitsoki::INSTRUCTIONS_FILE);
    assert_eq!(
        args,
        [
            "-c".to_owned(),
            format!("model_instructions_file=\"{}\"", path.display())
        ]
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        invocation.system_prompt.as_bytes()
    );
    // Written again in place, and no temporary file is left behind.
    codex_args(&invocation, dir.path()).unwrap();
    let entries: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, [kitsoki::INSTRUCTIONS_FILE]);
    let error = codex_args(&invocation, &dir.path().join("absent")).unwrap_err();
    assert!(error.to_string().contains("absent"), "{error}");
}

/// A writer that keeps what the subscriber writes.
#[test]
fn an_unknown_agent_names_the_declared_ones() {
    let call = Call {
        agent: "ghost".into(),
        ..kitsoki::demo_call(Verb::Ask)
    };
    let message = kitsoki::compose(&fixture(), &call, AssemblyPath::Basic)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("`ghost`") && message.contains("guide, namer"),
        "{message}"
    );
}

#[test]
fn every_layer_speaks_in_some_scenario() {
    let pipeline = kitsoki::pipeline().unwrap();
    assert_eq!(pipeline.len(), 3);
    insta::assert_snapshot!("manifest", pipeline.manifest());
    let scenarios = Agent::Kitsoki
        .scenarios(&Agent::Kitsoki.fixture(), Layout::Fixture)
        .unwrap();
    let unreachable =
        unreachable_layers(pipeline, &scenarios, kitsoki::PATHS, kitsoki::MODES).unwrap();
    assert!(unreachable.is_empty(), "{unreachable:?}");
}
