//! The one way a source opens a file: inside its root, a regular file, never
//! blocking, and never more than a cap.
//!
//! Every file a source reads may be written by someone the user does not
//! trust (the repository is not theirs). So before a byte is read:
//!
//! 1. the path is walked one component at a time from a directory descriptor
//!    the [`Root`] opened once (the workspace, `~/.<app>`, the shared template
//!    folder), each component opened without following a symlink: a symlink
//!    is read and followed by the walk itself, only while it stays inside the
//!    root. A symlink (or `..`) that leads out is refused, naming the symlink
//!    but never where it leads (that would tell whether a file exists
//!    outside). Because no folder is looked up by path again, swapping a
//!    folder of the path for a symlink while it is walked gains nothing;
//! 2. the target must be a regular file: a FIFO, socket or device is refused
//!    from its metadata, without being opened;
//! 3. it is opened non-blocking, relative to its folder's descriptor and
//!    without following a last-moment symlink, and the opened file is checked
//!    again (regular, same inode);
//! 4. a file with more than one name (a hard link) is refused, unless its
//!    root is the user's own folder ([`Root::allow_hard_links`]): a hard link
//!    is the one way a file inside a folder can be a file outside it;
//! 5. at most the cap is read (or, for append-only logs, the tail within the cap).
//!
//! A root that lies inside another one (a shared folder in the workspace, a
//! story under `stories/`) is derived from it with [`Root::within`], so the
//! repository cannot choose where it points.

use std::fs::{File, Metadata};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

use super::SourceError;
use super::text::visible;

/// A folder that the files of one kind of source must stay inside, and how
/// those files are named in notes and errors.
///
/// A file is named relative to its root, after the root's label: the
/// workspace's label is empty (`AGENTS.md`), the user's app folder's is
/// `~/.<app>` (`~/.agent/memory/user.md`), the shared template folder's is
/// `@shared`. So notes and errors carry no absolute path, and snapshots are
/// the same on every machine.
///
/// The folder is opened once, when the root is made (or when a file is first
/// read from it, if it did not exist yet), and every file is then found by
/// walking from that open folder: what its path named when the root was
/// made is what it stays.
///
/// ```
/// use prompt_layers::sources::Root;
///
/// let home = tempfile::tempdir().unwrap();
/// let root = Root::new(home.path().join(".agent"), "~/.agent");
/// assert_eq!(root.show(&home.path().join(".agent/memory/user.md")), "~/.agent/memory/user.md");
/// ```
#[derive(Debug, Clone)]
pub struct Root {
    /// The folder as given.
    dir: PathBuf,
    /// Prefix of the names of its files.
    label: String,
    /// The open folder, when it existed at the time the root was made.
    anchor: Option<Anchor>,
    /// For a root made with [`Root::within`]: the root it lies in, from which
    /// it is found again when it did not exist yet.
    parent: Option<Box<Root>>,
    /// Whether a file with more than one name is read.
    hard_links: bool,
}

/// An open folder and where it really is.
#[derive(Debug, Clone)]
struct Anchor {
    /// The folder with symlinks resolved.
    real: PathBuf,
    /// The folder, open.
    #[cfg(unix)]
    fd: std::sync::Arc<std::os::fd::OwnedFd>,
}

impl PartialEq for Root {
    fn eq(&self, other: &Self) -> bool {
        self.dir == other.dir
            && self.label == other.label
            && self.real_dir() == other.real_dir()
            && self.parent == other.parent
            && self.hard_links == other.hard_links
    }
}

impl Eq for Root {}

impl Root {
    /// A root at `dir`, whose files are shown as `<label>/<relative path>`
    /// (or just the relative path when `label` is empty).
    ///
    /// `dir` is taken as given, through any symlink: use it for a folder the
    /// user chose (the workspace, `~/.<app>`, a folder named on the command
    /// line). A folder *inside* another root is made with [`Root::within`].
    /// Files with more than one name are refused; see [`Root::allow_hard_links`].
    pub fn new(dir: impl Into<PathBuf>, label: impl Into<String>) -> Self {
        let dir = dir.into();
        let anchor = Anchor::open(&dir);
        Self {
            dir,
            label: label.into(),
            anchor,
            parent: None,
            hard_links: false,
        }
    }

