//! Each contract check passes a sound pipeline and catches the fault it is for.

use std::sync::atomic::{AtomicUsize, Ordering};

use prompt_checks::contract::{self, Check, Contract, RatchetMode, Scenario, Volatile};
use prompt_core::pipeline::LayerEntry;
use prompt_core::{
    Context, LayerInput, LayerWriter, Pipeline, Render, Stability, Stable, prompt_layer,
    prompt_pipeline,
};
use prompt_tests::{Fixed, TEST, fixed, spec};

const RULE: &str = "Run the whole test suite before you commit any change.";

fn bare() -> Vec<Scenario> {
    vec![Scenario::new("bare", Context::new())]
}

fn only(pipeline: &Pipeline, scenarios: &[Scenario], check: Check) -> contract::Report {
    Contract::new(pipeline, scenarios).only(&[check]).run()
}

// --- reachable -----------------------------------------------------------

#[test]
fn reachable_passes_when_every_layer_speaks() {
    let pipeline = fixed(&[
        ("persona", 1, Stability::Stable, "You are terse."),
        ("clock", 10_000, Stability::Dynamic, "Now."),
    ]);
    only(&pipeline, &bare(), Check::Reachable).assert_ok();
}

#[test]
fn reachable_fails_on_a_layer_that_never_speaks_and_does_not_say_why() {
    let pipeline = fixed(&[
        ("persona", 1, Stability::Stable, "You are terse."),
        ("ghost", 2, Stability::Stable, ""),
    ]);
    let report = only(&pipeline, &bare(), Check::Reachable);
    assert!(!report.is_ok());
    let failure = &report.failures()[0];
    assert_eq!(
        failure.subject,
        "layer `ghost` (prompt-tests: src/lib.rs:2)"
    );
    assert!(
        failure
            .problem
            .contains("wrote nothing in any assembly (scenarios `bare`")
    );
    assert!(failure.fix.contains("declare `silent = \"what wakes it\"`"));
}

/// Notes from the session, when it has any.
struct Notes(&'static str);

impl prompt_core::SessionValue for Notes {}

/// A pipeline of one conditionally silent layer.
#[prompt_pipeline(paths = [Cached])]
struct Quiet;

#[prompt_layer(priority = 1, stability = Stable, paths = [Cached], pipeline = Quiet, silent = "the session has Notes")]
struct SessionNotes;

impl Render<Stable> for SessionNotes {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        if let Some(Notes(notes)) = input.get::<Notes>() {
            out.push_str(notes);
        }
    }
}

#[test]
fn a_declared_silent_layer_no_scenario_wakes_is_listed_without_failing() {
    let pipeline = Pipeline::of::<Quiet>().unwrap();
    let report = only(&pipeline, &bare(), Check::Reachable);
    report.assert_ok();
    assert_eq!(report.notes().len(), 1);
    assert!(
        report.notes()[0]
            .problem
            .contains("declared silent unless the session has Notes, and no scenario woke it")
    );
    assert_eq!(
        report.notes()[0].fix,
        "add a scenario where the session has Notes"
    );

    let woken = [Scenario::new(
        "noted",
        Context::new().with(Notes("Use tabs.")),
    )];
    let report = only(&pipeline, &woken, Check::Reachable);
    assert!(report.is_ok() && report.notes().is_empty(), "{report}");
}

// --- prefix invariance ---------------------------------------------------

static CALLS: AtomicUsize = AtomicUsize::new(0);

/// A Stable layer that reads something outside its input: a global counter.
struct CallCounter;

impl Render for CallCounter {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_>) {
        let n = CALLS.fetch_add(1, Ordering::Relaxed);
        out.push_str(&format!("Session notes.\nThis is call {n}."));
    }
}

/// The model of this turn.
struct Model(&'static str);

impl prompt_core::TurnValue for Model {}

struct ModelLine;

impl Render for ModelLine {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_>) {
        out.push_str(input.get::<Model>().map_or("no model", |m| m.0));
    }
}

fn two_turns() -> Vec<Scenario> {
    vec![
        Scenario::new("turns", Context::new())
            .turn(Context::new().with(Model("opus")))
            .turn(Context::new().with(Model("haiku"))),
    ]
}

