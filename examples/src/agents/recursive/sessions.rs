//! recursive's episodic recall: the newest session folders of the
//! workspace, `~/.recursive/workspaces/<hash>/sessions/<slug>/<id>/`, each
//! summarised from its `.meta.json`.

use std::path::{Path, PathBuf};

use prompt_layers::sources::{CappedText, Root, SourceError, one_line, parsed};
use serde::Deserialize;

use super::layers::preview;

/// The largest `.meta.json` read, in bytes; a larger one is skipped with a note.
pub const META_FILE_CAP: usize = 64 * 1024;
/// At most this many entries are looked at in the sessions folder and in
/// each of its slug folders; more are left out with a note.
pub const SESSION_LIST_CAP: usize = 4096;
/// The newest schema version of `.meta.json` recursive reads (at `d5e27aa`);
/// a newer one is skipped, as recursive skips it.
pub const SUPPORTED_SCHEMA_VERSION: u32 = 1;

/// One session as the summary lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    /// The session folder's name.
    pub name: String,
    /// `message_count` of its `.meta.json`.
    pub message_count: u64,
    /// Its status, as recursive names it (`completed`, `crashed`,
    /// `interrupted`, `paused`, `active`).
    pub status: &'static str,
    /// Its goal.
    pub goal: String,
}

impl SessionSummary {
    /// `name (n msgs, status): goal`, the goal cut to 77 bytes and `...` past 80.
    pub fn line(&self) -> String {
        format!(
            "{} ({} msgs, {}): {}",
            self.name,
            self.message_count,
            self.status,
            preview(&self.goal, 80)
        )
    }
}

#[derive(Deserialize)]
struct Meta {
    #[serde(default = "one")]
    schema_version: u32,
    // Required by recursive's `SessionMeta`: a file without them is skipped.
    #[allow(dead_code, reason = "required, as in recursive, though not shown")]
    session_id: String,
    goal: String,
    #[allow(dead_code, reason = "required, as in recursive, though not shown")]
    model: String,
    #[allow(dead_code, reason = "required, as in recursive, though not shown")]
    provider: String,
    #[allow(dead_code, reason = "required, as in recursive, though not shown")]
    created_at: String,
    #[allow(dead_code, reason = "required, as in recursive, though not shown")]
    updated_at: String,
    message_count: u64,
    #[serde(default)]
    status: Option<String>,
}

fn one() -> u32 {
    1
}

/// recursive's `SessionStatus` as it reads it: the legacy aliases, and any
/// other value (or none) is `active`.
fn status_name(value: Option<&str>) -> &'static str {
    match value {
        Some("completed" | "success") => "completed",
        Some("crashed" | "incomplete") => "crashed",
        Some("interrupted" | "cancelled") => "interrupted",
        Some("paused") => "paused",
        _ => "active",
    }
}

/// The newest sessions (session context), read by the `episodic_recall` layer.
#[derive(Debug, Default)]
pub struct RecentSessions {
    /// Newest first, at most the limit (fewer when some could not be read).
    pub sessions: Vec<SessionSummary>,
    /// The limit the summary states.
    pub limit: usize,
    /// What was skipped and why, for the trace.
    pub notes: Vec<String>,
}

impl prompt_core::SessionValue for RecentSessions {}

impl RecentSessions {
    /// Lists `dir/<slug>/<id>/` folders holding a `.meta.json`, sorted by
    /// path, and summarises the newest `limit` of them as recursive does: a
    /// folder whose `.meta.json` cannot be read, is malformed or has a newer
    /// schema still takes its place among the newest and is skipped. Every
    /// `.meta.json` is read through `root` (the user's `~/.recursive`).
    pub fn load(dir: &Path, root: &Root, limit: usize) -> Self {
        let mut found = Self {
            limit,
            ..Self::default()
        };
        let mut folders: Vec<PathBuf> = Vec::new();
        for slug in found.list(dir, root) {
            if !slug.is_dir() {
                continue;
            }
            for session in found.list(&slug, root) {
                if session.is_dir() && session.join(".meta.json").is_file() {
                    folders.push(session);
                }
            }
        }
        folders.sort();
        for folder in folders.iter().rev().take(limit) {
            match read_meta(&folder.join(".meta.json"), root) {
                Ok(meta) => found.sessions.push(SessionSummary {
                    name: one_line(&folder.file_name().unwrap_or_default().to_string_lossy()),
                    message_count: meta.message_count,
                    status: status_name(meta.status.as_deref()),
                    goal: meta.goal,
                }),
                Err(message) => found.notes.push(message),
            }
        }
        found
    }

