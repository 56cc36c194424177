//! Finding files upward from a directory, stopping at the repository root.

use std::path::{Path, PathBuf};

/// The nearest `dir/relative` that is a file, for `dir` = `start` and each of its
/// ancestors, up to and including the repository root (the first directory
/// holding `.git`, file or folder) or the filesystem root.
///
/// `start` is resolved first, so symlinked directories are walked by their real
/// parents; a path that cannot be resolved (a symlink loop, a missing
/// directory) is walked as written. Ancestors are finite, so the walk always
/// ends; an unreadable directory just has no file in it.
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// # let root = dir.path();
/// std::fs::create_dir_all(root.join(".git")).unwrap();
/// std::fs::create_dir_all(root.join(".app")).unwrap();
/// std::fs::create_dir_all(root.join("src/deep")).unwrap();
/// std::fs::write(root.join(".app/system-prompt.md"), "hi").unwrap();
///
/// let found = prompt_layers::sources::find_upward(&root.join("src/deep"), ".app/system-prompt.md");
/// assert_eq!(found.unwrap(), root.canonicalize().unwrap().join(".app/system-prompt.md"));
/// ```
pub fn find_upward(start: &Path, relative: impl AsRef<Path>) -> Option<PathBuf> {
    let relative = relative.as_ref();
    for dir in upward(start) {
        let candidate = dir.join(relative);
        if candidate.is_file() {
            return Some(candidate);
        }
        if is_repo_root(&dir) {
            return None;
        }
    }
    None
}

/// The repository root containing `start`: the nearest directory, `start`
/// included, that holds `.git`.
pub fn repo_root(start: &Path) -> Option<PathBuf> {
    upward(start).find(|dir| is_repo_root(dir))
}

fn is_repo_root(dir: &Path) -> bool {
    dir.join(".git").exists()
}

/// `start` (resolved when possible) and its ancestors, nearest first.
fn upward(start: &Path) -> impl Iterator<Item = PathBuf> {
    let resolved = start
        .canonicalize()
        .or_else(|_| std::path::absolute(start))
        .unwrap_or_else(|_| start.to_owned());
    resolved
        .ancestors()
        .map(Path::to_owned)
        .collect::<Vec<_>>()
        .into_iter()
}
