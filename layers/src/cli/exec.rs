//! `prompt exec [render options] -- CLIENT ARGS...`: renders the prompt as
//! `prompt render` does with the same options, then runs Claude Code or Codex
//! with the pieces where each client caches them well:
//!
//! - the stable prefix in the client's system slot (`claude --system-prompt
//!   TEXT`; Codex: `-c model_instructions_file="FILE"`, the file written
//!   atomically into `$XDG_CACHE_HOME/prompt/codex/` or
//!   `~/.cache/prompt/codex/`, named by the fingerprint of its bytes, the
//!   folder kept to the newest [`KEEP_FILES`] files);
//! - the dynamic suffix and the reminder in a context block at the head of
//!   the user's prompt: the prompt argument when there is one, else stdin.
//!
//! Everything else in ARGS is passed through untouched; stdin, stdout and
//! stderr are inherited and the client's exit code is returned. On Unix,
//! when stdin needs no prefix, `prompt` replaces itself with the client.
//!
//! Which argument is the prompt follows each client's own parser (Claude
//! Code 2.1.328, Codex 0.169.0): the first argument that is neither an option
//! nor an option's value. An option this table does not know, followed by a
//! bare word, is an error (the word may be its value or the prompt), as are
//! arguments that would fight the placement (the user's own system prompt).

use std::ffi::{OsStr, OsString};
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use clap::ValueEnum;
use prompt_core::providers::{self, Invocation, claude_cli, codex};
use prompt_core::{AssemblyPath, PromptMode};

use super::formats::DeliveryArgs;
use super::outcome::{Failure, Outcome};
use super::workspace::WorkspaceArgs;
use crate::cli::PathArg;

/// How many instructions files the Codex cache folder keeps.
pub(crate) const KEEP_FILES: usize = 32;

/// The options of `prompt exec`.
#[derive(clap::Args)]
pub(crate) struct ExecArgs {
    #[command(flatten)]
    workspace: WorkspaceArgs,
    /// `cached`: the stable prefix in the system slot, the dynamic suffix in
    /// the user's message; `basic`: the whole flat prompt in the system slot.
    #[arg(long, value_enum, default_value_t = PathArg::Cached)]
    path: PathArg,
    /// How much the prompt says (default: full; Aleph: its `aleph.toml`).
    #[arg(long)]
    mode: Option<PromptMode>,
    #[command(flatten)]
    delivery: DeliveryArgs,
    /// Print the assembly trace (layers, bytes, notes) to stderr first.
    #[arg(long)]
    trace: bool,
    /// Scan the prompt for credential-shaped strings; if any, name each
    /// (layer, byte range) on stderr and exit 1 without running the client.
    #[arg(long)]
    check_secrets: bool,
    /// What CLIENT is, when its file name does not say (a wrapper script).
    #[arg(long, value_enum)]
    client_kind: Option<ClientKind>,
    /// The client and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CLIENT ARGS")]
    command: Vec<OsString>,
}

/// The clients `prompt exec` knows how to place a prompt for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ClientKind {
    /// Claude Code (`claude`).
    Claude,
    /// OpenAI Codex CLI (`codex`).
    Codex,
}

impl ClientKind {
    const KNOWN: &'static str = "claude, codex";

    /// The kind a program's file name says: `claude`, `codex` (with any
    /// `.exe`, `.cmd` or `.js` extension).
    fn of_program(program: &OsStr) -> Option<Self> {
        let name = Path::new(program).file_name()?.to_str()?;
        let stem = [".exe", ".cmd", ".js"]
            .iter()
            .find_map(|ext| name.strip_suffix(ext))
            .unwrap_or(name);
        match stem {
            "claude" => Some(Self::Claude),
            "codex" => Some(Self::Codex),
            _ => None,
        }
    }
}

/// Where the user's prompt is, in the client's arguments.
#[derive(Debug, PartialEq, Eq)]
enum Delivery {
    /// The argument at this index.
    Argument(usize),
    /// Standard input.
    Stdin,
    /// Nowhere: an interactive session that starts without a prompt.
    Interactive,
}