    /// The root at `path` inside `parent`: `path` is relative to `parent`'s
    /// folder (or an absolute path under it), and is walked from `parent`'s
    /// open folder like any file, so a symlink on the way, the folder itself
    /// included, may lead anywhere inside `parent` but not out of it. A folder
    /// that does not exist yet is a root all the same: it is looked up again,
    /// the same way, when a file is read from it.
    ///
    /// The new root refuses hard links whatever `parent` does.
    ///
    /// ```
    /// use prompt_layers::sources::{Root, SourceError};
    ///
    /// let ws = tempfile::tempdir().unwrap();
    /// let workspace = Root::new(ws.path(), "");
    /// std::fs::create_dir(ws.path().join("shared")).unwrap();
    /// let shared = Root::within(&workspace, "shared", "@shared").unwrap();
    /// assert_eq!(shared.show(&ws.path().join("shared/rules.md")), "@shared/rules.md");
    ///
    /// # #[cfg(unix)] {
    /// // A repository cannot point its shared folder at the user's files.
    /// std::os::unix::fs::symlink(std::env::temp_dir(), ws.path().join("out")).unwrap();
    /// let error = Root::within(&workspace, "out", "@shared").unwrap_err();
    /// assert!(matches!(error, SourceError::OutsideRoot { .. }));
    /// assert_eq!(
    ///     error.to_string(),
    ///     "out: resolves outside the workspace (through the symlink out); \
    ///      not read (make it a regular file inside the workspace)"
    /// );
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`SourceError::OutsideRoot`] when `path` leaves `parent` (lexically,
    /// through `..`, or through a symlink), naming it as `parent` shows it;
    /// [`SourceError::BadSymlink`] for a symlink loop; another
    /// [`SourceError`] when `path` is not a folder or cannot be walked.
    pub fn within(
        parent: &Root,
        path: impl AsRef<Path>,
        label: impl Into<String>,
    ) -> Result<Root, SourceError> {
        let path = parent.dir.join(path.as_ref());
        let label = label.into();
        let pending = |parent: &Root| Root {
            dir: path.clone(),
            label: label.clone(),
            anchor: None,
            parent: Some(Box::new(parent.clone())),
            hard_links: false,
        };
        let shown = parent.show(&path);
        // By name first: a path that climbs above `parent` is refused even
        // where a missing folder would stop the walk before it got there.
        let climbs = relative_to(parent, &path).is_none_or(|relative| {
            let mut depth = 0usize;
            relative.components().any(|c| match c {
                Component::ParentDir => depth.checked_sub(1).map(|d| depth = d).is_none(),
                Component::Normal(_) => {
                    depth += 1;
                    false
                }
                _ => false,
            })
        });
        if climbs {
            return Err(outside(parent, &shown, String::new()));
        }
        let Some(anchor) = parent.anchor()? else {
            return Ok(pending(parent));
        };
        match walk(parent, &anchor, &path, &shown, Want::Dir) {
            Ok(Found::Dir(anchor)) => Ok(Root {
                anchor: Some(anchor),
                ..pending(parent)
            }),
            Ok(Found::File(..)) => Err(SourceError::Unreadable {
                path: PathBuf::from(&shown),
                source: std::io::Error::other("not a directory"),
            }),
            Err(error) if error.is_not_found() => Ok(pending(parent)),
            Err(error) => Err(error),
        }
    }

    /// The root for a folder the user named (a `--shared` folder, the folder
    /// of a prompt file given on the command line): inside `domain` as
    /// written (`.` and `..` taken by name, nothing followed) it is repository
    /// content, derived from `domain` with [`Root::within`], so a symlink of
    /// the repository cannot lead it out; outside `domain` it is the user's
    /// own choice, taken as named with [`Root::new`] (and, being theirs,
    /// [`allowing hard links`](Root::allow_hard_links)).
    ///
    /// ```
    /// use prompt_layers::sources::Root;
    ///
    /// let ws = tempfile::tempdir().unwrap();
    /// let workspace = Root::new(ws.path(), "");
    /// let mine = tempfile::tempdir().unwrap();
    /// let inside = Root::named(&workspace, ws.path().join("prompts"), "@shared").unwrap();
    /// let outside = Root::named(&workspace, mine.path(), "@shared").unwrap();
    /// assert_eq!(inside.show(&ws.path().join("prompts/a.md")), "@shared/a.md");
    /// assert_eq!(outside.show(&mine.path().join("a.md")), "@shared/a.md");
    /// ```
    ///
    /// # Errors
    /// As [`Root::within`], for a folder inside `domain`.
    pub fn named(
        domain: &Root,
        dir: impl AsRef<Path>,
        label: impl Into<String>,
    ) -> Result<Root, SourceError> {
        let dir = dir.as_ref();
        let named = by_name(dir);
        let bases = [Some(by_name(&domain.dir)), domain.real_dir().map(by_name)];
        match bases
            .iter()
            .flatten()
            .find_map(|base| named.strip_prefix(base).ok())
        {
            Some(relative) => Root::within(domain, relative, label),
            None => Ok(Root::new(dir, label).allow_hard_links()),
        }
    }

    /// The same root, reading files that have more than one name (hard
    /// links). Only for a folder the user owns and fills themselves (their
    /// `~/.<app>`): a hard link there was made by someone who could read the
    /// file anyway. A repository's folders keep refusing them: git never
    /// checks out a hard link, and one that points at `~/.ssh/id_rsa` looks
    /// like any other file.
    #[must_use]
    pub fn allow_hard_links(mut self) -> Self {
        self.hard_links = true;
        self
    }

    /// The folder, as given.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The folder with symlinks resolved, as it was when the root was opened;
    /// `None` when it did not exist then.
    pub fn real_dir(&self) -> Option<&Path> {
        self.anchor.as_ref().map(|a| a.real.as_path())
    }

    /// How `path` is named in notes and errors: relative to the root, after
    /// its label; a path outside the root is shown as given.
    pub fn show(&self, path: &Path) -> String {
        let relative = path.strip_prefix(&self.dir).ok().or_else(|| {
            self.real_dir()
                .and_then(|real| path.strip_prefix(real).ok())
        });
        let Some(relative) = relative else {
            return visible(&path.to_string_lossy());
        };
        self.name(
            relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned()),
        )
    }

    /// The label, then the components, joined with `/`, escaped.
    fn name(&self, components: impl Iterator<Item = String>) -> String {
        let relative = components.collect::<Vec<_>>().join("/");
        let shown = match (self.label.as_str(), relative.as_str()) {
            ("", "") => ".".to_owned(),
            ("", rel) => rel.to_owned(),
            (label, "") => label.to_owned(),
            (label, rel) => format!("{label}/{rel}"),
        };
        visible(&shown)
    }

    /// The open folder: the one opened when the root was made, or, when it did
    /// not exist then, the folder now (found again through the parent root
    /// for a root made [`within`](Self::within) one). `None`: still absent.
    fn anchor(&self) -> Result<Option<Anchor>, SourceError> {
        if let Some(anchor) = &self.anchor {
            return Ok(Some(anchor.clone()));
        }
        match &self.parent {
            Some(parent) => Ok(Root::within(parent, &self.dir, self.label.clone())?.anchor),
            None => Ok(Anchor::open(&self.dir)),
        }
    }

    fn label_or_dir(&self) -> String {
        if self.label.is_empty() {
            "the workspace".to_owned()
        } else {
            self.label.clone()
        }
    }
}