    /// The entries of `dir`, at most [`SESSION_LIST_CAP`]; an absent folder is empty.
    fn list(&mut self, dir: &Path, root: &Root) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut paths = Vec::new();
        for entry in entries.flatten() {
            if paths.len() == SESSION_LIST_CAP {
                self.notes.push(format!(
                    "{}: more than {SESSION_LIST_CAP} entries; the rest were not looked at",
                    root.show(dir)
                ));
                break;
            }
            paths.push(entry.path());
        }
        paths
    }
}

fn read_meta(path: &Path, root: &Root) -> Result<Meta, String> {
    let shown = root.show(path);
    let text = match CappedText::read(path, root, META_FILE_CAP) {
        Ok(text) if text.is_truncated() => {
            return Err(format!(
                "{shown}: larger than the {META_FILE_CAP}-byte limit; skipped"
            ));
        }
        Ok(text) => text.text,
        Err(error) => return Err(skipped(error)),
    };
    let meta: Meta = parsed::json(&text, parsed::Multiline::NONE)
        .map_err(|e| format!("{shown}: line {}: {e}; skipped", e.line()))?;
    if meta.schema_version > SUPPORTED_SCHEMA_VERSION {
        return Err(format!(
            "{shown}: schema_version {} is newer than {SUPPORTED_SCHEMA_VERSION}; skipped",
            meta.schema_version
        ));
    }
    Ok(meta)
}

fn skipped(error: SourceError) -> String {
    format!("{error}; skipped")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(dir: &Path, slug: &str, id: &str, json: &str) {
        let folder = dir.join(slug).join(id);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(".meta.json"), json).unwrap();
    }

    const OK: &str = r#"{"session_id":"s","goal":"fix the parser","model":"m","provider":"p","created_at":"c","updated_at":"u","message_count":3,"status":"success"}"#;

    #[test]
    fn newest_first_and_a_bad_meta_still_takes_its_place() {
        let home = tempfile::tempdir().unwrap();
        let root = Root::new(home.path(), "~/.recursive");
        let dir = home.path().join("sessions");
        meta(&dir, "a", "2026-01-01T00-00-00Z-old", OK);
        meta(&dir, "a", "2026-01-02T00-00-00Z-mid", OK);
        meta(&dir, "b", "2026-01-03T00-00-00Z-new", "{not json");
        let recent = RecentSessions::load(&dir, &root, 2);
        // Sorted by path: b/… is newest, and broken; a/…-mid is next.
        assert_eq!(recent.sessions.len(), 1);
        assert_eq!(
            recent.sessions[0].line(),
            "2026-01-02T00-00-00Z-mid (3 msgs, completed): fix the parser"
        );
        assert_eq!(recent.notes.len(), 1, "{:?}", recent.notes);
        assert!(recent.notes[0].contains(".meta.json"), "{:?}", recent.notes);
    }

    #[test]
    fn unknown_status_is_active_and_a_newer_schema_is_skipped() {
        assert_eq!(status_name(Some("weird")), "active");
        assert_eq!(status_name(None), "active");
        assert_eq!(status_name(Some("cancelled")), "interrupted");
        let home = tempfile::tempdir().unwrap();
        let root = Root::new(home.path(), "~/.recursive");
        let dir = home.path().join("sessions");
        meta(&dir, "a", "x", &OK.replace("{", r#"{"schema_version":2,"#));
        let recent = RecentSessions::load(&dir, &root, 5);
        assert!(recent.sessions.is_empty());
        assert!(
            recent.notes[0].contains("schema_version 2"),
            "{:?}",
            recent.notes
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_meta_linked_out_of_the_user_folder_is_not_read() {
        let home = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(
            outside.path().join("secret.json"),
            OK.replace("fix the parser", "SECRET"),
        )
        .unwrap();
        let folder = home.path().join("sessions/a/x");
        std::fs::create_dir_all(&folder).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.json"),
            folder.join(".meta.json"),
        )
        .unwrap();
        let recent = RecentSessions::load(
            &home.path().join("sessions"),
            &Root::new(home.path(), "~/.recursive"),
            5,
        );
        assert!(recent.sessions.is_empty());
        assert_eq!(recent.notes.len(), 1);
    }
}
