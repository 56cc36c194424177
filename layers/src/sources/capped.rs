//! Size-capped text files: read at most the cap, cut on a character boundary,
//! and mark every cut visibly.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::SourceError;

/// Text read under a size cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CappedText {
    /// How the source is named in the marker and the trace, e.g. `AGENTS.md`.
    pub name: String,
    /// The kept text: the whole file, or its longest prefix of at most `cap`
    /// bytes that ends on a character boundary.
    pub text: String,
    /// The file's real size in bytes.
    pub size: u64,
    /// The cap in bytes.
    pub cap: usize,
}

impl CappedText {
    /// Caps in-memory `text` the same way [`read_capped`] caps a file.
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
        Self {
            name: name.into(),
            text: cut(text, cap).to_owned(),
            size: text.len() as u64,
            cap,
        }
    }

    /// Whether something was cut.
    pub fn is_truncated(&self) -> bool {
        self.size > self.text.len() as u64
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
}

/// The longest prefix of `text` of at most `cap` bytes that ends on a character boundary.
///
/// ```
/// assert_eq!(prompt_layers::sources::cut("日本語", 7), "日本");
/// ```
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

/// Reads `path` under `cap` bytes, naming it `name` in markers and errors.
///
/// Reads at most `cap` bytes: never the whole file when it is larger. A
/// multi-byte character split by the cap is dropped whole. A directory, a
/// missing or unreadable file, or invalid UTF-8 within the kept bytes is an
/// error naming the path.
pub fn read_capped(
    path: &Path,
    name: impl Into<String>,
    cap: usize,
) -> Result<CappedText, SourceError> {
    let file = File::open(path).map_err(|e| SourceError::io(path, e))?;
    let meta = file.metadata().map_err(|e| SourceError::io(path, e))?;
    if meta.is_dir() {
        return Err(SourceError::IsDirectory {
            path: path.to_owned(),
        });
    }
    let mut bytes = Vec::with_capacity(cap.min(meta.len() as usize));
    file.take(cap as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| SourceError::io(path, e))?;
    // The file may have grown since `metadata`; the size we report is what we saw.
    let size = meta.len().max(bytes.len() as u64);
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            let utf8 = error.utf8_error();
            // An incomplete character at the very end of a cut is the cap's doing, not the file's.
            if utf8.error_len().is_none() && size > cap as u64 {
                let mut bytes = error.into_bytes();
                bytes.truncate(utf8.valid_up_to());
                String::from_utf8(bytes).map_err(|e| SourceError::InvalidUtf8 {
                    path: path.to_owned(),
                    offset: e.utf8_error().valid_up_to(),
                })?
            } else {
                return Err(SourceError::InvalidUtf8 {
                    path: path.to_owned(),
                    offset: utf8.valid_up_to(),
                });
            }
        }
    };
    Ok(CappedText {
        name: name.into(),
        text,
        size,
        cap,
    })
}

/// A byte count for humans: `512 B`, `16 KiB`, `20.8 KiB`, `1.5 MiB`.
struct Size(u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const KIB: u64 = 1024;
        const MIB: u64 = 1024 * 1024;
        let n = self.0;
        let (unit, div) = match n {
            _ if n < KIB => return write!(f, "{n} B"),
            _ if n < MIB => ("KiB", KIB),
            _ => ("MiB", MIB),
        };
        if n.is_multiple_of(div) {
            write!(f, "{} {unit}", n / div)
        } else {
            write!(f, "{:.1} {unit}", n as f64 / div as f64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_a_person_writes_them() {
        assert_eq!(Size(512).to_string(), "512 B");
        assert_eq!(Size(16 * 1024).to_string(), "16 KiB");
        assert_eq!(Size(21_262).to_string(), "20.8 KiB");
        assert_eq!(Size(3 * 1024 * 1024 / 2).to_string(), "1.5 MiB");
    }
}
