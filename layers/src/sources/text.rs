//! Text from files, made safe for a prompt and a terminal: BOM dropped, CRLF
//! normalised, control characters other than newline and tab removed.

use std::fmt::Write as _;

/// What [`clean`] removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cleaned {
    /// Control characters removed (other than `\n` and `\t`; a `\r` of a CRLF is not counted).
    pub controls: usize,
    /// The first one removed, and its byte offset in the input.
    pub first: Option<(char, usize)>,
}

impl Cleaned {
    /// A note naming `name`, when something was removed.
    pub fn note(&self, name: &str) -> Option<String> {
        let (c, at) = self.first?;
        Some(format!(
            "{name}: removed {} control character(s) (the first, {}, at byte {at})",
            self.controls,
            char_name(c)
        ))
    }
}

/// Drops a leading BOM, turns `\r\n` into `\n`, and removes every other
/// control character (C0, DEL, C1) except `\n` and `\t`.
pub fn clean(text: &str) -> (String, Cleaned) {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let offset = text.len() - body.len();
    let mut out = String::with_capacity(body.len());
    let mut cleaned = Cleaned::default();
    let mut chars = body.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c == '\r' && matches!(chars.peek(), Some((_, '\n'))) {
            continue;
        }
        if is_unwanted(c) {
            cleaned.controls += 1;
            cleaned.first.get_or_insert((c, at + offset));
            continue;
        }
        out.push(c);
    }
    (out, cleaned)
}

/// Control characters a prompt never needs: all but newline and tab.
pub(crate) fn is_unwanted(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `text` on one line: whitespace runs (newlines included) become one space,
/// control characters are removed, the ends are trimmed.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
        } else if !is_unwanted(c) {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out
}

/// `text` with every control character (newline and tab included) written as
/// an escape (`\u{1b}`), for one-line notes that reach a terminal.
pub fn visible(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            let _ = write!(out, "{}", c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

fn char_name(c: char) -> String {
    match c {
        '\u{1b}' => "ESC".to_owned(),
        '\0' => "NUL".to_owned(),
        '\r' => "CR".to_owned(),
        '\u{7f}' => "DEL".to_owned(),
        c => format!("U+{:04X}", c as u32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_drops_bom_crlf_and_controls() {
        let (text, cleaned) = clean("\u{feff}a\r\nb\x1b]52;c;x\x07\tz\r");
        assert_eq!(text, "a\nb]52;c;x\tz");
        assert_eq!(cleaned.controls, 3);
        assert_eq!(cleaned.first, Some(('\u{1b}', 7)));
        assert_eq!(
            cleaned.note("AGENTS.md").unwrap(),
            "AGENTS.md: removed 3 control character(s) (the first, ESC, at byte 7)"
        );
    }

    #[test]
    fn one_line_folds_newlines_and_controls() {
        assert_eq!(one_line(" main\n# Evil\x1b[2J  x "), "main # Evil[2J x");
    }

    #[test]
    fn visible_escapes_controls() {
        assert_eq!(visible("a\x1b[31mb\nc"), "a\\u{1b}[31mb\\nc");
        assert_eq!(visible("plain"), "plain");
    }
}
