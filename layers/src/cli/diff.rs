//! `prompt diff A.json B.json`: why the second prompt missed the cache.
//!
//! The two files are whatever the user names, perhaps from a repository
//! nobody reviewed: each is opened without blocking (a FIFO or a device is
//! refused, not waited on), must be a regular file, and is read up to
//! [`MAX_JSON_BYTES`]; everything printed about it is escaped.

use std::fs::File;
use std::io::Read as _;
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;

use prompt_core::diff::{StablePrefix, explain};

use super::outcome::{Failure, Outcome};
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

fn read(path: &Path) -> Result<StablePrefix, Failure> {
    let json = read_capped(path, MAX_JSON_BYTES).map_err(|message| Failure { message, code: 2 })?;
    StablePrefix::from_json(&json, &path.display().to_string()).map_err(|e| Failure {
        message: e.to_string(),
        code: 2,
    })
}

/// The text of the regular file at `path`, at most `cap` bytes of it: a
/// FIFO, socket, device or directory is refused without waiting on it, a
/// larger file is refused whole (never cut), and so is text that is not UTF-8.
pub(crate) fn read_capped(path: &Path, cap: u64) -> Result<String, String> {
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
) -> Result<String, String> {
    let name = super::escape(&path.display().to_string());
    let file = open_nonblocking(path).map_err(|e| format!("cannot read `{name}`: {e}"))?;
    let metadata = file
        .metadata()
        .map_err(|e| format!("cannot read `{name}`: {e}"))?;
    if !metadata.is_file() {
        return Err(format!(
            "`{name}` is not a regular file (a directory, FIFO, socket or device): {hint}"
        ));
    }
    let too_big = |size: String| {
        format!("`{name}` is {size} bytes, over the {cap}-byte cap of `{command}`: {hint}")
    };
    if metadata.len() > cap {
        return Err(too_big(metadata.len().to_string()));
    }
    let mut bytes = Vec::new();
    // One byte past the cap tells a file that grew since its metadata was read.
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read `{name}`: {e}"))?;
    if u64::try_from(bytes.len()).map_or(true, |read| read > cap) {
        return Err(too_big(format!("more than {cap}")));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "`{name}` is not UTF-8 (byte {}): {hint}",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Opens `path` for reading; on Unix with `O_NONBLOCK` (opening a FIFO with
/// no writer returns at once) and `O_NOCTTY` (a terminal device never
/// becomes the controlling one).
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    options.open(path)
}