impl Anchor {
    /// Opens `dir` (through symlinks: the caller chose it) and notes where it
    /// really is. `None` when it is absent or not a folder.
    #[cfg(unix)]
    fn open(dir: &Path) -> Option<Self> {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
        // A folder that may only be searched (no read permission) is still a root.
        #[cfg(any(target_os = "linux", target_os = "android"))]
        let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let flags = libc::O_DIRECTORY | libc::O_CLOEXEC;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags)
            .open(dir)
            .ok()?;
        let real = dir.canonicalize().ok()?;
        // The path may have changed between the two: keep them only if they agree.
        let (opened, named) = (file.metadata().ok()?, std::fs::metadata(&real).ok()?);
        (opened.dev() == named.dev() && opened.ino() == named.ino()).then(|| Self {
            real,
            fd: std::sync::Arc::new(file.into()),
        })
    }

    #[cfg(not(unix))]
    fn open(dir: &Path) -> Option<Self> {
        let real = dir.canonicalize().ok()?;
        real.is_dir().then_some(Self { real })
    }
}

/// `path` made absolute (against the working directory) with `.` and `..`
/// resolved by name, without following a symlink: where it *says* it is.
fn by_name(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// An open regular file inside its root.
pub struct Opened {
    pub(crate) file: File,
    pub(crate) meta: Metadata,
    /// The file as notes name it.
    pub(crate) shown: String,
}

impl Opened {
    /// The file's size in bytes when it was opened.
    pub fn size(&self) -> u64 {
        self.meta.len()
    }
}

/// Opens `path` for reading under the rules of the module: inside `root`, a
/// regular file, without blocking.
pub fn open(path: &Path, root: &Root) -> Result<Opened, SourceError> {
    let shown = root.show(path);
    // Lexically first: a path that is not under the root at all. Nothing is
    // looked up, so whether it exists is not revealed.
    if relative_to(root, path).is_none() {
        return Err(outside(root, &shown, String::new()));
    }
    let Some(anchor) = root.anchor()? else {
        return Err(SourceError::NotFound {
            path: PathBuf::from(&shown),
        });
    };
    match walk(root, &anchor, path, &shown, Want::File)? {
        Found::File(file, meta) => {
            refuse_hard_link(&meta, root, &shown)?;
            Ok(Opened { file, meta, shown })
        }
        Found::Dir(_) => Err(SourceError::IsDirectory {
            path: PathBuf::from(&shown),
        }),
    }
}

/// `path` relative to the root's folder, as given or as resolved.
fn relative_to(root: &Root, path: &Path) -> Option<PathBuf> {
    path.strip_prefix(&root.dir)
        .ok()
        .or_else(|| {
            root.real_dir()
                .and_then(|real| path.strip_prefix(real).ok())
        })
        .map(Path::to_owned)
}

fn outside(root: &Root, shown: &str, through: String) -> SourceError {
    SourceError::OutsideRoot {
        path: PathBuf::from(shown),
        target: through,
        root: root.label_or_dir(),
    }
}

#[cfg(unix)]
fn refuse_hard_link(meta: &Metadata, root: &Root, shown: &str) -> Result<(), SourceError> {
    use std::os::unix::fs::MetadataExt;
    if root.hard_links || meta.nlink() <= 1 {
        return Ok(());
    }
    Err(SourceError::HardLink {
        path: PathBuf::from(shown),
        names: meta.nlink(),
        root: root.label_or_dir(),
    })
}

#[cfg(not(unix))]
fn refuse_hard_link(_meta: &Metadata, _root: &Root, _shown: &str) -> Result<(), SourceError> {
    Ok(())
}

/// What a walk must end on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    File,
    Dir,
}

