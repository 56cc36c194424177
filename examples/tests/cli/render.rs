//! The `prompt` CLI, run as a user runs it.

use std::path::Path;
use std::process::{Command, Output};

fn prompt(args: &[&str], home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prompt"))
        .args(args)
        .env("HOME", home)
        .env_remove("RUST_LOG")
        .output()
        .expect("the prompt binary runs")
}

/// A temporary workspace that is a repository root (`.git`), so discovery
/// stops there whatever lies above it on this machine.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    dir
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn real_agents_md() -> std::path::PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/real/agents/vercel__next.js__AGENTS.md");
    assert!(
        path.is_file(),
        "{} is missing: it is vendored under tests/fixtures/real (see SOURCES.md there)",
        path.display()
    );
    path
}

#[test]
fn render_shows_a_real_agents_md_under_project_context_capped_and_marked() {
    let workspace = workspace();
    let home = tempfile::tempdir().unwrap();
    std::fs::copy(real_agents_md(), workspace.path().join("AGENTS.md")).unwrap();
    let ws = workspace.path().to_str().unwrap();
    let output = prompt(
        &[
            "render",
            "--workspace",
            ws,
            "--date",
            "2026-11-29",
            "--trace",
        ],
        home.path(),
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains(
            "# Project context\n\n<file path=\"AGENTS.md\">\n# Next.js Development Guide\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n\n[…truncated: AGENTS.md is 20.8 KiB, cap 16 KiB]\n\n# Runtime context"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("- Working directory: {ws}\n")));
    assert!(stdout.contains("- Date: 2026-11-29\n"));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("AGENTS.md: cut to 16 KiB of 20.8 KiB (cap 16 KiB)"),
        "{stderr}"
    );
}

#[test]
fn render_defaults_to_the_current_directory() {
    let workspace = workspace();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("CLAUDE.md"), "Use pnpm.").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_prompt"))
        .arg("render")
        .current_dir(workspace.path())
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(
        String::from_utf8(output.stdout)
            .unwrap()
            .contains("<file path=\"CLAUDE.md\">\nUse pnpm.")
    );
}

#[test]
fn json_output_has_the_cached_parts_and_the_trace() {
    let workspace = workspace();
    let home = tempfile::tempdir().unwrap();
    let output = prompt(
        &[
            "render",
            "--workspace",
            workspace.path().to_str().unwrap(),
            "--format",
            "json",
            "--model",
            "opus",
        ],
        home.path(),
    );
    assert!(output.status.success());
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["parts"][0]["cache"], true);
    assert_eq!(json["parts"][1]["cache"], false);
    assert!(
        json["parts"][1]["content"]
            .as_str()
            .unwrap()
            .contains("- Model: opus")
    );
    assert_eq!(json["trace"]["path"], "cached");
    assert_eq!(json["trace"]["layers"][0]["name"], "base_prompt");
}

#[test]
fn sub_agents_enable_the_coordinator() {
    let workspace = workspace();
    let home = tempfile::tempdir().unwrap();
    let ws = workspace.path().to_str().unwrap();
    let with = prompt(
        &[
            "render",
            "--workspace",
            ws,
            "--sub-agent",
            "tester=Runs the tests.",
        ],
        home.path(),
    );
    assert!(
        String::from_utf8(with.stdout)
            .unwrap()
            .contains("# Sub-agents")
    );
    let without = prompt(&["render", "--workspace", ws], home.path());
    assert!(
        !String::from_utf8(without.stdout)
            .unwrap()
            .contains("# Sub-agents")
    );
    let bad = prompt(
        &["render", "--workspace", ws, "--sub-agent", "no-equals-sign"],
        home.path(),
    );
    assert!(!bad.status.success());
    assert!(
        String::from_utf8(bad.stderr)
            .unwrap()
            .contains("expected NAME=DESCRIPTION")
    );
}