pub(crate) fn run(args: ExecArgs) -> Outcome {
    let (program, client_args) = args
        .command
        .split_first()
        .ok_or_else(|| Failure::from("name the client after `--`".to_owned()))?;
    let kind = args
        .client_kind
        .or_else(|| ClientKind::of_program(program))
        .ok_or_else(|| {
            format!(
                "`{}` is not a client prompt exec knows (known: {}); if it is a wrapper around \
                 one, say which with --client-kind claude|codex",
                program.to_string_lossy(),
                ClientKind::KNOWN
            )
        })?;
    let strings: Vec<Option<&str>> = client_args.iter().map(|a| a.to_str()).collect();
    let delivery = match kind {
        ClientKind::Claude => claude_delivery(&strings)?,
        ClientKind::Codex => codex_delivery(&strings)?,
    };

    let rendered = crate::cli::assemble(&args.workspace, args.path, args.mode, &args.delivery)?;
    let prompt = &rendered.prompt;
    if args.trace {
        eprint!("{}", crate::cli::trace_summary(prompt.trace()));
    }
    if args.check_secrets {
        let findings = prompt_core::secrets::scan_prompt(prompt);
        for found in &findings {
            eprintln!(
                "prompt: secret: {} at bytes {}..{} of the prompt, in layer {}",
                found.finding.kind,
                found.finding.range.start,
                found.finding.range.end,
                found.layer.unwrap_or("(between layers)")
            );
        }
        if !findings.is_empty() {
            return Err(format!(
                "the prompt holds {} credential-shaped string(s); {} was not run: remove them \
                 from the files named by `--trace`",
                findings.len(),
                program.to_string_lossy()
            )
            .into());
        }
    }
    // Aleph's Basic path welds text on after assembly: the system slot is the
    // text `prompt render` prints.
    let system = match prompt.path() {
        AssemblyPath::Cached => prompt.stable().to_owned(),
        AssemblyPath::Basic => rendered.text.clone(),
    };
    let prefix = providers::user_prefix(prompt);
    let invocation = match kind {
        ClientKind::Claude => {
            claude_cli::invocation_for_text(&system, prefix).map_err(|e| e.to_string())?
        }
        ClientKind::Codex => {
            let dir = codex_cache_dir()?;
            let invocation =
                codex::invocation_for_text(system, prefix, &dir).map_err(|e| e.to_string())?;
            write_instructions(&invocation, &dir)?;
            invocation
        }
    };

    let mut user_args: Vec<OsString> = client_args.to_vec();
    let prefix = invocation.user_prefix.as_str();
    let stdin_prefix = match delivery {
        _ if prefix.is_empty() => None,
        Delivery::Argument(index) => {
            let text = strings[index].ok_or_else(|| {
                "the prompt argument is not valid UTF-8, so the context cannot be put before it"
                    .to_owned()
            })?;
            let message = invocation.user_message(text);
            if message.len() >= claude_cli::MAX_ARG_BYTES {
                return Err(format!(
                    "the prompt argument with the context block before it is {} bytes; the OS \
                     passes at most {} in one argument: give the prompt on stdin instead",
                    message.len(),
                    claude_cli::MAX_ARG_BYTES - 1
                )
                .into());
            }
            user_args[index] = message.into();
            None
        }
        Delivery::Stdin => Some(prefix),
        Delivery::Interactive => {
            return Err(format!(
                "{} would start an interactive session with no prompt, so the prompt's context \
                 block ({} B: its dynamic part and reminder) has no message to travel in: give \
                 the first prompt as an argument (prompt exec ... -- {} \"...\") or on stdin",
                program.to_string_lossy(),
                prefix.len(),
                program.to_string_lossy()
            )
            .into());
        }
    };

    let mut command = Command::new(program);
    command.args(&invocation.args).args(&user_args);
    launch(command, program, stdin_prefix)
}

/// Runs the client. With a stdin prefix, pipes the prefix then this process's
/// stdin into it and waits; without, on Unix, becomes the client.
fn launch(mut command: Command, program: &OsStr, stdin_prefix: Option<&str>) -> Outcome {
    let cannot = |e: std::io::Error| {
        Failure::from(format!(
            "cannot run `{}`: {e}; check that it is installed and on PATH",
            program.to_string_lossy()
        ))
    };
    let Some(prefix) = stdin_prefix else {
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Only returns on failure.
            return Err(cannot(command.exec()));
        }
        #[cfg(not(unix))]
        {
            let status = command.status().map_err(cannot)?;
            return Ok(exit_code(status));
        }
    };
    let mut child = command.stdin(Stdio::piped()).spawn().map_err(cannot)?;
    let mut pipe = child
        .stdin
        .take()
        .ok_or_else(|| cannot(std::io::Error::other("no stdin pipe")))?;
    let prefix = prefix.to_owned();
    // Not joined: if the client exits without reading everything, the copy
    // may still wait on a terminal; returning from main ends it.
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buf = [0u8; 64 * 1024];
        if pipe.write_all(prefix.as_bytes()).is_err() {
            return;
        }
        loop {
            match stdin.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if pipe.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
    });
    let status = child.wait().map_err(cannot)?;
    Ok(exit_code(status))
}