/// What a walk ended on.
enum Found {
    /// A regular file, open, with its metadata.
    File(File, Metadata),
    /// A folder, open.
    Dir(Anchor),
}

/// At most this many symlinks are followed in one walk (Linux's own limit).
const MAX_LINKS: usize = 40;

/// Walks `path` (under `root`) from the root's open folder, one component at
/// a time, following symlinks itself while they stay inside the root.
#[cfg(unix)]
fn walk(
    root: &Root,
    anchor: &Anchor,
    path: &Path,
    shown: &str,
    want: Want,
) -> Result<Found, SourceError> {
    use std::collections::VecDeque;
    use std::ffi::OsString;
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::rc::Rc;

    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    use rustix::io::Errno;

    /// One step of the walk, and the symlink whose target it came from.
    struct Step {
        name: Option<OsString>,
        link: Option<Rc<String>>,
    }
    fn steps(path: &Path, link: Option<Rc<String>>) -> Vec<Step> {
        path.components()
            .filter_map(|c| match c {
                Component::Normal(name) => Some(Some(name.to_owned())),
                Component::ParentDir => Some(None),
                _ => None,
            })
            .map(|name| Step {
                name,
                link: link.clone(),
            })
            .collect()
    }
    let io = |e: Errno| SourceError::io(shown, e.into());
    let replaced = || SourceError::Unreadable {
        path: PathBuf::from(shown),
        source: std::io::Error::other("the file was replaced while it was being opened"),
    };
    let same =
        |a: &rustix::fs::Stat, b: &rustix::fs::Stat| a.st_dev == b.st_dev && a.st_ino == b.st_ino;

    let relative = relative_to(root, path).ok_or_else(|| outside(root, shown, String::new()))?;
    let mut queue: VecDeque<Step> = steps(&relative, None).into();
    // The folders walked into below the root, each open, with its name.
    let mut dirs: Vec<(OwnedFd, OsString)> = Vec::new();
    let mut links = 0;
    // The last symlink followed, as the root names it.
    let mut through = String::new();
    let named = |dirs: &[(OwnedFd, OsString)], name: &std::ffi::OsStr| {
        root.name(
            dirs.iter()
                .map(|(_, n)| n.as_os_str())
                .chain([name])
                .map(|n| n.to_string_lossy().into_owned()),
        )
    };

    while let Some(step) = queue.pop_front() {
        let last = queue.is_empty();
        let Some(name) = step.name else {
            // `..`: back up one folder, never above the root.
            if dirs.pop().is_none() {
                return Err(outside(root, shown, through));
            }
            continue;
        };
        let here = match dirs.last() {
            Some((fd, _)) => fd.as_fd(),
            None => anchor.fd.as_fd(),
        };
        let stat = match rustix::fs::statat(here, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(Errno::NOENT) => {
                return Err(match step.link {
                    Some(link) => SourceError::BadSymlink {
                        path: PathBuf::from(shown),
                        reason: format!("a symlink to {link}, which does not exist"),
                    },
                    None => SourceError::NotFound {
                        path: PathBuf::from(shown),
                    },
                });
            }
            Err(e) => return Err(io(e)),
        };
        match FileType::from_raw_mode(stat.st_mode as _) {
            FileType::Symlink => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(SourceError::BadSymlink {
                        path: PathBuf::from(shown),
                        reason: "a symlink loop".to_owned(),
                    });
                }
                through = named(&dirs, &name);
                let target =
                    rustix::fs::readlinkat(here, name.as_os_str(), Vec::new()).map_err(io)?;
                let target = PathBuf::from(std::ffi::OsStr::from_bytes(target.as_bytes()));
                let (rest, text) = if target.is_absolute() {
                    // Absolute: it must name a place under the root, which the walk restarts from.
                    let Some(rest) = relative_to(root, &target) else {
                        return Err(outside(root, shown, through));
                    };
                    dirs.clear();
                    let text = root.show(&target);
                    (rest, text)
                } else {
                    let text = visible(&target.to_string_lossy());
                    (target, text)
                };
                let text = Some(Rc::new(text));
                for step in steps(&rest, text).into_iter().rev() {
                    queue.push_front(step);
                }
            }
            FileType::Directory => {
                if last && want == Want::File {
                    return Err(SourceError::IsDirectory {
                        path: PathBuf::from(shown),
                    });
                }
                #[cfg(any(target_os = "linux", target_os = "android"))]
                let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                #[cfg(not(any(target_os = "linux", target_os = "android")))]
                let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                let fd = match rustix::fs::openat(here, name.as_os_str(), flags, Mode::empty()) {
                    Ok(fd) => fd,
                    // A symlink or a file now: swapped since it was looked at.
                    Err(Errno::LOOP | Errno::NOTDIR) => return Err(replaced()),
                    Err(e) => return Err(io(e)),
                };
                if !same(&rustix::fs::fstat(&fd).map_err(io)?, &stat) {
                    return Err(replaced());
                }
                dirs.push((fd, name));
            }
            file_type => {
                if !last || want == Want::Dir {
                    return Err(io(Errno::NOTDIR));
                }
                if file_type != FileType::RegularFile {
                    // From its metadata: a FIFO or device is never opened.
                    return Err(SourceError::NotRegular {
                        path: PathBuf::from(shown),
                        kind: kind_of_type(file_type),
                    });
                }
                let flags = OFlags::RDONLY
                    | OFlags::NONBLOCK
                    | OFlags::NOFOLLOW
                    | OFlags::NOCTTY
                    | OFlags::CLOEXEC;
                let fd = match rustix::fs::openat(here, name.as_os_str(), flags, Mode::empty()) {
                    Ok(fd) => fd,
                    Err(Errno::LOOP) => return Err(replaced()),
                    Err(e) => return Err(io(e)),
                };
                if !same(&rustix::fs::fstat(&fd).map_err(io)?, &stat) {
                    return Err(replaced());
                }
                let file = File::from(fd);
                let meta = file.metadata().map_err(|e| SourceError::io(shown, e))?;
                refuse_special(&meta, shown)?;
                return Ok(Found::File(file, meta));
            }
        }
    }
    // The path ends on a folder: the root itself, a folder, or `..`.
    if want == Want::File {
        return Err(SourceError::IsDirectory {
            path: PathBuf::from(shown),
        });
    }
    let real = dirs
        .iter()
        .fold(anchor.real.clone(), |real, (_, name)| real.join(name));
    let fd = match dirs.pop() {
        Some((fd, _)) => std::sync::Arc::new(fd),
        None => std::sync::Arc::clone(&anchor.fd),
    };
    Ok(Found::Dir(Anchor { real, fd }))
}