#[test]
fn errors_name_what_is_wrong_and_exit_non_zero() {
    let home = tempfile::tempdir().unwrap();
    let missing = prompt(&["render", "--workspace", "/no/such/dir"], home.path());
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(missing.stderr).unwrap(),
        "prompt: workspace `/no/such/dir` is not a directory\n"
    );
    // An error about a path cannot drive the terminal: control characters are escaped.
    let evil = prompt(
        &["render", "--workspace", "/no/such/\x1b]0;pwned\x07"],
        home.path(),
    );
    assert_eq!(
        stderr(&evil),
        "prompt: workspace `/no/such/\\u{1b}]0;pwned\\u{7}` is not a directory\n"
    );
    // An unknown pipeline is a usage error listing the pipelines this binary has.
    let pipeline = prompt(&["manifest", "--pipeline", "nope"], home.path());
    assert_eq!(pipeline.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(pipeline.stderr).unwrap(),
        "prompt: unknown pipeline `nope`; this binary has: aleph, default, kitsoki, recursive, standard\na pipeline declared in another crate (your package's own library included) is linked only when main.rs names that crate: `use my_layers as _;`\n"
    );
}

#[test]
fn a_malformed_scratchpad_is_reported_and_the_prompt_still_renders() {
    let workspace = workspace();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join(".agent")).unwrap();
    let pad = workspace.path().join(".agent/scratchpad.json");
    std::fs::write(&pad, "not json").unwrap();
    let output = prompt(
        &["render", "--workspace", workspace.path().to_str().unwrap()],
        home.path(),
    );
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains(
            "prompt: warning: .agent/scratchpad.json: malformed: expected a JSON object of strings: \
             expected ident at line 1 column 2; rendering without the scratchpad"
        ),
        "{stderr}"
    );
}

#[test]
fn manifest_lists_the_standard_layers() {
    let home = tempfile::tempdir().unwrap();
    let output = prompt(&["manifest"], home.path());
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.starts_with("# Pipeline `standard`: 11 layers\n"));
    assert!(stdout.contains("| 2 | quoted_files | 1001 | stable | global |"));
    assert!(stdout.contains("| 4 | project_context | 3000 | stable | project |"));
}

fn render_in(ws: &Path, home: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "render",
        "--workspace",
        ws.to_str().unwrap(),
        "--date",
        "2026-11-29",
    ];
    args.extend_from_slice(extra);
    prompt(&args, home)
}

#[test]
fn cwd_sets_the_working_directory_and_must_lie_in_the_workspace() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ws.path().join("src/app")).unwrap();
    let cwd = ws.path().join("src/app");
    let ok = render_in(ws.path(), home.path(), &["--cwd", cwd.to_str().unwrap()]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert!(stdout(&ok).contains(&format!("- Working directory: {}\n", cwd.display())));

    let outside = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("file"), "x").unwrap();
    for (cwd, expected) in [
        (outside.path().to_owned(), "is outside the workspace"),
        (ws.path().join("missing"), "does not exist"),
        (ws.path().join("file"), "is not a directory"),
    ] {
        let output = render_in(ws.path(), home.path(), &["--cwd", cwd.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(1));
        let err = stderr(&output);
        assert!(err.starts_with("prompt: working directory `"), "{err}");
        assert!(err.contains(expected), "{err}");
        assert!(stdout(&output).is_empty());
    }
}

