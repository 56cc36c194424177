//! Codex CLI: the assembled prompt as a model-instructions file, and the
//! `-c model_instructions_file=PATH` override that points `codex` at it.
//!
//! **[`invocation`]** is the placement to use: the stable prefix alone in the
//! instructions file (Codex 0.169.0 sends its bytes as the first `developer`
//! input item, byte-exact, which OpenAI caches with the request prefix), and
//! the dynamic suffix and the reminder as [`Invocation::user_prefix`], to go
//! before the user's words. The file is named by the fingerprint of its
//! bytes, so every session with the same stable prefix shares one file.
//! [`write_instructions`] writes the whole prompt, dynamic part included.
//!
//! [`write_instructions`] writes the file atomically: the text goes to a new
//! temporary file in the same directory, is flushed to disk, and is then
//! renamed over the target. A reader (a `codex` process starting meanwhile)
//! sees the old file or the new one, never half of one; a failed write leaves
//! no temporary file behind. The file is its owner's only (`0600`, whatever
//! the umask), and a target that is not a regular file is never replaced.
//!
//! ```
//! use prompt_providers::codex;
//! # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
//! # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
//! # struct DocCodex;
//! # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocCodex)]
//! # struct Persona;
//! # let pipeline = Pipeline::of::<DocCodex>()?;
//! let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("instructions.md");
//! codex::write_instructions(&prompt, &path)?;
//! assert_eq!(std::fs::read_to_string(&path)?, "You are terse.");
//!
//! let args = codex::args(&path)?;
//! assert_eq!(args[0], "-c");
//! assert_eq!(args[1], format!("model_instructions_file=\"{}\"", path.display()));
//! // std::process::Command::new("codex").args(&args).arg("exec").arg("Fix the test.")
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::write::Access;

use super::placement::{InstructionsFile, Invocation, system_slot, user_prefix};
use crate::AssembledPrompt;
use crate::fingerprint::Fingerprint;

/// The name of the instructions file for `text`:
/// `instructions-<SHA-256 of text, 64 hex>.md`. Equal texts share a name.
pub fn instructions_file_name(text: &str) -> String {
    format!("instructions-{}.md", Fingerprint::of(text))
}

/// The Codex placement of `prompt` with its instructions file in `dir`: the
/// file (named by [`instructions_file_name`], holding the stable prefix, or
/// the whole prompt on the Basic path), the `-c model_instructions_file=...`
/// arguments that point at it, and the dynamic suffix and the reminder as the
/// user prefix. Nothing is written: call [`write_instructions_text`] with the
/// file's path and text (or [`Invocation::instructions_file`] tells a caller
/// that writes it itself).
///
/// ```
/// use prompt_providers::codex;
/// # use prompt_core::{prompt_layer, Pipeline, PromptBuilder, Context};
/// # #[prompt_core::prompt_pipeline(paths = [Basic, Cached])]
/// # struct DocCodexInv;
/// # #[prompt_layer(priority = 1, stability = Stable, paths = [Cached], text = "You are terse.", pipeline = DocCodexInv)]
/// # struct Persona;
/// # #[prompt_layer(priority = 10_000, stability = Dynamic, paths = [Cached], text = "Date: 2026-11-29", pipeline = DocCodexInv)]
/// # struct Today;
/// # let pipeline = Pipeline::of::<DocCodexInv>()?;
/// let prompt = PromptBuilder::new(&pipeline).build_cached(&Context::new(), &Context::new())?;
///
/// let dir = tempfile::tempdir()?;
/// let invocation = codex::invocation(&prompt, dir.path())?;
/// let file = invocation.instructions_file.as_ref().expect("codex reads a file");
/// codex::write_instructions_text(&file.text, &file.path)?;
/// assert_eq!(std::fs::read_to_string(&file.path)?, "You are terse.");
/// assert!(invocation.user_message("Fix it.").contains("Date: 2026-11-29"));
/// // std::process::Command::new("codex").args(&invocation.args).arg("exec").arg(message)
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`CodexError::NotUtf8`] when `dir` is not valid UTF-8.
pub fn invocation(prompt: &AssembledPrompt, dir: &Path) -> Result<Invocation, CodexError> {
    invocation_for_text(system_slot(prompt), user_prefix(prompt), dir)
}

/// The Codex placement of instructions that are already text, and a user
/// prefix (see [`user_prefix`]), with the file in `dir`:
/// for a prompt that an agent finishes after assembly. [`invocation`] is this
/// with the assembled prompt's pieces.
///
/// # Errors
/// As [`invocation`].
pub fn invocation_for_text(
    text: String,
    user_prefix: String,
    dir: &Path,
) -> Result<Invocation, CodexError> {
    let path = dir.join(instructions_file_name(&text));
    Ok(Invocation {
        args: args(&path)?,
        instructions_file: Some(InstructionsFile { path, text }),
        user_prefix,
    })
}

