//! Project docs: AGENTS.md and CLAUDE.md at the workspace root and, optionally,
//! in each directory from the root down to the working directory.

use std::path::{Path, PathBuf};

use super::{CappedText, SourceError, read_capped};

/// The file names read in each directory, in prompt order.
pub const PROJECT_DOC_NAMES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];

/// How project docs are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectDocsConfig {
    /// Cap of each file, in bytes. Default 16 KiB.
    pub cap_per_file: usize,
    /// Also read directory-level docs between the root and the working directory.
    pub nested: bool,
    /// One budget, in bytes, for all directory-level docs together. Default 16 KiB.
    pub nested_budget: usize,
}

impl Default for ProjectDocsConfig {
    fn default() -> Self {
        Self {
            cap_per_file: 16 * 1024,
            nested: false,
            nested_budget: 16 * 1024,
        }
    }
}

/// One project doc, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectDoc {
    /// The sub-header it goes under: its path relative to the root, `/`-separated
    /// (`AGENTS.md`, `providers/AGENTS.md`).
    pub heading: String,
    /// Where it was read from (for an override, the override file).
    pub path: PathBuf,
    /// Its capped text.
    pub text: CappedText,
}

/// All project docs of a session, root first.
#[derive(Debug, Default)]
pub struct ProjectDocs {
    /// The docs read, root first, AGENTS.md before CLAUDE.md in each directory.
    pub docs: Vec<ProjectDoc>,
    /// Files that exist but could not be read.
    pub problems: Vec<SourceError>,
    /// Directory-level docs left out because the nested budget was spent.
    pub over_budget: Vec<String>,
}

impl ProjectDocs {
    /// Reads the docs of `root` and, when `config.nested`, of each directory
    /// from `root` down to `cwd` (which must lie under `root`; otherwise only
    /// the root is read).
    ///
    /// In each directory an `AGENTS.override.md` replaces that directory's `AGENTS.md`.
    pub fn load(root: &Path, cwd: &Path, config: &ProjectDocsConfig) -> Self {
        let mut docs = ProjectDocs::default();
        docs.read_dir(root, "", config.cap_per_file, None);
        if config.nested {
            let mut budget = config.nested_budget;
            for (dir, prefix) in between(root, cwd) {
                docs.read_dir(&dir, &prefix, config.cap_per_file, Some(&mut budget));
            }
        }
        docs
    }

    /// Whether nothing was read.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    fn read_dir(&mut self, dir: &Path, prefix: &str, cap: usize, mut budget: Option<&mut usize>) {
        for name in PROJECT_DOC_NAMES {
            let heading = format!("{prefix}{name}");
            let override_path = (name == "AGENTS.md").then(|| dir.join("AGENTS.override.md"));
            let path = match override_path.filter(|p| p.is_file()) {
                Some(path) => path,
                None => dir.join(name),
            };
            if !path.exists() {
                continue;
            }
            let cap = match budget.as_deref() {
                Some(0) => {
                    self.over_budget.push(heading);
                    continue;
                }
                Some(left) => cap.min(*left),
                None => cap,
            };
            match read_capped(&path, heading.clone(), cap) {
                Ok(text) => {
                    if let Some(left) = budget.as_deref_mut() {
                        *left -= text.text.len();
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

/// The directories strictly below `root` down to `cwd`, each with its
/// `/`-terminated path relative to `root`.
fn between(root: &Path, cwd: &Path) -> Vec<(PathBuf, String)> {
    let (Ok(root), Ok(cwd)) = (root.canonicalize(), cwd.canonicalize()) else {
        return Vec::new();
    };
    let Ok(relative) = cwd.strip_prefix(&root) else {
        return Vec::new();
    };
    let mut dir = root.clone();
    let mut prefix = String::new();
    relative
        .components()
        .map(|component| {
            dir.push(component);
            prefix.push_str(&component.as_os_str().to_string_lossy());
            prefix.push('/');
            (dir.clone(), prefix.clone())
        })
        .collect()
}
