//! The one way a source opens a file: inside its root, a regular file, never
//! blocking, and never more than a cap.
//!
//! Every file a source reads may be written by someone the user does not
//! trust (the repository is not theirs). So before a byte is read:
//!
//! 1. the path is resolved, and its target must lie inside the [`Root`] the
//!    file belongs to (the workspace, `~/.<app>`, the shared template folder);
//!    a symlink that leads out is refused, naming the target;
//! 2. the target must be a regular file: a FIFO, socket or device is refused
//!    from its metadata, without being opened;
//! 3. it is opened non-blocking and without following a last-moment symlink,
//!    and the opened file is checked again (regular, same inode);
//! 4. at most the cap is read (or, for append-only logs, the tail within the cap).

use std::fs::{File, Metadata};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

use super::SourceError;

/// A folder that the files of one kind of source must stay inside, and how
/// those files are named in notes and errors.
///
/// A file is named relative to its root, after the root's label: the
/// workspace's label is empty (`AGENTS.md`), the user's app folder's is
/// `~/.<app>` (`~/.agent/memory/user.md`), the shared template folder's is
/// `@shared`. So notes and errors carry no absolute path, and snapshots are
/// the same on every machine.
///
/// ```
/// use prompt_layers::sources::Root;
///
/// let home = tempfile::tempdir().unwrap();
/// let root = Root::new(home.path().join(".agent"), "~/.agent");
/// assert_eq!(root.show(&home.path().join(".agent/memory/user.md")), "~/.agent/memory/user.md");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// The folder as given.
    dir: PathBuf,
    /// The folder with symlinks resolved, when it exists.
    real: Option<PathBuf>,
    /// Prefix of the names of its files.
    label: String,
}

impl Root {
    /// A root at `dir`, whose files are shown as `<label>/<relative path>`
    /// (or just the relative path when `label` is empty).
    pub fn new(dir: impl Into<PathBuf>, label: impl Into<String>) -> Self {
        let dir = dir.into();
        let real = dir.canonicalize().ok();
        Self {
            dir,
            real,
            label: label.into(),
        }
    }

    /// The folder, as given.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How `path` is named in notes and errors: relative to the root, after
    /// its label; a path outside the root is shown as given.
    pub fn show(&self, path: &Path) -> String {
        let relative = path.strip_prefix(&self.dir).ok().or_else(|| {
            self.real
                .as_deref()
                .and_then(|real| path.strip_prefix(real).ok())
        });
        let Some(relative) = relative else {
            return super::text::visible(&path.to_string_lossy());
        };
        let relative = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let shown = match (self.label.as_str(), relative.as_str()) {
            ("", "") => ".".to_owned(),
            ("", rel) => rel.to_owned(),
            (label, "") => label.to_owned(),
            (label, rel) => format!("{label}/{rel}"),
        };
        super::text::visible(&shown)
    }

    /// The real folder, resolved now (it may have appeared since [`Root::new`]).
    fn real(&self) -> Option<PathBuf> {
        self.real.clone().or_else(|| self.dir.canonicalize().ok())
    }
}

/// An open regular file inside its root.
pub(crate) struct Opened {
    pub(crate) file: File,
    pub(crate) meta: Metadata,
    /// The file as notes name it.
    pub(crate) shown: String,
}

/// Opens `path` for reading under the rules of the module: inside `root`, a
/// regular file, without blocking.
pub(crate) fn open(path: &Path, root: &Root) -> Result<Opened, SourceError> {
    let shown = root.show(path);
    let err = |e: std::io::Error| SourceError::io(&shown, e);
    // Lexically first: a path that is not under the root at all.
    if !path.starts_with(&root.dir)
        && !root
            .real
            .as_deref()
            .is_some_and(|real| path.starts_with(real))
    {
        return Err(SourceError::OutsideRoot {
            path: PathBuf::from(&shown),
            target: String::new(),
            root: root.label_or_dir(),
        });
    }
    // Resolve symlinks and `..`: the target must stay inside the root.
    let real_path = match path.canonicalize() {
        Ok(real) => real,
        Err(e) => {
            // Distinguish "absent" from a dangling or looping link.
            return match std::fs::symlink_metadata(path) {
                Ok(meta) if meta.file_type().is_symlink() => Err(SourceError::BadSymlink {
                    path: PathBuf::from(&shown),
                    reason: link_reason(path, &e),
                }),
                _ => Err(err(e)),
            };
        }
    };
    let real_root = root.real().ok_or_else(|| SourceError::NotFound {
        path: PathBuf::from(root.label_or_dir()),
    })?;
    if !real_path.starts_with(&real_root) {
        return Err(SourceError::OutsideRoot {
            path: PathBuf::from(&shown),
            target: super::text::visible(&real_path.to_string_lossy()),
            root: root.label_or_dir(),
        });
    }
    // The target's type, from metadata: a FIFO or device is never opened.
    let before = std::fs::symlink_metadata(&real_path).map_err(err)?;
    refuse_special(&before, &shown)?;
    let file = open_nonblocking(&real_path).map_err(err)?;
    let meta = file.metadata().map_err(err)?;
    refuse_special(&meta, &shown)?;
    if !same_file(&before, &meta) {
        return Err(SourceError::Unreadable {
            path: PathBuf::from(&shown),
            source: std::io::Error::other("the file was replaced while it was being opened"),
        });
    }
    Ok(Opened { file, meta, shown })
}