#[cfg(unix)]
fn kind_of_type(file_type: rustix::fs::FileType) -> &'static str {
    use rustix::fs::FileType;
    match file_type {
        FileType::Fifo => "a FIFO (named pipe)",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Symlink => "a symlink",
        _ => "not a regular file",
    }
}

/// Without descriptors to walk from: resolve the path, check it lies in the
/// root, open it. A folder of the path swapped between the two is not caught.
#[cfg(not(unix))]
fn walk(
    root: &Root,
    anchor: &Anchor,
    path: &Path,
    shown: &str,
    want: Want,
) -> Result<Found, SourceError> {
    let real_path = path.canonicalize().map_err(|e| SourceError::io(shown, e))?;
    if !real_path.starts_with(&anchor.real) {
        return Err(outside(root, shown, String::new()));
    }
    if want == Want::Dir {
        return match real_path.is_dir() {
            true => Ok(Found::Dir(Anchor { real: real_path })),
            false => Err(SourceError::io(
                shown,
                std::io::Error::other("not a directory"),
            )),
        };
    }
    let before = std::fs::symlink_metadata(&real_path).map_err(|e| SourceError::io(shown, e))?;
    refuse_special(&before, shown)?;
    let file = File::open(&real_path).map_err(|e| SourceError::io(shown, e))?;
    let meta = file.metadata().map_err(|e| SourceError::io(shown, e))?;
    refuse_special(&meta, shown)?;
    Ok(Found::File(file, meta))
}

