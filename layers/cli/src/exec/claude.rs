//! Claude Code's placement: the stable prefix in `--system-prompt-file`, each
//! turn's dynamic part through a `UserPromptSubmit` hook, the user's
//! arguments passed through untouched.
//!
//! Measured on the wire with Claude Code 2.1.328:
//!
//! - `--system-prompt-file FILE` sends the file's bytes as `system[2]` with
//!   `cache_control` (after the billing header and the SDK's one line),
//!   byte-exact: the file is written with no trailing newline.
//! - A `UserPromptSubmit` hook from `--settings FILE` runs before every turn,
//!   interactive or `-p`, and the `additionalContext` it prints becomes a
//!   text block of that turn's user message:
//!   `<system-reminder>\nUserPromptSubmit hook additional context: TEXT\n</system-reminder>`,
//!   never part of a system block. The hooks of the user's own settings
//!   files (`~/.claude/settings.json`, `.claude/settings*.json`) run too.
//! - Of several `--settings`, only the last counts, so a `--settings` of the
//!   user's is merged into the one `exec` writes rather than passed on.
//! - `"disableAllHooks": true` in the project's `.claude/settings.json` or
//!   `.claude/settings.local.json` (of the folder Claude Code runs in, not a
//!   folder above it), in `~/.claude/settings.json` or in a `--settings`
//!   silences every hook, `exec`'s included, without a word: the turn then
//!   arrives with no context. A `--settings` saying `false` overrides the
//!   others, but would also run every hook the user or the repository
//!   turned off, so `exec` writes none: it warns, naming the file
//!   ([`hooks_disabled`]).
//!
//! So `exec` needs no knowledge of Claude Code's options: it adds its own
//! arguments before the user's, and refuses only the arguments that would
//! replace or join its system block.

use crate::cli::CliError;
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use super::turn::{self, CLAUDE_CONTEXT_LIMIT};
use super::{ClientKind, Launch};
use crate::cli::outcome::Outcome;

/// Claude Code's options that would replace the system block `exec` fills
/// (or, appended, join it).
const SYSTEM_OPTIONS: &[&str] = &[
    "--system-prompt",
    "--system-prompt-file",
    "--append-system-prompt",
    "--append-system-prompt-file",
];

/// Claude Code's subcommands (2.1.328): none of them is a session with a
/// system prompt. Only the first argument is compared with them.
const COMMANDS: &[&str] = &[
    "agents",
    "attach",
    "auth",
    "auto-mode",
    "doctor",
    "gateway",
    "import",
    "install",
    "logs",
    "mcp",
    "plugin",
    "plugins",
    "purge",
    "respawn",
    "rm",
    "setup-token",
    "stop",
    "kill",
    "ultrareview",
    "update",
    "upgrade",
];

/// Refuses a subcommand, and the options that would replace or join the
/// system block. Everything else, known to this version or not, passes.
pub(super) fn check_args(args: &[OsString]) -> Result<(), CliError> {
    if let Some(command) = args
        .first()
        .and_then(|a| a.to_str())
        .filter(|a| COMMANDS.contains(a))
    {
        return Err(CliError::failed(format!(
            "`claude {command}` is a subcommand, not a session with a system prompt: run it \
             without prompt exec"
        )));
    }
    for arg in options(args) {
        let name = arg.split_once('=').map_or(arg, |(name, _)| name);
        if !SYSTEM_OPTIONS.contains(&name) {
            continue;
        }
        return Err(if name.starts_with("--append") {
            CliError::failed(format!(
                "claude's `{name}` is joined into the same cached system block as the stable \
                 prefix, so the block would no longer be the prefix alone: drop it, and put that \
                 text in a layer of the pipeline"
            ))
        } else {
            CliError::failed(format!(
                "claude's `{name}` would replace the stable prefix prompt exec puts in the \
                 system prompt: drop it, and put that text in a layer of the pipeline"
            ))
        });
    }
    Ok(())
}

/// The arguments before a `--` that are UTF-8 and start with `--`.
fn options(args: &[OsString]) -> impl Iterator<Item = &str> {
    args.iter()
        .map_while(|a| a.to_str().map_or(Some(""), |a| (a != "--").then_some(a)))
        .filter(|a| a.starts_with("--"))
}