impl Root {
    fn label_or_dir(&self) -> String {
        if self.label.is_empty() {
            "the workspace".to_owned()
        } else {
            self.label.clone()
        }
    }
}

fn link_reason(path: &Path, error: &std::io::Error) -> String {
    match std::fs::read_link(path) {
        Ok(target) if error.kind() == std::io::ErrorKind::NotFound => {
            format!(
                "a symlink to {}, which does not exist",
                super::text::visible(&target.to_string_lossy())
            )
        }
        _ => format!("a symlink that cannot be resolved ({error})"),
    }
}

/// Reads at most `cap + 1` bytes from the start: the extra byte tells a cut.
pub(crate) fn read_head(opened: &mut Opened, cap: usize) -> Result<Vec<u8>, SourceError> {
    let mut bytes = Vec::with_capacity(cap.min(opened.meta.len() as usize).saturating_add(1));
    (&opened.file)
        .take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| SourceError::io(&opened.shown, e))?;
    Ok(bytes)
}

/// Reads at most the last `cap` bytes, starting after a newline (a partial
/// first line is dropped). Returns the bytes and whether anything before them
/// was left unread.
pub(crate) fn read_tail(opened: &mut Opened, cap: usize) -> Result<(Vec<u8>, bool), SourceError> {
    let len = opened.meta.len();
    let err = |e| SourceError::io(&opened.shown, e);
    if len <= cap as u64 {
        let mut bytes = read_head(opened, cap)?;
        // The file grew past the cap since its metadata was read: keep the bound.
        let cut = bytes.len() > cap;
        bytes.truncate(cap);
        return Ok((bytes, cut));
    }
    opened
        .file
        .seek(SeekFrom::Start(len - cap as u64))
        .map_err(err)?;
    let mut bytes = Vec::with_capacity(cap);
    (&opened.file)
        .take(cap as u64)
        .read_to_end(&mut bytes)
        .map_err(err)?;
    // The first line is probably cut: drop it, up to and including its newline.
    match bytes.iter().position(|&b| b == b'\n') {
        Some(newline) => {
            bytes.drain(..=newline);
        }
        None => bytes.clear(),
    }
    Ok((bytes, true))
}

fn refuse_special(meta: &Metadata, shown: &str) -> Result<(), SourceError> {
    if meta.is_file() {
        return Ok(());
    }
    if meta.is_dir() {
        return Err(SourceError::IsDirectory {
            path: PathBuf::from(shown),
        });
    }
    Err(SourceError::NotRegular {
        path: PathBuf::from(shown),
        kind: kind_of(meta),
    })
}

#[cfg(unix)]
fn kind_of(meta: &Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_symlink() {
        "a symlink"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn kind_of(_meta: &Metadata) -> &'static str {
    "not a regular file"
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_a: &Metadata, _b: &Metadata) -> bool {
    true
}

/// Whether `name` is one plain path component: not empty, not `.` or `..`,
/// no separator, no control character.
pub fn is_plain_name(name: &str) -> bool {
    let mut components = Path::new(name).components();
    matches!(
        (components.next(), components.next()),
        (Some(Component::Normal(c)), None) if c == name
    ) && !name
        .chars()
        .any(|c| c.is_control() || c == '/' || c == '\\')
}

#[cfg(test)]
mod tests {
    use super::is_plain_name;

    /// The last line of defence against a file swapped between its metadata
    /// check and its opening: the open itself never blocks on a FIFO and
    /// never follows a symlink.
    #[cfg(unix)]
    #[test]
    fn the_open_never_blocks_on_a_fifo_and_never_follows_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let (done, opened) = std::sync::mpsc::channel();
        std::thread::spawn(move || done.send(super::open_nonblocking(&fifo).is_ok()));
        let opened = opened.recv_timeout(std::time::Duration::from_secs(10));
        assert_eq!(opened, Ok(true), "opening a FIFO with no writer blocked");

        std::fs::write(dir.path().join("file"), "x").unwrap();
        std::os::unix::fs::symlink("file", dir.path().join("link")).unwrap();
        let error = super::open_nonblocking(&dir.path().join("link")).unwrap_err();
        assert_eq!(error.raw_os_error(), Some(libc::ELOOP), "{error}");
    }

    /// Two different files are never taken for the same one.
    #[cfg(unix)]
    #[test]
    fn different_files_are_not_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), "x").unwrap();
        std::fs::write(dir.path().join("b"), "x").unwrap();
        let a = std::fs::metadata(dir.path().join("a")).unwrap();
        let b = std::fs::metadata(dir.path().join("b")).unwrap();
        assert!(super::same_file(&a, &a));
        assert!(!super::same_file(&a, &b));
    }

    #[test]
    fn plain_names_are_one_component() {
        for ok in ["agent", "my-app", "a.b", "x_1"] {
            assert!(is_plain_name(ok), "{ok}");
        }
        for bad in ["", ".", "..", "./x", "a/b", "/abs", "a\\b", "a\nb", "a/"] {
            assert!(!is_plain_name(bad), "{bad:?}");
        }
    }
}