/// The client's exit code; killed by a signal: 128 + the signal, as a shell says.
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    if let Some(code) = status.code() {
        return ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1));
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return ExitCode::from(u8::try_from((128 + signal) & 0xff).unwrap_or(1));
        }
    }
    ExitCode::FAILURE
}

/// `$XDG_CACHE_HOME/prompt/codex` (an absolute `XDG_CACHE_HOME`), else
/// `$HOME/.cache/prompt/codex`, created owner-only.
fn codex_cache_dir() -> Result<PathBuf, String> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".cache"))
        })
        .ok_or_else(|| {
            "neither XDG_CACHE_HOME nor HOME is an absolute path, so there is no cache folder \
             for the Codex instructions file: set one of them"
                .to_owned()
        })?;
    let dir = base.join("prompt").join("codex");
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(&dir).map_err(|e| {
        format!(
            "cannot create the Codex instructions folder {}: {e}; set XDG_CACHE_HOME to a writable folder",
            dir.display()
        )
    })?;
    Ok(dir)
}

/// Writes the invocation's instructions file atomically, then bounds the folder.
fn write_instructions(invocation: &Invocation, dir: &Path) -> Result<(), String> {
    let file = invocation
        .instructions_file
        .as_ref()
        .ok_or_else(|| "the Codex invocation names no instructions file".to_owned())?;
    codex::write_instructions_text(&file.text, &file.path).map_err(|e| e.to_string())?;
    if let Err(error) = codex::prune_instructions(dir, KEEP_FILES) {
        crate::cli::warn(&error.to_string());
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Reading each client's arguments
// ---------------------------------------------------------------------------

/// How an option takes values.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Takes {
    /// Nothing.
    Nothing,
    /// One value (`--opt V`, `--opt=V`, `-oV`).
    One,
    /// An optional value: the next argument when it does not start with `-`.
    Optional,
    /// Every following argument up to the next option.
    Many,
}

/// One option as given: its name (`--model`, `-c`) and its first value.
struct Given<'a> {
    name: String,
    value: Option<&'a str>,
}

/// The options and positionals of `args`, read with `takes`.
struct Parsed<'a> {
    options: Vec<Given<'a>>,
    /// Indices of the positional arguments.
    positionals: Vec<usize>,
}

/// Reads `args` as a commander/clap parser would. An unknown option directly
/// followed by a bare word that would otherwise be the first positional is an
/// error: the word may be its value.
fn parse<'a>(
    args: &[Option<&'a str>],
    takes: impl Fn(&str) -> Option<Takes>,
    client: &str,
) -> Result<Parsed<'a>, String> {
    let mut parsed = Parsed {
        options: Vec::new(),
        positionals: Vec::new(),
    };
    let bare = |i: usize| {
        args.get(i)
            .is_some_and(|a| a.is_none_or(|a| !a.starts_with('-') || a == "-"))
    };
    let mut i = 0;
    let mut options_end = false;
    while i < args.len() {
        let Some(arg) = args[i] else {
            parsed.positionals.push(i);
            i += 1;
            continue;
        };
        if options_end || !arg.starts_with('-') || arg == "-" {
            parsed.positionals.push(i);
            i += 1;
            continue;
        }
        if arg == "--" {
            options_end = true;
            i += 1;
            continue;
        }
        let (name, inline) = if let Some(long) = arg.strip_prefix("--") {
            match long.split_once('=') {
                Some((name, value)) => (format!("--{name}"), Some(value)),
                None => (arg.to_owned(), None),
            }
        } else {
            let short: String = arg.chars().take(2).collect();
            let rest = &arg[short.len()..];
            (short, (!rest.is_empty()).then_some(rest))
        };
        let Some(kind) = takes(&name) else {
            if inline.is_none() && bare(i + 1) && parsed.positionals.is_empty() {
                return Err(format!(
                    "prompt exec does not know whether {client}'s option `{name}` takes a value, \
                     so it cannot tell whether the next argument is its value or the prompt: \
                     write `{name}=VALUE` (or put the prompt before it)"
                ));
            }
            parsed.options.push(Given {
                name,
                value: inline,
            });
            i += 1;
            continue;
        };
        let next = args.get(i + 1).copied().flatten();
        i += 1;
        let value = match (kind, inline) {
            (Takes::Nothing, _) => None,
            (_, Some(value)) => Some(value),
            (Takes::One, None) => {
                i += 1;
                next
            }
            (Takes::Optional | Takes::Many, None) if bare(i) => {
                i += 1;
                next
            }
            (Takes::Optional | Takes::Many, None) => None,
        };
        if kind == Takes::Many {
            while bare(i) {
                i += 1;
            }
        }
        parsed.options.push(Given { name, value });
    }
    Ok(parsed)
}

