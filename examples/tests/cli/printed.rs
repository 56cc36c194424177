//! One escape for everything printed: every subcommand, in every output it
//! offers (text, `--json`, `--html`, every `render --format`), over inputs
//! holding the characters that drive a terminal or hide text (C1's CSI, OSC
//! and ST, DEL, ESC, bidi overrides and isolates, zero-width characters, the
//! line separator), prints none of them raw, on stdout, on stderr or in the
//! page it writes; and the JSON it prints escapes them as `\uXXXX`, so it
//! parses back to the text it was given.

use std::process::Output;

use serde_json::{Value, json};

use crate::common::{self, Workspace};
use crate::explain::{assistant_entry, recorded_log, request_entry, shape_entry};

/// Every class of character no output may carry raw.
const HOSTILE: &str = "x\u{9b}31m\u{9d}0;t\u{9c}\u{7f}\u{202e}\u{2066}\u{2028}\u{200b}\u{1b}[2J";

/// A character that must never be printed raw: a control character (C0,
/// DEL, C1) but the line breaks and tabs any multi-line output carries, an
/// invisible one, a line or paragraph separator. Spelled out here, not
/// taken from the escape under test.
fn raw(text: &str) -> Option<char> {
    text.chars().find(|&c| {
        (c.is_control() && !matches!(c, '\n' | '\t'))
            || prompt_core::text::is_invisible(c)
            || matches!(c, '\u{2028}' | '\u{2029}')
    })
}

/// The problems of one run: a raw character on either stream, a panic.
fn problems(what: &str, output: &Output) -> Vec<String> {
    let mut found = Vec::new();
    for (stream, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        if let Some(c) = raw(&text) {
            found.push(format!(
                "`prompt {what}` printed U+{:04X} raw on {stream}: {}",
                c as u32,
                text.escape_debug()
            ));
        }
        if text.contains("panicked at") {
            found.push(format!("`prompt {what}` panicked: {}", text.escape_debug()));
        }
    }
    found
}