/// Writes the system prompt file, the turn file and the settings file, then
/// becomes `claude --system-prompt-file F --settings S ARGS...`.
pub(super) fn launch(launch: &Launch) -> Outcome {
    let context = prompt_providers::context_text(&launch.prompt);
    let chars = context.chars().count();
    if chars > CLAUDE_CONTEXT_LIMIT {
        return Err(CliError::failed(format!(
            "the prompt's dynamic part and reminder are {chars} characters; Claude Code shows \
             the model only a 2 KB preview of hook context over {CLAUDE_CONTEXT_LIMIT}: shorten \
             the dynamic layers (or --budget-chars)"
        )));
    }
    let dir = super::cache_dir(ClientKind::Claude)?;
    let system = super::write_system_file(&dir, &launch.system)?;
    let hook = turn::record(&dir, ClientKind::Claude, launch.options)?;
    let (user_settings, rest) = take_settings(launch.client_args)?;
    for file in hooks_disabled(user_settings.as_ref()) {
        crate::cli::warn(&format!(
            "{file} sets disableAllHooks: Claude Code then runs no hook, so the per-turn hook that \
             brings each turn the prompt's dynamic part and reminder will not run, and nothing \
             else says so; remove the setting to get them"
        ));
    }
    let settings = settings_with_hook(user_settings, &hook)?;
    let text = serde_json::to_string_pretty(&settings).map_err(CliError::from_error)?;
    let name = format!(
        "settings-{}.json",
        prompt_core::fingerprint::Fingerprint::of(&text)
    );
    let settings_file = super::write_private(&dir, &name, &text)?;
    let mut command = Command::new(launch.program);
    command
        .arg("--system-prompt-file")
        .arg(&system)
        .arg("--settings")
        .arg(&settings_file)
        .args(rest);
    super::launch(command, launch.program, None)
}

/// The user's `--settings VALUE` / `--settings=VALUE` (the last one, as
/// Claude Code keeps only the last) as JSON, and the arguments without them.
/// VALUE is a JSON object or a file holding one, as Claude Code reads it.
fn take_settings(args: &[OsString]) -> Result<(Option<Value>, Vec<OsString>), CliError> {
    let mut value = None;
    let mut rest = Vec::with_capacity(args.len());
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.to_str() {
            Some("--") => {
                rest.push(arg.clone());
                rest.extend(iter.by_ref().cloned());
            }
            Some("--settings") => {
                let given = iter
                    .next()
                    .ok_or_else(|| CliError::failed("claude's `--settings` needs a value"))?;
                value = Some(given.clone());
            }
            Some(a) if a.starts_with("--settings=") => {
                value = Some(OsString::from(&a["--settings=".len()..]));
            }
            _ => rest.push(arg.clone()),
        }
    }
    let Some(value) = value else {
        return Ok((None, rest));
    };
    let text = match value.to_str() {
        Some(v) if v.trim_start().starts_with('{') => v.to_owned(),
        // Read as `prompt diff` reads the file it is given: a FIFO or device is
        // refused without waiting on it, the size is capped, and a path inside
        // the current folder may not lead out of it through a symlink.
        _ => crate::cli::diff::read_capped_as(
            Path::new(&value),
            SETTINGS_CAP as u64,
            "prompt exec",
            "pass claude's `--settings` a JSON object or a regular file holding one",
        )?,
    };
    let json: Value = serde_json::from_str(&text).map_err(|e| {
        CliError::failed(format!(
            "claude's `--settings {}` is not a JSON object",
            value.to_string_lossy()
        ))
        .with_source(e)
    })?;
    if !json.is_object() {
        return Err(CliError::failed(format!(
            "claude's `--settings {}` is not a JSON object",
            value.to_string_lossy()
        )));
    }
    Ok((Some(json), rest))
}

/// The most of a settings file read to look for `disableAllHooks`.
const SETTINGS_CAP: usize = 1024 * 1024;

/// The settings that turn every hook off for the session about to start,
/// each named as the user knows it: the user's `--settings` value, the
/// project's `.claude/settings.json` and `.claude/settings.local.json` in
/// the current folder (read as a source reads a repository file: through
/// its root, capped, without blocking), and `~/.claude/settings.json`
/// (`$CLAUDE_CONFIG_DIR/settings.json` when that is set). A file that is
/// absent, unreadable or not JSON says nothing.
pub(super) fn hooks_disabled(user_settings: Option<&Value>) -> Vec<String> {
    use crate::sources::{CappedText, Root, parsed};
    let disables = |value: &Value| value.get("disableAllHooks") == Some(&Value::Bool(true));
    let mut found = Vec::new();
    if user_settings.is_some_and(disables) {
        found.push("your --settings".to_owned());
    }
    let read = |root: &Root, path: &Path| {
        CappedText::read(path, root, SETTINGS_CAP)
            .ok()
            .filter(|text| !text.is_truncated())
            .and_then(|text| parsed::json::<Value>(&text.text, parsed::Multiline(&[])).ok())
            .is_some_and(|value| disables(&value))
    };
    if let Ok(here) = std::env::current_dir() {
        let project = Root::new(&here, "");
        for name in [".claude/settings.json", ".claude/settings.local.json"] {
            if read(&project, &here.join(name)) {
                found.push(name.to_owned());
            }
        }
    }
    let user = std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(|dir| (std::path::PathBuf::from(dir), "$CLAUDE_CONFIG_DIR"))
        .or_else(|| {
            std::env::var_os("HOME").map(|home| (Path::new(&home).join(".claude"), "~/.claude"))
        });
    if let Some((dir, label)) = user {
        let root = Root::new(&dir, label).allow_hard_links();
        if read(&root, &dir.join("settings.json")) {
            found.push(format!("{label}/settings.json"));
        }
    }
    found
}