#[test]
fn prefix_invariance_passes_when_only_the_dynamic_suffix_follows_the_turn() {
    let pipeline = Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(
                spec("persona", 1, Stability::Stable),
                Fixed("You are terse.".into()),
            ),
            LayerEntry::new(spec("model", 10_000, Stability::Dynamic), ModelLine),
        ],
    )
    .unwrap();
    only(&pipeline, &two_turns(), Check::PrefixInvariance).assert_ok();
}

#[test]
fn prefix_invariance_names_the_stable_layer_that_reads_a_global_counter() {
    let pipeline = Pipeline::from_layers(
        TEST,
        [
            LayerEntry::new(
                spec("persona", 1, Stability::Stable),
                Fixed("You are terse.".into()),
            ),
            LayerEntry::new(spec("call_counter", 2, Stability::Stable), CallCounter),
            LayerEntry::new(spec("model", 10_000, Stability::Dynamic), ModelLine),
        ],
    )
    .unwrap();
    let report = only(&pipeline, &two_turns(), Check::PrefixInvariance);
    let failures: Vec<_> = report.failures().iter().collect();
    assert_eq!(failures.len(), 1, "{report}");
    assert_eq!(
        failures[0].subject,
        "layer `call_counter` (prompt-tests: src/lib.rs:2)"
    );
    assert!(
        failures[0].problem.starts_with("its bytes moved between two builds from the same inputs (scenario `turns`, basic/full, turn 1); line 2: \"This is call"),
        "{}",
        failures[0].problem
    );
    assert!(failures[0].fix.contains("or make the layer Dynamic"));
}

// --- repeated sentences --------------------------------------------------

#[test]
fn repeated_sentence_passes_distinct_and_short_sentences() {
    let pipeline = fixed(&[
        ("rules", 1, Stability::Stable, RULE),
        (
            "docs",
            2,
            Stability::Stable,
            "Be brief. Be brief.\n\nKeep every pull request small and easy to review.",
        ),
    ]);
    Contract::new(&pipeline, &bare())
        .only(&[Check::RepeatedSentence])
        .extra_text(
            "tool `shell`",
            "Runs one shell command and returns its output.",
        )
        .run()
        .assert_ok();
}

#[test]
fn repeated_sentence_names_both_layers_whatever_the_whitespace() {
    let rewrapped =
        "# Project rules\n\n- Run the whole test suite\n  before you commit   any change.";
    let pipeline = fixed(&[
        ("rules", 1, Stability::Stable, RULE),
        ("agents_md", 2, Stability::Stable, rewrapped),
    ]);
    let report = only(&pipeline, &bare(), Check::RepeatedSentence);
    assert_eq!(report.failures().len(), 1, "{report}");
    let failure = &report.failures()[0];
    assert_eq!(
        failure.subject,
        "layer `rules` (prompt-tests: src/lib.rs:1)"
    );
    assert_eq!(
        failure.problem,
        format!(
            "states {RULE:?}, which layer `agents_md` (prompt-tests: src/lib.rs:2) states too (scenario `bare`, basic/full)"
        )
    );
    assert_eq!(
        failure.fix,
        "say it once: drop it from `rules` or from `agents_md`"
    );
}

#[test]
fn repeated_sentence_catches_a_layer_repeating_a_tool_description() {
    let pipeline = fixed(&[(
        "tools",
        1,
        Stability::Stable,
        "Hand a self-contained task to a sub-agent and get its result back.",
    )]);
    let report = Contract::new(&pipeline, &bare())
        .only(&[Check::RepeatedSentence])
        .extra_text(
            "tool `delegate`",
            "Hand a self-contained task to a sub-agent and get its result back.",
        )
        .run();
    assert_eq!(report.failures().len(), 1, "{report}");
    assert!(
        report.failures()[0]
            .problem
            .contains("which extra text `tool `delegate`` states too")
    );
}

// --- repeated facts ------------------------------------------------------

#[test]
fn repeated_fact_passes_when_one_layer_states_each_fact() {
    let pipeline = fixed(&[
        (
            "persona",
            1,
            Stability::Stable,
            "You work in the repository at services/api/src/CLAUDE.md.",
        ),
        (
            "runtime",
            10_000,
            Stability::Dynamic,
            "- Working directory: services/api/src\n- Model: opus",
        ),
    ]);
    let scenarios = [Scenario::new("env", Context::new())
        .fact("cwd", "services/api/src")
        .fact("model", "opus")];
    only(&pipeline, &scenarios, Check::RepeatedFact).assert_ok();
}