/// Claude Code 2.1.328's options that take values (from `claude --help`,
/// plus the file forms of the system prompt options).
fn claude_takes(name: &str) -> Option<Takes> {
    Some(match name {
        "--agent"
        | "--agents"
        | "--append-system-prompt"
        | "--append-system-prompt-file"
        | "--autocompact"
        | "--debug-file"
        | "--effort"
        | "--environment"
        | "--fallback-model"
        | "--input-format"
        | "--json-schema"
        | "--max-budget-usd"
        | "--max-turns"
        | "--model"
        | "-n"
        | "--name"
        | "--output-format"
        | "--permission-mode"
        | "--permission-prompt-tool"
        | "--permission-prompts"
        | "--plugin-dir"
        | "--plugin-url"
        | "--remote-control-session-name-prefix"
        | "--session-id"
        | "--setting-sources"
        | "--settings"
        | "--system-prompt"
        | "--system-prompt-file"
        | "--system-prompt-snapshot" => Takes::One,
        "--add-dir" | "--allowedTools" | "--allowed-tools" | "--betas" | "--disallowedTools"
        | "--disallowed-tools" | "--file" | "--mcp-config" | "--tools" => Takes::Many,
        "--cloud"
        | "-d"
        | "--debug"
        | "--from-pr"
        | "--prompt-suggestions"
        | "--remote-control"
        | "-r"
        | "--resume"
        | "--teleport"
        | "-w"
        | "--worktree" => Takes::Optional,
        "--allow-dangerously-skip-permissions"
        | "--ax-screen-reader"
        | "--bg"
        | "--background"
        | "--bare"
        | "--brief"
        | "--chrome"
        | "-c"
        | "--continue"
        | "--dangerously-skip-permissions"
        | "--desktop"
        | "--disable-slash-commands"
        | "--exclude-dynamic-system-prompt-sections"
        | "--fork-session"
        | "--forward-subagent-text"
        | "-h"
        | "--help"
        | "--ide"
        | "--include-hook-events"
        | "--include-partial-messages"
        | "--no-chrome"
        | "--no-session-persistence"
        | "-p"
        | "--print"
        | "--replay-user-messages"
        | "--restricted"
        | "--safe-mode"
        | "--strict-mcp-config"
        | "--tmux"
        | "--verbose"
        | "-v"
        | "--version" => Takes::Nothing,
        _ => return None,
    })
}

