//! recursive's scratchpad: `~/.recursive/workspaces/<hash>/scratchpad.json`,
//! `{"entries": [{"key": .., "value": ..}]}`, listed in file order.

use std::path::{Path, PathBuf};

use prompt_layers::sources::{CappedText, Root, SourceError, parsed};
use serde::Deserialize;

/// The largest scratchpad file read, in bytes; a larger one shows nothing
/// and is reported.
pub const SCRATCHPAD_FILE_CAP: usize = 64 * 1024;

/// recursive's name for a workspace's per-user folder: the first 12 hex
/// digits of the BLAKE3 hash of the workspace's canonical absolute path
/// (recursive's `workspace_hash`). A path that cannot be canonicalised is
/// made absolute against the current directory, as recursive does.
pub fn workspace_hash(workspace: &Path) -> String {
    let absolute = workspace.canonicalize().unwrap_or_else(|_| {
        if workspace.is_absolute() {
            workspace.to_path_buf()
        } else {
            std::env::current_dir()
                .map(|cwd| cwd.join(workspace))
                .unwrap_or_else(|_| workspace.to_path_buf())
        }
    });
    let text = absolute.as_os_str().to_string_lossy();
    let hash = blake3::hash(text.as_bytes()).to_hex();
    hash.as_str()[..12].to_owned()
}

#[derive(Deserialize)]
struct PadFile {
    entries: Vec<PadEntry>,
}

#[derive(Deserialize)]
struct PadEntry {
    key: String,
    value: String,
}

/// The scratchpad's entries in file order (session context), read by the
/// `scratchpad` layer.
#[derive(Debug, Default)]
pub struct RecursiveScratchpad {
    /// `(key, value)` pairs as the file lists them, each folded onto one line.
    pub entries: Vec<(String, String)>,
    /// Why the file could not be read, when it exists.
    pub problem: Option<SourceError>,
}

impl prompt_core::SessionValue for RecursiveScratchpad {}

impl RecursiveScratchpad {
    /// Reads `path`, which must lie in `root`. An absent file is an empty
    /// scratchpad; a malformed or over-large one shows nothing (as in
    /// recursive) and is reported, named as `root` shows it.
    pub fn load(path: &Path, root: &Root) -> Self {
        let shown = root.show(path);
        let text = match CappedText::read(path, root, SCRATCHPAD_FILE_CAP) {
            Ok(text) if text.is_truncated() => {
                return Self::failed(
                    &shown,
                    format!("larger than the {SCRATCHPAD_FILE_CAP}-byte limit"),
                    None,
                );
            }
            Ok(text) => text.text,
            Err(error) if error.is_not_found() => return Self::default(),
            Err(error) => {
                return Self {
                    problem: Some(error),
                    ..Self::default()
                };
            }
        };
        match parsed::json::<PadFile>(&text, parsed::Multiline::NONE) {
            Ok(file) => Self {
                entries: file.entries.into_iter().map(|e| (e.key, e.value)).collect(),
                problem: None,
            },
            Err(error) => Self::failed(
                &shown,
                r#"expected {"entries": [{"key": .., "value": ..}]}"#.to_owned(),
                Some(Box::new(error)),
            ),
        }
    }

    fn failed(
        shown: &str,
        reason: String,
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self {
            entries: Vec::new(),
            problem: Some(SourceError::Malformed {
                path: PathBuf::from(shown),
                reason,
                source,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_recursive_s_twelve_hex_digits_of_blake3() {
        // A path that does not exist is hashed as written (it is absolute).
        let a = workspace_hash(Path::new("/nonexistent/ws-a"));
        let b = workspace_hash(Path::new("/nonexistent/ws-b"));
        assert_eq!(a.len(), 12);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_eq!(a, workspace_hash(Path::new("/nonexistent/ws-a")));
        // What recursive's own `workspace_hash` (d5e27aa) prints for it.
        assert_eq!(a, "586f0bdc73b4");
    }

    #[cfg(unix)]
    #[test]
    fn a_scratchpad_linked_out_of_the_user_folder_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join(".recursive");
        std::fs::create_dir_all(&user).unwrap();
        let secret = dir.path().join("secret.json");
        std::fs::write(&secret, r#"{"entries":[{"key":"k","value":"SECRET"}]}"#).unwrap();
        let path = user.join("scratchpad.json");
        std::os::unix::fs::symlink(&secret, &path).unwrap();
        let pad = RecursiveScratchpad::load(&path, &Root::new(&user, "~/.recursive"));
        assert!(pad.entries.is_empty());
        assert!(pad.problem.is_some());
    }

    #[test]
    fn entries_keep_file_order_and_a_malformed_file_shows_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path(), "~/.recursive");
        let path = dir.path().join("scratchpad.json");
        std::fs::write(
            &path,
            r#"{"entries":[{"key":"zeta","value":"last\nline"},{"key":"alpha","value":"a"}]}"#,
        )
        .unwrap();
        let pad = RecursiveScratchpad::load(&path, &root);
        assert_eq!(
            pad.entries,
            vec![
                ("zeta".to_owned(), "last line".to_owned()),
                ("alpha".to_owned(), "a".to_owned())
            ]
        );
        std::fs::write(&path, r#"{"zeta": "an object, not recursive's form"}"#).unwrap();
        let pad = RecursiveScratchpad::load(&path, &root);
        assert!(pad.entries.is_empty());
        let problem = pad.problem.unwrap().to_string();
        assert!(problem.contains("scratchpad.json"), "{problem}");
    }
}
