//! Launching a client with the prompt in place: `prompt exec [render options]
//! -- CLIENT ARGS...` renders as `prompt render` does with the same options,
//! then runs Claude Code, Codex or Gemini CLI with each piece where that
//! client caches it well. Each client's placement is in its own module:
//!
//! - [`claude`]: the stable prefix in `--system-prompt-file FILE`, the dynamic
//!   part and reminder through a per-turn `UserPromptSubmit` hook (`--settings
//!   FILE`) that runs `prompt turn`; the user's arguments pass untouched;
//! - [`codex`]: the stable prefix in `-c model_instructions_file="FILE"`;
//! - [`gemini`]: the stable prefix in `GEMINI_SYSTEM_MD=FILE`;
//! - for both, the dynamic part and reminder at the head of the first user
//!   message ([`first_message`]), found among the client's arguments: neither
//!   client lets `exec` add a per-turn hook without the user's review or
//!   root's files (each module says why).
//!
//! [`turn`] is the hook's side: `prompt turn --from FILE` renders one turn's
//! dynamic part for the options `exec` recorded in FILE.
//!
//! Every file `exec` writes goes into `$XDG_CACHE_HOME/prompt/CLIENT/` (else
//! `~/.cache/prompt/CLIENT/`), a 0700 folder, as a 0600 file named by the
//! fingerprint of its bytes. stdin, stdout and stderr are inherited and the
//! client's exit code is returned; on Unix, when stdin needs no prefix,
//! `prompt` replaces itself with the client.

mod claude;
mod codex;
mod first_message;
mod gemini;
pub(crate) mod turn;

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use clap::ValueEnum;
use prompt_core::{AssembledPrompt, AssemblyPath, PromptMode};
use prompt_providers::codex as codex_files;
use serde::{Deserialize, Serialize};

use super::formats::DeliveryArgs;
use super::outcome::{CliError, Outcome};
use super::workspace::WorkspaceArgs;
use crate::cli::PathArg;

/// How many system prompt files each client's cache folder keeps.
pub(crate) const KEEP_FILES: usize = 32;

/// The options of `prompt exec`.
#[derive(clap::Args)]
pub(crate) struct ExecArgs {
    #[command(flatten)]
    render: RenderOptions,
    /// What CLIENT is, when its file name does not say (a wrapper script).
    #[arg(long, value_enum)]
    client_kind: Option<ClientKind>,
    /// The client and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CLIENT ARGS")]
    command: Vec<OsString>,
}

/// What to render: the options `exec` parses and records, as parsed, for
/// the hook's `prompt turn`.
#[derive(clap::Args, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RenderOptions {
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
    /// (layer, byte range) on stderr and exit 1 without running the client
    /// (in a session's later turns: refuse the turn).
    #[arg(long)]
    check_secrets: bool,
}

/// The clients `prompt exec` knows how to place a prompt for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ClientKind {
    /// Claude Code (`claude`).
    Claude,
    /// OpenAI Codex CLI (`codex`).
    Codex,
    /// Gemini CLI (`gemini`).
    Gemini,
}

impl ClientKind {
    const KNOWN: &'static str = "claude, codex, gemini";

    /// The kind a program's file name says: `claude`, `codex`, `gemini`
    /// (with any `.exe`, `.cmd` or `.js` extension).
    fn of_program(program: &OsStr) -> Option<Self> {
        let name = Path::new(program).file_name()?.to_str()?;
        let stem = [".exe", ".cmd", ".js"]
            .iter()
            .find_map(|ext| name.strip_suffix(ext))
            .unwrap_or(name);
        match stem {
            "claude" => Some(Self::Claude),
            "codex" => Some(Self::Codex),
            "gemini" => Some(Self::Gemini),
            _ => None,
        }
    }

    /// The name of its cache folder under `prompt/`.
    fn folder(self) -> &'static str {
        match self {
            Self::Claude => "claude",
            Self::Codex => "codex",
            Self::Gemini => "gemini",
        }
    }
}

/// What one launch assembled: the prompt, and the text of the system slot.
pub(crate) struct Launch<'a> {
    program: &'a OsStr,
    client_args: &'a [OsString],
    /// The options it rendered with.
    options: &'a RenderOptions,
    prompt: AssembledPrompt,
    /// The system slot: the stable prefix (Cached), or the whole prompt
    /// as `prompt render` prints it (Basic: Aleph welds text on after assembly).
    system: String,
}

pub(crate) fn run(args: ExecArgs) -> Outcome {
    let (program, client_args) = args
        .command
        .split_first()
        .ok_or_else(|| CliError::failed("name the client after `--`".to_owned()))?;
    let kind = args
        .client_kind
        .or_else(|| ClientKind::of_program(program))
        .ok_or_else(|| {
            CliError::failed(format!(
                "`{}` is not a client prompt exec knows (known: {}); if it is a wrapper around \
                 one, say which with --client-kind claude|codex|gemini",
                program.to_string_lossy(),
                ClientKind::KNOWN
            ))
        })?;
    // Refuse what fights the placement before rendering anything; Codex and
    // Gemini CLI also say where the first prompt is.
    let checked = match kind {
        ClientKind::Claude => Checked::Claude(claude::check_args(client_args)?),
        ClientKind::Codex => Checked::Codex(codex::check_args(client_args)?),
        ClientKind::Gemini => Checked::Gemini(gemini::check_args(client_args)?),
    };
    let launch = args.render.render(program, client_args)?;
    match checked {
        Checked::Claude(()) => claude::launch(&launch),
        Checked::Codex(delivery) => codex::launch(&launch, delivery),
        Checked::Gemini(delivery) => gemini::launch(&launch, delivery),
    }
}

