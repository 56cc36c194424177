//! Finding files upward from the working directory, never above the workspace.
//!
//! The walk goes from the working directory up to the repository root (the
//! nearest directory holding `.git`) or, where there is none, the workspace
//! root: whichever comes first. It never goes above the workspace, so a file
//! planted in `/tmp/.agent/`, the home folder or `/` is never found by walking.

use std::path::{Path, PathBuf};

/// The nearest `dir/relative` that exists (as any kind of file: a FIFO is
/// found, and then refused with a note by the reader, never skipped silently),
/// for `dir` = `start` and each ancestor up to the repository root or the
/// workspace, whichever is nearer. `None` when `start` is not inside the workspace.
pub fn find_upward(workspace: &Path, start: &Path, relative: impl AsRef<Path>) -> Option<PathBuf> {
    let relative = relative.as_ref();
    for dir in walk(workspace, start)? {
        let candidate = dir.join(relative);
        if std::fs::symlink_metadata(&candidate).is_ok_and(|m| !m.is_dir()) {
            return Some(candidate);
        }
    }
    None
}

/// The repository root of `start`: the nearest directory holding `.git`,
/// from `start` up to the workspace root (inclusive). `None` when there is
/// none within the workspace, or `start` is not inside it.
pub fn repo_root(workspace: &Path, start: &Path) -> Option<PathBuf> {
    walk(workspace, start)?.find(|dir| is_repo_root(dir))
}

fn is_repo_root(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(".git")).is_ok()
}

/// `start` and its ancestors, nearest first, ending at the first repository
/// root or at the workspace root.
fn walk(workspace: &Path, start: &Path) -> Option<impl Iterator<Item = PathBuf>> {
    let workspace = resolve(workspace);
    let start = resolve(start);
    let relative = start.strip_prefix(&workspace).ok()?;
    let mut dirs = Vec::with_capacity(relative.components().count() + 1);
    let mut dir = start.as_path();
    loop {
        dirs.push(dir.to_owned());
        if is_repo_root(dir) || dir == workspace {
            break;
        }
        dir = dir.parent()?;
    }
    Some(dirs.into_iter())
}

fn resolve(path: &Path) -> PathBuf {
    path.canonicalize()
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_owned())
}
