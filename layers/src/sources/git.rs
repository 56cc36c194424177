//! The current git branch, from the repository's `HEAD`.

use std::path::Path;

use super::SourceError;
use super::capped::read_capped;
use super::discover::repo_root;
use super::fs::Root;
use super::text::one_line;

/// The most of `.git/HEAD` that is read: a ref line is short.
const HEAD_CAP: usize = 1024;

/// The branch `HEAD` points at, in the repository that holds `cwd` (found
/// upward from `cwd`, never above `workspace`), on one line.
///
/// `Ok(None)` when there is no repository there, `.git` is a file (a linked
/// worktree, whose `HEAD` lies outside the workspace), `HEAD` is absent, or
/// it is detached.
/// A `HEAD` that is not a regular file, leads outside the repository or is
/// over 1 KiB is an error naming it.
///
/// ```
/// let repo = tempfile::tempdir().unwrap();
/// std::fs::create_dir(repo.path().join(".git")).unwrap();
/// std::fs::write(repo.path().join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
/// std::fs::create_dir(repo.path().join("src")).unwrap();
/// let branch = prompt_layers::sources::git_branch(repo.path(), &repo.path().join("src"));
/// assert_eq!(branch.unwrap().as_deref(), Some("main"));
/// ```
pub fn git_branch(workspace: &Path, cwd: &Path) -> Result<Option<String>, SourceError> {
    let Some(repo) = repo_root(workspace, cwd) else {
        return Ok(None);
    };
    let git = repo.join(".git");
    if !std::fs::symlink_metadata(&git).is_ok_and(|m| m.is_dir()) {
        return Ok(None);
    }
    let head = match read_capped(&git.join("HEAD"), &Root::new(&repo, ""), HEAD_CAP) {
        Ok(head) => head,
        Err(error) if error.is_not_found() => return Ok(None),
        Err(error) => return Err(error),
    };
    if head.is_truncated() {
        return Err(SourceError::Malformed {
            path: head.name.into(),
            reason: "larger than 1 KiB; not a ref line".into(),
            source: None,
        });
    }
    Ok(head
        .text
        .trim()
        .strip_prefix("ref: refs/heads/")
        .map(one_line)
        .filter(|b| !b.is_empty()))
}
