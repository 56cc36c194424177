//! The per-turn hook: `prompt turn --from FILE` renders one turn's dynamic
//! part and reminder for the options `prompt exec` recorded in FILE, and
//! prints them as the client's hook output.
//!
//! `exec` writes FILE (`turn-<fingerprint>.json`: the client, the folder it
//! was run in, its render options as it parsed them) and the client's hook setting
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

use prompt_providers::context_text;
use serde::{Deserialize, Serialize};

use super::{ClientKind, RenderOptions};
use crate::cli::outcome::{CliError, Outcome};

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

/// What `exec` records for the hook: which client, where, with which
/// options (`O`: the options themselves when read, a reference to `exec`'s
/// when written).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Recorded<O = RenderOptions> {
    /// The client the hook answers (`claude`).
    client: String,
    /// The folder `exec` ran in: relative options resolve from it.
    cwd: PathBuf,
    /// The render options `exec` parsed.
    options: O,
}

/// Writes the turn file for `client` in `dir` and returns the hook's
/// command line: this binary's absolute path, `turn --from FILE`, each
/// quoted for `sh`.
pub(crate) fn record(
    dir: &Path,
    client: ClientKind,
    options: &RenderOptions,
) -> Result<String, CliError> {
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::failed("cannot read the current directory").with_source(e))?;
    let recorded = Recorded {
        client: client.folder().to_owned(),
        cwd,
        options,
    };
    let json = serde_json::to_string_pretty(&recorded).map_err(|e| {
        CliError::failed(format!(
            "cannot record the render options for the per-turn hook: {}; use UTF-8 paths",
            crate::sources::report(&e)
        ))
    })?;
    let name = format!(
        "turn-{}.json",
        prompt_core::fingerprint::Fingerprint::of(&json)
    );
    let file = super::write_private(dir, &name, &json)?;
    let exe = std::env::current_exe().map_err(|e| {
        CliError::failed("cannot find this prompt binary for the hook to run").with_source(e)
    })?;
    Ok(format!(
        "{} turn --from {}",
        sh_quote(path_str(&exe)?),
        sh_quote(path_str(&file)?)
    ))
}