/// Claude Code's subcommands: none of them is a session.
const CLAUDE_COMMANDS: &[&str] = &[
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

/// Where Claude Code takes the prompt from, refusing a system prompt of the
/// user's own.
fn claude_delivery(args: &[Option<&str>]) -> Result<Delivery, String> {
    let parsed = parse(args, claude_takes, "claude")?;
    for given in &parsed.options {
        match given.name.as_str() {
            "--system-prompt" | "--system-prompt-file" => {
                return Err(format!(
                    "claude's `{}` would replace the stable prefix prompt exec puts in the system \
                     prompt: drop it, and put that text in a layer of the pipeline",
                    given.name
                ));
            }
            "--append-system-prompt" | "--append-system-prompt-file" => {
                return Err(format!(
                    "claude's `{}` is joined into the same cached system block as the stable \
                     prefix, so the block would no longer be the prefix alone: drop it, and put \
                     that text in a layer of the pipeline",
                    given.name
                ));
            }
            _ => {}
        }
    }
    if let Some(&first) = parsed.positionals.first() {
        if let Some(command) = args[first].filter(|a| CLAUDE_COMMANDS.contains(a)) {
            return Err(format!(
                "`claude {command}` is a subcommand, not a session with a system prompt: run it \
                 without prompt exec"
            ));
        }
        return Ok(Delivery::Argument(first));
    }
    let print = parsed
        .options
        .iter()
        .any(|g| g.name == "-p" || g.name == "--print");
    if parsed
        .options
        .iter()
        .any(|g| g.name == "--input-format" && g.value == Some("stream-json"))
    {
        return Err(
            "with `--input-format stream-json` claude reads JSON messages on stdin, which a \
             context block cannot be put before: give the prompt as an argument, or send the \
             context yourself (prompt_core::providers::claude_cli::invocation)"
                .to_owned(),
        );
    }
    if print || !std::io::stdin().is_terminal() {
        Ok(Delivery::Stdin)
    } else {
        Ok(Delivery::Interactive)
    }
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
fn codex_delivery(args: &[Option<&str>]) -> Result<Delivery, String> {
    let top = parse(args, codex_takes, "codex")?;
    let refuse_own = |parsed: &Parsed| -> Result<(), String> {
        for given in &parsed.options {
            if !matches!(given.name.as_str(), "-c" | "--config") {
                continue;
            }
            let key = given
                .value
                .and_then(|v| v.split_once('='))
                .map_or("", |(k, _)| k.trim());
            if CODEX_INSTRUCTION_KEYS.contains(&key) {
                return Err(format!(
                    "codex's `{} {key}=...` would replace the instructions file prompt exec \
                     writes with the stable prefix: drop it, and put that text in a layer of \
                     the pipeline",
                    given.name
                ));
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
            return Err(format!(
                "`codex {command}` is not a new session prompt exec can give a system prompt: run \
                 it without prompt exec (prompt exec runs `codex [PROMPT]` and `codex exec [PROMPT]`)"
            ));
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
            Some(command @ ("resume" | "fork" | "review" | "help")) => Err(format!(
                "`codex exec {command}` is not a new session prompt exec can give a system \
                 prompt: run it without prompt exec"
            )),
            _ => Ok(Delivery::Argument(first + 1 + i)),
        },
        None => Ok(Delivery::Stdin),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claude(args: &[&str]) -> Result<Delivery, String> {
        let args: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
        claude_delivery(&args)
    }

    fn codex(args: &[&str]) -> Result<Delivery, String> {
        let args: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
        codex_delivery(&args)
    }

    #[test]
    fn the_claude_prompt_is_the_first_argument_no_option_takes() {
        assert_eq!(claude(&["-p", "Fix it."]), Ok(Delivery::Argument(1)));
        assert_eq!(
            claude(&["--model", "opus", "-p", "Fix it."]),
            Ok(Delivery::Argument(3))
        );
        assert_eq!(
            claude(&["--model=opus", "Fix it.", "-p"]),
            Ok(Delivery::Argument(1))
        );
        // A variadic option takes every bare word after it, as commander does.
        assert_eq!(
            claude(&["Fix it.", "--add-dir", "a", "b"]),
            Ok(Delivery::Argument(0))
        );
        assert_eq!(claude(&["--add-dir", "a", "b", "-p"]), Ok(Delivery::Stdin));
        // An optional value is the next bare word.
        assert_eq!(claude(&["-r", "abc", "Fix it."]), Ok(Delivery::Argument(2)));
        assert_eq!(
            claude(&["-p", "--", "--odd prompt"]),
            Ok(Delivery::Argument(2))
        );
        assert_eq!(claude(&["-nNAME", "Hi"]), Ok(Delivery::Argument(1)));
    }

    #[test]
    fn claude_system_prompt_flags_and_subcommands_are_refused() {
        for flag in [
            "--system-prompt",
            "--system-prompt-file",
            "--append-system-prompt",
            "--append-system-prompt-file",
        ] {
            let error = claude(&["-p", flag, "x", "Hi"]).unwrap_err();
            assert!(error.contains(flag), "{error}");
            let inline = format!("{flag}=x");
            assert!(claude(&["-p", &inline, "Hi"]).is_err());
        }
        assert!(
            claude(&["mcp", "list"])
                .unwrap_err()
                .contains("`claude mcp` is a subcommand")
        );
        let error = claude(&["--mystery", "Hi"]).unwrap_err();
        assert!(error.contains("`--mystery=VALUE`"), "{error}");
        // Unknown but unambiguous: the prompt came first, or the value is inline.
        assert_eq!(claude(&["Hi", "--mystery", "x"]), Ok(Delivery::Argument(0)));
        assert_eq!(claude(&["--mystery=x", "Hi"]), Ok(Delivery::Argument(1)));
        assert!(claude(&["-p", "--input-format", "stream-json"]).is_err());
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

    #[test]
    fn the_client_kind_comes_from_the_file_name() {
        assert_eq!(
            ClientKind::of_program(OsStr::new("/usr/bin/claude")),
            Some(ClientKind::Claude)
        );
        assert_eq!(
            ClientKind::of_program(OsStr::new("codex.cmd")),
            Some(ClientKind::Codex)
        );
        assert_eq!(ClientKind::of_program(OsStr::new("my-claude")), None);
        assert_eq!(ClientKind::of_program(OsStr::new("gemini")), None);
    }
}
