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
//!   ([`hooks_disabled`]). Claude Code reads the project's files at any
//!   size, through a symlink out of the folder, and whatever their kind, so
//!   a project file `exec`'s bounded reader refuses is named too, as not
//!   checked.
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
use crate::sources::SourceError;

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
    for warning in hooks_disabled(user_settings.as_ref()) {
        crate::cli::warn(&warning);
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

/// What the per-turn hook loses when every hook is off: the end of each
/// warning [`hooks_disabled`] gives.
const NO_HOOK: &str = "Claude Code then runs no hook, so the per-turn hook that brings each \
                       turn the prompt's dynamic part and reminder will not run, and nothing \
                       else says so";

/// The warnings, one each, for the settings that turn (or may turn)
/// every hook off for the session about to start, each naming its file as
/// the user knows it: the user's `--settings` value, the project's
/// `.claude/settings.json` and `.claude/settings.local.json` in the current
/// folder, and `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json`
/// when that is set).
///
/// The project's files are the repository's, so they are read as a source
/// reads a repository file: through its root, capped, without following a
/// link out of it, and without opening a FIFO or device. Claude Code reads
/// them with none of those limits, so a project file `exec` refuses is not
/// taken to be harmless: a file over the cap, a link out of the folder
/// (`.claude` itself, or a settings file, as a symlink), a FIFO or device,
/// or a hard link is named in a warning that it was not checked and may
/// turn the hooks off. A file that is absent, a folder, or not JSON says
/// nothing, as Claude Code reads nothing from it either. The user's own
/// `~/.claude/settings.json` is read the same way, but says nothing when
/// `exec` cannot check it: it is the user's, not the repository's.
pub(super) fn hooks_disabled(user_settings: Option<&Value>) -> Vec<String> {
    use crate::sources::Root;
    let mut found = Vec::new();
    if user_settings.is_some_and(disables) {
        found.push(sets("your --settings"));
    }
    if let Ok(here) = std::env::current_dir() {
        let project = Root::new(&here, "");
        // The files behind each symlink out of the folder, by the symlink.
        let mut behind: Vec<(String, Vec<String>)> = Vec::new();
        for name in [".claude/settings.json", ".claude/settings.local.json"] {
            match check(&project, &here.join(name)) {
                Checked::Clear => {}
                Checked::Disables => found.push(sets(name)),
                Checked::Unchecked(SourceError::OutsideRoot { target, .. }) => {
                    let link = if target.is_empty() {
                        name.to_owned()
                    } else {
                        target
                    };
                    match behind.iter_mut().find(|(l, _)| *l == link) {
                        Some((_, files)) => files.push(name.to_owned()),
                        None => behind.push((link, vec![name.to_owned()])),
                    }
                }
                Checked::TooLarge(size) => found.push(too_large(name, size)),
                Checked::Unchecked(error) => found.push(unchecked(name, &error)),
            }
        }
        for (link, files) in behind {
            found.push(through_link(&here, &link, &files));
        }
    }
    let user = std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(|dir| (std::path::PathBuf::from(dir), "$CLAUDE_CONFIG_DIR"))
        .or_else(|| {
            std::env::var_os("HOME").map(|home| (Path::new(&home).join(".claude"), "~/.claude"))
        });
    if let Some((dir, label)) = user {
        let root = Root::new(&dir, label).allow_hard_links();
        if let Checked::Disables = check(&root, &dir.join("settings.json")) {
            found.push(sets(&format!("{label}/settings.json")));
        }
    }
    found
}

/// Whether a settings object says `"disableAllHooks": true`.
fn disables(value: &Value) -> bool {
    value.get("disableAllHooks") == Some(&Value::Bool(true))
}

/// The warning for a settings file that sets `disableAllHooks`.
fn sets(file: &str) -> String {
    format!("{file} sets disableAllHooks: {NO_HOOK}; remove the setting to get them")
}

/// What reading one settings file found.
enum Checked {
    /// Absent, a folder, not JSON, or JSON without `"disableAllHooks": true`.
    Clear,
    /// It sets `"disableAllHooks": true`.
    Disables,
    /// Claude Code reads it whole, but it is over [`SETTINGS_CAP`]: this
    /// many bytes.
    TooLarge(u64),
    /// Claude Code may read it, but `exec` did not: why.
    Unchecked(SourceError),
}

/// Reads the settings file `path` under `root`'s rules, at most
/// [`SETTINGS_CAP`] bytes, and looks for `"disableAllHooks": true` in it.
///
/// Bytes that are not UTF-8 are read as U+FFFD, as Node reads a file as
/// UTF-8, so a stray byte in some string cannot hide the key.
fn check(root: &crate::sources::Root, path: &Path) -> Checked {
    let mut opened = match crate::sources::open(path, root) {
        Ok(opened) => opened,
        Err(
            SourceError::NotFound { .. }
            | SourceError::IsDirectory { .. }
            | SourceError::BadSymlink { .. },
        ) => return Checked::Clear,
        Err(error) => return Checked::Unchecked(error),
    };
    let size = opened.size();
    let bytes = match crate::sources::read_head(&mut opened, SETTINGS_CAP) {
        Ok(bytes) => bytes,
        Err(error) => return Checked::Unchecked(error),
    };
    if bytes.len() > SETTINGS_CAP {
        return Checked::TooLarge(size.max(bytes.len() as u64));
    }
    let text = String::from_utf8_lossy(&bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let parsed =
        crate::sources::parsed::json::<Value>(text, crate::sources::parsed::Multiline(&[]));
    match parsed {
        Ok(value) if disables(&value) => Checked::Disables,
        _ => Checked::Clear,
    }
}

/// The warning for a project settings file of `size` bytes, over
/// [`SETTINGS_CAP`]. It is not scanned past the cap: a scan that missed an
/// escaped key (`"disable\u0041llHooks"`) would say all is well, while this
/// says what is known, and a settings file that large is itself a sign.
fn too_large(file: &str, size: u64) -> String {
    format!(
        "{file} is {size} bytes, over the {} MiB prompt exec reads of a settings file, so it was \
         not checked; Claude Code reads it whole, and if it sets disableAllHooks, {NO_HOOK}; \
         check it for disableAllHooks",
        SETTINGS_CAP / (1024 * 1024)
    )
}

/// The warning for a project settings file `exec` did not read.
fn unchecked(file: &str, error: &SourceError) -> String {
    let why = match error {
        SourceError::NotRegular { kind, .. } => format!(
            "is {kind}, not a regular file, so prompt exec did not read it (that could wait \
             forever) nor check it; Claude Code reads it"
        ),
        SourceError::HardLink { names, .. } => format!(
            "is a file with {names} names (a hard link), which may be a file outside the folder, \
             so prompt exec did not read it nor check it; Claude Code reads it"
        ),
        _ => {
            "could not be read, so prompt exec did not check it; Claude Code may read it".to_owned()
        }
    };
    format!("{file} {why}, and if it sets disableAllHooks, {NO_HOOK}; check it for disableAllHooks")
}

/// The warning for the project settings `files` behind `link`, a symlink
/// out of the current folder that `exec` does not follow and Claude Code
/// does. Where the link points is its own text, read with `readlink` (so
/// nothing is said of whether that place exists), made visible and cut.
fn through_link(here: &Path, link: &str, files: &[String]) -> String {
    let to = std::fs::read_link(here.join(link))
        .map(|target| {
            let text = crate::sources::visible(&target.to_string_lossy());
            let cut: String = text.chars().take(200).collect();
            let more = if cut.len() < text.len() { "…" } else { "" };
            format!(" to {cut}{more}")
        })
        .unwrap_or_default();
    let (files, were) = match files {
        [one] => (one.clone(), "was"),
        more => (more.join(" and "), "were"),
    };
    format!(
        "{link} is a symlink{to}, out of the current folder: prompt exec does not follow it, so \
         {files} {were} not read; Claude Code follows it, and if the settings behind it set \
         disableAllHooks, {NO_HOOK}; check the settings behind {link} for disableAllHooks"
    )
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
