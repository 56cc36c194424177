//! The contract of every pipeline in this repository, over a bare session and
//! the full fixture workspace, with byte ratchets in `tests/ratchets.json`;
//! and the snapshot recipe of `prompt_checks::testing`, applied to the standard
//! pipeline.

use crate::common;

use common::full_config;
use prompt_checks::contract::{Contract, Scenario, Volatile};
use prompt_checks::testing;
use prompt_core::{Context, Pipeline, TurnContext};
use prompt_layers::sources::Scratchpad;
use prompt_layers::{RuntimeFacts, SessionConfig, SubAgent, SubAgents, load_session};
use prompt_tests::FixtureWorkspace;

fn sub_agents() -> SubAgents {
    SubAgents(vec![SubAgent::new(
        "tester",
        "Runs the test suite and reports failures.",
    )])
}

/// One turn's facts; `day` and `model` vary between turns.
fn facts(day: &str, model: &str) -> RuntimeFacts {
    RuntimeFacts::default()
        .date(format!("2026-11-{day}"))
        .time_zone("UTC")
        .cwd("services/api/src")
        .os("linux")
        .shell("bash")
        .model(model)
        .git_branch("fix/login")
}

fn turn(facts: RuntimeFacts) -> TurnContext {
    let notes = [(
        "plan".to_owned(),
        "1. write tests 2. fix the bug".to_owned(),
    )];
    Context::new()
        .with(facts)
        .with(Scratchpad(notes.into_iter().collect()))
}

/// The bare session (an empty folder) and the full fixture workspace over two turns.
fn scenarios(bare: &std::path::Path, ws: &FixtureWorkspace) -> Vec<Scenario> {
    let mut full = Scenario::new(
        "full",
        load_session(&full_config(ws)).unwrap().with(sub_agents()),
    );
    for (day, model) in [("29", "claude-opus"), ("30", "claude-haiku")] {
        let facts = facts(day, model);
        for (label, value) in facts.entries() {
            full = full.fact(label, value);
        }
        full = full.turn(turn(facts));
    }
    vec![
        Scenario::new(
            "bare",
            load_session(&SessionConfig::new("agent", bare)).unwrap(),
        ),
        full,
    ]
}

fn contract<'a>(pipeline: &'a Pipeline, scenarios: &'a [Scenario]) -> Contract<'a> {
    let mut contract = Contract::new(pipeline, scenarios)
        .allow(
            "episodic_recall",
            Volatile::Date,
            "episodes are dated by episodes.jsonl, which changes between sessions, never within one",
        )
        .ratchet(concat!(env!("CARGO_MANIFEST_DIR"), "/ratchets.json"));
    for tool in SubAgents::tools_for(scenarios[1].session()) {
        contract = contract.extra_text(format!("tool `{}`", tool.name), tool.description);
    }
    contract
}

#[test]
fn every_pipeline_in_the_repository_keeps_its_contract() {
    let bare = tempfile::tempdir().unwrap();
    let ws = FixtureWorkspace::new();
    let scenarios = scenarios(bare.path(), &ws);
    let names = prompt_core::pipeline::pipeline_names();
    assert!(names.contains(&"standard"), "{names:?}");
    // `default` has no layer here: the standard layers are include-only.
    for name in names.into_iter().filter(|name| *name != "default") {
        let pipeline = Pipeline::named(name).unwrap();
        contract(&pipeline, &scenarios).run().assert_ok();
    }
}

#[test]
fn the_full_workspace_wakes_every_declared_silent_layer() {
    let bare = tempfile::tempdir().unwrap();
    let ws = FixtureWorkspace::new();
    let scenarios = scenarios(bare.path(), &ws);
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let report = contract(&pipeline, &scenarios).run();
    let unwoken: Vec<&str> = report
        .notes()
        .iter()
        .filter(|n| n.check == prompt_checks::contract::Check::Reachable)
        .map(|n| n.subject.as_str())
        .collect();
    assert!(unwoken.is_empty(), "{report}");
}

/// The recipe from `prompt_checks::testing`'s docs: the annotated prompt of
/// every path and mode (the manifest half is `manifest.rs`).
#[test]
fn standard_pipeline_snapshots() {
    let ws = FixtureWorkspace::new();
    let session = load_session(&full_config(&ws)).unwrap().with(sub_agents());
    let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
    let turn = turn(facts("29", "claude-opus"));
    for (label, prompt) in testing::every_assembly(&pipeline, &session, &turn).unwrap() {
        insta::assert_snapshot!(
            format!("prompt-{label}"),
            testing::annotate(&prompt).unwrap()
        );
    }
}
