//! Codex's placement: the stable prefix in `-c model_instructions_file`, the
//! dynamic part and reminder at the head of the first user message, found
//! among Codex's arguments with a table of its options.
//!
//! Codex 0.169.0 reads the instructions file once and sends its bytes as the
//! first `developer` input item, byte-exact (cached with the request prefix).
//! Its `UserPromptSubmit` hook can add a turn's context (as a `developer`
//! message after the user's), but Codex runs a hook only once the user has
//! trusted its exact definition, and skipping that review
//! (`--dangerously-bypass-hook-trust`) would run the repository's untrusted
//! hooks too (docs/delivery.md). So the context block rides on the user's
//! first prompt: the prompt argument, else stdin. Which argument is the prompt follows Codex's own parser: the
//! first argument that is neither an option nor an option's value. An option
//! this table does not know, followed by a bare word, is an error (the word
//! may be its value or the prompt); so is an instructions file of the user's.

use crate::cli::CliError;
use std::io::IsTerminal;

use prompt_providers::codex;

use super::first_message::{Delivery, Parsed, Takes, deliver, parse};
use super::{ClientKind, Launch};
use crate::cli::outcome::Outcome;

/// Where the user's first prompt is among `args`, refusing what fights the
/// placement (a subcommand that is not a session, an instructions file of
/// the user's own): run before anything is rendered.
pub(super) fn check_args(args: &[std::ffi::OsString]) -> Result<Delivery, CliError> {
    let strings: Vec<Option<&str>> = args.iter().map(|a| a.to_str()).collect();
    codex_delivery(&strings)
}

/// Writes the instructions file, then runs `codex -c model_instructions_file=F
/// ARGS...` with the context block before the prompt at `delivery`.
pub(super) fn launch(launch: &Launch, delivery: Delivery) -> Outcome {
    let dir = super::cache_dir(ClientKind::Codex)?;
    let invocation = codex::invocation_for_text(
        launch.system.clone(),
        prompt_providers::user_prefix(&launch.prompt),
        &dir,
    )
    .map_err(CliError::from_error)?;
    super::write_system_file(&dir, &launch.system)?;
    deliver(
        launch,
        delivery,
        &invocation.args,
        &invocation.user_prefix,
        &[],
    )
}

/// Codex 0.169.0's options that take values (`codex --help`, `codex exec --help`).
fn codex_takes(name: &str) -> Option<Takes> {
    Some(match name {
        "-c"
        | "--config"
        | "--enable"
        | "--disable"
        | "--remote"
        | "--remote-auth-token-env"
        | "-m"
        | "--model"
        | "--local-provider"
        | "-p"
        | "--profile"
        | "-s"
        | "--sandbox"
        | "-C"
        | "--cd"
        | "--add-dir"
        | "-a"
        | "--ask-for-approval"
        | "--thread-source"
        | "--cyber-access-program"
        | "--output-schema"
        | "--color"
        | "-o"
        | "--output-last-message" => Takes::One,
        "-i" | "--image" => Takes::Many,
        "--strict-config"
        | "--oss"
        | "--approve-for-me"
        | "--dangerously-bypass-approvals-and-sandbox"
        | "--dangerously-bypass-hook-trust"
        | "--worktree"
        | "--search"
        | "--no-alt-screen"
        | "--no-daemon"
        | "-h"
        | "--help"
        | "-V"
        | "--version"
        | "--skip-git-repo-check"
        | "--trust"
        | "--ephemeral"
        | "--ignore-user-config"
        | "--ignore-rules"
        | "--json"
        | "--full-auto" => Takes::Nothing,
        _ => return None,
    })
}

/// Codex's subcommands other than `exec`: none of them takes a new session's prompt.
const CODEX_COMMANDS: &[&str] = &[
    "agents",
    "review",
    "login",
    "logout",
    "mcp",
    "plugin",
    "app-server",
    "remote-control",
    "completion",
    "update",
    "doctor",
    "sandbox",
    "debug",
    "apply",
    "a",
    "resume",
    "queue",
    "archive",
    "delete",
    "migrate-rollouts",
    "migrate-nfs-db",
    "unarchive",
    "fork",
    "cloud",
    "exec-server",
    "features",
    "help",
];

/// The `-c` keys that set the instructions file prompt exec writes.
const CODEX_INSTRUCTION_KEYS: &[&str] =
    &["model_instructions_file", "experimental_instructions_file"];

