//! The standard pipeline over the fixture workspace: every layer speaking,
//! the order stable -> volatile, and the trace saying why a layer is silent.

use crate::common;

use common::full_config;
use prompt_core::{Context, Pipeline, PromptBuilder, PromptMode, Stability, TurnContext};
use prompt_layers::{RuntimeFacts, SessionConfig, SubAgent, SubAgents, load_session};
use prompt_tests::FixtureWorkspace;

fn sub_agents() -> SubAgents {
    SubAgents(vec![
        SubAgent::new("explorer", "Reads code and answers questions about it."),
        SubAgent::new("tester", "Runs the test suite and reports failures."),
    ])
}

fn turn(ws: &FixtureWorkspace) -> TurnContext {
    Context::new()
        .with(
            RuntimeFacts::default()
                .date("2026-11-29")
                .time_zone("UTC")
                .cwd("services/api/src")
                .os("linux")
                .shell("bash")
                .model("claude-opus")
                .git_branch("fix/login"),
        )
        .with(full_config(ws).load_scratchpad().unwrap())
}

#[test]
fn every_standard_layer_speaks_over_a_full_workspace() {
    let ws = FixtureWorkspace::new();
    let session = load_session(&full_config(&ws)).unwrap().with(sub_agents());
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&session, &turn(&ws))
        .unwrap();
    assert_eq!(prompt.trace().silent().count(), 0, "{:#?}", prompt.trace());
    insta::assert_snapshot!(format!(
        "--- stable (cache: true) ---\n{}\n--- dynamic (cache: false) ---\n{}",
        prompt.stable(),
        prompt.dynamic()
    ));
    // Notes name files relative to the workspace or as `~/.agent/...`: no
    // absolute path, so the snapshot is the same on every machine.
    let root = ws.dir.path().canonicalize().unwrap();
    let notes: Vec<String> = prompt
        .trace()
        .layers
        .iter()
        .flat_map(|l| l.notes.iter().map(move |n| format!("{}: {n}", l.name)))
        .collect();
    assert!(
        notes.iter().all(|n| !n.contains(&*root.to_string_lossy())),
        "{notes:#?}"
    );
    insta::assert_snapshot!(notes.join("\n"));
}

#[test]
fn sections_come_in_the_documented_order() {
    let ws = FixtureWorkspace::new();
    let session = load_session(&full_config(&ws)).unwrap().with(sub_agents());
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let text = PromptBuilder::new(&pipeline)
        .build_basic(&session, &turn(&ws))
        .unwrap()
        .text();
    // Widest scope first: the project's sections (shared by everyone on the
    // repository) before the user's (one person).
    let headers = [
        "# Project memory",
        "# Project context",
        "# Available skills",
        "# User preferences",
        "# Facts",
        "# Runtime context",
    ];
    let positions: Vec<usize> = headers
        .iter()
        .map(|h| text.find(h).unwrap_or_else(|| panic!("{h}")))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    // Basic is for inline prompts: no episodic recall, coordinator or scratchpad.
    for absent in ["# Episodic recall", "# Sub-agents", "# Scratchpad"] {
        assert!(!text.contains(absent), "{absent}");
    }
}

#[test]
fn an_empty_workspace_leaves_the_conditional_layers_silent_and_says_why() {
    // Discovery never walks above the workspace, so a `system-prompt.md` in
    // `/tmp/.agent/` (or anywhere above) cannot change this test. A `.agent`
    // folder planted just above the workspace proves it.
    let outer = tempfile::tempdir().unwrap();
    std::fs::create_dir(outer.path().join(".agent")).unwrap();
    std::fs::write(outer.path().join(".agent/system-prompt.md"), "PLANTED").unwrap();
    let dir = outer.path().join("ws");
    std::fs::create_dir(&dir).unwrap();
    let session = load_session(&SessionConfig::new("agent", &dir)).unwrap();
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&session, &Context::new())
        .unwrap();
    assert_eq!(
        prompt.stable(),
        format!(
            "{}\n\n{}",
            prompt_layers::sources::DEFAULT_BASE_PROMPT.trim_end(),
            prompt_layers::QUOTED_FILES_RULE
        )
    );
    assert_eq!(prompt.dynamic(), "");
    let silent: Vec<&str> = prompt.trace().silent().collect();
    assert_eq!(
        silent,
        [
            "project_memory",
            "project_context",
            "skills_index",
            "user_preferences",
            "facts",
            "episodic_recall",
            "coordinator",
            "runtime_context",
            "scratchpad"
        ]
    );
    for layer in prompt
        .trace()
        .layers
        .iter()
        .filter(|l| l.silent && l.name != "runtime_context")
    {
        assert!(
            !layer.notes.is_empty(),
            "{} says why it is silent",
            layer.name
        );
    }
}

