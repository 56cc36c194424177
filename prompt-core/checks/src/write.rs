//! Writing a file the tools produce, so that the write cannot hurt.
//!
//! Every file this workspace's tools write goes through [`replace_file`]:
//! `prompt size --html`'s report, the contract's byte ratchets, Codex's
//! instructions files, and (through the same function) Claude Code's
//! system-prompt file that `prompt exec` hands it. A tool may be run as root,
//! on a path a repository or a typo chose: the write must never replace a
//! device, a FIFO, a socket or a folder with a regular file (run as root,
//! `--html /dev/null` once replaced the machine's `/dev/null`), and a reader
//! must never see half a file. A path inside a repository is written with
//! [`replace_file_in`], whose folders are checked like the file: a folder of
//! the repository's that is a symlink out of it (`reports -> ~/.config`) is
//! not written through.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why [`replace_file`] wrote nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The target exists and is not a regular file.
    #[error(
        "cannot write {}: it is {what}, not a regular file; nothing was written (give the path of a regular file, or of one that does not exist yet)",
        path.display()
    )]
    NotAFile {
        /// The target.
        path: PathBuf,
        /// What it is instead: `a FIFO (named pipe)`, `a character device`, ...
        what: &'static str,
    },
    /// A folder of the target's path, inside the folder the write must stay
    /// in, is a symlink that leads out of it.
    #[error(
        "cannot write {}: its folder leads outside {within} through the symlink {}; nothing was written (a repository may not choose where its folders point: give a path whose folders are inside {within}, or one outside it)",
        path.display(),
        link.display()
    )]
    OutsideFolder {
        /// The target, as given.
        path: PathBuf,
        /// The symlink that leads out, relative to the folder.
        link: PathBuf,
        /// The folder the write had to stay in, as the caller names it
        /// (`the workspace`).
        within: String,
    },
    /// The path names no file (it ends in `..` or is a root).
    #[error("cannot write {}: it names no file; give a file path such as report.html", path.display())]
    NoFileName {
        /// The target.
        path: PathBuf,
    },
    /// A step of the write failed; the target was left as it was. The I/O
    /// error is the [`source`](std::error::Error::source), not part of the message.
    #[error("cannot write {}: failed to {step}; it was left as it was", path.display())]
    Io {
        /// The target.
        path: PathBuf,
        /// What was being done: `create a temporary file in its folder`, ...
        step: &'static str,
        /// The I/O error.
        source: io::Error,
    },
}

/// Who may read a file [`replace_file`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Access {
    /// As the process's umask allows (a report, a ratchet file in a repository).
    Default,
    /// The owner only: mode `0600` whatever the umask (a prompt handed to a
    /// client, which holds the user's memory and project text).
    Private,
}

/// Writes `contents` to `path`, atomically and only over a regular file.
///
/// - When `path` exists and is not a regular file (a device, a FIFO, a
///   socket, a folder, or a symbolic link, which is not followed), nothing is
///   written: [`WriteError::NotAFile`] names the path and what it is.
/// - Otherwise a new temporary file beside it (`.<name>.<pid>.<n>.tmp`,
///   created exclusively, so a planted file or link is never opened) is
///   written, synced, and renamed over `path`: a reader sees the old file or
///   the new one, never half of one. On any failure the temporary file is
///   removed and `path` is untouched.
/// - With [`Access::Private`] the file is created with mode `0600` and set to
///   `0600` again once open, so no umask (`000` included) widens it.
///
/// Helper for every writer of the tools; `prompt exec` writes Claude Code's
/// `--system-prompt-file` through it as well.
///
/// ```
/// use prompt_checks::write::{replace_file, Access, WriteError};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("report.html");
/// replace_file(&path, b"<p>one</p>", Access::Default)?;
/// replace_file(&path, b"<p>two</p>", Access::Private)?;
/// assert_eq!(std::fs::read_to_string(&path)?, "<p>two</p>");
///
/// // A folder (like a device or a FIFO) is never replaced.
/// let err = replace_file(dir.path(), b"x", Access::Default).unwrap_err();
/// assert!(matches!(err, WriteError::NotAFile { what: "a folder", .. }), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`WriteError`]: the target is not a regular file, names no file, or a
/// step of the write failed (the step is named).
pub fn replace_file(path: &Path, contents: &[u8], access: Access) -> Result<(), WriteError> {
    write_at(path, path, contents, access)
}

