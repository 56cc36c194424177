//! Reading one file through a root: a file longer than its metadata says,
//! symlinks, paths outside the root, and the upward walk without `.git`.

use prompt_layers::sources::{CappedText, Root, SourceError};

/// A file that is longer than its metadata says (a file growing while it is
/// read; `/proc` files all report size 0) is still reported as over the cap:
/// the size in the marker is at least what was read, cap plus the byte that
/// showed the cut, so the marker never reads "is 10 B, cap 10 B".
#[cfg(target_os = "linux")]
#[test]
fn a_file_longer_than_its_metadata_says_is_reported_over_the_cap() {
    let root = Root::new("/proc/self", "/proc/self");
    let status = std::path::Path::new("/proc/self/status");
    assert_eq!(std::fs::metadata(status).unwrap().len(), 0, "the premise");
    let text = CappedText::read(status, &root, 10).unwrap();
    assert!(text.is_truncated());
    assert_eq!(text.text.len(), 10);
    assert_eq!(text.size, 11, "cap + the one byte that showed the cut");
    assert!(
        text.render().ends_with("is 11 B, cap 10 B]"),
        "{}",
        text.render()
    );
}

/// Without any `.git`, the upward walk stops at the workspace root, and
/// finds a file there from a sub-folder.
#[test]
fn without_git_a_file_at_the_workspace_root_is_found_from_below() {
    use prompt_layers::sources::__private::{find_upward, repo_root};
    let ws = tempfile::tempdir().unwrap();
    let sub = ws.path().join("a/b");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(ws.path().join("AGENTS.md"), "root").unwrap();
    let found = find_upward(ws.path(), &sub, "AGENTS.md").unwrap();
    assert_eq!(
        found.canonicalize().unwrap(),
        ws.path().join("AGENTS.md").canonicalize().unwrap()
    );
    assert_eq!(repo_root(ws.path(), &sub), None);
}

/// A root given through a symlink (`/tmp` on macOS, a linked checkout)
/// reads its files: being inside is judged by where the file really is.
#[cfg(unix)]
#[test]
fn a_root_given_through_a_symlink_reads_its_files() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.path().join("real")).unwrap();
    std::fs::write(ws.path().join("real/AGENTS.md"), "hello").unwrap();
    std::os::unix::fs::symlink(ws.path().join("real"), ws.path().join("link")).unwrap();
    let root = Root::new(ws.path().join("link"), "");
    let text = CappedText::read(&ws.path().join("link/AGENTS.md"), &root, 100).unwrap();
    assert_eq!(text.text, "hello");
    assert_eq!(text.name, "AGENTS.md");
}

/// A path outside the root is refused as outside before anything is
/// looked up there: whether it exists is not revealed.
#[test]
fn a_path_outside_the_root_is_refused_whether_or_not_it_exists() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.path().join("root")).unwrap();
    std::fs::write(ws.path().join("there.md"), "x").unwrap();
    let root = Root::new(ws.path().join("root"), "");
    for name in ["there.md", "not-there.md"] {
        let error = CappedText::read(&ws.path().join(name), &root, 100).unwrap_err();
        assert!(
            matches!(&error, SourceError::OutsideRoot { target, .. } if target.is_empty()),
            "{name}: {error:?}"
        );
    }
}

/// A dangling symlink names its missing target; a loop says it cannot be resolved.
#[cfg(unix)]
#[test]
fn a_broken_symlink_says_why() {
    let ws = tempfile::tempdir().unwrap();
    let root = Root::new(ws.path(), "");
    std::os::unix::fs::symlink("gone.md", ws.path().join("dangling.md")).unwrap();
    std::os::unix::fs::symlink("loop.md", ws.path().join("loop.md")).unwrap();
    let dangling = CappedText::read(&ws.path().join("dangling.md"), &root, 100).unwrap_err();
    assert!(
        matches!(&dangling, SourceError::BadSymlink { reason, .. } if reason == "a symlink to gone.md, which does not exist"),
        "{dangling:?}"
    );
    let looping = CappedText::read(&ws.path().join("loop.md"), &root, 100).unwrap_err();
    assert!(
        matches!(&looping, SourceError::BadSymlink { reason, .. } if reason == "a symlink loop"),
        "{looping:?}"
    );
}
