//! Issue 31 row 7, end to end: a user's own `prompt` binary links a
//! `channel = Reminder` layer holding `AWS_SECRET_ACCESS_KEY=...`.
//! `prompt render --check-secrets` used to exit 0 (the guard read the system
//! prompt only) while `--format anthropic` sent the key in the user message.
//!
//! No test harness: this binary is that user's `prompt` (when `PROMPT_AS_CLI`
//! is set it runs `prompt_cli::main()`, with the layer below linked
//! into its default pipeline), and the test runs it as a child process.

use std::process::{ExitCode, Output};

use prompt_core::prompt_layer;

#[path = "common/mod.rs"]
mod common;

const KEY: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

/// A reminder a new user wrote, with a credential in it.
#[prompt_layer(
    priority = 19_900,
    stability = Dynamic,
    paths = [Basic, Cached],
    channel = Reminder,
    text = "Deploy notes: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)]
pub struct DeployNotes;

fn run(home: &std::path::Path, ws: &std::path::Path, extra: &[&str]) -> Output {
    let own = std::env::current_exe().unwrap();
    common::render_with(&own, true, home, ws, extra)
}

fn main() -> ExitCode {
    if std::env::var_os(common::AS_CLI).is_some() {
        return prompt_cli::main();
    }
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.path().join(".git")).unwrap();
    let text = |o: &[u8]| String::from_utf8(o.to_vec()).unwrap();

    // The key leaves in the request's user message.
    let sent = run(home.path(), ws.path(), &["--format", "anthropic"]);
    assert!(sent.status.success(), "{}", text(&sent.stderr));
    assert!(
        text(&sent.stdout).contains(KEY),
        "the fixture sends the key"
    );

    // Every format: refused, the layer named, nothing printed.
    for format in [
        "text",
        "json",
        "anthropic",
        "openai",
        "gemini",
        "claude-cli",
    ] {
        let checked = run(
            home.path(),
            ws.path(),
            &["--format", format, "--check-secrets"],
        );
        let err = text(&checked.stderr);
        assert_eq!(checked.status.code(), Some(1), "{format}: {err}");
        assert!(
            checked.stdout.is_empty(),
            "{format}: the prompt is not printed"
        );
        assert!(
            err.contains(
                "prompt: secret: secret assignment at bytes 36..76 of the reminder (sent in the user message)\n          in layer deploy_notes\n"
            ),
            "{format}: {err}"
        );
        assert!(!err.contains("(between layers)"), "{format}: {err}");
        assert!(
            err.contains("holds 1 credential-shaped string(s)"),
            "{format}: {err}"
        );
        assert!(!err.contains(KEY), "{format}: the key is not echoed");
    }
    println!("reminder_secrets: ok");
    ExitCode::SUCCESS
}