/// A client's arguments, checked before rendering: for Codex and Gemini
/// CLI, where the first prompt is.
enum Checked {
    Claude(()),
    Codex(first_message::Delivery),
    Gemini(first_message::Delivery),
}

impl RenderOptions {
    /// Renders, prints the trace when asked, and refuses a prompt holding a
    /// credential-shaped string under `--check-secrets`.
    fn render<'a>(
        &'a self,
        program: &'a OsStr,
        client_args: &'a [OsString],
    ) -> Result<Launch<'a>, CliError> {
        let rendered = crate::cli::assemble(&self.workspace, self.path, self.mode, &self.delivery)?;
        // What it sends, said as `render` says it.
        if let Some(note) = self.workspace.unstated_pipeline() {
            eprintln!("prompt: {note}");
        }
        let prompt = rendered.prompt;
        if self.trace {
            eprint!("{}", crate::cli::trace_summary(prompt.trace()));
        }
        let system = match prompt.path() {
            AssemblyPath::Cached => prompt.stable().to_owned(),
            AssemblyPath::Basic => rendered.text,
        };
        if self.check_secrets {
            // The prompt's channels, each finding with its layer, then what
            // goes to the client besides them: on the Basic path, the text
            // an agent welds on after assembly.
            let sent = [crate::cli::secrets::Sent::Text(
                "the system prompt sent",
                &system,
            )];
            let findings = crate::cli::secrets::check(&prompt, &sent, "secret");
            for found in &findings {
                eprint!("{}", found.lines);
            }
            if !findings.is_empty() {
                return Err(CliError::failed(format!(
                    "the prompt holds {} credential-shaped string(s); {} was not run: remove \
                     them from the files named by `--trace`",
                    findings.len(),
                    program.to_string_lossy()
                )));
            }
        }
        Ok(Launch {
            program,
            client_args,
            options: self,
            prompt,
            system,
        })
    }
}

/// `$XDG_CACHE_HOME/prompt/CLIENT` (an absolute `XDG_CACHE_HOME`), else
/// `$HOME/.cache/prompt/CLIENT`, created 0700; an existing folder open to
/// others is narrowed to 0700, and a link or a non-folder is refused.
fn cache_dir(kind: ClientKind) -> Result<PathBuf, CliError> {
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
            CliError::failed(
                "neither XDG_CACHE_HOME nor HOME is an absolute path, so there is no cache folder \
             for the client's files: set one of them",
            )
        })?;
    let dir = base.join("prompt").join(kind.folder());
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(&dir).map_err(|e| {
        CliError::failed(format!(
            "cannot create the folder {}: {e}; set XDG_CACHE_HOME to a writable folder",
            dir.display()
        ))
    })?;
    private_folder(&dir)?;
    Ok(dir)
}

/// Makes sure `dir` is a real folder (not a link) that only its owner can
/// enter: 0700, narrowing a wider one.
fn private_folder(dir: &Path) -> Result<(), CliError> {
    let meta = std::fs::symlink_metadata(dir).map_err(|e| {
        CliError::failed(format!("cannot read the folder {}", dir.display())).with_source(e)
    })?;
    if !meta.is_dir() {
        return Err(CliError::failed(format!(
            "{} is not a folder (a link or a file): the prompt's files go in a folder only you \
             can enter; remove it or set XDG_CACHE_HOME elsewhere",
            dir.display()
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(|e| {
                CliError::failed(format!(
                    "the folder {} is open to other users and cannot be narrowed to 0700: \
                         {e}; remove it or set XDG_CACHE_HOME elsewhere",
                    dir.display()
                ))
            })?;
        }
    }
    Ok(())
}

/// Writes `text` to `dir/name` atomically (no byte added: no trailing
/// newline), 0600 from the moment it exists, in the 0700 folder.
fn write_private(dir: &Path, name: &str, text: &str) -> Result<PathBuf, CliError> {
    let path = dir.join(name);
    // 0600 on the open file whatever the umask, never over a non-regular file.
    prompt_checks::write::replace_file(
        &path,
        text.as_bytes(),
        prompt_checks::write::Access::Private,
    )
    .map_err(CliError::from_error)?;
    Ok(path)
}

/// Writes the system slot as `instructions-<fingerprint>.md` in `dir`, then
/// bounds the folder to the newest [`KEEP_FILES`] of them.
fn write_system_file(dir: &Path, text: &str) -> Result<PathBuf, CliError> {
    let path = write_private(dir, &codex_files::instructions_file_name(text), text)?;
    if let Err(error) = codex_files::prune_instructions(dir, KEEP_FILES) {
        crate::cli::warn(&crate::sources::report(&error));
    }
    Ok(path)
}

/// Runs the client. With a stdin prefix, pipes the prefix then this process's
/// stdin into it and waits; without, on Unix, becomes the client.
fn launch(mut command: Command, program: &OsStr, stdin_prefix: Option<&str>) -> Outcome {
    let cannot = |e: std::io::Error| {
        CliError::failed(format!(
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            ClientKind::of_program(OsStr::new("gemini")),
            Some(ClientKind::Gemini)
        );
        assert_eq!(ClientKind::of_program(OsStr::new("my-claude")), None);
    }
}
