//! The per-turn hook: `prompt turn --from FILE` renders one turn's dynamic
//! part and reminder for the options `prompt exec` recorded in FILE, and
//! prints them as the client's hook output.
//!
//! `exec` writes FILE (`turn-<fingerprint>.json`: the client, the folder it
//! was run in, its render options as given) and the client's hook setting
//! whose command is `'<this prompt binary>' turn --from 'FILE'`: the command
//! line comes from `exec`, never from the repository. The client runs it
//! before every turn, with the turn's details as JSON on stdin (read and left
//! unused). The output is one JSON object,
//! `{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
//! "additionalContext": TEXT}}`, which Claude Code adds to that turn's user
//! message; nothing when the turn has no dynamic part and no reminder.
//!
//! A failure exits 1 with the reason on stderr: the client shows it and the
//! turn goes on without the context. Under `--check-secrets`, a
//! credential-shaped string in the turn's context exits 2, which Claude Code
//! takes as "block this prompt".

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use prompt_core::providers::context_text;
use serde::{Deserialize, Serialize};

use super::{ClientKind, RenderOptions};
use crate::cli::outcome::{Failure, Outcome};

/// The most bytes of hook input (stdin) and of a recorded turn file read.
const MAX_INPUT: u64 = 1024 * 1024;

/// Claude Code 2.1.328 hands a hook's `additionalContext` over this many
/// characters to the model only as a 2 KB preview and a file path.
pub(crate) const CLAUDE_CONTEXT_LIMIT: usize = 10_000;

/// The options of `prompt turn`.
#[derive(clap::Args)]
pub(crate) struct TurnArgs {
    /// The turn file `prompt exec` wrote.
    #[arg(long)]
    from: PathBuf,
}

/// What `exec` records for the hook: which client, where, with which options.
#[derive(Serialize, Deserialize)]
pub(crate) struct Recorded {
    /// The client the hook answers (`claude`).
    client: String,
    /// The folder `exec` ran in: relative options resolve from it.
    cwd: PathBuf,
    /// The render options as given to `exec`.
    options: Vec<String>,
}

/// The render options, parsed as `exec` parsed them.
#[derive(Parser)]
#[command(name = "prompt exec")]
struct Options {
    #[command(flatten)]
    render: RenderOptions,
    /// Given to `exec` with the render options; nothing to the turn.
    #[arg(long = "client-kind", value_enum)]
    _client_kind: Option<ClientKind>,
}

/// Writes the turn file for `client` in `dir` and returns the hook's
/// command line: this binary's absolute path, `turn --from FILE`, each
/// quoted for `sh`.
pub(crate) fn record(
    dir: &Path,
    client: ClientKind,
    options: Vec<String>,
) -> Result<String, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let recorded = Recorded {
        client: client.folder().to_owned(),
        cwd,
        options,
    };
    let json = serde_json::to_string_pretty(&recorded).map_err(|e| crate::sources::report(&e))?;
    let name = format!(
        "turn-{}.json",
        prompt_core::fingerprint::Fingerprint::of(&json)
    );
    let file = super::write_private(dir, &name, &json)?;
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find this prompt binary for the hook to run: {e}"))?;
    Ok(format!(
        "{} turn --from {}",
        sh_quote(path_str(&exe)?),
        sh_quote(path_str(&file)?)
    ))
}

fn path_str(path: &Path) -> Result<&str, String> {
    path.to_str().ok_or_else(|| {
        format!(
            "{} is not valid UTF-8, which a hook's command line cannot hold",
            path.display()
        )
    })
}

/// `text` as one `sh` word: single-quoted, each `'` written `'\''`.
pub(crate) fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

