//! Aleph: bands, modes, welds, the mode from `aleph.toml`, the budget, silence.

use prompt_core::budget::{BudgetError, TokenBudget};
use prompt_core::{AssembledPrompt, AssemblyError, Context, PromptMode, Stability};
use prompt_examples::agents::aleph::{
    self, AlephError, AlephWorkspace, SessionMode, SpawnRequest, session_mode_line, strategy_block,
};
use prompt_examples::agents::{Agent, Layout, RenderRequest, unreachable_layers};

fn fixture() -> AlephWorkspace {
    AlephWorkspace::load(&Agent::Aleph.fixture()).unwrap()
}

fn main(ws: &AlephWorkspace, mode: PromptMode, budget: Option<TokenBudget>) -> AssembledPrompt {
    aleph::main_prompt(
        &ws.session_context(),
        &ws.turn_context(aleph::fixture_facts()),
        mode,
        budget,
    )
    .unwrap()
}

fn spawn_request(ws: &AlephWorkspace) -> SpawnRequest {
    SpawnRequest {
        strategy: ws.session.strategy.as_ref().map(|s| s.body.clone()),
        session_mode: ws.turn.session_mode,
    }
}

fn spawned(ws: &AlephWorkspace, mode: PromptMode) -> aleph::SpawnedPrompt {
    let mut child = ws.clone();
    aleph::sub_agent(&mut child);
    aleph::spawn_prompt(
        &child.session_context(),
        &child.turn_context(aleph::fixture_facts()),
        mode,
        &spawn_request(ws),
    )
    .unwrap()
}

/// The stable prefix and dynamic suffix, as a reviewer reads them.
fn parts(prompt: &AssembledPrompt) -> String {
    format!(
        "=== stable (cache) ===\n{}\n=== dynamic ===\n{}",
        prompt.stable(),
        prompt.dynamic()
    )
}

#[test]
fn every_path_and_mode_of_the_fixture() {
    let ws = fixture();
    for mode in aleph::MODES {
        insta::assert_snapshot!(format!("cached_{mode}"), parts(&main(&ws, *mode, None)));
        insta::assert_snapshot!(format!("basic_{mode}"), spawned(&ws, *mode).text);
    }
}

#[test]
fn at_least_thirty_layers_across_both_bands() {
    let pipeline = aleph::pipeline().unwrap();
    let stable = pipeline
        .specs()
        .filter(|s| s.stability == Stability::Stable)
        .count();
    let dynamic = pipeline
        .specs()
        .filter(|s| s.stability == Stability::Dynamic)
        .count();
    assert_eq!((stable, dynamic), (24, 14));
    assert!(pipeline.len() >= 30);
    insta::assert_snapshot!("manifest", pipeline.manifest());
}

const HEAVY: [&str; 15] = [
    "environment",
    "runtime_capabilities",
    "protocol_tokens",
    "operational_guidelines",
    "multi_step_conduct",
    "provider_guidance",
    "citation_standards",
    "skill_instructions",
    "agent_catalog",
    "special_actions",
    "guidelines",
    "mcp_instructions",
    "chain_context",
    "runtime_context",
    "session_budget",
];

#[test]
fn compact_and_minimal_drop_the_heavy_guidance() {
    let pipeline = aleph::pipeline().unwrap();
    let ws = fixture();
    let speaking = |mode| -> Vec<&'static str> {
        let mut names: Vec<&str> = main(&ws, mode, None)
            .trace()
            .layers
            .iter()
            .chain(&spawned(&ws, mode).prompt.trace().layers)
            .filter(|l| !l.silent)
            .map(|l| l.name)
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    };
    let full = speaking(PromptMode::Full);
    for heavy in HEAVY {
        let spec = pipeline.layer(heavy).unwrap();
        assert_eq!(spec.modes, [PromptMode::Full], "{heavy}");
    }
    let compact = speaking(PromptMode::Compact);
    assert!(
        compact.iter().all(|name| !HEAVY.contains(name)),
        "{compact:?}"
    );
    let heavy_in_full = full.iter().filter(|name| HEAVY.contains(name)).count();
    assert!(
        heavy_in_full >= 12,
        "the fixture wakes most heavy layers: {full:?}"
    );
    assert_eq!(compact.len(), full.len() - heavy_in_full);
    assert_eq!(
        speaking(PromptMode::Minimal),
        ["curated_memory", "language", "operating_envelope", "soul"]
    );
}