/// The workspace: an AGENTS.md, a skill and a memory file holding
/// [`HOSTILE`] (one in its folder's name), a ledger log whose model,
/// conversation, layer, line and reason hold it, a Claude Code transcript
/// whose request ids and model hold it, a per-turn hook's options, and two
/// `render --format json` outputs whose layer name and line hold it.
fn hostile() -> Workspace {
    let ws = Workspace::empty(&[]);
    ws.write(
        "AGENTS.md",
        &format!("# Rules {HOSTILE}\n\nRun the tests.{HOSTILE}\nKeep commits small.\n"),
    );
    ws.write(
        &format!(".agent/skills/s{HOSTILE}/SKILL.md"),
        &format!("---\nname: s{HOSTILE}\ndescription: d{HOSTILE}\n---\nBody {HOSTILE}\n"),
    );
    ws.write(".agent/memory/project.md", &format!("Remember {HOSTILE}\n"));

    // The ledger's log: every text field of a line.
    let log: String = recorded_log()
        .lines()
        .map(|line| {
            let mut line: Value = serde_json::from_str(line).unwrap();
            line["model"] = json!(format!("m{HOSTILE}"));
            line["conversation"] = json!(format!("c{HOSTILE}"));
            if line["cause"].is_object() {
                for field in ["layer", "line", "reason", "a", "b", "theirs", "note"] {
                    if line["cause"].get(field).is_some_and(Value::is_string) {
                        line["cause"][field] = json!(format!("{field}{HOSTILE}"));
                    }
                }
                line["cause"]["layer"] = json!(format!("layer{HOSTILE}"));
                if line["cause"]["line"].is_object() {
                    line["cause"]["line"]["before"] = json!(format!("before{HOSTILE}"));
                    line["cause"]["line"]["after"] = json!(format!("after{HOSTILE}"));
                    line["cause"]["reads"] = json!([format!("read{HOSTILE}")]);
                }
            }
            format!("{line}\n")
        })
        .collect();
    assert!(
        log.contains("layerx\u{9b}") && log.contains("after"),
        "{log}"
    );
    ws.write("cache.jsonl", &log);

    // A Claude Code transcript.
    let tools =
        json!([{"name": "Read", "description": "Read.", "input_schema": {"type": "object"}}]);
    let mut entries = vec![
        shape_entry("h-1", &format!("Prefix {HOSTILE}"), tools.clone()),
        request_entry(
            &format!("r1{HOSTILE}"),
            "2026-11-29T09:00:00.000Z",
            "h-1",
            &["m1"],
        ),
        assistant_entry(
            &format!("r1{HOSTILE}"),
            "msg_1",
            "2026-11-29T09:00:02.000Z",
            (3, 0, 4200),
        ),
        shape_entry("h-2", &format!("Prefix {HOSTILE} changed"), tools),
        request_entry(
            &format!("r2{HOSTILE}"),
            "2026-11-29T09:01:00.000Z",
            "h-2",
            &["m1"],
        ),
        assistant_entry(
            &format!("r2{HOSTILE}"),
            "msg_2",
            "2026-11-29T09:01:02.000Z",
            (3, 0, 4300),
        ),
    ];
    for entry in &mut entries {
        if entry["params"].is_object() {
            entry["params"]["model"] = json!(format!("claude{HOSTILE}"));
        }
    }
    ws.write(
        "session.jsonl",
        &entries.iter().map(|e| format!("{e}\n")).collect::<String>(),
    );

    // The per-turn hook's options, as `prompt exec --workspace .` records them.
    let cwd = ws.dir.path().canonicalize().unwrap();
    ws.write(
        "turn.json",
        &json!({"client": "claude", "cwd": cwd, "options": {
            "workspace": {"workspace": ".", "cwd": null, "app": "agent", "home": null,
                "nested_docs": false, "shared": null, "prompt_path": [], "sub_agents": [],
                "pipeline": "standard", "agent": null, "settings": [], "fixture": false,
                "date": "2026-11-29", "model": null},
            "path": "cached", "mode": null,
            "delivery": {"budget_chars": null, "budget_tokens": null, "tokenizer": null,
                "max_tokens": 1024, "ttl": "5m", "message": format!("hello {HOSTILE}")},
            "trace": false, "check_secrets": false}})
        .to_string(),
    );

    // Two renderings for `diff`: a hostile layer name, a hostile line.
    let render = ws.run(&["render", "--format", "json"]);
    assert!(
        render.status.success(),
        "{}",
        String::from_utf8_lossy(&render.stderr)
    );
    let clean: Value = serde_json::from_slice(&render.stdout).unwrap();
    let mut named = clean.clone();
    named["trace"]["layers"][0]["name"] = json!(format!("base{HOSTILE}"));
    let mut changed = clean.clone();
    let content = changed["parts"][0]["content"].as_str().unwrap().to_owned();
    let new = content.replacen("Keep commits", &format!("Keep{HOSTILE}"), 1);
    assert_ne!(new, content, "the fixture holds the line");
    let grown = (new.len() - content.len()) as u64;
    changed["parts"][0]["content"] = json!(new);
    let layers = changed["trace"]["layers"].as_array_mut().unwrap();
    let docs = layers
        .iter_mut()
        .find(|l| l["name"] == "project_context")
        .unwrap();
    docs["bytes"] = json!(docs["bytes"].as_u64().unwrap() + grown);
    for (name, value) in [("a.json", &clean), ("b.json", &named), ("c.json", &changed)] {
        ws.write(name, &serde_json::to_string(value).unwrap());
    }
    ws
}