#[test]
fn the_coordinator_speaks_exactly_when_the_delegate_tool_is_enabled() {
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    for session in [
        Context::new(),
        Context::new().with(SubAgents(vec![])),
        Context::new().with(sub_agents()),
    ] {
        let prompt = PromptBuilder::new(&pipeline)
            .build_cached(&session, &Context::new())
            .unwrap();
        let speaks = !prompt.trace().layer("coordinator").unwrap().silent;
        let tools = SubAgents::tools_for(&session);
        assert_eq!(speaks, !tools.is_empty());
        if speaks {
            assert!(
                prompt
                    .stable()
                    .contains(&format!("`{}` tool", tools[0].name))
            );
            assert_eq!(
                tools[0].input_schema["properties"]["agent"]["enum"],
                serde_json::json!(["explorer", "tester"])
            );
        }
    }
}

#[test]
fn the_standard_pipeline_is_stable_before_dynamic_and_has_room_between_layers() {
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let specs: Vec<_> = pipeline.specs().collect();
    // Room for a user's layer between any two, but after the base prompt:
    // its rule on quoted files follows it at once, and the room is after both.
    for w in specs.windows(2) {
        let gap = w[1].priority - w[0].priority;
        match (w[0].name, w[1].name) {
            ("base_prompt", "quoted_files") => assert_eq!(gap, 1),
            _ => assert!(gap >= 999, "{} -> {}: {gap}", w[0].name, w[1].name),
        }
    }
    let dynamic: Vec<&str> = specs
        .iter()
        .filter(|s| s.stability == Stability::Dynamic)
        .map(|s| s.name)
        .collect();
    assert_eq!(dynamic, ["runtime_context", "scratchpad"]);
}

#[test]
fn minimal_mode_keeps_only_what_the_agent_cannot_work_without() {
    let ws = FixtureWorkspace::new();
    let session = load_session(&full_config(&ws)).unwrap().with(sub_agents());
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .mode(PromptMode::Minimal)
        .build_cached(&session, &turn(&ws))
        .unwrap();
    let names: Vec<&str> = prompt.trace().layers.iter().map(|l| l.name).collect();
    assert_eq!(
        names,
        [
            "base_prompt",
            "quoted_files",
            "project_context",
            "user_preferences"
        ]
    );
}

#[test]
fn a_source_that_cannot_be_read_silences_its_layer_and_the_trace_names_the_file() {
    let ws = FixtureWorkspace::new();
    let user_md = ws.home.join(".agent/memory/user.md");
    std::fs::write(&user_md, b"caf\xe9 au lait").unwrap();
    std::fs::remove_file(ws.repo.join(".agent/memory/project.md")).unwrap();
    std::fs::create_dir(ws.repo.join(".agent/memory/project.md")).unwrap();
    let session = load_session(&full_config(&ws)).unwrap();
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let prompt = PromptBuilder::new(&pipeline)
        .build_cached(&session, &Context::new())
        .unwrap();
    let user = prompt.trace().layer("user_preferences").unwrap();
    assert!(user.silent);
    assert_eq!(
        user.notes,
        ["~/.agent/memory/user.md: not valid UTF-8 (first bad byte at offset 3); save it as UTF-8"]
    );
    let project = prompt.trace().layer("project_memory").unwrap();
    assert!(project.silent);
    assert_eq!(
        project.notes,
        [".agent/memory/project.md: is a directory, expected a file"]
    );
    assert!(!prompt.stable().contains("# User preferences"));
}