/// [`replace_file`] for a path that may lie in a folder someone else filled
/// (a repository): when `path` lies in `folder` as written (`.` and `..`
/// taken by name, nothing followed), each folder between `folder` and the
/// file must stay in `folder` once its symlinks are followed, or nothing is
/// written ([`WriteError::OutsideFolder`], naming the symlink that leads
/// out, never where it leads). The file is then written at the path as
/// judged: `reports/../r.html` is `r.html` in `folder`, never the parent of
/// where a `reports` link points. A path outside `folder` is the caller's
/// own choice, written as given. `within` names `folder` in the error
/// (`the workspace`).
///
/// The folders are looked at by path just before the write: a folder
/// swapped for a symlink between the two by another process is not caught.
///
/// ```
/// # #[cfg(unix)] {
/// use prompt_checks::write::{replace_file_in, Access, WriteError};
///
/// let repo = tempfile::tempdir()?;
/// let elsewhere = tempfile::tempdir()?;
/// std::os::unix::fs::symlink(elsewhere.path(), repo.path().join("reports"))?;
/// let target = repo.path().join("reports/r.html");
/// let err = replace_file_in(repo.path(), "the workspace", &target, b"x", Access::Default)
///     .unwrap_err();
/// assert!(matches!(err, WriteError::OutsideFolder { .. }), "{err}");
/// assert!(!elsewhere.path().join("r.html").exists());
///
/// std::fs::create_dir(repo.path().join("out"))?;
/// replace_file_in(repo.path(), "the workspace", &repo.path().join("out/r.html"), b"x", Access::Default)?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`replace_file`], and [`WriteError::OutsideFolder`].
pub fn replace_file_in(
    folder: &Path,
    within: &str,
    path: &Path,
    contents: &[u8],
    access: Access,
) -> Result<(), WriteError> {
    let named = by_name(path);
    let base = by_name(folder);
    let Ok(relative) = named.strip_prefix(&base) else {
        return replace_file(path, contents, access);
    };
    let real_folder = folder.canonicalize().map_err(|source| WriteError::Io {
        path: path.to_owned(),
        step: "resolve the folder it must stay in",
        source,
    })?;
    let mut at = base.clone();
    let mut link = PathBuf::new();
    for component in relative.parent().into_iter().flat_map(Path::components) {
        at.push(component);
        link.push(component);
        let Ok(meta) = fs::symlink_metadata(&at) else {
            // Absent: creating the temporary file in it fails, naming that step.
            break;
        };
        if !meta.file_type().is_symlink() {
            continue;
        }
        let inside = at
            .canonicalize()
            .is_ok_and(|real| real.starts_with(&real_folder));
        if !inside {
            return Err(WriteError::OutsideFolder {
                path: path.to_owned(),
                link,
                within: within.to_owned(),
            });
        }
    }
    write_at(&named, path, contents, access)
}

/// `path` made absolute (against the working directory) with `.` and `..`
/// resolved by name, without following a symlink.
fn by_name(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Writes `contents` to `path` as [`replace_file`] says, naming the target
/// `shown` in errors.
fn write_at(path: &Path, shown: &Path, contents: &[u8], access: Access) -> Result<(), WriteError> {
    let io_error = |step: &'static str, source: io::Error| WriteError::Io {
        path: shown.to_owned(),
        step,
        source,
    };
    // What cannot be looked at (no such file, a parent that is not a
    // folder) is not replaced either: creating the temporary file beside it
    // fails first, and names that step.
    if let Some(what) = not_a_file(path) {
        return Err(WriteError::NotAFile {
            path: shown.to_owned(),
            what,
        });
    }
    let name = path.file_name().ok_or_else(|| WriteError::NoFileName {
        path: shown.to_owned(),
    })?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let (temp, mut file) = create_temp(dir, name, access)
        .map_err(|e| io_error("create a temporary file in its folder", e))?;
    let written = file
        .write_all(contents)
        .and_then(|()| file.sync_all())
        .map_err(|e| io_error("write the temporary file", e))
        .and_then(|()| {
            drop(file);
            // Looked at again just before the rename: a FIFO or device put
            // there since is still not replaced.
            match not_a_file(path) {
                Some(what) => Err(WriteError::NotAFile {
                    path: shown.to_owned(),
                    what,
                }),
                None => fs::rename(&temp, path)
                    .map_err(|e| io_error("rename the temporary file over it", e)),
            }
        });
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

/// What is at `path` when it is there and not a regular file.
fn not_a_file(path: &Path) -> Option<&'static str> {
    fs::symlink_metadata(path)
        .ok()
        .filter(|meta| !meta.file_type().is_file())
        .map(|meta| kind(&meta.file_type()))
}

/// A new file `.{name}.{pid}.{n}.tmp` in `dir`, created exclusively.
fn create_temp(dir: &Path, name: &std::ffi::OsStr, access: Access) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut temp_name = OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".{}.{n}.tmp", std::process::id()));
        let temp = dir.join(temp_name);
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if access == Access::Private {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        match options.open(&temp) {
            Ok(file) => {
                #[cfg(unix)]
                if access == Access::Private {
                    use std::os::unix::fs::PermissionsExt;
                    // The umask can only take bits away; this puts back
                    // exactly 0600 on the open file.
                    if let Err(e) = file.set_permissions(fs::Permissions::from_mode(0o600)) {
                        let _ = fs::remove_file(&temp);
                        return Err(e);
                    }
                }
                return Ok((temp, file));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// What a file that is not a regular one is, for a message.
fn kind(file_type: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else {
        "something other than a file"
    }
}
