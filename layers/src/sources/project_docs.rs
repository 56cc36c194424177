//! Project docs: AGENTS.md and CLAUDE.md at the workspace root and, optionally,
//! in each directory from the root down to the working directory.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::capped::{Size, read_capped};
use super::fs::Root;
use super::text::fence;
use super::{CappedText, SourceError};

/// The file names read in each directory, in prompt order.
pub const PROJECT_DOC_NAMES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];

/// How project docs are read.
///
/// Start from [`ProjectDocsConfig::DEFAULT`] (or `default()`) and change what
/// you need with the `const` `with_` setters:
///
/// ```
/// use prompt_layers::sources::{ProjectDocs, ProjectDocsConfig, Root};
///
/// let workspace = tempfile::tempdir().unwrap();
/// std::fs::create_dir(workspace.path().join("api")).unwrap();
/// std::fs::write(workspace.path().join("AGENTS.md"), "Run `make test`.").unwrap();
/// std::fs::write(workspace.path().join("api/AGENTS.md"), "Keep handlers small.").unwrap();
///
/// let config = ProjectDocsConfig::default().nested(true).nested_budget(4 * 1024);
/// let root = Root::new(workspace.path(), "");
/// let docs = ProjectDocs::load(&root, &workspace.path().join("api"), &config);
/// let headings: Vec<&str> = docs.docs.iter().map(|d| d.heading.as_str()).collect();
/// assert_eq!(headings, ["AGENTS.md", "api/AGENTS.md"]);
/// ```
// Grows with every setting: build it with the `with_` setters, so a new one
// is not a breaking change.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProjectDocsConfig {
    /// Cap of each file, in bytes. Default 16 KiB.
    pub cap_per_file: usize,
    /// Also read directory-level docs between the root and the working directory.
    pub nested: bool,
    /// One budget, in bytes, for all directory-level docs together, their
    /// fences (`<file path="…">`, `</file>`) included. Default 16 KiB. Once it
    /// is spent, the directories below are not looked at (a note says how many).
    pub nested_budget: usize,
    /// Directory-level docs stop being read once reading them has taken
    /// this long: a backstop for slow disks. Default 5 s.
    pub nested_time_budget: Duration,
}

impl ProjectDocsConfig {
    /// The defaults: 16 KiB a file, root docs only (not nested), and for
    /// nested docs a budget of 16 KiB and 5 s.
    pub const DEFAULT: Self = Self {
        cap_per_file: 16 * 1024,
        nested: false,
        nested_budget: 16 * 1024,
        nested_time_budget: Duration::from_secs(5),
    };

    /// The same config, capping each file at [`cap_per_file`](Self::cap_per_file) bytes.
    #[must_use]
    pub const fn cap_per_file(mut self, cap_per_file: usize) -> Self {
        self.cap_per_file = cap_per_file;
        self
    }

    /// The same config, reading directory-level docs too when
    /// [`nested`](Self::nested) is `true`.
    #[must_use]
    pub const fn nested(mut self, nested: bool) -> Self {
        self.nested = nested;
        self
    }

    /// The same config, with [`nested_budget`](Self::nested_budget) bytes for
    /// all directory-level docs together.
    #[must_use]
    pub const fn nested_budget(mut self, nested_budget: usize) -> Self {
        self.nested_budget = nested_budget;
        self
    }

    /// The same config, reading directory-level docs for at most
    /// [`nested_time_budget`](Self::nested_time_budget).
    #[must_use]
    pub const fn nested_time_budget(mut self, nested_time_budget: Duration) -> Self {
        self.nested_time_budget = nested_time_budget;
        self
    }
}

impl Default for ProjectDocsConfig {
    /// [`ProjectDocsConfig::DEFAULT`].
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// One project doc, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProjectDoc {
    /// The name it is quoted under (the fence's `path`): the path of the file read, relative to
    /// the root, `/`-separated (`AGENTS.md`, `providers/AGENTS.override.md`),
    /// control characters escaped.
    pub heading: String,
    /// Where it was read from (for an override, the override file).
    pub path: PathBuf,
    /// Its capped text.
    pub text: CappedText,
}