/// `settings` (the user's, or none) with one more `UserPromptSubmit` hook
/// running `command`; the user's own hooks stay, before it.
fn settings_with_hook(settings: Option<Value>, command: &str) -> Result<Value, CliError> {
    let mut settings = settings.unwrap_or_else(|| json!({}));
    let ours = json!({"hooks": [{"type": "command", "command": command}]});
    let hooks = settings
        .as_object_mut()
        .ok_or_else(|| CliError::failed("the settings are not a JSON object"))?
        .entry("hooks")
        .or_insert_with(|| json!({}));
    let event = hooks
        .as_object_mut()
        .ok_or_else(|| CliError::failed("the settings' `hooks` is not a JSON object"))?
        .entry("UserPromptSubmit")
        .or_insert_with(|| json!([]));
    event
        .as_array_mut()
        .ok_or_else(|| CliError::failed("the settings' `hooks.UserPromptSubmit` is not a list"))?
        .push(ours);
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    /// A `--settings` file that is a FIFO is refused at once: a read of it
    /// would wait for a writer that never comes.
    #[test]
    fn a_settings_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("settings.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let given = fifo.display().to_string();
        let error = take_settings(&args(&["--settings", &given, "-p", "Hi"]))
            .unwrap_err()
            .report();
        assert!(error.contains("is not a regular file"), "{error}");
        assert!(error.contains("`--settings`"), "{error}");
        let big = dir.path().join("big.json");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(SETTINGS_CAP as u64 + 1)
            .unwrap();
        let given = big.display().to_string();
        let error = take_settings(&args(&["--settings", &given]))
            .unwrap_err()
            .report();
        assert!(error.contains("over the 1048576-byte cap"), "{error}");
    }

    #[test]
    fn only_system_prompt_options_and_subcommands_are_refused() {
        for flag in SYSTEM_OPTIONS {
            let error = check_args(&args(&["-p", flag, "x", "Hi"]))
                .unwrap_err()
                .report();
            assert!(error.contains(flag), "{error}");
            let inline = format!("{flag}=x");
            assert!(check_args(&args(&["-p", &inline, "Hi"])).is_err());
        }
        assert!(
            check_args(&args(&["mcp", "list"]))
                .unwrap_err()
                .report()
                .contains("`claude mcp` is a subcommand")
        );
        // An option this code never heard of, with or without a value.
        assert!(check_args(&args(&["--mystery", "Hi", "--new-flag=3", "-Z"])).is_ok());
        // A prompt that only mentions the word, after `--`, or later on.
        assert!(check_args(&args(&["-p", "--", "--system-prompt"])).is_ok());
        assert!(check_args(&args(&["Explain mcp"])).is_ok());
    }

    #[test]
    fn the_users_settings_are_kept_and_the_hook_is_added() {
        let given = args(&[
            "--model",
            "opus",
            "--settings",
            r#"{"model": "x", "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "mine"}]}], "Stop": []}}"#,
            "-p",
            "Hi",
        ]);
        let (user, rest) = take_settings(&given).unwrap();
        assert_eq!(rest, args(&["--model", "opus", "-p", "Hi"]));
        let merged = settings_with_hook(user, "ours").unwrap();
        assert_eq!(merged["model"], "x");
        assert!(merged["hooks"]["Stop"].is_array());
        let hooks = merged["hooks"]["UserPromptSubmit"].as_array().unwrap();
        assert_eq!(hooks[0]["hooks"][0]["command"], "mine");
        assert_eq!(hooks[1]["hooks"][0]["command"], "ours");

        let (none, rest) = take_settings(&args(&["--", "--settings", "x"])).unwrap();
        assert!(none.is_none());
        assert_eq!(rest, args(&["--", "--settings", "x"]));
        assert!(take_settings(&args(&["--settings=[1]"])).is_err());
        let bare = settings_with_hook(None, "ours").unwrap();
        assert_eq!(
            bare,
            json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "ours"}]}]}})
        );
    }
}