/// Issue 48: every subcommand, every output. Before the escape was one,
/// `explain --json` (and every other `--json`) printed C1, DEL, bidi and
/// invisible characters and U+2028 raw, as `serde_json` escapes only C0.
#[test]
fn no_subcommand_prints_a_terminal_control_or_a_hidden_character_in_any_output() {
    let ws = hostile();
    let dir = ws.dir.path();
    let run = |args: &[&str]| {
        common::command(args, ws.home.path())
            .current_dir(dir)
            .output()
            .unwrap()
    };
    let workspace = ["--workspace", ".", "--date", "2026-11-29"];
    let with = |head: &[&str], tail: &[&str]| -> Vec<String> {
        head.iter()
            .chain(&workspace)
            .chain(tail)
            .map(|s| (*s).to_owned())
            .collect()
    };

    let mut commands: Vec<Vec<String>> = Vec::new();
    for (format, _) in prompt_cli::__private::render_formats() {
        for path in ["cached", "basic"] {
            commands.push(with(
                &["render"],
                &["--format", &format, "--path", path, "--trace"],
            ));
        }
    }
    commands.push(with(&["render", "--check-secrets"], &[]));
    commands.push(with(&["size"], &[]));
    commands.push(with(&["size"], &["--json", "--tokenizer", "approx"]));
    commands.push(with(&["size"], &["--html", "size.html", "--turns", "2"]));
    commands.push(with(&["cache"], &["--turns", "2"]));
    commands.push(with(&["cache"], &["--turns", "2", "--json"]));
    commands.push(with(&["cache"], &["--users", "2"]));
    commands.push(with(&["cache"], &["--users", "2", "--json"]));
    commands.push(with(&["lint"], &[]));
    for tail in [&[][..], &["--json"], &["--html", "explain.html"]] {
        let mut args = vec!["explain", "cache.jsonl"];
        args.extend(tail);
        commands.push(args.iter().map(|s| (*s).to_owned()).collect());
        let mut args = vec!["explain", "--claude", "session.jsonl"];
        args.extend(tail);
        commands.push(args.iter().map(|s| (*s).to_owned()).collect());
        let mut args = vec![
            "explain",
            "--claude",
            "session.jsonl",
            "--turn",
            "turn.json",
        ];
        args.extend(tail);
        commands.push(args.iter().map(|s| (*s).to_owned()).collect());
    }
    for pair in [
        ["a.json", "b.json"],
        ["b.json", "c.json"],
        ["a.json", "c.json"],
    ] {
        commands.push(vec!["diff".into(), pair[0].into(), pair[1].into()]);
    }
    commands.push(vec!["turn".into(), "--from".into(), "turn.json".into()]);
    commands.push(vec!["manifest".into(), "--all".into()]);
    // Errors name what they were given: a file that is not there.
    commands.push(vec![
        "diff".into(),
        format!("no{HOSTILE}.json"),
        "a.json".into(),
    ]);
    commands.push(vec!["explain".into(), format!("no{HOSTILE}.jsonl")]);

    let mut found = Vec::new();
    let mut printed_json = 0;
    // How many runs printed the planted text (escaped): the sweep reaches it.
    let mut reached = 0;
    for args in &commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = run(&args);
        let what = args.join(" ").escape_debug().to_string();
        found.extend(problems(&what, &output));
        let shown = [&output.stdout, &output.stderr]
            .iter()
            .map(|bytes| String::from_utf8_lossy(bytes))
            .any(|text| text.contains(r"\u{9b}") || text.contains(r"\u009b"));
        reached += usize::from(shown);
        // Every JSON document printed is still JSON.
        if args.contains(&"--json") || args.windows(2).any(|w| w == ["--format", "json"]) {
            assert!(
                output.status.success(),
                "{what}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            serde_json::from_slice::<Value>(&output.stdout)
                .unwrap_or_else(|e| panic!("`prompt {what}` printed no JSON: {e}"));
            printed_json += 1;
        }
    }
    for page in ["size.html", "explain.html"] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap();
        if let Some(c) = raw(&text) {
            found.push(format!("{page} holds U+{:04X} raw", c as u32));
        }
    }
    assert!(
        found.is_empty(),
        "{} problems in {} runs:\n{}",
        found.len(),
        commands.len(),
        found.join("\n")
    );
    assert!(printed_json >= 6, "{printed_json} JSON outputs");
    assert!(
        reached >= 25,
        "only {reached} runs printed the planted text"
    );
}

/// The bug report's case: `explain --json` over a log whose text fields hold
/// the hostile characters prints each as `\uXXXX`, and the document parses
/// back to the very strings the log held.
#[test]
fn explain_json_escapes_c1_and_bidi_and_round_trips_to_the_logged_text() {
    let ws = hostile();
    let output = common::command(&["explain", "cache.jsonl", "--json"], ws.home.path())
        .current_dir(ws.dir.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(raw(&stdout), None, "{stdout}");
    assert!(
        stdout.contains(r"mx\u009b31m\u009d0;t\u009c\u007f\u202e\u2066\u2028\u200b\u001b[2J"),
        "{stdout}"
    );
    let value: Value = serde_json::from_str(&stdout).unwrap();
    let verdicts = value["verdicts"].as_array().unwrap();
    assert!(!verdicts.is_empty());
    for verdict in verdicts {
        assert_eq!(verdict["model"], json!(format!("m{HOSTILE}")), "{verdict}");
        assert_eq!(
            verdict["conversation"],
            json!(format!("c{HOSTILE}")),
            "{verdict}"
        );
    }
    assert!(
        verdicts
            .iter()
            .any(|v| v["cause"]["layer"] == json!(format!("layer{HOSTILE}"))),
        "{stdout}"
    );
}