#[test]
fn the_stable_dynamic_split_holds_in_every_mode() {
    let ws = fixture();
    for &mode in aleph::MODES {
        let prompt = main(&ws, mode, None);
        let trace = prompt.trace();
        let first_dynamic = trace
            .layers
            .iter()
            .position(|l| l.stability == Stability::Dynamic)
            .unwrap();
        assert!(
            trace
                .layers
                .iter()
                .skip(first_dynamic)
                .all(|l| l.stability == Stability::Dynamic)
        );
        let bytes = |stability| -> usize {
            let spoken: Vec<usize> = trace
                .layers
                .iter()
                .filter(|l| l.stability == stability && !l.silent)
                .map(|l| l.bytes)
                .collect();
            spoken.iter().sum::<usize>() + 2 * spoken.len().saturating_sub(1)
        };
        assert_eq!(bytes(Stability::Stable), prompt.stable().len(), "{mode}");
        assert_eq!(bytes(Stability::Dynamic), prompt.dynamic().len(), "{mode}");
        assert!(
            !prompt.stable().is_empty() && !prompt.dynamic().is_empty(),
            "{mode}"
        );
        assert!(!prompt.stable().contains("Run id") && !prompt.stable().contains("2026-11-29"));
    }
}

#[test]
fn the_sub_agent_welds_match_their_layer_forms_byte_for_byte() {
    let ws = fixture();
    let request = spawn_request(&ws);
    let body = request.strategy.clone().unwrap();
    let strategy = strategy_block(&body);
    let line = session_mode_line(SessionMode::Code);
    assert_eq!(request.welds(), [strategy.clone(), line.clone()]);

    let sub = spawned(&ws, PromptMode::Full);
    let assembled = sub.prompt.text();
    assert_eq!(sub.text, format!("{assembled}\n\n{strategy}\n\n{line}"));
    assert!(
        !assembled.contains("<strategy>"),
        "the sub-agent session has no strategy of its own"
    );
    assert_eq!(sub.text.matches(&line).count(), 1);

    // The layer forms, on the main loop's Cached path: the same bytes.
    let cached = main(&ws, PromptMode::Full, None);
    assert!(cached.stable().contains(&format!("\n\n{strategy}\n\n")));
    let envelope = cached
        .dynamic()
        .split("## Operating envelope\n\n")
        .nth(1)
        .unwrap();
    assert!(envelope.lines().any(|l| l == line), "{envelope}");
}

#[test]
fn cached_puts_the_strategy_body_on_the_stable_side_and_its_echo_on_the_dynamic_side() {
    let prompt = main(&fixture(), PromptMode::Full, None);
    assert!(
        prompt
            .stable()
            .contains("<strategy>\nObjective: ship the ledger fix today.")
    );
    assert!(!prompt.dynamic().contains("<strategy>"));
    assert!(prompt.dynamic().contains(
        "<strategy_reminder>\n- No schema changes.\n- Deploy only after staging is green.\n</strategy_reminder>"
    ));
    assert!(!prompt.stable().contains("strategy_reminder"));
}

fn workspace_with(toml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("aleph.toml"), toml).unwrap();
    dir
}

#[test]
fn aleph_toml_selects_the_mode_in_lowercase() {
    let dir = workspace_with("[execution]\nprompt_mode = \"compact\"\n");
    assert_eq!(
        AlephWorkspace::load(dir.path()).unwrap().mode(),
        PromptMode::Compact
    );
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(
        AlephWorkspace::load(empty.path()).unwrap().mode(),
        PromptMode::Full
    );

    // The CLI's render, with no --mode, follows the file.
    let request = RenderRequest {
        workspace: dir.path().to_owned(),
        layout: Layout::Workspace,
        path: prompt_core::AssemblyPath::Cached,
        mode: None,
        date: None,
        model: None,
        prompt_path: Vec::new(),
    };
    assert_eq!(
        Agent::Aleph.render(&request).unwrap().prompt.trace().mode,
        PromptMode::Compact
    );

    let bad = workspace_with("[execution]\nprompt_mode = \"Compact\"\n");
    let error = AlephWorkspace::load(bad.path()).unwrap_err();
    assert!(matches!(error, AlephError::Config { .. }));
    let message = error.to_string();
    assert!(
        message.contains("aleph.toml") && message.contains("prompt_mode"),
        "{message}"
    );
}

#[test]
fn an_extra_file_outside_the_workspace_is_an_error_naming_the_key() {
    let dir = workspace_with("[prompt]\nextra_files = [\"../secrets.md\"]\n");
    let message = AlephWorkspace::load(dir.path()).unwrap_err().to_string();
    assert!(
        message.contains("extra_files[0]") && message.contains("aleph.toml"),
        "{message}"
    );
}

