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
        self.run_with(&options, args, stdin)
    }

    /// `prompt exec <options> -- CLIENT <args>`.
    fn run_with(&self, options: &[&str], args: &[&str], stdin: Option<&str>) -> Output {
        let mut all = vec!["exec"];
        all.extend(options);
        all.push("--");
        let client = self.client.to_str().unwrap().to_owned();
        all.push(&client);
        all.extend(args);
        let mut command = common::command(&all, &self.path("home"));
        command
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("XDG_CACHE_HOME", self.path("cache"))
            .env("FAKE_OUT", self.path("out"))
            .env("FAKE_ENV", "kept")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        spawn_with(command, stdin)
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

#[test]
fn claude_gets_the_stable_prefix_as_system_prompt_and_the_rest_before_the_prompt() {
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
    assert_eq!(argv[..2], ["--system-prompt".to_owned(), stable.clone()]);
    // The user's arguments follow untouched, but for the prompt.
    assert_eq!(argv[2..5], ["--model", "opus", "-p"]);
    assert_eq!(argv[6..], ["--output-format", "json"]);
    let message = &argv[5];
    assert!(message.starts_with("<system-reminder>\n"), "{message}");
    assert!(message.contains(&dynamic), "{message}");
    assert!(
        message.ends_with("</system-reminder>\n\nFix the test."),
        "{message}"
    );
    assert!(!argv[1].contains("2026-11-29"));
    // The environment passes through.
    assert_eq!(
        std::fs::read_to_string(fake.path("out/env")).unwrap(),
        "kept"
    );
}

#[test]
fn another_date_changes_the_user_message_and_not_the_system_prompt() {
    let fake = Fake::new("claude");
    fake.run("2026-11-29", &[], &["-p", "Hi"], None);
    let first = fake.argv();
    fake.run("2026-12-24", &[], &["-p", "Hi"], None);
    let second = fake.argv();
    assert_eq!(first[..2], second[..2]);
    assert_ne!(first[3], second[3]);
    assert!(second[3].contains("2026-12-24"));
}

#[test]
fn a_prompt_on_stdin_gets_the_prefix_and_the_rest_of_stdin_follows() {
    let fake = Fake::new("claude");
    let (_, dynamic) = rendered("2026-11-29");
    let output = fake.run(
        "2026-11-29",
        &[],
        &["-p"],
        Some("Fix the test.\nline two\n"),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let stdin = fake.stdin();
    assert!(stdin.starts_with("<system-reminder>\n"), "{stdin}");
    assert!(stdin.contains(&dynamic));
    assert!(
        stdin.ends_with("</system-reminder>\n\nFix the test.\nline two\n"),
        "{stdin}"
    );
    assert_eq!(fake.argv()[2..], ["-p"]);
}

#[test]
fn with_a_prompt_argument_stdin_passes_through_unchanged() {
    let fake = Fake::new("claude");
    fake.run(
        "2026-11-29",
        &[],
        &["-p", "Summarize."],
        Some("piped data\n"),
    );
    assert_eq!(fake.stdin(), "piped data\n");
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
    assert!(message.contains("known: claude, codex"), "{message}");
    assert!(message.contains("--client-kind claude|codex"), "{message}");
    assert!(!fake.ran());

    let output = fake.run(
        "2026-11-29",
        &["--client-kind", "claude"],
        &["-p", "Hi"],
        None,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(fake.argv()[0], "--system-prompt");
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
fn a_prompt_argument_the_prefix_pushes_over_the_os_limit_is_refused_with_a_way_out() {
    let fake = Fake::new("claude");
    let long = "x".repeat(130_000); // passes on its own, not with the context block
    let output = fake.run("2026-11-29", &[], &["-p", &long], None);
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
    let output = fake.run_with(&["--workspace", ws, "--check-secrets"], &["-p", "Hi"], None);
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(message.contains("in layer project_context"), "{message}");
    assert!(!message.contains(key));
    assert!(!fake.ran());
    // Off by default, as with render.
    let output = fake.run_with(&["--workspace", ws], &["-p", "Hi"], None);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(fake.argv()[1].contains(key));
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