pub(crate) fn run(args: TurnArgs) -> Outcome {
    // The client's turn details; unused, but read so it never blocks on a full pipe.
    let mut input = Vec::new();
    let _ = std::io::stdin().take(MAX_INPUT).read_to_end(&mut input);
    let recorded = read_recorded(&args.from)?;
    std::env::set_current_dir(&recorded.cwd).map_err(|e| {
        format!(
            "cannot enter {}, where prompt exec ran: {e}",
            recorded.cwd.display()
        )
    })?;
    let (options, rendered) = assemble_recorded(&recorded, &args.from)?;
    let render = &options.render;
    let context = context_text(&rendered.prompt);
    if context.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    if render.check_secrets {
        let findings = prompt_core::secrets::scan(&context);
        for found in &findings {
            eprintln!(
                "prompt: secret: {} at bytes {}..{} of this turn's context",
                found.kind, found.range.start, found.range.end
            );
        }
        if !findings.is_empty() {
            return Err(Failure {
                message: format!(
                    "this turn's context holds {} credential-shaped string(s), so the turn is \
                     refused: remove them from the files named by `prompt render --trace`",
                    findings.len()
                ),
                code: 2,
            });
        }
    }
    if context.chars().count() > CLAUDE_CONTEXT_LIMIT {
        crate::cli::warn(&format!(
            "this turn's context is {} characters; Claude Code shows the model only a 2 KB \
             preview of hook context over {CLAUDE_CONTEXT_LIMIT}",
            context.chars().count()
        ));
    }
    let output = serde_json::json!({
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": context}
    });
    crate::cli::print(&format!("{output}\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// The options `recorded` holds, parsed as `exec` parsed them, and what
/// they render in the current folder. Hook failures are not usage errors:
/// exit 2 would block the user's prompt, so every failure exits 1.
fn assemble_recorded(
    recorded: &Recorded,
    from: &Path,
) -> Result<(Options, crate::cli::Rendered), Failure> {
    let options = Options::try_parse_from(
        std::iter::once("prompt exec".to_owned()).chain(recorded.options.iter().cloned()),
    )
    .map_err(|e| format!("the options in {} do not parse: {e}", from.display()))?;
    let render = &options.render;
    let rendered = crate::cli::assemble(
        &render.workspace,
        render.path,
        render.mode,
        &render.delivery,
    )
    .map_err(|failure| Failure::from(failure.message))?;
    Ok((options, rendered))
}

/// What the turn file `path` renders now, in the folder `prompt exec` ran
/// in (the current folder is restored after): `prompt explain --claude`
/// reads the layers' boundaries from it.
pub(crate) fn render_recorded(path: &Path) -> Result<crate::cli::Rendered, Failure> {
    let recorded = read_recorded(path)?;
    let here =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    std::env::set_current_dir(&recorded.cwd).map_err(|e| {
        format!(
            "cannot enter {}, where prompt exec ran: {e}",
            recorded.cwd.display()
        )
    })?;
    let rendered = assemble_recorded(&recorded, path);
    std::env::set_current_dir(&here)
        .map_err(|e| format!("cannot return to {}: {e}", here.display()))?;
    Ok(rendered?.1)
}

/// The turn file: a regular file of at most [`MAX_INPUT`] bytes holding a
/// [`Recorded`].
fn read_recorded(path: &Path) -> Result<Recorded, String> {
    let meta = std::fs::symlink_metadata(path)
        .map_err(|e| format!("cannot read the turn file {}: {e}", path.display()))?;
    if !meta.is_file() || meta.len() > MAX_INPUT {
        return Err(format!(
            "the turn file {} is not a regular file of at most {MAX_INPUT} bytes: run prompt \
             exec again to write it",
            path.display()
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the turn file {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "the turn file {} is not one prompt exec wrote: {e}",
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_quoted_for_sh_whatever_it_holds() {
        assert_eq!(sh_quote("/a b/prompt"), "'/a b/prompt'");
        assert_eq!(sh_quote("it's"), "'it'\\''s'");
        assert_eq!(sh_quote("$(x)`y`"), "'$(x)`y`'");
    }
}