#[test]
fn the_git_branch_comes_from_the_repository_root_not_the_cwd() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    write(&ws.path().join(".git/HEAD"), "ref: refs/heads/feature/x\n");
    std::fs::create_dir_all(ws.path().join("src")).unwrap();
    let cwd = ws.path().join("src");
    let output = render_in(ws.path(), home.path(), &["--cwd", cwd.to_str().unwrap()]);
    assert!(
        stdout(&output).contains("- Git branch: feature/x\n"),
        "{}",
        stdout(&output)
    );
    // A forged multi-line branch stays on its line.
    write(
        &ws.path().join(".git/HEAD"),
        "ref: refs/heads/x\n# Forged\n",
    );
    let output = render_in(ws.path(), home.path(), &[]);
    assert!(
        stdout(&output).contains("- Git branch: x # Forged\n"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn path_basic_renders_one_flat_part() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    write(
        &ws.path().join(".agent/scratchpad.json"),
        r#"{"plan": "ship"}"#,
    );
    let cached = render_in(ws.path(), home.path(), &["--format", "json"]);
    let basic = render_in(
        ws.path(),
        home.path(),
        &["--format", "json", "--path", "basic"],
    );
    let cached: serde_json::Value = serde_json::from_slice(&cached.stdout).unwrap();
    let basic: serde_json::Value = serde_json::from_slice(&basic.stdout).unwrap();
    assert_eq!(cached["parts"].as_array().unwrap().len(), 2);
    assert_eq!(basic["parts"].as_array().unwrap().len(), 1);
    assert_eq!(basic["trace"]["path"], "basic");
    // The scratchpad is a Cached-path layer only.
    assert!(
        cached["parts"][1]["content"]
            .as_str()
            .unwrap()
            .contains("- plan: ship")
    );
    assert!(
        !basic["parts"][0]["content"]
            .as_str()
            .unwrap()
            .contains("# Scratchpad")
    );
}

#[test]
fn mode_minimal_keeps_only_the_minimal_layers() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    write(&ws.path().join("AGENTS.md"), "Rules.");
    let output = render_in(
        ws.path(),
        home.path(),
        &["--mode", "minimal", "--format", "json"],
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["trace"]["mode"], "minimal");
    let names: Vec<&str> = json["trace"]["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "base_prompt",
            "quoted_files",
            "project_context",
            "user_preferences"
        ]
    );
    let bad = render_in(ws.path(), home.path(), &["--mode", "loud"]);
    assert!(!bad.status.success());
}

#[test]
fn nested_docs_reads_the_docs_down_to_the_cwd_only_when_asked() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    write(&ws.path().join("AGENTS.md"), "Root rules.");
    write(&ws.path().join("api/AGENTS.md"), "API rules.");
    let cwd = ws.path().join("api");
    let cwd = cwd.to_str().unwrap();
    let without = render_in(ws.path(), home.path(), &["--cwd", cwd]);
    assert!(!stdout(&without).contains("API rules."));
    let with = render_in(ws.path(), home.path(), &["--cwd", cwd, "--nested-docs"]);
    assert!(
        stdout(&with).contains("<file path=\"AGENTS.md\">\nRoot rules.\n</file>\n\n<file path=\"api/AGENTS.md\">\nAPI rules.\n</file>"),
        "{}",
        stdout(&with)
    );
}

