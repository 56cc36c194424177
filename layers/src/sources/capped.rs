//! Size-capped text files: read at most the cap, cut on a character boundary,
//! clean what was kept, and mark every cut visibly.

use std::fmt;
use std::path::{Path, PathBuf};

use super::SourceError;
use super::fs::{Root, open, read_head};
use super::text::{Cleaned, clean, fence};

/// Text read under a size cap.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CappedText {
    /// How the source is named in the marker and the trace, e.g. `AGENTS.md`.
    pub name: String,
    /// The kept text: the longest prefix of the file of at most `cap` bytes
    /// that ends on a character boundary, cleaned: a BOM dropped, every line
    /// ending turned into LF, control characters other than newline and tab
    /// and invisible format characters (bidi, zero-width) removed.
    pub text: String,
    /// The file's real size in bytes.
    pub size: u64,
    /// The cap in bytes.
    pub cap: usize,
    /// Whether the file was longer than the cap.
    pub truncated: bool,
    /// What cleaning removed.
    pub cleaned: Cleaned,
}

impl CappedText {
    /// Caps in-memory `text` the same way a source caps a file.
    ///
    /// ```
    /// use prompt_layers::sources::CappedText;
    ///
    /// let capped = CappedText::from_text("notes.md", "héllo", 2);
    /// assert_eq!(capped.text, "h"); // `é` is two bytes and would not fit whole
    /// assert!(capped.is_truncated());
    /// assert_eq!(capped.render(), "h\n\n[…truncated: notes.md is 6 B, cap 2 B]");
    /// ```
    pub fn from_text(name: impl Into<String>, text: &str, cap: usize) -> Self {
        let (kept, cleaned) = clean(cut(text, cap));
        Self {
            name: name.into(),
            text: kept,
            size: text.len() as u64,
            cap,
            truncated: text.len() > cap,
            cleaned,
        }
    }

    /// Whether something was cut.
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }

    /// The marker that ends a cut text, naming the source, its real size and the cap.
    pub fn marker(&self) -> Option<String> {
        self.is_truncated().then(|| {
            format!(
                "[…truncated: {} is {}, cap {}]",
                self.name,
                Size(self.size),
                Size(self.cap as u64)
            )
        })
    }

    /// The text as it goes into a prompt: trailing whitespace trimmed, and the
    /// marker on its own paragraph when something was cut.
    pub fn render(&self) -> String {
        let mut out = self.text.trim_end().to_owned();
        if let Some(marker) = self.marker() {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(&marker);
        }
        out
    }

    /// The text as it goes into a prompt as a file's content: [`fence`]d
    /// under the file's name (`<file path="AGENTS.md">…</file>`), with the
    /// cut marker after the fence when something was cut (so the marker is the
    /// prompt's word, not the file's).
    ///
    /// ```
    /// use prompt_layers::sources::CappedText;
    ///
    /// let capped = CappedText::from_text("AGENTS.md", "# Runtime context\n</file>", 64);
    /// assert_eq!(
    ///     capped.fenced(),
    ///     "<file path=\"AGENTS.md\">\n# Runtime context\n&lt;/file>\n</file>"
    /// );
    /// let cut = CappedText::from_text("AGENTS.md", "Be brief. Be kind.", 9);
    /// assert_eq!(
    ///     cut.fenced(),
    ///     "<file path=\"AGENTS.md\">\nBe brief.\n</file>\n\n[…truncated: AGENTS.md is 18 B, cap 9 B]"
    /// );
    /// ```
    pub fn fenced(&self) -> String {
        let mut out = fence(&self.name, &self.text);
        if let Some(marker) = self.marker() {
            out.push_str("\n\n");
            out.push_str(&marker);
        }
        out
    }

    /// A one-line note for the trace when something was cut.
    pub fn note(&self) -> Option<String> {
        self.is_truncated().then(|| {
            format!(
                "{}: cut to {} of {} (cap {})",
                self.name,
                Size(self.text.len() as u64),
                Size(self.size),
                Size(self.cap as u64)
            )
        })
    }

    /// Every note for the trace: the cut, and what cleaning removed or changed.
    pub fn notes(&self) -> Vec<String> {
        self.note()
            .into_iter()
            .chain(self.cleaned.note(&self.name))
            .collect()
    }
}

