//! Gemini CLI's placement: the stable prefix in `GEMINI_SYSTEM_MD=FILE`, the
//! dynamic part and reminder at the head of the first user message, found
//! among Gemini CLI's arguments with a table of its options.
//!
//! Measured on the wire with Gemini CLI 0.61.0: the file's bytes are the
//! request's `systemInstruction` (`{"parts": [{"text": FILE}], "role":
//! "user"}`), byte-exact, on every call of the session; Gemini caches a
//! request's prefix implicitly, and `systemInstruction` leads it. Gemini CLI
//! adds its own `<session_context>` as the first user content.
//!
//! Gemini CLI has a per-turn `BeforeAgent` hook whose `additionalContext` is
//! added to the turn's user content as `<hook_context>TEXT</hook_context>`,
//! but hooks come only from settings files: the user's, the workspace's
//! (the repository's to write, so never `exec`'s), or the system files that
//! `GEMINI_CLI_SYSTEM_SETTINGS_PATH` / `GEMINI_CLI_SYSTEM_DEFAULTS_PATH` name,
//! which Gemini CLI skips unless the file and every folder above it are owned
//! by root and writable by no one else. A normal user's `exec` has no file
//! Gemini CLI would read, so the context rides on the first prompt, as Codex's.

use crate::cli::CliError;
use std::io::IsTerminal;

use super::first_message::{Delivery, Takes, deliver, parse};
use super::{ClientKind, Launch};
use crate::cli::outcome::Outcome;

/// Gemini CLI's subcommands (0.61.0): none of them is a session.
const COMMANDS: &[&str] = &[
    "mcp",
    "extensions",
    "extension",
    "skills",
    "skill",
    "hooks",
    "hook",
    "gemma",
];

/// Where the user's first prompt is among `args`, refusing a system prompt
/// file of the user's own (it would be replaced) and a subcommand that is not
/// a session: run before anything is rendered.
pub(super) fn check_args(args: &[std::ffi::OsString]) -> Result<Delivery, CliError> {
    if std::env::var_os("GEMINI_SYSTEM_MD").is_some() {
        return Err(CliError::failed(
            "GEMINI_SYSTEM_MD is set: prompt exec puts the stable prefix there, so yours would \
             be replaced: unset it, and put that text in a layer of the pipeline",
        ));
    }
    let strings: Vec<Option<&str>> = args.iter().map(|a| a.to_str()).collect();
    gemini_delivery(&strings)
}

/// Writes the system prompt file, then runs `gemini ARGS...` with
/// `GEMINI_SYSTEM_MD` pointing at it and the context block before the prompt
/// at `delivery`.
pub(super) fn launch(launch: &Launch, delivery: Delivery) -> Outcome {
    let dir = super::cache_dir(ClientKind::Gemini)?;
    let system = super::write_system_file(&dir, &launch.system)?;
    let prefix = prompt_providers::user_prefix(&launch.prompt);
    deliver(
        launch,
        delivery,
        &[],
        &prefix,
        &[("GEMINI_SYSTEM_MD", system.into_os_string())],
    )
}

/// Gemini CLI 0.61.0's options that take values (`gemini --help`; yargs:
/// a `[string]` option takes the next argument, an `[array]` every bare one).
fn gemini_takes(name: &str) -> Option<Takes> {
    Some(match name {
        "-m"
        | "--model"
        | "-p"
        | "--prompt"
        | "-i"
        | "--prompt-interactive"
        | "--approval-mode"
        | "-r"
        | "--resume"
        | "--session-file"
        | "--session-id"
        | "--delete-session"
        | "-o"
        | "--output-format" => Takes::One,
        "-w" | "--worktree" => Takes::Optional,
        "--policy"
        | "--admin-policy"
        | "--allowed-mcp-server-names"
        | "--allowed-tools"
        | "-e"
        | "--extensions"
        | "--include-directories" => Takes::Many,
        "-d"
        | "--debug"
        | "--skip-trust"
        | "-s"
        | "--sandbox"
        | "-y"
        | "--yolo"
        | "--acp"
        | "--experimental-acp"
        | "-l"
        | "--list-extensions"
        | "--list-sessions"
        | "--screen-reader"
        | "--raw-output"
        | "--accept-raw-output-risk"
        | "-v"
        | "--version"
        | "-h"
        | "--help" => Takes::Nothing,
        _ => return None,
    })
}

/// Where Gemini CLI takes the first prompt from: the value of `-p` or `-i`
/// (`-p` is appended to stdin, so the context stays before the typed words),
/// else the first of the `query..` words, else stdin; none on a terminal:
/// an interactive session with no first prompt.
fn gemini_delivery(args: &[Option<&str>]) -> Result<Delivery, CliError> {
    let parsed = parse(args, gemini_takes, "gemini")?;
    if let Some(command) = parsed
        .positionals
        .first()
        .and_then(|&first| args[first])
        .filter(|a| COMMANDS.contains(a))
    {
        return Err(CliError::failed(format!(
            "`gemini {command}` is a subcommand, not a session with a system prompt: run it \
             without prompt exec"
        )));
    }
    if let Some(at) = prompt_value(args) {
        return Ok(Delivery::Argument(at));
    }
    if let Some(&first) = parsed.positionals.first() {
        return Ok(Delivery::Argument(first));
    }
    Ok(if std::io::stdin().is_terminal() {
        Delivery::Interactive
    } else {
        Delivery::Stdin
    })
}

/// The index of the argument holding the value of the last `-p`/`--prompt`
/// or `-i`/`--prompt-interactive`, when it is a separate argument.
fn prompt_value(args: &[Option<&str>]) -> Option<usize> {
    let mut found = None;
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            Some("--") => break,
            Some("-p" | "--prompt" | "-i" | "--prompt-interactive") if i + 1 < args.len() => {
                found = Some(i + 1);
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cli::exec::first_message::delivery_of;

    fn gemini(args: &[&str]) -> Result<Delivery, String> {
        delivery_of(gemini_delivery, args).map_err(|e| e.report())
    }

    #[test]
    fn the_gemini_prompt_is_the_prompt_option_or_the_first_query_word() {
        assert_eq!(gemini(&["-p", "Fix it."]), Ok(Delivery::Argument(1)));
        assert_eq!(
            gemini(&["-m", "gemini-2.5-pro", "--prompt", "Fix it."]),
            Ok(Delivery::Argument(3))
        );
        assert_eq!(gemini(&["-y", "Fix", "it."]), Ok(Delivery::Argument(1)));
        assert_eq!(
            gemini(&["--include-directories", "a", "b", "-i", "Go"]),
            Ok(Delivery::Argument(4))
        );
        assert_eq!(gemini(&["-w", "tree", "Go"]), Ok(Delivery::Argument(2)));
        assert!(
            gemini(&["mcp", "list"])
                .unwrap_err()
                .contains("`gemini mcp`")
        );
        assert!(gemini(&["--mystery", "Go"]).is_err());
    }
}
