//! `prompt diff A.json B.json`: why the second prompt missed the cache.
//!
//! The two files are whatever the user names, perhaps from a repository
//! nobody reviewed: each is read through a root, as a source reads a file
//! ([`read_capped`]): never through a repository's symlink out of it,
//! without blocking (a FIFO or a device is refused, not waited on), a
//! regular file, up to [`MAX_JSON_BYTES`]; everything printed about it is
//! escaped.

use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;

use prompt_checks::diff::{StablePrefix, explain};

use crate::sources::{self, Root, SourceError};

use super::outcome::{CliError, Outcome};
use super::print;

/// The most `prompt diff` reads of one file: 64 MiB, far above the JSON of
/// any prompt the standard sources can assemble (each capped in KiB).
pub(crate) const MAX_JSON_BYTES: u64 = 64 * 1024 * 1024;

/// Arguments of `prompt diff`.
#[derive(clap::Args)]
pub(crate) struct DiffArgs {
    /// The earlier prompt: the output of `prompt render --format json`.
    a: PathBuf,
    /// The later prompt, in the same form.
    b: PathBuf,
}

/// Exit 0 when the stable prefixes are identical, 1 when not, 2 when a file
/// cannot be read (as `diff` and `cmp` do).
pub(crate) fn run(args: DiffArgs) -> Outcome {
    let a = read(&args.a)?;
    let b = read(&args.b)?;
    let diff = explain(&a, &b);
    print(&diff.to_string())?;
    Ok(if diff.identical {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn read(path: &Path) -> Result<StablePrefix, CliError> {
    let json = read_capped(path, MAX_JSON_BYTES).map_err(CliError::into_usage)?;
    StablePrefix::from_json(&json, &path.display().to_string())
        .map_err(|e| CliError::from_error(e).into_usage())
}

/// The text of the regular file at `path`, at most `cap` bytes of it: a
/// FIFO, socket, device or directory is refused without waiting on it, a
/// larger file is refused whole (never cut), and so is text that is not UTF-8.
///
/// The file is read as a source reads one, through a root
/// ([`Root::named`] over the current folder): a path inside the current
/// folder (where a repository is checked out) may not lead out of it
/// through a symlink, a path outside it is the user's own choice; neither
/// may leave its own folder through a symlink at its last step. So a
/// repository's `a.json -> ~/.aws/credentials` is refused by name, and no
/// value of the outside file reaches an error.
pub(crate) fn read_capped(path: &Path, cap: u64) -> Result<String, CliError> {
    read_capped_as(
        path,
        cap,
        "prompt diff",
        "pass the file `prompt render --format json` wrote",
    )
}

/// [`read_capped`] for `command`, whose errors end with `hint`.
pub(crate) fn read_capped_as(
    path: &Path,
    cap: u64,
    command: &str,
    hint: &str,
) -> Result<String, CliError> {
    let name = super::escape(&path.display().to_string());
    let not_regular = || {
        CliError::failed(format!(
            "`{name}` is not a regular file (a directory, FIFO, socket or device): {hint}"
        ))
    };
    let cannot = |e: Box<dyn std::error::Error + Send + Sync>| {
        CliError::failed(format!("cannot read `{name}`")).with_source(e)
    };
    let here = std::env::current_dir().map_err(|e| cannot(e.into()))?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let Some(file_name) = path.file_name() else {
        return Err(not_regular());
    };
    let folder = Root::named(&Root::new(&here, ""), dir, "")
        .map_err(|e| refused(&name, "its folder leads outside the current folder", e))?;
    let mut opened =
        sources::open(&folder.dir().join(file_name), &folder).map_err(|e| match e {
            SourceError::NotRegular { .. } | SourceError::IsDirectory { .. } => not_regular(),
            SourceError::NotFound { .. } => {
                CliError::failed(format!("cannot read `{name}`: no such file"))
            }
            other => refused(&name, "it leads outside its folder", other),
        })?;
    let too_big = |size: String| {
        CliError::failed(format!(
            "`{name}` is {size} bytes, over the {cap}-byte cap of `{command}`: {hint}"
        ))
    };
    if opened.size() > cap {
        return Err(too_big(opened.size().to_string()));
    }
    // One byte past the cap tells a file that grew since its metadata was read.
    let bytes = sources::read_head(&mut opened, usize::try_from(cap).unwrap_or(usize::MAX))
        .map_err(|e| cannot(e.into()))?;
    if u64::try_from(bytes.len()).map_or(true, |read| read > cap) {
        return Err(too_big(format!("more than {cap}")));
    }
    String::from_utf8(bytes).map_err(|e| {
        CliError::failed(format!(
            "`{name}` is not UTF-8 (byte {}): {hint}",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Why `name` is not read: `leads` (what leads out of where) and the
/// symlink it leads out through, never where that leads.
fn refused(name: &str, leads: &str, error: SourceError) -> CliError {
    match error {
        SourceError::OutsideRoot { target, .. } => CliError::failed(format!(
            "`{name}` is refused: {leads}{}; a repository may not choose where its files point \
             (pass the real file)",
            if target.is_empty() {
                String::new()
            } else {
                format!(" through the symlink {target}")
            }
        )),
        other => CliError::failed(format!("cannot read `{name}`")).with_source(other),
    }
}