fn path_str(path: &Path) -> Result<&str, CliError> {
    path.to_str().ok_or_else(|| {
        CliError::failed(format!(
            "{} is not valid UTF-8, which a hook's command line cannot hold",
            path.display()
        ))
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
        CliError::failed(format!(
            "cannot enter {}, where prompt exec ran: {e}",
            recorded.cwd.display()
        ))
    })?;
    let rendered = assemble_recorded(&recorded)?;
    let render = &recorded.options;
    let context = context_text(&rendered.prompt);
    if context.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    if render.check_secrets {
        let findings = prompt_checks::secrets::scan(&context);
        for found in &findings {
            eprintln!(
                "prompt: secret: {} at bytes {}..{} of this turn's context",
                found.kind, found.range.start, found.range.end
            );
        }
        if !findings.is_empty() {
            return Err(CliError::usage(format!(
                "this turn's context holds {} credential-shaped string(s), so the turn is \
                     refused: remove them from the files named by `prompt render --trace`",
                findings.len()
            )));
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
    crate::cli::print(&crate::cli::escape::json_line(&output).map_err(CliError::from_error)?)?;
    Ok(ExitCode::SUCCESS)
}

/// What the options `recorded` holds render in the current folder. Hook
/// failures are not usage errors: exit 2 would block the user's prompt, so
/// every failure exits 1.
fn assemble_recorded(recorded: &Recorded) -> Result<crate::cli::Rendered, CliError> {
    let render = &recorded.options;
    crate::cli::assemble(
        &render.workspace,
        render.path,
        render.mode,
        &render.delivery,
    )
    .map_err(CliError::into_failed)
}

/// What the turn file `path` renders now, in the folder `prompt exec` ran
/// in (the current folder is restored after): `prompt explain --claude`
/// reads the layers' boundaries from it.
pub(crate) fn render_recorded(path: &Path) -> Result<crate::cli::Rendered, CliError> {
    let recorded = read_recorded(path)?;
    let here = std::env::current_dir()
        .map_err(|e| CliError::failed("cannot read the current directory").with_source(e))?;
    std::env::set_current_dir(&recorded.cwd).map_err(|e| {
        CliError::failed(format!(
            "cannot enter {}, where prompt exec ran: {e}",
            recorded.cwd.display()
        ))
    })?;
    let rendered = assemble_recorded(&recorded);
    std::env::set_current_dir(&here).map_err(|e| {
        CliError::failed(format!("cannot return to {}", here.display())).with_source(e)
    })?;
    rendered
}

/// The turn file: a regular file of at most [`MAX_INPUT`] bytes holding a
/// [`Recorded`].
fn read_recorded(path: &Path) -> Result<Recorded, CliError> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| {
        CliError::failed(format!("cannot read the turn file {}", path.display())).with_source(e)
    })?;
    if !meta.is_file() || meta.len() > MAX_INPUT {
        return Err(CliError::failed(format!(
            "the turn file {} is not a regular file of at most {MAX_INPUT} bytes: run prompt \
             exec again to write it",
            path.display()
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::failed(format!("cannot read the turn file {}", path.display())).with_source(e)
    })?;
    serde_json::from_str(&text).map_err(|e| {
        CliError::failed(format!(
            "the turn file {} is not one prompt exec wrote: {e}; run prompt exec again to \
             write it",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::PathArg;
    use clap::Parser;
    use prompt_core::PromptMode;

    /// `prompt exec`'s render options alone.
    #[derive(Parser)]
    struct Exec {
        #[command(flatten)]
        render: RenderOptions,
    }

    /// The one turn file `record` wrote in `dir`.
    fn turn_file(dir: &Path) -> PathBuf {
        let files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .starts_with("turn-")
            })
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        files[0].clone()
    }

    fn recorded(args: &[&str]) -> (tempfile::TempDir, PathBuf, RenderOptions) {
        let parsed =
            Exec::try_parse_from(std::iter::once("prompt exec").chain(args.iter().copied()))
                .unwrap()
                .render;
        let dir = tempfile::tempdir().unwrap();
        let command = record(dir.path(), ClientKind::Claude, &parsed).unwrap();
        let file = turn_file(dir.path());
        assert!(
            command.ends_with(&sh_quote(file.to_str().unwrap())),
            "{command}"
        );
        (dir, file, parsed)
    }

    /// The turn file holds the options as `exec` parsed them (either
    /// spelling of a value, the defaults filled in), not words found again
    /// in this process's arguments (a test harness's here), and reads back
    /// the same.
    #[test]
    fn the_turn_file_holds_the_parsed_options() {
        let (_dir, file, parsed) = recorded(&[
            "--date=2026-11-29",
            "--model",
            "opus",
            "--app",
            "ferris",
            "--sub-agent",
            "reviewer = reads diffs=carefully",
            "--path",
            "basic",
            "--mode",
            "compact",
            "--budget-chars",
            "900",
            "--ttl",
            "1h",
            "--check-secrets",
        ]);
        let back = read_recorded(&file).unwrap().options;
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            serde_json::to_value(&parsed).unwrap()
        );
        assert_eq!(back.workspace.date.as_deref(), Some("2026-11-29"));
        assert_eq!(back.workspace.model.as_deref(), Some("opus"));
        assert!(matches!(back.path, PathArg::Basic));
        assert_eq!(back.mode, Some(PromptMode::Compact));
        assert!(back.check_secrets && !back.trace);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let options = &json["options"];
        assert_eq!(options["workspace"]["app"], "ferris");
        // No layer of this test's own joins `default`: the standard pipeline.
        assert_eq!(options["workspace"]["pipeline"], "standard");
        assert_eq!(
            options["workspace"]["sub_agents"],
            serde_json::json!(["reviewer=reads diffs=carefully"])
        );
        assert_eq!(options["delivery"]["budget_chars"], 900);
        assert_eq!(options["delivery"]["ttl"], "1h");
        assert_eq!(options["delivery"]["max_tokens"], 1024);
    }

    /// A turn file edited by hand is read through the command line's own
    /// checks, and a key `exec` never writes is refused: each error names
    /// the file.
    #[test]
    fn a_recorded_value_is_checked_as_the_command_line_checks_it() {
        let (_dir, file, _) = recorded(&["--date", "2026-11-29"]);
        let written = std::fs::read_to_string(&file).unwrap();
        let planted = [
            (
                "\"app\": \"agent\"",
                "\"app\": \".agent\"",
                "pass the name without its dot",
            ),
            (
                "\"date\": \"2026-11-29\"",
                "\"date\": \"\\u001b[2J\"",
                "--date: got",
            ),
            (
                "\"sub_agents\": []",
                "\"sub_agents\": [\"=x\"]",
                "expected NAME=DESCRIPTION",
            ),
            (
                "\"trace\": false",
                "\"trace\": false, \"verbose\": true",
                "unknown field `verbose`",
            ),
        ];
        for (from, to, says) in planted {
            assert!(written.contains(from), "{from} in {written}");
            std::fs::write(&file, written.replace(from, to)).unwrap();
            let error = read_recorded(&file).err().expect("refused").report();
            assert!(error.contains(&file.display().to_string()), "{error}");
            assert!(error.contains(says), "{says}: {error}");
        }
    }

    #[test]
    fn a_word_is_quoted_for_sh_whatever_it_holds() {
        assert_eq!(sh_quote("/a b/prompt"), "'/a b/prompt'");
        assert_eq!(sh_quote("it's"), "'it'\\''s'");
        assert_eq!(sh_quote("$(x)`y`"), "'$(x)`y`'");
    }
}