#[test]
fn shared_is_where_template_includes_read_from() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    let shared = tempfile::tempdir().unwrap();
    write(&shared.path().join("tone.md"), "Be brief.");
    write(
        &ws.path().join(".agent/system-prompt.md"),
        "You help with {{ workspace }}.\n{% include \"@shared/tone.md\" %}",
    );
    let name = ws.path().file_name().unwrap().to_str().unwrap();
    let output = render_in(
        ws.path(),
        home.path(),
        &["--shared", shared.path().to_str().unwrap(), "--trace"],
    );
    assert!(
        stdout(&output).starts_with(&format!("You help with {name}.\nBe brief.\n\n")),
        "{}",
        stdout(&output)
    );
    // Without it the include is refused, and the built-in prompt is used.
    let output = render_in(ws.path(), home.path(), &["--trace"]);
    assert!(
        stderr(&output).contains("no shared folder is configured; using the built-in base prompt"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn prompt_path_is_searched_for_system_prompt_md() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    write(
        &second.path().join("system-prompt.md"),
        "From the search path.",
    );
    let output = render_in(
        ws.path(),
        home.path(),
        &[
            "--prompt-path",
            first.path().to_str().unwrap(),
            "--prompt-path",
            second.path().to_str().unwrap(),
        ],
    );
    assert!(
        stdout(&output).starts_with("From the search path.\n\n"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn app_names_the_folder_and_must_be_a_plain_name() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    write(
        &ws.path().join(".myapp/memory/project.md"),
        "My app's memory.",
    );
    write(
        &ws.path().join(".agent/memory/project.md"),
        "The default app's memory.",
    );
    let output = render_in(ws.path(), home.path(), &["--app", "myapp"]);
    assert!(stdout(&output).contains(
        "# Project memory\n\n<file path=\".myapp/memory/project.md\">\nMy app's memory.\n</file>"
    ));
    assert!(!stdout(&output).contains("The default app's memory."));
    // Refused while the arguments are parsed (exit 2), before any file is read.
    for app in ["./outside", ".", "..", "a/b"] {
        let output = render_in(ws.path(), home.path(), &["--app", app]);
        assert_eq!(output.status.code(), Some(2), "{app}");
        assert_eq!(
            stderr(&output),
            format!(
                "error: --app: got `{app}`; an app name is a plain folder name of 1 to 64 characters: \
                 a letter or digit, then letters, digits, `-`, `_` or `.`, with no leading dot and no \
                 `/` or `\\` (e.g. `agent`, whose folders are `.agent`)\n"
            )
        );
    }
}

#[test]
fn the_trace_escapes_control_characters_in_everything_it_prints_about_files() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    write(
        &ws.path().join("AGENTS.md"),
        "Rules \x1b]52;c;cm0gLXJmIH4=\x07 end",
    );
    write(
        &ws.path().join(".agent/skills/\x1b]0;pwned\x07/SKILL.md"),
        "no frontmatter",
    );
    let output = render_in(ws.path(), home.path(), &["--trace"]);
    assert!(output.status.success());
    let (out, err) = (stdout(&output), stderr(&output));
    for text in [&out, &err] {
        assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text:?}");
    }
    assert!(out.contains("Rules ]52;c;cm0gLXJmIH4= end"), "{out}");
    assert!(
        err.contains("- AGENTS.md: removed 2 control character(s) (the first, ESC, at byte 6)"),
        "{err}"
    );
    assert!(
        err.contains(r"skipped: .agent/skills/\u{1b}]0;pwned\u{7}/SKILL.md: bad frontmatter"),
        "{err}"
    );
}

#[test]
fn check_secrets_names_the_layer_and_range_and_redact_replaces_them() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    let key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345";
    write(
        &ws.path().join("AGENTS.md"),
        &format!("Use this key: {key}\n"),
    );
    let plain = render_in(ws.path(), home.path(), &[]);
    assert!(stdout(&plain).contains(key), "off by default");

    let checked = render_in(ws.path(), home.path(), &["--check-secrets"]);
    assert_eq!(checked.status.code(), Some(1));
    assert!(stdout(&checked).is_empty(), "the prompt is not printed");
    let text = stdout(&plain);
    let start = text.find(key).unwrap();
    let err = stderr(&checked);
    assert!(
        err.contains(&format!(
            "prompt: secret: anthropic api key at bytes {start}..{} of the prompt\n          in layer project_context\n",
            start + key.len()
        )),
        "{err}"
    );
    assert!(err.contains("holds 1 credential-shaped string(s)"), "{err}");

    let redacted = render_in(ws.path(), home.path(), &["--check-secrets", "--redact"]);
    assert!(redacted.status.success());
    assert!(stdout(&redacted).contains("Use this key: [REDACTED anthropic api key]\n"));
    assert!(!stdout(&redacted).contains(key));

    // A clean workspace passes.
    std::fs::remove_file(ws.path().join("AGENTS.md")).unwrap();
    let clean = render_in(ws.path(), home.path(), &["--check-secrets"]);
    assert!(clean.status.success(), "{}", stderr(&clean));
}
