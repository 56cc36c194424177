//! `prompt exec`, end to end against a fake client: a shell script named
//! `claude` or `codex` that records its arguments, its stdin and an
//! environment variable, then exits with a chosen code. No real client runs
//! here (`tests/real-clients/run.sh` does that, opt-in).

#![cfg(unix)]

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

// Only `command` is used here; `Workspace` appends its options after `--`.
use crate::common;

/// The recording client: argv NUL-separated in `$FAKE_OUT/argv`, stdin in
/// `$FAKE_OUT/stdin`, `$FAKE_ENV` in `$FAKE_OUT/env`; exits `$FAKE_EXIT`.
const FAKE: &str = r#"#!/bin/sh
out="$FAKE_OUT"
: > "$out/argv"
for arg in "$@"; do printf '%s\0' "$arg" >> "$out/argv"; done
cat > "$out/stdin"
printf '%s' "$FAKE_ENV" > "$out/env"
printf '%s' "$GEMINI_SYSTEM_MD" > "$out/gemini_system_md"
echo "fake client ran"
exit "${FAKE_EXIT:-0}"
"#;

/// A temporary home, cache, record folder and a fake client under `name`.
struct Fake {
    dir: tempfile::TempDir,
    client: PathBuf,
}

impl Fake {
    fn new(name: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["home", "cache", "out", "bin"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        let client = dir.path().join("bin").join(name);
        std::fs::write(&client, FAKE).unwrap();
        std::fs::set_permissions(&client, std::fs::Permissions::from_mode(0o755)).unwrap();
        Self { dir, client }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// `prompt exec --agent aleph --date DATE <before> -- CLIENT <args>`,
    /// with `stdin` piped in (or none: an empty stdin).
    fn run(&self, date: &str, before: &[&str], args: &[&str], stdin: Option<&str>) -> Output {
        let mut options = vec!["--agent", "aleph", "--date", date];
        options.extend(before);
        self.run_with(&options, args, stdin, Path::new(env!("CARGO_MANIFEST_DIR")))
    }

    /// `prompt exec <options> -- CLIENT <args>`, run in `cwd`.
    fn run_with(&self, options: &[&str], args: &[&str], stdin: Option<&str>, cwd: &Path) -> Output {
        spawn_with(self.command(options, args, cwd), stdin)
    }

    /// The command [`Fake::run_with`] runs.
    fn command(&self, options: &[&str], args: &[&str], cwd: &Path) -> Command {
        let mut all = vec!["exec"];
        all.extend(options);
        all.push("--");
        let client = self.client.to_str().unwrap().to_owned();
        all.push(&client);
        all.extend(args);
        let mut command = common::command(&all, &self.path("home"));
        command
            .current_dir(cwd)
            .env("XDG_CACHE_HOME", self.path("cache"))
            .env("FAKE_OUT", self.path("out"))
            .env("FAKE_ENV", "kept")
            // `~/.claude` is the test's home, never the machine's.
            .env_remove("CLAUDE_CONFIG_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn argv(&self) -> Vec<String> {
        let raw = std::fs::read_to_string(self.path("out/argv")).unwrap();
        raw.split_terminator('\0').map(str::to_owned).collect()
    }

    fn stdin(&self) -> String {
        std::fs::read_to_string(self.path("out/stdin")).unwrap()
    }

    fn ran(&self) -> bool {
        self.path("out/argv").exists()
    }

    fn codex_dir(&self) -> PathBuf {
        self.path("cache/prompt/codex")
    }
}

fn spawn_with(mut command: Command, stdin: Option<&str>) -> Output {
    let mut child = command.spawn().expect("the prompt binary runs");
    let mut pipe = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        pipe.write_all(text.as_bytes()).unwrap();
    }
    drop(pipe);
    child.wait_with_output().unwrap()
}

/// `command` with an empty stdin, killed (and the test failed) if it runs
/// longer than `limit`: a read that blocks is a failure, not a hang.
fn spawn_within(mut command: Command, limit: std::time::Duration) -> Output {
    let mut child = command.spawn().expect("the prompt binary runs");
    drop(child.stdin.take());
    let started = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("`prompt exec` still ran after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// What `prompt render --agent aleph --date DATE --format json` says the
/// prompt's stable prefix and dynamic suffix are.
fn rendered(date: &str) -> (String, String) {
    let home = tempfile::tempdir().unwrap();
    let output = common::command(
        &[
            "render", "--agent", "aleph", "--date", date, "--format", "json",
        ],
        home.path(),
    )
    .current_dir(env!("CARGO_MANIFEST_DIR"))
    .output()
    .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let part = |i: usize| json["parts"][i]["content"].as_str().unwrap().to_owned();
    (part(0), part(1))
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The path in `-c model_instructions_file="PATH"`.
fn instructions_path(argv: &[String]) -> PathBuf {
    let at = argv.iter().position(|a| a == "-c").expect("a -c argument");
    let value = argv[at + 1]
        .strip_prefix("model_instructions_file=\"")
        .and_then(|v| v.strip_suffix('"'))
        .expect("the instructions file override");
    PathBuf::from(value)
}

/// The files `exec` handed Claude Code: the system prompt file after
/// `--system-prompt-file`, the settings file after `--settings`.
fn claude_files(argv: &[String]) -> (PathBuf, serde_json::Value) {
    assert_eq!(argv[0], "--system-prompt-file", "{argv:?}");
    assert_eq!(argv[2], "--settings", "{argv:?}");
    let settings = std::fs::read_to_string(&argv[3]).unwrap();
    (
        PathBuf::from(&argv[1]),
        serde_json::from_str(&settings).unwrap(),
    )
}

/// The command of the last `UserPromptSubmit` hook in `settings`.
fn hook_command(settings: &serde_json::Value) -> String {
    let hooks = settings["hooks"]["UserPromptSubmit"].as_array().unwrap();
    let last = hooks.last().unwrap()["hooks"].as_array().unwrap();
    assert_eq!(last[0]["type"], "command");
    last[0]["command"].as_str().unwrap().to_owned()
}

/// Runs a hook command as Claude Code does (`sh -c`, the turn's JSON on
/// stdin, in another folder) and returns its exit code, the
/// `additionalContext` it printed (empty when none) and its stderr.
fn run_hook(command: &str, home: &Path) -> (Option<i32>, String, String) {
    let mut hook = Command::new("sh");
    hook.args(["-c", command])
        .current_dir(home)
        .env("HOME", home)
        .env("TZ", "UTC")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let output = spawn_with(
        hook,
        Some(r#"{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"Hi"}"#),
    );
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    let context = if stdout.trim().is_empty() {
        String::new()
    } else {
        let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(
            json["hookSpecificOutput"]["hookEventName"],
            "UserPromptSubmit"
        );
        json["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    (output.status.code(), context, stderr(&output))
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn claude_reads_the_stable_prefix_from_a_private_file_and_every_turn_from_the_hook() {
    let fake = Fake::new("claude");
    let (stable, dynamic) = rendered("2026-11-29");
    assert!(
        dynamic.contains("2026-11-29"),
        "the fixture states the date: {dynamic}"
    );
    let output = fake.run(
        "2026-11-29",
        &[],
        &[
            "--model",
            "opus",
            "-p",
            "Fix the test.",
            "--output-format",
            "json",
        ],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "fake client ran\n");
    let argv = fake.argv();
    let (system, settings) = claude_files(&argv);
    // The stable prefix byte for byte: no newline added.
    assert_eq!(std::fs::read(&system).unwrap(), stable.as_bytes());
    assert_eq!(system.parent().unwrap(), fake.path("cache/prompt/claude"));
    assert_eq!(mode(&system), 0o600);
    assert_eq!(mode(system.parent().unwrap()), 0o700);
    assert_eq!(mode(Path::new(&argv[3])), 0o600);
    // The user's arguments follow untouched, the prompt included.
    assert_eq!(
        argv[4..],
        [
            "--model",
            "opus",
            "-p",
            "Fix the test.",
            "--output-format",
            "json"
        ]
    );
    // The hook runs this very binary, with a turn file exec wrote.
    let command = hook_command(&settings);
    assert!(
        command.starts_with(&format!("'{}' turn --from '", env!("CARGO_BIN_EXE_prompt"))),
        "{command}"
    );
    let (code, context, err) = run_hook(&command, &fake.path("home"));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        context.starts_with("The system prompt continues here"),
        "{context}"
    );
    assert!(context.ends_with(&dynamic), "{context}");
    assert!(!stable.contains("2026-11-29"));
    // The environment passes through.
    assert_eq!(
        std::fs::read_to_string(fake.path("out/env")).unwrap(),
        "kept"
    );
}

#[test]
fn another_date_changes_the_hooks_context_and_not_the_system_prompt_file() {
    let fake = Fake::new("claude");
    fake.run("2026-11-29", &[], &["-p", "Hi"], None);
    let first = fake.argv();
    fake.run("2026-12-24", &[], &["-p", "Hi"], None);
    let second = fake.argv();
    assert_eq!(first[1], second[1]);
    let (_, settings) = claude_files(&second);
    let (_, context, _) = run_hook(&hook_command(&settings), &fake.path("home"));
    assert!(context.contains("2026-12-24"), "{context}");
}

#[test]
fn each_turn_renders_the_workspace_as_it_is_then() {
    let fake = Fake::new("claude");
    let ws = fake.path("ws");
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/master\n").unwrap();
    std::fs::write(ws.join("AGENTS.md"), "# Rules\n\nRun the tests.\n").unwrap();
    // A relative --workspace: the hook resolves it from where exec ran.
    let output = fake.run_with(&["--workspace", "ws"], &[], None, &fake.path(""));
    assert!(output.status.success(), "{}", stderr(&output));
    let argv = fake.argv();
    assert_eq!(argv.len(), 4, "no arguments of the user's: {argv:?}");
    let (system, settings) = claude_files(&argv);
    let command = hook_command(&settings);
    let (_, turn1, _) = run_hook(&command, &fake.path("home"));
    assert!(turn1.contains("Git branch: master"), "{turn1}");
    std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/feature-x\n").unwrap();
    let (_, turn2, _) = run_hook(&command, &fake.path("home"));
    assert!(turn2.contains("Git branch: feature-x"), "{turn2}");
    let system = std::fs::read_to_string(system).unwrap();
    assert!(system.contains("Run the tests.") && !system.contains("Git branch"));
}

#[test]
fn claude_options_exec_never_heard_of_and_stdin_pass_through_untouched() {
    let fake = Fake::new("claude");
    let args = [
        "--brand-new-flag",
        "value",
        "-Z",
        "Hi there",
        "--",
        "--system-prompt",
    ];
    let output = fake.run("2026-11-29", &[], &args, Some("piped data\n"));
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(fake.argv()[4..], args);
    assert_eq!(fake.stdin(), "piped data\n");
    // A prompt far over the OS's 128 KiB argument limit with the context
    // would have been refused before; the context no longer rides in argv.
    let long = "x".repeat(130_000);
    let output = fake.run("2026-11-29", &[], &["-p", &long], None);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(fake.argv()[5], long);
}

#[test]
fn a_large_stable_prefix_goes_byte_exact_in_its_file_not_in_argv() {
    let fake = Fake::new("claude");
    let ws = fake.path("ws");
    std::fs::create_dir_all(ws.join("prompts")).unwrap();
    let line = "Keep every line short and every name plain.\n";
    std::fs::write(ws.join("prompts/system-prompt.md"), line.repeat(1_400)).unwrap();
    for doc in ["AGENTS.md", "CLAUDE.md"] {
        std::fs::write(ws.join(doc), format!("# {doc}\n\n{}", line.repeat(360))).unwrap();
    }
    let ws = ws.to_str().unwrap();
    let options = ["--workspace", ws, "--prompt-path", "prompts"];
    let output = fake.run_with(&options, &["-p", "Hi"], None, &fake.path("ws"));
    assert!(output.status.success(), "{}", stderr(&output));
    let argv = fake.argv();
    let (system, _) = claude_files(&argv);
    let text = std::fs::read_to_string(system).unwrap();
    assert!(text.len() > 90_000, "{}", text.len());
    assert!(text.contains("# CLAUDE.md") && !text.ends_with('\n'));
    assert!(
        argv.iter().all(|a| a.len() < 1_000),
        "the prompt stays out of argv"
    );
}

#[test]
fn the_users_own_settings_are_merged_with_the_hook_not_replaced() {
    let fake = Fake::new("claude");
    let mine = fake.path("mine.json");
    std::fs::write(
        &mine,
        r#"{"model": "opus", "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}}"#,
    )
    .unwrap();
    let output = fake.run(
        "2026-11-29",
        &[],
        &["--settings", mine.to_str().unwrap(), "-p", "Hi"],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let argv = fake.argv();
    assert_eq!(
        argv[4..],
        ["-p", "Hi"],
        "one --settings: Claude Code keeps the last"
    );
    let (_, settings) = claude_files(&argv);
    assert_eq!(settings["model"], "opus");
    let hooks = settings["hooks"]["UserPromptSubmit"].as_array().unwrap();
    assert_eq!(hooks.len(), 2);
    assert_eq!(hooks[0]["hooks"][0]["command"], "echo mine");
    assert!(hook_command(&settings).contains(" turn --from "));
}

#[test]
fn a_wider_cache_folder_is_narrowed_and_files_are_private_under_any_umask() {
    let fake = Fake::new("claude");
    let dir = fake.path("cache/prompt/claude");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("umask 000; exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_prompt"))
        .args(["exec", "--agent", "aleph", "--date", "2026-11-29", "--"])
        .arg(&fake.client)
        .args(["-p", "Hi"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("HOME", fake.path("home"))
        .env("XDG_CACHE_HOME", fake.path("cache"))
        .env("FAKE_OUT", fake.path("out"))
        .stdin(Stdio::null());
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(mode(&dir), 0o700);
    for name in files(&dir) {
        assert_eq!(mode(&dir.join(&name)), 0o600, "{name}");
    }
    assert_eq!(files(&dir).len(), 3, "{:?}", files(&dir));
}

#[test]
fn check_secrets_refuses_a_turn_whose_context_gained_a_key() {
    let fake = Fake::new("claude");
    let ws = fake.path("ws");
    std::fs::create_dir_all(ws.join(".agent")).unwrap();
    let pad = ws.join(".agent/scratchpad.json");
    std::fs::write(&pad, r#"{"plan": "1. fix the login"}"#).unwrap();
    let ws = ws.to_str().unwrap();
    let output = fake.run_with(
        &["--workspace", ws, "--check-secrets"],
        &[],
        None,
        &fake.path(""),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let (_, settings) = claude_files(&fake.argv());
    let command = hook_command(&settings);
    let (code, context, _) = run_hook(&command, &fake.path("home"));
    assert_eq!(code, Some(0));
    assert!(context.contains("fix the login"), "{context}");
    let key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345";
    std::fs::write(&pad, format!(r#"{{"plan": "use {key}"}}"#)).unwrap();
    let (code, context, err) = run_hook(&command, &fake.path("home"));
    // 2: Claude Code blocks the prompt and shows why.
    assert_eq!(code, Some(2), "{err}");
    assert!(context.is_empty());
    assert!(
        err.contains("credential-shaped") && !err.contains(key),
        "{err}"
    );
}

#[test]
fn a_broken_turn_file_fails_the_hook_with_exit_1_and_a_reason() {
    let fake = Fake::new("claude");
    fake.run("2026-11-29", &[], &["-p", "Hi"], None);
    let (_, settings) = claude_files(&fake.argv());
    let command = hook_command(&settings);
    let turn_file = command.rsplit('\'').nth(1).unwrap().to_owned();
    std::fs::write(&turn_file, "not json").unwrap();
    let (code, context, err) = run_hook(&command, &fake.path("home"));
    // 1, not 2: Claude Code goes on with the turn rather than blocking it.
    assert_eq!(code, Some(1));
    assert!(context.is_empty());
    assert!(err.contains("is not one prompt exec wrote"), "{err}");
}

#[test]
fn the_clients_exit_code_is_returned() {
    let fake = Fake::new("claude");
    let mut command = common::command(
        &[
            "exec",
            "--agent",
            "aleph",
            "--date",
            "2026-11-29",
            "--",
            fake.client.to_str().unwrap(),
            "-p",
            "Hi",
        ],
        &fake.path("home"),
    );
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("FAKE_OUT", fake.path("out"))
        .env("FAKE_EXIT", "7");
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(7), "{}", stderr(&output));
}

#[test]
fn arguments_that_fight_the_placement_are_refused_before_the_client_runs() {
    let fake = Fake::new("claude");
    for args in [
        &["--system-prompt", "mine", "-p", "Hi"][..],
        &["--append-system-prompt=mine", "-p", "Hi"],
        &["--system-prompt-file", "x.md", "-p", "Hi"],
    ] {
        let output = fake.run("2026-11-29", &[], args, None);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&output).contains("put that text in a layer"),
            "{}",
            stderr(&output)
        );
        assert!(!fake.ran(), "{args:?}");
    }
    let codex = Fake::new("codex");
    let output = codex.run(
        "2026-11-29",
        &[],
        &[
            "exec",
            "-c",
            "model_instructions_file=\"/tmp/mine.md\"",
            "Hi",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("model_instructions_file=..."),
        "{}",
        stderr(&output)
    );
    assert!(!codex.ran());
}

#[test]
fn an_unknown_client_is_refused_with_the_known_ones_and_client_kind_names_a_wrapper() {
    let fake = Fake::new("my-agent");
    let output = fake.run("2026-11-29", &[], &["-p", "Hi"], None);
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(message.contains("`"), "{message}");
    assert!(
        message.contains("known: claude, codex, gemini"),
        "{message}"
    );
    assert!(
        message.contains("--client-kind claude|codex|gemini"),
        "{message}"
    );
    assert!(!fake.ran());

    let output = fake.run(
        "2026-11-29",
        &["--client-kind", "claude"],
        &["-p", "Hi"],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(fake.argv()[0], "--system-prompt-file");
    // The hook repeats exec's options, --client-kind among them.
    let (_, settings) = claude_files(&fake.argv());
    let (code, context, err) = run_hook(&hook_command(&settings), &fake.path("home"));
    assert_eq!(code, Some(0), "{err}");
    assert!(context.contains("2026-11-29"), "{context}");
}

#[test]
fn codex_reads_the_stable_prefix_from_a_shared_fingerprint_named_file() {
    let fake = Fake::new("codex");
    let (stable, dynamic) = rendered("2026-11-29");
    let output = fake.run(
        "2026-11-29",
        &[],
        &["exec", "--json", "Fix the test."],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let first = fake.argv();
    let path = instructions_path(&first);
    assert_eq!(path.parent().unwrap(), fake.codex_dir());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), stable);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&fake.codex_dir()), 0o700);
    assert_eq!(first[2..5], ["exec", "--json", first[4].as_str()]);
    assert!(first[4].contains(&dynamic) && first[4].ends_with("\n\nFix the test."));

    // Another date: the same file, byte for byte; one file in the folder.
    fake.run("2026-12-24", &[], &["exec", "Fix the test."], None);
    let second = fake.argv();
    assert_eq!(instructions_path(&second), path);
    assert_eq!(
        files(&fake.codex_dir()),
        [path.file_name().unwrap().to_str().unwrap()]
    );
    assert!(second[3].contains("2026-12-24"));

    // A prompt on stdin (`-` or none) gets the prefix there.
    fake.run("2026-11-29", &[], &["exec", "-"], Some("From stdin."));
    assert!(fake.stdin().ends_with("</system-reminder>\n\nFrom stdin."));
    assert_eq!(fake.argv()[2..], ["exec", "-"]);
}

#[test]
fn the_codex_folder_is_bounded_and_keeps_no_temporary_file() {
    let fake = Fake::new("codex");
    let dir = fake.codex_dir();
    std::fs::create_dir_all(&dir).unwrap();
    // 40 older files of other prefixes, a stale temporary file, and a file
    // that is not ours.
    for i in 0..40 {
        let file = dir.join(format!("instructions-{i:064}.md"));
        std::fs::write(&file, "old").unwrap();
        set_age(&file, 86_400 + i);
    }
    let stale = dir.join(".instructions-x.md.1.0.tmp");
    std::fs::write(&stale, "half").unwrap();
    set_age(&stale, 7200);
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();

    let output = fake.run("2026-11-29", &[], &["exec", "Hi"], None);
    assert!(output.status.success(), "{}", stderr(&output));
    let path = instructions_path(&fake.argv());
    let left = files(&dir);
    assert_eq!(
        left.iter()
            .filter(|n| n.starts_with("instructions-"))
            .count(),
        32
    );
    assert!(left.contains(&path.file_name().unwrap().to_str().unwrap().to_owned()));
    // The newest of the old ones stay, the oldest go.
    assert!(left.contains(&format!("instructions-{:064}.md", 0)));
    assert!(!left.contains(&format!("instructions-{:064}.md", 39)));
    assert!(!stale.exists());
    assert!(left.contains(&"notes.txt".to_owned()));
    assert!(!left.iter().any(|n| n.ends_with(".tmp")));
}

#[test]
fn a_codex_prompt_argument_the_prefix_pushes_over_the_os_limit_is_refused_with_a_way_out() {
    let fake = Fake::new("codex");
    let long = "x".repeat(130_000); // passes on its own, not with the context block
    let output = fake.run("2026-11-29", &[], &["exec", &long], None);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("give the prompt on stdin instead"),
        "{}",
        stderr(&output)
    );
    assert!(!fake.ran());
}

#[test]
fn check_secrets_refuses_to_launch_a_client_with_a_key_in_the_prompt() {
    let fake = Fake::new("claude");
    let ws = fake.path("ws");
    std::fs::create_dir(&ws).unwrap();
    let key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345";
    std::fs::write(ws.join("AGENTS.md"), format!("Use this key: {key}\n")).unwrap();
    let ws = ws.to_str().unwrap();
    let here = fake.path("");
    let output = fake.run_with(
        &["--workspace", ws, "--check-secrets"],
        &["-p", "Hi"],
        None,
        &here,
    );
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(message.contains("in layer project_context"), "{message}");
    assert!(!message.contains(key));
    assert!(!fake.ran());
    // Off by default, as with render.
    let output = fake.run_with(&["--workspace", ws], &["-p", "Hi"], None, &here);
    assert!(output.status.success(), "{}", stderr(&output));
    let (system, _) = claude_files(&fake.argv());
    assert!(std::fs::read_to_string(system).unwrap().contains(key));
}

/// Aleph's Basic path welds its strategy onto the assembled prompt; a key
/// in the strategy is in no layer's text there, but it is sent: `exec
/// --check-secrets` scans what it hands the client, not only the layers.
#[test]
fn check_secrets_sees_text_an_agent_welds_on_after_assembly() {
    let fake = Fake::new("claude");
    let ws = fake.path("ws");
    std::fs::create_dir_all(ws.join(".aleph")).unwrap();
    let key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    std::fs::write(
        ws.join(".aleph/session.json"),
        format!(r#"{{"strategy": {{"body": "Deploy with AWS_SECRET_ACCESS_KEY={key}", "guardrails": []}}}}"#),
    )
    .unwrap();
    let ws = ws.to_str().unwrap();
    let here = fake.path("");
    let basic = ["--agent", "aleph", "--workspace", ws, "--path", "basic"];
    let output = fake.run_with(
        &[&basic[..], &["--check-secrets"]].concat(),
        &["-p", "Hi"],
        None,
        &here,
    );
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains("of the system prompt sent\n          not in any layer's text"),
        "{message}"
    );
    assert!(!message.contains(key), "{message}");
    assert!(!fake.ran());
    // Without the guard the weld is sent, so the case is real.
    let output = fake.run_with(&basic, &["-p", "Hi"], None, &here);
    assert!(output.status.success(), "{}", stderr(&output));
    let (system, _) = claude_files(&fake.argv());
    assert!(std::fs::read_to_string(system).unwrap().contains(key));
}

#[test]
fn gemini_reads_the_stable_prefix_from_gemini_system_md_and_the_rest_before_the_prompt() {
    let fake = Fake::new("gemini");
    let (stable, dynamic) = rendered("2026-11-29");
    let output = fake.run(
        "2026-11-29",
        &[],
        &["-m", "gemini-2.5-pro", "-p", "Fix the test.", "--brand-new"],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let path = PathBuf::from(std::fs::read_to_string(fake.path("out/gemini_system_md")).unwrap());
    assert_eq!(path.parent().unwrap(), fake.path("cache/prompt/gemini"));
    assert_eq!(std::fs::read(&path).unwrap(), stable.as_bytes());
    assert_eq!(mode(&path), 0o600);
    let argv = fake.argv();
    assert_eq!(argv[..3], ["-m", "gemini-2.5-pro", "-p"]);
    assert!(argv[3].contains(&dynamic) && argv[3].ends_with("</system-reminder>\n\nFix the test."));
    assert_eq!(argv[4], "--brand-new");

    // The query words, or stdin, when there is no -p.
    fake.run("2026-11-29", &[], &["-y", "Fix", "it."], None);
    let argv = fake.argv();
    assert!(argv[1].ends_with("\n\nFix") && argv[2] == "it.", "{argv:?}");
    fake.run("2026-11-29", &[], &["-y"], Some("From stdin."));
    assert!(fake.stdin().ends_with("</system-reminder>\n\nFrom stdin."));

    // A GEMINI_SYSTEM_MD of the user's would be replaced: refused.
    let mut command = common::command(
        &[
            "exec",
            "--agent",
            "aleph",
            "--",
            fake.client.to_str().unwrap(),
            "-p",
            "Hi",
        ],
        &fake.path("home"),
    );
    let output = command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("XDG_CACHE_HOME", fake.path("cache"))
        .env("FAKE_OUT", fake.path("out2"))
        .env("GEMINI_SYSTEM_MD", "/tmp/mine.md")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("GEMINI_SYSTEM_MD is set"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_codex_subcommand_that_is_not_a_session_is_refused() {
    let fake = Fake::new("codex");
    let output = fake.run("2026-11-29", &[], &["login"], None);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("`codex login`"),
        "{}",
        stderr(&output)
    );
}

/// The file names in `dir`, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// Sets `file`'s modification time `seconds` in the past.
fn set_age(file: &Path, seconds: u64) {
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(seconds);
    std::fs::File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

// ---------------------------------------------------------------------------
// kitsoki's reproduction goes through the same placement
// ---------------------------------------------------------------------------

mod kitsoki_placement {
    use prompt_core::AssemblyPath;
    use prompt_examples::agents::Agent;
    use prompt_examples::agents::kitsoki::{
        self, Story, Verb, claude_invocation, codex_invocation,
    };

    fn call(verb: Verb, path: AssemblyPath) -> kitsoki::Invocation {
        let root = Agent::Kitsoki.fixture();
        let story = Story::load_in(&root, &root.join("stories/trail"), &[]).unwrap();
        kitsoki::compose(&story, &kitsoki::demo_call(verb), path).unwrap()
    }

    #[test]
    fn a_kitsoki_call_puts_its_task_layer_in_the_user_message() {
        let ask = call(Verb::Ask, AssemblyPath::Cached);
        let decide = call(Verb::Decide, AssemblyPath::Cached);
        let prompt = ask.prompt.as_ref().unwrap();
        let placed = claude_invocation(&ask).unwrap();
        assert_eq!(placed.args, ["--system-prompt", prompt.stable()]);
        // Every verb shares the cached block; the contract travels with the call.
        assert_eq!(claude_invocation(&decide).unwrap().args, placed.args);
        let message = placed.user_message(&ask.user_message);
        assert!(message.contains("## Task: answer"), "{message}");
        assert!(message.ends_with(&format!("</system-reminder>\n\n{}", ask.user_message)));
        assert!(!placed.args[1].contains("## Task:"));

        let dir = tempfile::tempdir().unwrap();
        let codex = codex_invocation(&decide, dir.path()).unwrap();
        let file = codex.instructions_file.as_ref().unwrap();
        assert_eq!(
            std::fs::read_to_string(&file.path).unwrap(),
            prompt.stable()
        );
        assert!(codex.user_prefix.contains("## Task: decide"));
    }

    #[test]
    fn a_kitsoki_legacy_agent_keeps_the_appended_persona() {
        let root = Agent::Kitsoki.fixture();
        let story = Story::load_in(&root, &root.join("stories/trail"), &[]).unwrap();
        let call = kitsoki::Call {
            agent: "namer".into(),
            ..kitsoki::demo_call(Verb::Ask)
        };
        let legacy = kitsoki::compose(&story, &call, AssemblyPath::Cached).unwrap();
        let placed = claude_invocation(&legacy).unwrap();
        assert_eq!(
            placed.args,
            [
                "--append-system-prompt",
                "You name wagon parties. Reply with one name."
            ]
        );
        assert_eq!(placed.user_prefix, "");
    }
}

/// Round four, issue 38: a repository's `.claude/settings.json` with
/// `"disableAllHooks": true` silenced the per-turn hook without a word (on
/// the wire with Claude Code 2.1.328: the turn arrived with no context; a
/// `.claude/settings.local.json`, `~/.claude/settings.json` or `--settings`
/// saying so does the same). `exec` warns, naming each file, and still runs
/// the client; `false`, or no such key, says nothing.
#[test]
fn a_setting_that_disables_every_hook_is_named_in_a_warning() {
    let fake = Fake::new("claude");
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("AGENTS.md"), "Run the tests.").unwrap();
    std::fs::create_dir(ws.path().join(".claude")).unwrap();
    let run = |args: &[&str]| {
        let mut all = vec!["-p"];
        all.extend(args);
        all.push("Hi");
        fake.run_with(
            &["--workspace", ".", "--date", "2026-11-29"],
            &all,
            None,
            ws.path(),
        )
    };
    let warning = |file: &str| {
        format!(
            "prompt: warning: {file} sets disableAllHooks: Claude Code then runs no hook, so the \
             per-turn hook that brings each turn the prompt's dynamic part and reminder will not \
             run, and nothing else says so; remove the setting to get them\n"
        )
    };

    std::fs::write(
        ws.path().join(".claude/settings.json"),
        r#"{"disableAllHooks": false}"#,
    )
    .unwrap();
    let output = run(&[]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stderr(&output), "");

    std::fs::write(
        ws.path().join(".claude/settings.json"),
        r#"{"permissions": {}, "disableAllHooks": true}"#,
    )
    .unwrap();
    std::fs::write(
        ws.path().join(".claude/settings.local.json"),
        r#"{"disableAllHooks": true}"#,
    )
    .unwrap();
    std::fs::create_dir(fake.path("home/.claude")).unwrap();
    std::fs::write(
        fake.path("home/.claude/settings.json"),
        r#"{"disableAllHooks": true}"#,
    )
    .unwrap();
    let output = run(&["--settings", r#"{"disableAllHooks": true}"#]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(fake.ran());
    assert_eq!(
        stderr(&output),
        [
            "your --settings",
            ".claude/settings.json",
            ".claude/settings.local.json",
            "~/.claude/settings.json"
        ]
        .map(warning)
        .concat()
    );
}

/// The end of every warning that the per-turn hook may not run.
const NO_HOOK: &str = "Claude Code then runs no hook, so the per-turn hook that brings each turn \
                       the prompt's dynamic part and reminder will not run, and nothing else says \
                       so";

/// `prompt exec -- claude -p Hi` in the workspace `ws` (an AGENTS.md and a
/// `.claude` folder or link, as the test made them).
fn run_claude_in(fake: &Fake, ws: &Path) -> Output {
    let command = fake.command(
        &["--workspace", ".", "--date", "2026-11-29"],
        &["-p", "Hi"],
        ws,
    );
    spawn_within(command, std::time::Duration::from_secs(60))
}

/// Round five, issue 48: a `.claude/settings.json` saying
/// `"disableAllHooks": true`, padded past the 1 MiB `exec` reads, was taken
/// as no setting at all (a cut file does not parse), while Claude Code reads
/// it whole and runs no hook. A file over the cap is not scanned further
/// (an escaped key would slip past a scan): the warning names it as not
/// checked, and the client still runs.
#[test]
fn a_settings_file_over_the_cap_is_named_as_not_checked() {
    let fake = Fake::new("claude");
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("AGENTS.md"), "Run the tests.").unwrap();
    std::fs::create_dir(ws.path().join(".claude")).unwrap();
    let padded = format!(
        r#"{{"pad": "{}", "disableAllHooks": true}}"#,
        "x".repeat(1024 * 1024)
    );
    std::fs::write(ws.path().join(".claude/settings.json"), &padded).unwrap();
    let output = run_claude_in(&fake, ws.path());
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(fake.ran());
    assert_eq!(
        stderr(&output),
        format!(
            "prompt: warning: .claude/settings.json is {} bytes, over the 1 MiB prompt exec \
             reads of a settings file, so it was not checked; Claude Code reads it whole, and if \
             it sets disableAllHooks, {NO_HOOK}; check it for disableAllHooks\n",
            padded.len()
        )
    );
}

/// Round five, issue 48: `.claude` a symlink to a folder out of the
/// repository whose settings say `"disableAllHooks": true`. `exec`'s reader
/// does not follow a link out of its root, so it read nothing and said
/// nothing; Claude Code follows the link and runs no hook. The warning
/// names the link, where it points (its own text, so nothing is said of the
/// place), and the files behind it, whatever they hold.
#[test]
fn a_claude_folder_linked_out_of_the_repository_is_named_as_not_read() {
    let fake = Fake::new("claude");
    let ws = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("AGENTS.md"), "Run the tests.").unwrap();
    std::fs::write(
        elsewhere.path().join("settings.json"),
        r#"{"disableAllHooks": true}"#,
    )
    .unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), ws.path().join(".claude")).unwrap();
    let output = run_claude_in(&fake, ws.path());
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(fake.ran());
    assert_eq!(
        stderr(&output),
        format!(
            "prompt: warning: .claude is a symlink to {}, out of the current folder: prompt exec \
             does not follow it, so .claude/settings.json and .claude/settings.local.json were \
             not read; Claude Code follows it, and if the settings behind it set \
             disableAllHooks, {NO_HOOK}; check the settings behind .claude for disableAllHooks\n",
            elsewhere.path().display()
        )
    );

    // A link that stays in the folder is followed, and what is behind it read.
    std::fs::create_dir(ws.path().join("conf")).unwrap();
    std::fs::write(
        ws.path().join("conf/settings.json"),
        r#"{"disableAllHooks": true}"#,
    )
    .unwrap();
    std::fs::remove_file(ws.path().join(".claude")).unwrap();
    std::os::unix::fs::symlink("conf", ws.path().join(".claude")).unwrap();
    let output = run_claude_in(&fake, ws.path());
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        format!(
            "prompt: warning: .claude/settings.json sets disableAllHooks: {NO_HOOK}; remove the \
             setting to get them\n"
        )
    );
}

/// Round five, issue 48: a byte that is not UTF-8 in some string of
/// `.claude/settings.local.json` made `exec`'s read fail, and a failed read
/// said nothing; Node's UTF-8 decoding, which Claude Code runs on, reads the
/// byte as U+FFFD (not checked on the wire), leaving the
/// `"disableAllHooks": true` beside it to count. The file is now read the same way,
/// and an escaped spelling of the key is decoded as Claude Code decodes it.
#[test]
fn a_stray_byte_or_an_escaped_key_does_not_hide_the_setting() {
    let fake = Fake::new("claude");
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("AGENTS.md"), "Run the tests.").unwrap();
    std::fs::create_dir(ws.path().join(".claude")).unwrap();
    std::fs::write(
        ws.path().join(".claude/settings.local.json"),
        b"{\"model\": \"\xff\", \"disable\\u0041llHooks\": true}",
    )
    .unwrap();
    let output = run_claude_in(&fake, ws.path());
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        format!(
            "prompt: warning: .claude/settings.local.json sets disableAllHooks: {NO_HOOK}; \
             remove the setting to get them\n"
        )
    );
}

/// Round five, issue 48: a `.claude/settings.json` that is a FIFO is not
/// opened (a read would wait for a writer), so `exec` does not block; but
/// Claude Code reads it, so it is named as not checked rather than passed
/// over in silence.
#[test]
fn a_settings_fifo_does_not_block_and_is_named_as_not_checked() {
    let fake = Fake::new("claude");
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("AGENTS.md"), "Run the tests.").unwrap();
    std::fs::create_dir(ws.path().join(".claude")).unwrap();
    let made = Command::new("mkfifo")
        .arg(ws.path().join(".claude/settings.json"))
        .status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let output = run_claude_in(&fake, ws.path());
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(fake.ran());
    assert_eq!(
        stderr(&output),
        format!(
            "prompt: warning: .claude/settings.json is a FIFO (named pipe), not a regular file, \
             so prompt exec did not read it (that could wait forever) nor check it; Claude Code \
             reads it, and if it sets disableAllHooks, {NO_HOOK}; check it for disableAllHooks\n"
        )
    );
}

/// Round four, issue 38: docs/delivery.md said no part of the prompt is
/// passed in argv, but for Codex and Gemini CLI the context block rides in
/// the prompt argument. The docs now say where it travels, and this holds
/// them to what `exec` does: with a prompt argument the dynamic part is in
/// the client's argv (where `/proc/PID/cmdline` shows it), with the prompt
/// on stdin it is on stdin and nowhere in argv.
#[test]
fn the_docs_say_where_codex_and_gemini_get_the_context_and_they_get_it_there() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/delivery.md"))
            .unwrap();
    assert!(!docs.contains("Nothing of the prompt is passed in argv"));
    assert!(docs.contains("- **In argv when the prompt is.** A context block joined to a prompt"));
    let (_, dynamic) = rendered("2026-11-29");
    for (client, argument) in [
        ("codex", &["exec", "Fix it."][..]),
        ("gemini", &["-p", "Fix it."][..]),
    ] {
        let fake = Fake::new(client);
        let output = fake.run("2026-11-29", &[], argument, None);
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(
            fake.argv()
                .iter()
                .any(|a| a.contains(&dynamic) && a.ends_with("Fix it.")),
            "{client}: {:?}",
            fake.argv()
        );
        let on_stdin: &[&str] = if client == "codex" { &["exec"] } else { &[] };
        let output = fake.run("2026-11-29", &[], on_stdin, Some("Fix it."));
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(
            !fake.argv().iter().any(|a| a.contains("<system-reminder>")),
            "{client}: {:?}",
            fake.argv()
        );
        assert!(
            fake.stdin().contains(&dynamic) && fake.stdin().ends_with("Fix it."),
            "{client}: {}",
            fake.stdin()
        );
    }
}