#[test]
fn repeated_fact_matches_the_value_not_the_sentence() {
    let pipeline = fixed(&[
        (
            "persona",
            1,
            Stability::Stable,
            "You are running on linux (x86_64).",
        ),
        ("runtime", 10_000, Stability::Dynamic, "- OS: linux"),
    ]);
    let scenarios = [Scenario::new("env", Context::new()).fact("OS", "linux")];
    let report = only(&pipeline, &scenarios, Check::RepeatedFact);
    assert_eq!(report.failures().len(), 1, "{report}");
    let failure = &report.failures()[0];
    assert_eq!(
        failure.subject,
        "layer `persona` (prompt-tests: src/lib.rs:1)"
    );
    assert!(failure.problem.starts_with(
        "states the OS `linux`, which layer `runtime` (prompt-tests: src/lib.rs:10000) states too"
    ));
    assert_eq!(
        failure.fix,
        "state the OS in one layer only: keep it in `persona` or in `runtime`, not both"
    );
}

// --- volatile values -----------------------------------------------------

#[test]
fn volatile_value_passes_a_timeless_prefix_and_a_dated_dynamic_suffix() {
    let pipeline = fixed(&[
        (
            "persona",
            1,
            Stability::Stable,
            "You are terse. Keep answers under 200 words.",
        ),
        (
            "runtime",
            10_000,
            Stability::Dynamic,
            "Date: 2026-11-29, 14:05",
        ),
    ]);
    only(&pipeline, &bare(), Check::VolatileValue).assert_ok();
}

#[test]
fn volatile_value_reports_a_date_in_the_stable_prefix_with_the_layer_and_the_match() {
    let pipeline = fixed(&[(
        "persona",
        1,
        Stability::Stable,
        "You are terse. Today is 2026-11-29; session 9f2c1e7ab34d0c1f.",
    )]);
    let report = only(&pipeline, &bare(), Check::VolatileValue);
    let problems: Vec<&str> = report
        .failures()
        .iter()
        .map(|f| f.problem.as_str())
        .collect();
    assert_eq!(problems.len(), 2, "{report}");
    assert!(problems[0].starts_with("states `2026-11-29` (a date) in the stable prefix"));
    assert!(
        problems[1].starts_with("states `9f2c1e7ab34d0c1f` (a hex digest) in the stable prefix")
    );
    assert!(
        report.failures()[0]
            .fix
            .contains(".allow(\"persona\", Volatile::Date, \"why it is stable\")")
    );
}

#[test]
fn a_layer_can_allow_a_volatile_kind_with_a_reason_and_only_with_one() {
    let pipeline = fixed(&[(
        "release",
        1,
        Stability::Stable,
        "This build was released on 2026-11-01.",
    )]);
    Contract::new(&pipeline, &bare())
        .only(&[Check::VolatileValue])
        .allow(
            "release",
            Volatile::Date,
            "the release date is fixed per build",
        )
        .run()
        .assert_ok();
    let report = Contract::new(&pipeline, &bare())
        .only(&[Check::VolatileValue])
        .allow("release", Volatile::Date, " ")
        .run();
    assert_eq!(report.failures().len(), 1, "{report}");
    assert_eq!(report.failures()[0].problem, "has no reason");
}

// --- ratchets ------------------------------------------------------------

fn sized(stable: &str, dynamic: &str) -> Pipeline {
    fixed(&[
        ("persona", 1, Stability::Stable, stable),
        ("notes", 2, Stability::Stable, "Small."),
        ("runtime", 10_000, Stability::Dynamic, dynamic),
    ])
}