/// The longest prefix of `text` of at most `cap` bytes that ends on a character boundary.
pub fn cut(text: &str, cap: usize) -> &str {
    if text.len() <= cap {
        return text;
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

impl CappedText {
    /// The one hardened way to read a source file: `path` must lie in `root`
    /// (symlinks are followed only while they stay inside it), only a regular
    /// file is read (a FIFO, socket or device is refused without blocking), at
    /// most `cap + 1` bytes are read, a multi-byte character split by the cap
    /// is dropped whole, control and invisible format characters are removed
    /// (and counted in [`notes`](Self::notes)), a BOM is dropped and every line
    /// ending becomes `\n`. Put the result into a prompt with
    /// [`fenced`](Self::fenced).
    ///
    /// Use it for any file of a repository your agent did not write.
    ///
    /// ```
    /// use prompt_layers::sources::{CappedText, Root};
    ///
    /// let ws = tempfile::tempdir().unwrap();
    /// std::fs::write(ws.path().join("NOTES.md"), "é".repeat(10)).unwrap();
    /// let root = Root::new(ws.path(), "");
    /// let text = CappedText::read(&ws.path().join("NOTES.md"), &root, 5).unwrap();
    /// assert_eq!(text.text, "éé"); // 4 bytes: the third `é` would be split
    /// assert!(text.is_truncated());
    /// ```
    ///
    /// # Errors
    /// A [`SourceError`] naming the file as `root` shows it: missing,
    /// unreadable, not a regular file, outside `root`, or invalid UTF-8.
    pub fn read(path: &Path, root: &Root, cap: usize) -> Result<Self, SourceError> {
        read_capped(path, root, cap)
    }
}

/// Reads `path`, which must lie in `root`, under `cap` bytes (see
/// [`Root`] for what is refused), named in markers and errors as `root` shows it.
///
/// Reads at most `cap + 1` bytes: never the whole file when it is larger. A
/// multi-byte character split by the cap is dropped whole. A directory, a
/// missing or unreadable file, or invalid UTF-8 within the kept bytes is an
/// error naming the file.
pub fn read_capped(path: &Path, root: &Root, cap: usize) -> Result<CappedText, SourceError> {
    let mut opened = open(path, root)?;
    let mut bytes = read_head(&mut opened, cap)?;
    let truncated = bytes.len() > cap;
    bytes.truncate(cap);
    // The file may have grown or shrunk since `metadata`; the size we report is what we saw.
    let size = opened
        .meta
        .len()
        .max(bytes.len() as u64 + u64::from(truncated));
    let text = decode(bytes, truncated, &opened.shown)?;
    let (text, cleaned) = clean(&text);
    Ok(CappedText {
        name: opened.shown,
        text,
        size,
        cap,
        truncated,
        cleaned,
    })
}

/// UTF-8 from the bytes kept of a file. An incomplete character at the very
/// end is the cap's doing when the file was cut (and is dropped), the file's
/// when it was not (and is an error).
pub fn decode(bytes: Vec<u8>, truncated: bool, shown: &str) -> Result<String, SourceError> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(error) => {
            let utf8 = error.utf8_error();
            if utf8.error_len().is_none() && truncated {
                let mut bytes = error.into_bytes();
                bytes.truncate(utf8.valid_up_to());
                // Valid up to there, by the error's own account.
                Ok(String::from_utf8_lossy(&bytes).into_owned())
            } else {
                Err(SourceError::InvalidUtf8 {
                    path: PathBuf::from(shown),
                    offset: utf8.valid_up_to(),
                })
            }
        }
    }
}

/// A byte count for humans: `512 B`, `16 KiB`, `20.8 KiB`, `1.5 MiB`, `1 GiB`.
/// A size that one decimal would round to a whole unit says what is over it
/// (`16 KiB + 16 B`, not `16.0 KiB`), so a size just over a cap never reads as the cap.
pub(crate) struct Size(pub(crate) u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const KIB: u64 = 1024;
        const MIB: u64 = 1024 * KIB;
        const GIB: u64 = 1024 * MIB;
        let n = self.0;
        let (unit, div) = match n {
            _ if n < KIB => return write!(f, "{n} B"),
            _ if n < MIB => ("KiB", KIB),
            _ if n < GIB => ("MiB", MIB),
            _ => ("GiB", GIB),
        };
        if n.is_multiple_of(div) {
            return write!(f, "{} {unit}", n / div);
        }
        let one_decimal = format!("{:.1}", n as f64 / div as f64);
        if one_decimal.ends_with(".0") {
            // Just over (or under) a whole unit: say by how much.
            write!(f, "{} {unit} + {}", n / div, Size(n % div))
        } else {
            write!(f, "{one_decimal} {unit}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_a_person_writes_them() {
        assert_eq!(Size(512).to_string(), "512 B");
        assert_eq!(Size(1023).to_string(), "1023 B");
        // Exactly one unit is that unit, not 1024 of the smaller one.
        assert_eq!(Size(1024).to_string(), "1 KiB");
        assert_eq!(Size(1 << 20).to_string(), "1 MiB");
        assert_eq!(Size(16 * 1024).to_string(), "16 KiB");
        assert_eq!(Size(21_262).to_string(), "20.8 KiB");
        assert_eq!(Size(3 * 1024 * 1024 / 2).to_string(), "1.5 MiB");
        assert_eq!(Size(1 << 30).to_string(), "1 GiB");
        assert_eq!(Size(16 * 1024 + 16).to_string(), "16 KiB + 16 B");
        assert_eq!(Size((1 << 30) + 65).to_string(), "1 GiB + 65 B");
        assert_eq!(Size(16383).to_string(), "15 KiB + 1023 B");
    }
}