/// Where Codex takes the prompt from: `codex [PROMPT]` (interactive) or
/// `codex exec [PROMPT]` (`-` or none: stdin). Refuses an instructions file
/// of the user's own.
fn codex_delivery(args: &[Option<&str>]) -> Result<Delivery, CliError> {
    let top = parse(args, codex_takes, "codex")?;
    let refuse_own = |parsed: &Parsed| -> Result<(), CliError> {
        for given in &parsed.options {
            if !matches!(given.name.as_str(), "-c" | "--config") {
                continue;
            }
            let key = given
                .value
                .and_then(|v| v.split_once('='))
                .map_or("", |(k, _)| k.trim());
            if CODEX_INSTRUCTION_KEYS.contains(&key) {
                return Err(CliError::failed(format!(
                    "codex's `{} {key}=...` would replace the instructions file prompt exec \
                     writes with the stable prefix: drop it, and put that text in a layer of \
                     the pipeline",
                    given.name
                )));
            }
        }
        Ok(())
    };
    refuse_own(&top)?;
    let Some(&first) = top.positionals.first() else {
        return Ok(if std::io::stdin().is_terminal() {
            Delivery::Interactive
        } else {
            Delivery::Stdin
        });
    };
    match args[first] {
        Some("exec" | "e") => {}
        Some(command) if CODEX_COMMANDS.contains(&command) => {
            return Err(CliError::failed(format!(
                "`codex {command}` is not a new session prompt exec can give a system prompt: run \
                 it without prompt exec (prompt exec runs `codex [PROMPT]` and `codex exec [PROMPT]`)"
            )));
        }
        _ => return Ok(Delivery::Argument(first)),
    }
    // `codex [global options] exec [options] [PROMPT]`: read what follows
    // `exec` on its own, for its prompt.
    let rest = &args[first + 1..];
    let exec = parse(rest, codex_takes, "codex exec")?;
    refuse_own(&exec)?;
    match exec.positionals.first() {
        Some(&i) if rest[i] == Some("-") => Ok(Delivery::Stdin),
        Some(&i) => match rest[i] {
            Some(command @ ("resume" | "fork" | "review" | "help")) => {
                Err(CliError::failed(format!(
                    "`codex exec {command}` is not a new session prompt exec can give a system \
                 prompt: run it without prompt exec"
                )))
            }
            _ => Ok(Delivery::Argument(first + 1 + i)),
        },
        None => Ok(Delivery::Stdin),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cli::exec::first_message::delivery_of;

    fn codex(args: &[&str]) -> Result<Delivery, String> {
        delivery_of(codex_delivery, args).map_err(|e| e.report())
    }

    #[test]
    fn the_codex_prompt_is_found_before_and_after_exec() {
        assert_eq!(codex(&["Fix it."]), Ok(Delivery::Argument(0)));
        assert_eq!(
            codex(&["-m", "gpt-5", "exec", "Fix it."]),
            Ok(Delivery::Argument(3))
        );
        assert_eq!(
            codex(&["exec", "-c", "x=1", "--json", "Fix it."]),
            Ok(Delivery::Argument(4))
        );
        assert_eq!(codex(&["e", "-"]), Ok(Delivery::Stdin));
        assert_eq!(
            codex(&["exec", "--skip-git-repo-check"]),
            Ok(Delivery::Stdin)
        );
        assert_eq!(
            codex(&["exec", "-i", "a.png", "b.png"]),
            Ok(Delivery::Stdin)
        );
        assert_eq!(
            codex(&["exec", "Go", "-i", "a.png"]),
            Ok(Delivery::Argument(1))
        );
    }

    #[test]
    fn a_codex_instructions_file_of_the_users_own_and_other_commands_are_refused() {
        for args in [
            &["-c", "model_instructions_file=\"/x\"", "exec", "Hi"][..],
            &["exec", "--config", " model_instructions_file = '/x'", "Hi"],
            &["exec", "-cexperimental_instructions_file=/x", "Hi"],
            &["-c", "model_instructions_file=/x", "Hi"],
        ] {
            let error = codex(args).unwrap_err();
            assert!(error.contains("instructions_file=..."), "{args:?}: {error}");
        }
        assert!(codex(&["-c", "model=\"o3\"", "exec", "Hi"]).is_ok());
        assert!(codex(&["login"]).unwrap_err().contains("`codex login`"));
        assert!(
            codex(&["exec", "resume", "--last"])
                .unwrap_err()
                .contains("exec resume")
        );
    }
}