#[test]
fn ratchet_writes_atomically_then_holds_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ratchets.json");
    let pipeline = sized(&"x".repeat(1000), "Now.");
    let run = |pipeline: &Pipeline, mode| {
        Contract::new(pipeline, &bare())
            .only(&[Check::Ratchet])
            .ratchet_mode(&file, mode)
            .run()
    };

    // No file yet: the failure says how to create it.
    let missing = run(&pipeline, RatchetMode::Check);
    assert_eq!(missing.failures().len(), 1);
    assert!(missing.failures()[0].problem == "does not exist");
    assert!(missing.failures()[0].fix.contains("PROMPT_RATCHET=update"));

    let updated = run(&pipeline, RatchetMode::Update);
    assert!(
        updated.is_ok() && updated.notes()[0].problem.contains("rewritten"),
        "{updated}"
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["ratchets.json"], "no temp file is left behind");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(json["test"]["cached/full"]["stable_bytes"], 1008);
    assert_eq!(json["test"]["cached/full"]["dynamic_bytes"], 4);

    run(&pipeline, RatchetMode::Check).assert_ok();

    let grown = run(&sized(&"x".repeat(1100), "Now."), RatchetMode::Check);
    let over: Vec<_> = grown
        .failures()
        .iter()
        .map(|f| f.problem.as_str())
        .collect();
    assert!(
        over[0].starts_with("the stable prefix of pipeline `test` basic/full is 1108 B, over its ceiling of 1008 B by 100 B; largest layers: `persona` (stable) 1100 B, `notes` (stable) 6 B, `runtime` (dynamic) 4 B"),
        "{grown}"
    );

    let shrunk = run(&sized(&"x".repeat(800), "Now."), RatchetMode::Check);
    assert!(
        shrunk.failures()[0]
            .problem
            .contains("is 808 B, far under its ceiling of 1008 B (below 90%): lower the ceiling"),
        "{shrunk}"
    );
}

#[test]
fn a_malformed_ratchet_file_is_named_with_the_expected_shape() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ratchets.json");
    std::fs::write(&file, "{\"test\": [1, 2]}").unwrap();
    let report = Contract::new(&sized("x", "y"), &bare())
        .only(&[Check::Ratchet])
        .ratchet_mode(&file, RatchetMode::Check)
        .run();
    assert_eq!(
        report.failures()[0].subject,
        format!("ratchet file {}", file.display())
    );
    assert!(
        report.failures()[0]
            .problem
            .starts_with("is not a ratchet file (line 1:"),
        "{report}"
    );
}

// --- all together --------------------------------------------------------

#[test]
fn one_line_runs_every_check_and_the_report_reads_as_a_list() {
    let pipeline = fixed(&[
        ("persona", 1, Stability::Stable, "Today is 2026-11-29."),
        ("ghost", 2, Stability::Stable, ""),
    ]);
    let report = contract::check(&pipeline, &bare());
    assert_eq!(
        report.to_string(),
        "contract of pipeline `test`: 2 failures (12 assemblies over scenario `bare`)\n\
         FAIL [reachable] layer `ghost` (prompt-tests: src/lib.rs:2): wrote nothing in any assembly (scenarios `bare`; every path and mode it lists)\n    \
         fix: give a scenario the session or turn content this layer reads, or declare `silent = \"what wakes it\"` in its #[prompt_layer] if it is silent by design\n\
         FAIL [volatile-value] layer `persona` (prompt-tests: src/lib.rs:1): states `2026-11-29` (a date) in the stable prefix (scenario `bare`, basic/full): a value that changes between runs busts the prompt cache\n    \
         fix: move the value into a Dynamic layer; if it really is the same on every call of a session, allow it: `.allow(\"persona\", Volatile::Date, \"why it is stable\")`\n"
    );
    let panic = std::panic::catch_unwind(|| report.assert_ok()).unwrap_err();
    assert!(
        panic
            .downcast_ref::<String>()
            .unwrap()
            .contains("[reachable] layer `ghost`")
    );
}

/// Issue 31: a ratchet file that is a FIFO (or a device, a folder) is
/// neither read (a FIFO would block) nor replaced by the update: the
/// finding names it, and it is still a FIFO afterwards.
#[cfg(unix)]
#[test]
fn a_ratchet_file_that_is_not_a_regular_file_is_neither_read_nor_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ratchets.json");
    let made = std::process::Command::new("mkfifo").arg(&file).status();
    assert!(made.is_ok_and(|s| s.success()));
    let pipeline = sized("x", "y");
    let run = |mode| {
        Contract::new(&pipeline, &bare())
            .only(&[Check::Ratchet])
            .ratchet_mode(&file, mode)
            .run()
    };
    let checked = run(RatchetMode::Check);
    assert_eq!(
        checked.failures()[0].problem,
        "is not a regular file (a FIFO, a device or a folder); not read",
        "{checked}"
    );
    let updated = run(RatchetMode::Update);
    assert!(
        updated.failures()[0]
            .problem
            .contains("it is a FIFO (named pipe), not a regular file; nothing was written"),
        "{updated}"
    );
    let kind = std::fs::symlink_metadata(&file).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["ratchets.json"], "no temp file is left behind");
}
