//! What can go wrong loading a source. Every variant names the file.

use std::io;
use std::path::PathBuf;

/// A source that could not be loaded. Each names the file and says what to do;
/// the layer that would have shown it stays silent and notes the error in the trace.
///
/// Files are named as their [`Root`](super::Root) shows them: relative to the
/// workspace, `~/.<app>/...` for the user's files, `@shared/...` for shared
/// templates. So a note carries no absolute path and reads the same on every machine.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    /// The file does not exist.
    #[error("{}: no such file", path.display())]
    NotFound {
        /// The path looked at.
        path: PathBuf,
    },
    /// The path is a directory, not a file.
    #[error("{}: is a directory, expected a file", path.display())]
    IsDirectory {
        /// The path.
        path: PathBuf,
    },
    /// The file is not valid UTF-8.
    #[error("{}: not valid UTF-8 (first bad byte at offset {offset}); save it as UTF-8", path.display())]
    InvalidUtf8 {
        /// The file.
        path: PathBuf,
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// A FIFO, socket or device where a regular file was expected. It is
    /// refused without being opened, so it cannot block or flood the read.
    #[error("{}: is {kind}, not a regular file; not read (replace it with a regular file)", path.display())]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is, e.g. `a FIFO (named pipe)`.
        kind: &'static str,
    },
    /// A path whose real location (through symlinks, or `..`) lies outside
    /// the folder its kind of file must stay in.
    ///
    /// Where it leads is never shown: "outside" and "missing" read the same,
    /// so a note cannot tell a repository whether a file exists outside it.
    #[error("{}: resolves outside {root}{}; not read (make it a regular file inside {root})", path.display(), if target.is_empty() { String::new() } else { format!(" (through the symlink {target})") })]
    OutsideRoot {
        /// The path.
        path: PathBuf,
        /// The symlink inside the folder through which the path leaves it, as
        /// the folder names it (e.g. `.agent/shared`); empty when the path
        /// itself is outside.
        target: String,
        /// The folder it had to stay in.
        root: String,
    },
    /// A regular file with more than one name (a hard link), in a folder
    /// that refuses them: a hard link is a file inside the folder that is
    /// also a file outside it, which no symlink check can see.
    #[error("{}: has {names} names (a hard link; it may be a file outside {root}); not read (replace it with a copy, or a symlink inside {root})", path.display())]
    HardLink {
        /// The path.
        path: PathBuf,
        /// How many names the file has.
        names: u64,
        /// The folder it is in.
        root: String,
    },
    /// A symlink that leads nowhere: dangling, or a loop.
    #[error("{}: {reason}; not read", path.display())]
    BadSymlink {
        /// The link.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Reading failed (permissions, I/O); the I/O error is the
    /// [`source`](std::error::Error::source), not part of the message.
    #[error("{}: cannot read", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// A data file (JSON) that does not parse, or is too large to be one.
    #[error("{}: malformed: {reason}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What was expected, or what is wrong when no parser said.
        reason: String,
        /// The parser's own error (its line and column), when one said.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// A SKILL.md whose YAML frontmatter is missing or broken.
    #[error("{}: bad frontmatter: {message}", path.display())]
    Frontmatter {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line when known.
        message: String,
    },
    /// A template that does not parse or render.
    #[error("{}:{line}: template error: {message}", path.display())]
    Template {
        /// The template file.
        path: PathBuf,
        /// 1-based line of the error (0 when unknown).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// An include that would leave the shared folder.
    #[error("{}: include \"{include}\" is not allowed: {reason}", path.display())]
    IncludeRejected {
        /// The including template.
        path: PathBuf,
        /// The include as written.
        include: String,
        /// Why it is rejected.
        reason: String,
    },
    /// A template that went over one of its limits (fuel, output size, include
    /// depth); the built-in prompt is used instead.
    #[error("{}: template stopped: {limit} (simplify the template)", path.display())]
    TemplateLimit {
        /// The template file.
        path: PathBuf,
        /// Which limit, with its value.
        limit: String,
    },
    /// Templates that include each other.
    #[error("{}: include cycle: {}", path.display(), chain.join(" -> "))]
    IncludeCycle {
        /// The template where the cycle starts.
        path: PathBuf,
        /// The includes, in order, back to the start.
        chain: Vec<String>,
    },
}

/// `error` and each of its sources, joined by `: `: the whole story, for a
/// note or a message that prints one line. Each level's message leaves its
/// source out (the `std::error::Error` convention), so nothing repeats.
pub fn report(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(source) = next {
        text.push_str(": ");
        text.push_str(&source.to_string());
        next = source.source();
    }
    text
}

impl SourceError {
    /// The file the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            SourceError::NotFound { path }
            | SourceError::IsDirectory { path }
            | SourceError::InvalidUtf8 { path, .. }
            | SourceError::Unreadable { path, .. }
            | SourceError::Malformed { path, .. }
            | SourceError::Frontmatter { path, .. }
            | SourceError::Template { path, .. }
            | SourceError::IncludeRejected { path, .. }
            | SourceError::IncludeCycle { path, .. }
            | SourceError::NotRegular { path, .. }
            | SourceError::OutsideRoot { path, .. }
            | SourceError::BadSymlink { path, .. }
            | SourceError::HardLink { path, .. }
            | SourceError::TemplateLimit { path, .. } => path,
        }
    }

    /// Whether the error is just an absent file (an optional source that is not there).
    pub fn is_not_found(&self) -> bool {
        matches!(self, SourceError::NotFound { .. })
    }

    pub(crate) fn io(path: impl AsRef<std::path::Path>, error: io::Error) -> Self {
        let path = path.as_ref();
        match error.kind() {
            io::ErrorKind::NotFound => SourceError::NotFound {
                path: path.to_owned(),
            },
            io::ErrorKind::IsADirectory => SourceError::IsDirectory {
                path: path.to_owned(),
            },
            _ if error.raw_os_error() == Some(ELOOP) => SourceError::BadSymlink {
                path: path.to_owned(),
                reason: "a symlink loop".to_owned(),
            },
            _ => SourceError::Unreadable {
                path: path.to_owned(),
                source: error,
            },
        }
    }
}

#[cfg(unix)]
const ELOOP: i32 = libc::ELOOP;
#[cfg(not(unix))]
const ELOOP: i32 = -1;

#[cfg(test)]
mod tests {
    use super::*;

    /// A source is in the message or returned by `source()`, never both: a
    /// chain reporter prints the I/O error once.
    #[test]
    fn an_unreadable_file_s_io_error_is_its_source_not_its_message() {
        let error = SourceError::io("notes.md", io::Error::other("disk on fire"));
        assert_eq!(error.to_string(), "notes.md: cannot read");
        let source = std::error::Error::source(&error).expect("the I/O error");
        assert_eq!(source.to_string(), "disk on fire");
        assert_eq!(report(&error), "notes.md: cannot read: disk on fire");
    }

    #[test]
    fn a_malformed_file_keeps_the_parser_s_error_as_its_source() {
        let parsed = super::super::parsed::json::<u8>("[", super::super::parsed::Multiline::NONE)
            .unwrap_err();
        let error = SourceError::Malformed {
            path: "pad.json".into(),
            reason: "expected a number".into(),
            source: Some(Box::new(parsed)),
        };
        assert_eq!(error.to_string(), "pad.json: malformed: expected a number");
        let text = report(&error);
        assert_eq!(text.matches("line 1").count(), 1, "{text}");
    }
}
