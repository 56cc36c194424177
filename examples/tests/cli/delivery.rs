//! `prompt render --format anthropic|openai|gemini|bedrock|claude-cli`, the budget and
//! tokenizer flags, and `prompt cache`, run as a user runs them.

use std::process::Output;

use crate::common;
use common::command;

use serde_json::{Value, json};

/// This file's workspace: `contract.rs` seeds the shared one differently in
/// the same binary, so the seeding here is on a type of its own.
struct Workspace(common::Workspace);

impl std::ops::Deref for Workspace {
    type Target = common::Workspace;
    fn deref(&self) -> &common::Workspace {
        &self.0
    }
}

impl Workspace {
    /// A small workspace (a stable prefix of about 150 tokens: below every
    /// Claude minimum) with a fixed date and time zone.
    fn new() -> Self {
        let ws = Self(common::Workspace::empty(&[]));
        ws.write(
            "AGENTS.md",
            "# Rules\n\nRun `make check` before every commit.\n",
        );
        ws.write(".agent/memory/project.md", "- Errors use thiserror.\n");
        ws.write(
            ".agent/scratchpad.json",
            r#"{"plan": "1. reproduce the login failure in a test\n2. fix the session check\n3. run make check", "branch": "fix/login"}"#,
        );
        ws
    }
}