/// Reads at most `cap + 1` bytes from the start: the extra byte tells a cut.
pub fn read_head(opened: &mut Opened, cap: usize) -> Result<Vec<u8>, SourceError> {
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
    use super::{Root, SourceError, is_plain_name};

    /// A root inside another is a folder inside it: `..` out of it, or a
    /// file, is refused, and `..` names no link (none was followed).
    #[test]
    fn a_root_within_another_may_not_climb_out_or_be_a_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("ws")).unwrap();
        std::fs::write(dir.path().join("ws/file"), "x").unwrap();
        let ws = Root::new(dir.path().join("ws"), "");
        for up in ["..", "a/../..", "../ws/../.."] {
            let error = Root::within(&ws, up, "@up").unwrap_err();
            assert!(
                matches!(&error, SourceError::OutsideRoot { target, .. } if target.is_empty()),
                "{up}: {error:?}"
            );
        }
        let error = Root::within(&ws, "file", "@file").unwrap_err();
        assert!(
            matches!(&error, SourceError::Unreadable { path, .. } if path.as_os_str() == "file"),
            "{error:?}"
        );
        // The workspace itself, and a folder that is not there yet, are roots.
        assert!(Root::within(&ws, "", "@ws").is_ok());
        assert_eq!(
            Root::within(&ws, "later", "@later").unwrap().real_dir(),
            None
        );
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
