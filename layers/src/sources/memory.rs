//! Memory files: user preferences and project memory, each a capped Markdown file.

use std::path::{Path, PathBuf};

use super::capped::read_capped;
use super::fs::Root;
use super::{CappedText, SourceError};

/// How much of a memory file is read.
///
/// `Copy`, with [`MemoryLimits::DEFAULT`] (8 KiB) and a `const` `with_` setter.
// Grows with every limit: build it from `DEFAULT` and the `with_` setters,
// so a new one is not a breaking change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryLimits {
    /// Cap of the file, in bytes; a longer file is cut with a marker.
    pub max_bytes: usize,
}

impl MemoryLimits {
    /// 8 KiB a file.
    pub const DEFAULT: Self = Self {
        max_bytes: 8 * 1024,
    };

    /// The same limits, capping the file at `max_bytes`.
    #[must_use]
    pub const fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }
}

impl Default for MemoryLimits {
    /// [`MemoryLimits::DEFAULT`].
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// One optional, capped memory file, as loaded.
#[derive(Debug)]
#[non_exhaustive]
pub struct MemoryFile {
    /// Where it was looked for, as notes name it (`.agent/memory/project.md`,
    /// `~/.agent/memory/user.md`).
    pub path: PathBuf,
    /// Its text; `None` when absent or unreadable.
    pub text: Option<CappedText>,
    /// Why it could not be read, when it exists but could not be.
    pub problem: Option<SourceError>,
}

impl MemoryFile {
    /// A memory file at `path` with `text` (`None`: absent) and no problem.
    pub fn new(path: impl Into<PathBuf>, text: Option<CappedText>) -> Self {
        Self {
            path: path.into(),
            text,
            problem: None,
        }
    }

    /// Reads `path`, which must lie in `root`, within `limits`. Absence is not a problem.
    pub fn load(path: &Path, root: &Root, limits: &MemoryLimits) -> Self {
        let (text, problem) = match read_capped(path, root, limits.max_bytes) {
            Ok(text) => (Some(text), None),
            Err(error) if error.is_not_found() => (None, None),
            Err(error) => (None, Some(error)),
        };
        Self {
            path: PathBuf::from(root.show(path)),
            text,
            problem,
        }
    }

    /// A memory "file" from text in memory, for callers that keep memory elsewhere.
    pub fn from_text(name: &str, text: &str, cap: usize) -> Self {
        Self {
            path: PathBuf::from(name),
            text: Some(CappedText::from_text(name, text, cap)),
            problem: None,
        }
    }

    /// The text to render (trimmed, with a marker when cut), if there is any.
    pub fn rendered(&self) -> Option<String> {
        self.text
            .as_ref()
            .map(CappedText::render)
            .filter(|text| !text.trim().is_empty())
    }

    /// The text to put into a prompt: [`CappedText::fenced`] under the file's
    /// name, when [`rendered`](Self::rendered) has text.
    pub fn fenced(&self) -> Option<String> {
        self.rendered()?;
        self.text.as_ref().map(CappedText::fenced)
    }
}

/// User preferences: `~/.<app>/memory/user.md`. Read by the `user_preferences` layer.
#[derive(Debug)]
pub struct UserPreferences(pub MemoryFile);

// `load_session` puts these into the session context.
impl prompt_core::SessionValue for UserPreferences {}

/// Project memory: `<workspace>/.<app>/memory/project.md`. Read by the `project_memory` layer.
#[derive(Debug)]
pub struct ProjectMemory(pub MemoryFile);

impl prompt_core::SessionValue for ProjectMemory {}