/// Writes `prompt`'s text to `path` atomically (temporary file in the same
/// directory, then rename), readable by its owner only.
///
/// # Errors
/// [`CodexError::File`] naming the path: it exists and is not a regular
/// file, or the step that failed (cannot create, write or rename); any
/// temporary file is removed.
pub fn write_instructions(prompt: &AssembledPrompt, path: &Path) -> Result<(), CodexError> {
    write_instructions_text(&prompt.text(), path)
}

/// Writes `text` to `path` atomically, as [`write_instructions`] does with an
/// assembled prompt's text: for instructions composed outside a pipeline.
///
/// The file is the owner's only (mode `0600` whatever the umask): it holds
/// the user's memory and the project's text. A `path` that exists and is
/// not a regular file (a device, a FIFO, a folder, a link) is refused and
/// left as it is. Written by [`crate::write::replace_file`].
///
/// # Errors
/// As [`write_instructions`].
pub fn write_instructions_text(text: &str, path: &Path) -> Result<(), CodexError> {
    crate::write::replace_file(path, text.as_bytes(), Access::Private).map_err(CodexError::File)
}

/// How long a temporary file of an interrupted write may stay in a folder
/// [`prune_instructions`] keeps: one hour.
pub const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(3600);

/// Bounds a folder of instructions files named by [`instructions_file_name`]:
/// keeps the `keep` most recently written (ties by name), removes the rest,
/// and removes temporary files of interrupted writes older than
/// [`STALE_TEMP`]. Other files, folders and symbolic links are left alone.
/// Returns how many files it removed.
///
/// A file removed here while a `codex` started long ago still reads it is
/// not a problem: Codex reads its instructions once, at start.
///
/// # Errors
/// [`CodexError::Prune`] when the folder cannot be listed; a file that
/// cannot be removed is skipped.
pub fn prune_instructions(dir: &Path, keep: usize) -> Result<usize, CodexError> {
    let entries = fs::read_dir(dir).map_err(|source| CodexError::Prune {
        dir: dir.to_owned(),
        source,
    })?;
    let now = std::time::SystemTime::now();
    let mut files = Vec::new();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        // `file_type` does not follow a symbolic link: a link is never ours.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if !kind.is_file() {
            continue;
        }
        let modified = entry
            .metadata()
            .and_then(|m| m.modified())
            .unwrap_or(std::time::UNIX_EPOCH);
        if name.starts_with(".instructions-") && name.ends_with(".tmp") {
            let old = now.duration_since(modified).unwrap_or_default() > STALE_TEMP;
            if old && fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        } else if name.starts_with("instructions-") && name.ends_with(".md") {
            files.push((modified, name.to_owned()));
        }
    }
    files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (_, name) in files.iter().skip(keep) {
        if fs::remove_file(dir.join(name)).is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}

/// The arguments that point `codex` at the instructions file:
/// `["-c", "model_instructions_file=\"PATH\""]`.
///
/// `-c` values are TOML, so the path is a quoted TOML string (backslashes and
/// quotes escaped): a Windows path or one with spaces arrives intact.
///
/// # Errors
/// [`CodexError::NotUtf8`] when the path is not valid UTF-8, which a TOML
/// string cannot hold.
pub fn args(path: &Path) -> Result<Vec<String>, CodexError> {
    let path_str = path.to_str().ok_or_else(|| CodexError::NotUtf8 {
        path: path.to_owned(),
    })?;
    let mut quoted = String::with_capacity(path_str.len() + 2);
    quoted.push('"');
    for c in path_str.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            c if c.is_control() => quoted.push_str(&format!("\\u{:04X}", c as u32)),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    Ok(vec![
        "-c".to_owned(),
        format!("model_instructions_file={quoted}"),
    ])
}

/// Why the instructions file cannot be written or named.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CodexError {
    /// The instructions file was not written: the target is not a regular
    /// file, or a step of the write failed.
    #[error("the Codex instructions file: {0}")]
    File(crate::write::WriteError),
    /// The folder of instructions files cannot be listed.
    #[error("cannot list the Codex instructions folder {}; check that it exists and is readable", dir.display())]
    Prune {
        /// The folder.
        dir: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// A path TOML cannot carry.
    #[error("the instructions path {} is not valid UTF-8, which Codex's `-c` TOML value cannot hold: use a UTF-8 path", path.display())]
    NotUtf8 {
        /// The path.
        path: PathBuf,
    },
}