#[test]
fn a_context_window_budget_trims_only_the_dynamic_suffix_with_a_notice() {
    let ws = fixture();
    let whole = main(&ws, PromptMode::Full, None);
    let stable_tokens = whole.stable().len().div_ceil(4);
    // A window whose share for the prompt leaves room for the stable prefix
    // and a little of the suffix.
    let window = 200_000;
    let budget = TokenBudget::from_context_window(window, window - stable_tokens - 120);
    let trimmed = main(&ws, PromptMode::Full, Some(budget));
    assert_eq!(trimmed.stable(), whole.stable());
    assert!(trimmed.dynamic().len() < whole.dynamic().len());
    assert!(trimmed.text().len().div_ceil(4) <= budget.limit() + 1);
    let report = trimmed.trace().budget.as_ref().unwrap();
    assert!(!report.shed.is_empty());
    let notice = report.notice.as_deref().unwrap();
    assert!(trimmed.dynamic().ends_with(notice));
    assert!(notice.starts_with("[Trimmed to fit the prompt budget"));

    // A budget the stable prefix alone exceeds is an error, never a cut.
    let tight = TokenBudget::from_context_window(window, window - stable_tokens / 2);
    let error = aleph::main_prompt(
        &ws.session_context(),
        &ws.turn_context(aleph::fixture_facts()),
        PromptMode::Full,
        Some(tight),
    )
    .unwrap_err();
    assert!(matches!(
        error,
        AlephError::Assembly(AssemblyError::OverBudget(
            BudgetError::StablePrefixOverBudget { .. }
        ))
    ));
}

#[test]
fn conditionally_silent_layers_are_declared_and_silent_on_a_bare_workspace() {
    let pipeline = aleph::pipeline().unwrap();
    let declared: Vec<&str> = pipeline
        .specs()
        .filter(|s| s.silent.is_some())
        .map(|s| s.name)
        .collect();
    assert!(declared.len() >= 20, "{declared:?}");
    let bare = tempfile::tempdir().unwrap();
    let ws = AlephWorkspace::load(bare.path()).unwrap();
    let prompt = aleph::main_prompt(
        &ws.session_context(),
        &Context::new(),
        PromptMode::Full,
        None,
    )
    .unwrap();
    // These two follow the interface, which defaults to the CLI: they speak here.
    let by_interface = ["operational_guidelines", "multi_step_conduct"];
    for layer in &prompt.trace().layers {
        let expect_silent = declared.contains(&layer.name) && !by_interface.contains(&layer.name);
        assert_eq!(
            layer.silent, expect_silent,
            "{}: silent exactly when declared conditionally silent",
            layer.name
        );
    }
}

#[test]
fn every_layer_speaks_in_some_scenario() {
    let pipeline = aleph::pipeline().unwrap();
    let scenarios = Agent::Aleph
        .scenarios(&Agent::Aleph.fixture(), Layout::Fixture)
        .unwrap();
    let names: Vec<&str> = scenarios.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["cli", "background", "web_rich", "sub_agent"]);
    let unreachable = unreachable_layers(pipeline, &scenarios, aleph::PATHS, aleph::MODES).unwrap();
    assert!(unreachable.is_empty(), "{unreachable:?}");
}

/// The seed's table in the module doc (`examples/src/agents/aleph/mod.rs`,
/// "Layers") and the pipeline say the same: names, priorities, bands, paths
/// and modes, in order.
#[test]
fn the_module_table_is_the_pipeline() {
    let source = include_str!("../../src/agents/aleph/mod.rs");
    let documented: Vec<String> = source
        .lines()
        .skip_while(|l| *l != "//! # Layers")
        .take_while(|l| !l.starts_with("//! Compact drops"))
        .filter(|l| l.starts_with("//! | `"))
        .map(|l| l.trim_start_matches("//! ").to_owned())
        .collect();
    let pipeline = aleph::pipeline().unwrap();
    let list = |items: Vec<String>| items.join(", ");
    let actual: Vec<String> = pipeline
        .specs()
        .map(|s| {
            format!(
                "| `{}` | {} | {:?} | {} | {} |",
                s.name,
                s.priority,
                s.stability,
                list(s.paths.iter().map(|p| p.to_string()).collect()),
                list(s.modes.iter().map(|m| m.to_string()).collect()),
            )
        })
        .collect();
    assert_eq!(documented, actual);
    assert_eq!(actual.len(), 38);
}