/// All project docs of a session, root first.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct ProjectDocs {
    /// The docs read, root first, AGENTS.md before CLAUDE.md in each directory.
    pub docs: Vec<ProjectDoc>,
    /// Files that exist but could not be read.
    pub problems: Vec<SourceError>,
    /// Directory-level docs left out because the nested budget was spent.
    pub over_budget: Vec<String>,
    /// Notes on the limits: the walk down to `cwd` stopped early, and why.
    pub limit_notes: Vec<String>,
}

// `load_session` puts this into the session context.
impl prompt_core::SessionValue for ProjectDocs {}

impl ProjectDocs {
    /// Reads the docs of `root`'s folder and, when `config.nested`, of each
    /// directory from it down to `cwd` (which must lie under it; otherwise
    /// only the root folder is read). Every file must lie inside `root`.
    ///
    /// In each directory an `AGENTS.override.md` (if there is one, of any
    /// kind: one that cannot be read is reported, not passed over) replaces
    /// that directory's `AGENTS.md`.
    pub fn load(workspace: &Root, cwd: &Path, config: &ProjectDocsConfig) -> Self {
        let mut docs = ProjectDocs::default();
        let root = workspace.dir();
        docs.read_dir(workspace, root, config.cap_per_file, None);
        if config.nested {
            let started = Instant::now();
            let mut budget = config.nested_budget;
            let dirs = between(root, cwd);
            for (done, dir) in dirs.iter().enumerate() {
                // A doc fits when the budget left is more than its frame (its
                // fence and the blank lines around it, see `read_dir`); the
                // shortest frame here is `<dir>/CLAUDE.md`'s, and every frame
                // below is longer: past it, nothing can fit.
                let shortest = frame(&format!("{}/CLAUDE.md", workspace.show(dir)));
                let limit = if budget <= shortest {
                    format!("the {} budget", Size(config.nested_budget as u64))
                } else if started.elapsed() >= config.nested_time_budget {
                    format!(
                        "the {} ms time budget",
                        config.nested_time_budget.as_millis()
                    )
                } else {
                    docs.read_dir(workspace, dir, config.cap_per_file, Some(&mut budget));
                    continue;
                };
                docs.limit_notes.push(format!(
                    "stopped at {}: {limit} of directory-level docs is spent; {} of {} \
                     directories down to the working directory not looked at",
                    workspace.show(dir),
                    dirs.len() - done,
                    dirs.len()
                ));
                break;
            }
        }
        docs
    }

    /// Whether nothing was read.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    fn read_dir(&mut self, root: &Root, dir: &Path, cap: usize, mut budget: Option<&mut usize>) {
        for name in PROJECT_DOC_NAMES {
            let override_path = (name == "AGENTS.md").then(|| dir.join("AGENTS.override.md"));
            let path = match override_path.filter(|p| std::fs::symlink_metadata(p).is_ok()) {
                Some(path) => path,
                None => dir.join(name),
            };
            if std::fs::symlink_metadata(&path).is_err() {
                continue;
            }
            let heading = root.show(&path);
            let frame = frame(&heading);
            let cap = match budget.as_deref() {
                // The fence is paid for first; a doc whose fence does not fit is left out.
                Some(left) if *left <= frame => {
                    self.over_budget.push(heading);
                    continue;
                }
                Some(left) => cap.min(*left - frame),
                None => cap,
            };
            match read_capped(&path, root, cap) {
                Ok(text) => {
                    if let Some(left) = budget.as_deref_mut() {
                        *left -= frame + text.text.len().min(cap);
                    }
                    self.docs.push(ProjectDoc {
                        heading,
                        path,
                        text,
                    });
                }
                Err(error) => self.problems.push(error),
            }
        }
    }
}

/// What a doc named `heading` costs besides its text: its fence (which names
/// it), the newline before `</file>` and the blank line before the fence.
fn frame(heading: &str) -> usize {
    fence(heading, "").len() + 3
}

/// The directories strictly below `root` down to `cwd`.
fn between(root: &Path, cwd: &Path) -> Vec<PathBuf> {
    let (Ok(root), Ok(cwd)) = (root.canonicalize(), cwd.canonicalize()) else {
        return Vec::new();
    };
    let Ok(relative) = cwd.strip_prefix(&root) else {
        return Vec::new();
    };
    let mut dir = root.clone();
    relative
        .components()
        .map(|component| {
            dir.push(component);
            dir.clone()
        })
        .collect()
}