/// `prompt <args>` from this crate's directory, for the reference agents'
/// fixtures named by a relative path (so the path they state is the same on
/// every machine).
fn run_here(args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    command(args, home.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the prompt binary runs")
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "exit {:?}: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .replace(&format!("- OS: {}", std::env::consts::OS), "- OS: <os>")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn json(output: &Output) -> Value {
    serde_json::from_str(&stdout(output)).expect("the output is JSON")
}

#[test]
fn anthropic_format_is_a_complete_messages_request() {
    let output = Workspace::new().run(&["render", "--format", "anthropic"]);
    let body = json(&output);
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert_eq!(body["max_tokens"], 1024);
    assert_eq!(body["system"].as_array().unwrap().len(), 2);
    assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
    assert!(body["system"][1].get("cache_control").is_none());
    assert_eq!(body["messages"][0]["role"], "user");
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn anthropic_format_takes_model_ttl_max_tokens_and_message() {
    let output = Workspace::new().run(&[
        "render",
        "--format",
        "anthropic",
        "--model",
        "claude-opus-4-5",
        "--ttl",
        "1h",
        "--max-tokens",
        "4096",
        "--message",
        "Fix the failing test.",
    ]);
    let body = json(&output);
    assert_eq!(body["model"], "claude-opus-4-5");
    assert_eq!(body["max_tokens"], 4096);
    assert_eq!(body["system"][0]["cache_control"]["ttl"], "1h");
    assert_eq!(
        body["messages"][0]["content"][0]["text"],
        "Fix the failing test."
    );
    // The model is also the fact the prompt states.
    let dynamic = body["system"][1]["text"].as_str().unwrap();
    assert!(dynamic.contains("- Model: claude-opus-4-5\n"), "{dynamic}");
}

#[test]
fn openai_format_is_a_responses_request_routed_by_prompt_cache_key() {
    let output = Workspace::new().run(&["render", "--format", "openai"]);
    let body = json(&output);
    assert_eq!(body["model"], "gpt-5");
    assert!(
        body["prompt_cache_key"]
            .as_str()
            .unwrap()
            .starts_with("standard-")
    );
    insta::assert_snapshot!(stdout(&output));
}

/// GPT-5.6 and later: the prompt as a `developer` message of parts, a
/// breakpoint at the end of the stable prefix, `prompt_cache_options`.
#[test]
fn openai_format_on_gpt_5_6_breaks_at_the_end_of_the_stable_prefix() {
    let output = Workspace::new().run(&["render", "--format", "openai", "--model", "gpt-5.6"]);
    let body = json(&output);
    assert!(body.get("instructions").is_none(), "{body}");
    let parts = body["input"][0]["content"].as_array().unwrap();
    assert_eq!(body["input"][0]["role"], "developer");
    assert_eq!(
        parts[0]["prompt_cache_breakpoint"],
        json!({"mode": "explicit"})
    );
    assert!(
        parts
            .last()
            .unwrap()
            .get("prompt_cache_breakpoint")
            .is_none()
    );
    assert_eq!(
        body["prompt_cache_options"],
        json!({"mode": "implicit", "ttl": "30m"})
    );
    // The parts joined are what `--format openai` on an older model sends
    // as `instructions`, the model's own fact aside.
    let joined: String = parts.iter().map(|p| p["text"].as_str().unwrap()).collect();
    let older =
        json(&Workspace::new().run(&["render", "--format", "openai", "--model", "gpt-5.5"]));
    assert_eq!(
        joined.replace("gpt-5.6", "gpt-5.5"),
        older["instructions"].as_str().unwrap()
    );
    assert!(older.get("prompt_cache_options").is_none(), "{older}");
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn gemini_format_is_an_implicit_caching_request() {
    let output = Workspace::new().run(&["render", "--format", "gemini"]);
    let body = json(&output);
    assert_eq!(
        body["systemInstruction"]["parts"].as_array().unwrap().len(),
        2
    );
    assert_eq!(body["generationConfig"]["maxOutputTokens"], 1024);
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn claude_cli_format_is_the_stable_system_prompt_and_the_user_prefix() {
    let ws = Workspace::new();
    let output = ws.run(&["render", "--format", "claude-cli"]);
    let placement = json(&output);
    let parts = json(&ws.run(&["render", "--format", "json"]));
    let (stable, dynamic) = (&parts["parts"][0]["content"], &parts["parts"][1]["content"]);
    // Only the stable prefix is the system prompt; the runtime facts travel
    // before the user's prompt.
    assert_eq!(
        placement["args"],
        serde_json::json!(["--system-prompt", stable])
    );
    let prefix = placement["user_prefix"].as_str().unwrap();
    assert!(prefix.contains(dynamic.as_str().unwrap()), "{prefix}");
    assert!(prefix.contains("- Date: 2026-11-29"));
    assert!(!stable.as_str().unwrap().contains("2026-11-29"));
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn a_char_budget_trims_only_the_dynamic_suffix() {
    let ws = Workspace::new();
    let full = json(&ws.run(&["render", "--format", "json"]));
    let stable = full["parts"][0]["content"].as_str().unwrap();
    let whole = stable.chars().count() + 2 + full["parts"][1]["content"].as_str().unwrap().len();
    let limit = stable.chars().count() + 250;
    assert!(limit < whole, "the budget must cut something");

    let output = ws.run(&[
        "render",
        "--format",
        "json",
        "--budget-chars",
        &limit.to_string(),
    ]);
    let trimmed = json(&output);
    assert_eq!(
        trimmed["parts"][0]["content"], stable,
        "the stable prefix is untouched"
    );
    let text = stdout(&ws.run(&["render", "--budget-chars", &limit.to_string()]));
    assert!(text.trim_end().chars().count() <= limit, "{text}");
    let budget = &trimmed["trace"]["budget"];
    assert_eq!(budget["budget"]["limit"], limit);
    assert!(budget["after"].as_u64().unwrap() <= limit as u64);
    assert!(!budget["shed"].as_array().unwrap().is_empty(), "{budget}");
}

#[test]
fn a_budget_below_the_stable_prefix_fails_with_one_line_naming_its_largest_layers() {
    for flag in ["--budget-chars", "--budget-tokens"] {
        let output = Workspace::new().run(&["render", flag, "50"]);
        assert_eq!(output.status.code(), Some(1), "{flag}");
        assert!(output.stdout.is_empty());
        let stderr = stderr(&output);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("prompt: the stable prefix alone measures"),
            "{stderr}"
        );
        assert!(
            stderr.contains("Largest stable layers: base_prompt ("),
            "{stderr}"
        );
    }
}

#[test]
fn a_budget_with_a_reference_agent_is_refused() {
    let output = run_here(&["render", "--agent", "aleph", "--budget-chars", "100"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("aleph sizes its own prompt"));
}

#[test]
fn the_tokenizer_changes_the_counts_in_the_trace() {
    let ws = Workspace::new();
    let count = |tokenizer: &str| {
        let trace =
            json(&ws.run(&["render", "--format", "json", "--tokenizer", tokenizer]))["trace"]
                .clone();
        (
            trace["tokenizer"].as_str().unwrap().to_owned(),
            trace["stable_tokens"].as_u64().unwrap(),
        )
    };
    let (approx_name, approx) = count("approx");
    let (o200k_name, o200k) = count("o200k");
    let (cl100k_name, _) = count("cl100k");
    assert_eq!(
        (
            approx_name.as_str(),
            o200k_name.as_str(),
            cl100k_name.as_str()
        ),
        ("approx", "o200k_base", "cl100k_base")
    );
    assert_ne!(approx, o200k);
    // Without --tokenizer the trace stays in bytes.
    let plain = json(&ws.run(&["render", "--format", "json"]));
    assert!(
        plain["trace"]
            .get("stable_tokens")
            .is_none_or(Value::is_null)
    );
}

#[test]
fn a_stable_prefix_below_the_models_minimum_is_warned_about() {
    let ws = Workspace::new();
    let output = ws.run(&["render", "--format", "anthropic", "--trace"]);
    let stderr = stderr(&output);
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("prompt: warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("below the 1024 tokens Claude Sonnet 4.5 caches at the least"),
        "{stderr}"
    );
    assert!(
        stderr.contains("  cache (claude-sonnet-4-5): stable prefix"),
        "{stderr}"
    );
    assert!(
        stderr.contains("minimum 1024: below it: nothing is cached"),
        "{stderr}"
    );

    // Long enough: no warning, and the trace says it is cacheable.
    ws.write(
        "AGENTS.md",
        &"Keep every public item documented.\n".repeat(150),
    );
    let output = ws.run(&["render", "--format", "anthropic", "--trace"]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(!stderr.contains("prompt: warning:"), "{stderr}");
    assert!(stderr.contains(": cacheable\n"), "{stderr}");
}

#[test]
fn cache_reports_each_turn_and_the_total_for_a_reference_agent() {
    let output = run_here(&[
        "cache",
        "--agent",
        "aleph",
        "--workspace",
        "fixtures/aleph",
        "--date",
        "2026-11-29",
        "--model",
        "claude-opus-5",
        "--turns",
        "10",
    ]);
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn cache_json_is_the_report_with_what_was_measured() {
    let args = [
        "cache",
        "--agent",
        "aleph",
        "--workspace",
        "fixtures/aleph",
        "--date",
        "2026-11-29",
        "--model",
        "claude-opus-5",
        "--turns",
        "10",
        "--json",
    ];
    let report = json(&run_here(&args));
    let stable = report["stable_tokens"].as_u64().unwrap();
    assert_eq!(report["pipeline"], "aleph");
    assert_eq!(report["tokenizer"], "approx");
    assert_eq!(report["minimum_tokens"], 512);
    assert_eq!(report["cached"], true);
    assert_eq!(report["multipliers"]["cache_write"], 1.25);
    assert_eq!(report["multipliers"]["cache_read"], 0.1);
    assert_eq!(report["total"]["cache_write"], stable);
    assert_eq!(report["total"]["cache_read"], 9 * stable);
    let dynamic: u64 = report["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uncached"].as_u64().unwrap())
        .sum();
    assert_eq!(report["uncached_cost"], 10 * stable + dynamic);
    // The cost is the tokens times the multipliers it printed.
    let total = &report["total"];
    let cost = total["cache_write"].as_f64().unwrap() * 1.25
        + total["cache_read"].as_f64().unwrap() * 0.1
        + total["uncached"].as_f64().unwrap();
    assert!(
        (total["cost"].as_f64().unwrap() - cost).abs() < 1e-6,
        "{total}"
    );
    // The measured figures the README quotes.
    assert_eq!((stable, dynamic), (997, 4360));
    // Sorted whatever serde_json's `preserve_order` (rig-core turns it on).
    let mut report = report;
    report.sort_all_objects();
    insta::assert_snapshot!(serde_json::to_string_pretty(&report).unwrap());
}

/// A growing history: each turn appends the reply and tool results, and
/// the report says what the cache reads of it against what it could read
/// (all but each turn's new part), beside the stable prefix alone.
#[test]
fn cache_reports_a_growing_history_against_its_limit() {
    let args = [
        "cache",
        "--agent",
        "aleph",
        "--workspace",
        "fixtures/aleph",
        "--date",
        "2026-11-29",
        "--model",
        "claude-opus-5",
        "--turns",
        "10",
        "--reply-tokens",
        "400",
        "--tool-result-tokens",
        "300",
    ];
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let report = json(&run_here(&with_json));
    let stable = report["stable_tokens"].as_u64().unwrap();
    let dynamic: Vec<u64> = report["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uncached"].as_u64().unwrap())
        .collect();
    // By hand: request t is the prefix, every earlier turn's dynamic part
    // with 700 appended tokens, and its own dynamic part; what could be
    // read of it is the previous request.
    let mut inputs = Vec::new();
    for t in 0..10 {
        let earlier: u64 = dynamic[..t].iter().sum::<u64>() + 700 * t as u64;
        inputs.push(stable + earlier + dynamic[t]);
    }
    let limit: u64 = inputs[..9].iter().sum();
    let history = &report["history"];
    assert_eq!(history["limit"], limit);
    assert_eq!(history["read"], limit);
    assert_eq!(history["read_share"], 1.0);
    assert_eq!(history["prefix_only_read"], 9 * stable);
    assert_eq!(
        history["prefix_only_share"].as_f64().unwrap(),
        (9 * stable) as f64 / limit as f64
    );
    let text = stdout(&run_here(&args));
    assert!(
        text.contains(&format!(
            "history kept as sent, breakpoint at its frontier: read {limit} = 100.0% of the readable"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "stable prefix only (earlier turns re-sent without their blocks): read {} = {:.1}% of the readable",
            9 * stable,
            (9 * stable) as f64 * 100.0 / limit as f64
        )),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

/// `prompt cache` on GPT-5.6 prices OpenAI's cache: a write 1.25x input,
/// a read 0.1x, OpenAI's minimum; Anthropic's `--ttl` is refused with it.
#[test]
fn cache_on_an_openai_model_prices_openai_writes() {
    let args = [
        "cache",
        "--agent",
        "aleph",
        "--workspace",
        "fixtures/aleph",
        "--date",
        "2026-11-29",
        "--model",
        "gpt-5.6",
        "--turns",
        "10",
        "--json",
    ];
    let report = json(&run_here(&args));
    let stable = report["stable_tokens"].as_u64().unwrap();
    assert_eq!(report["multipliers"]["cache_write"], 1.25);
    assert_eq!(report["multipliers"]["cache_read"], 0.1);
    assert_eq!(report["minimum_tokens"], 1024);
    assert_eq!(report["ttl"], "30m");
    // Aleph's 997 tokens are below OpenAI's 1,024: nothing is cached.
    assert_eq!(stable, 997);
    assert_eq!(report["cached"], false);
    assert_eq!(report["relative_cost"], 1.0);

    let mut with_ttl = args.to_vec();
    with_ttl.extend(["--ttl", "1h"]);
    let output = run_here(&with_ttl);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("leave --ttl out"), "{stderr}");

    let output = run_here(&["cache", "--turns", "1", "--model", "gpt-4o"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("such as gpt-5.6"), "{stderr}");
}

#[test]
fn bust_at_writes_the_prefix_again_at_that_turn_and_names_the_layer() {
    let mut args = vec![
        "cache",
        "--agent",
        "aleph",
        "--workspace",
        "fixtures/aleph",
        "--date",
        "2026-11-29",
        "--model",
        "claude-opus-5",
        "--turns",
        "6",
        "--bust-at",
        "4",
    ];
    let text = stdout(&run_here(&args));
    assert!(
        text.contains("turn 4: Stable layer `soul` changed (simulated)"),
        "{text}"
    );
    args.push("--json");
    let report = json(&run_here(&args));
    let stable = report["stable_tokens"].as_u64().unwrap();
    let writes: Vec<u64> = report["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["cache_write"].as_u64().unwrap())
        .collect();
    assert_eq!(writes, [stable, 0, 0, stable, 0, 0]);
    assert_eq!(report["bust_layer"], "soul");
    assert_eq!(report["bust_at"], 4);
}

#[test]
fn cache_below_the_minimum_bills_everything_as_input() {
    let output = Workspace::new().run(&["cache", "--turns", "3", "--json"]);
    let report = json(&output);
    assert_eq!(report["pipeline"], "standard");
    assert_eq!(report["cached"], false);
    assert_eq!(report["total"]["cache_read"], 0);
    assert_eq!(report["relative_cost"], 1.0);
}

#[test]
fn the_tokenizer_changes_the_cache_counts() {
    let count = |tokenizer: &str| {
        let ws = Workspace::new();
        json(&ws.run(&["cache", "--turns", "1", "--json", "--tokenizer", tokenizer]))
            ["stable_tokens"]
            .as_u64()
            .unwrap()
    };
    assert_ne!(count("approx"), count("o200k"));
}

#[test]
fn usage_errors_exit_2() {
    let ws = Workspace::new();
    for args in [
        &["render", "--format", "xml"][..],
        &["render", "--tokenizer", "bpe"],
        &["render", "--budget-chars", "100", "--budget-tokens", "100"],
        &["render", "--ttl", "2h"],
        &["cache"],
        &["cache", "--turns", "0"],
        &["cache", "--turns", "3", "--bust-at", "0"],
        &["cache", "--turns", "3", "--bust-at", "4"],
    ] {
        let output = ws.run(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

/// Aleph over seven turns with idle time between them, on `model`: the
/// issue's gaps, then two of 10 minutes (one ping cannot reach those; two can).
fn keep_alive_args<'a>(model: &'a str, tail: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "cache",
        "--agent",
        "aleph",
        "--workspace",
        "fixtures/aleph",
        "--date",
        "2026-11-29",
        "--model",
        model,
        "--turns",
        "7",
        "--gaps",
        "2m,6m,30s,6m,10m,10m",
    ];
    args.extend(tail);
    args
}

/// `prompt cache --gaps` prints the session with and without keep-alive at
/// the model's own prices: Sonnet 4.5 reads at 0.1x, Fable 5.2 at 0.025x.
/// The policy decides the same pings for both here; a cheaper read makes
/// the same pings cheaper, so the net saving is larger.
#[test]
fn cache_prints_the_keep_alive_comparison_for_two_models() {
    let mut nets = Vec::new();
    for (model, read) in [("claude-sonnet-4-5", 0.1), ("claude-fable-5-2", 0.025)] {
        let report = json(&run_here(&keep_alive_args(model, &["--json"])));
        let keep = &report["keep_alive"];
        assert_eq!(keep["ping_pricing"]["read"], read, "{model}");
        let outcome: Vec<(bool, u64, Value, bool)> = keep["gaps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                (
                    g["lapsed_without"].as_bool().unwrap(),
                    g["pings"].as_u64().unwrap(),
                    g["declined"]["reason"].clone(),
                    g["lapsed_with"].as_bool().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            outcome,
            [
                (false, 0, Value::Null, false),
                // Only a 2-minute gap seen: a ping at 4.5 is past it.
                (true, 0, json!("past_longest_gap"), true),
                (false, 0, Value::Null, false),
                // A 6-minute gap seen: one ping at 4.5 keeps it.
                (true, 1, Value::Null, false),
                // 10 minutes, longer than any seen: the first ping goes,
                // the second would be past the longest gap.
                (true, 1, json!("past_longest_gap"), true),
                // A 10-minute gap seen: two pings, 4.5 and 9 minutes.
                (true, 2, Value::Null, false),
            ],
            "{model}"
        );
        let usd = |key: &str| keep[key].as_f64().unwrap();
        assert!((usd("cost_without_usd") - usd("cost_with_usd") - usd("net_usd")).abs() < 1e-12);
        assert!(usd("net_usd") > 0.0, "{model}");
        nets.push(usd("net_usd"));
        let text = stdout(&run_here(&keep_alive_args(model, &[])));
        let from = text.find("keep-alive over 6 gaps").expect(&text);
        insta::assert_snapshot!(format!("cache_keep_alive_{model}"), &text[from..]);
    }
    assert!(nets[1] > nets[0], "cheaper reads save more: {nets:?}");
}

/// Turns an hour apart: every ping would land in a window no turn has
/// reached, so the policy declines each one and says why, and keep-alive
/// changes nothing.
#[test]
fn cache_says_when_keep_alive_declines() {
    let args = [
        "cache",
        "--agent",
        "aleph",
        "--workspace",
        "fixtures/aleph",
        "--date",
        "2026-11-29",
        "--model",
        "claude-sonnet-4-5",
        "--turns",
        "4",
        "--idle",
        "1h",
    ];
    let text = stdout(&run_here(&args));
    assert!(text.contains("declined not_worth_it x2"), "{text}");
    assert!(text.contains("0 ping(s) sent"), "{text}");
    assert!(text.ends_with("net: no difference\n"), "{text}");
    let from = text.find("keep-alive over 3 gaps").expect(&text);
    insta::assert_snapshot!(&text[from..]);
}

/// Gaps a person could mistype or a script could forge: each is refused at
/// parsing, by the option's name, with the value escaped; never a panic.
#[test]
fn cache_refuses_hostile_gaps_by_option_name() {
    let base = [
        "cache",
        "--agent",
        "aleph",
        "--workspace",
        "fixtures/aleph",
        "--turns",
        "4",
    ];
    for (tail, expected) in [
        (
            &["--gaps", "99999999h"][..],
            "error: --gaps: gap 1: `99999999h` is longer than 30 days",
        ),
        (
            &["--gaps", "2m,-5m"],
            "error: --gaps: gap 2: `-5m` is not an idle time",
        ),
        (
            &["--idle", "184467440737095516150s"],
            "error: --idle: `184467440737095516150s` is longer than 30 days",
        ),
        (
            &["--idle", "6m\x1b[2J"],
            "error: --idle: `6m\\u{1b}[2J` is not an idle time",
        ),
        (
            &["--gaps", "2m,6m"],
            "prompt: --gaps lists 2 gaps, and --turns 4 has 3",
        ),
        (
            &["--gaps", "1m,1m,1m,1m"],
            "prompt: --gaps lists 4 gaps, and --turns 4 has 3",
        ),
    ] {
        let mut args = base.to_vec();
        args.extend(tail);
        let output = run_here(&args);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{tail:?}: {err}");
        assert!(err.starts_with(expected), "{tail:?}: {err}");
        assert!(!err.contains("panicked") && !err.contains('\x1b'), "{err}");
        assert!(output.stdout.is_empty());
    }
}
