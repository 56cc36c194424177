//! One escape for everything `prompt` prints: text on a terminal, JSON on
//! stdout, an HTML page. Each writer calls this module, and this module asks
//! one predicate, [`must_escape`], which characters may never be written raw
//! (controls, C1's CSI, OSC and ST included; DEL; bidi controls; zero-width
//! and other invisible characters; the line and paragraph separators). A
//! writer that escaped on its own once let `--json` print C1 and bidi
//! controls raw, because `serde_json` escapes only C0.
//!
//! - text: [`text`] (and [`lines`], which keeps line breaks) writes each as
//!   a Rust-style escape (`\u{1b}`, `\u{202e}`, `\r`);
//! - JSON: [`json`] writes each as a `\uXXXX` escape inside the string
//!   (a surrogate pair above U+FFFF), so the document stays valid JSON and
//!   parses back to the same value;
//! - HTML: [`html`] writes `& < > " '` as entities and each as [`text`]
//!   does.

use std::io;

use prompt_core::text::must_escape;
use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

/// `text` with every character of [`must_escape`] written as an escape
/// (`\u{1b}`, `\u{202e}`, `\n`), so nothing printed about a file can drive
/// the terminal (OSC 52, title, clear) or hide what it says.
pub(crate) fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if must_escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` as [`text`](fn@text) writes it, but each line break kept: a
/// multi-line message prints as lines, never as a literal `\n`.
pub(crate) fn lines(text: &str) -> String {
    text.split('\n')
        .map(self::text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` safe inside HTML text and double-quoted attributes: `& < > " '`
/// as entities, every character of [`must_escape`] as [`text`](fn@text)
/// writes it.
pub(crate) fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if must_escape(c) => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// `value` as pretty JSON and a final newline, every character of
/// [`must_escape`] inside a string written as `\uXXXX`: what every
/// subcommand that prints JSON prints.
pub(crate) fn json<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    write(value, PrettyFormatter::new())
}

/// `value` as [`json`] writes it, on one line: what the per-turn hook
/// prints for Claude Code.
pub(crate) fn json_line<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    write(value, CompactFormatter)
}

fn write<T: Serialize + ?Sized>(
    value: &T,
    formatter: impl Formatter,
) -> Result<String, serde_json::Error> {
    let mut out = Vec::with_capacity(256);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, Escaping(formatter));
    value.serialize(&mut serializer)?;
    out.push(b'\n');
    // Both the formatter and the escapes write UTF-8 only.
    String::from_utf8(out).map_err(|e| serde_json::Error::io(io::Error::other(e)))
}

/// A JSON [`Formatter`] that writes strings as `F` does, except that every
/// character of [`must_escape`] `serde_json` would leave raw (DEL, C1, bidi
/// and invisible characters, U+2028/U+2029) is written as `\uXXXX`.
/// `serde_json` escapes `"`, `\` and C0 itself, before a fragment reaches
/// [`write_string_fragment`](Formatter::write_string_fragment).
struct Escaping<F>(F);

impl<F: Formatter> Formatter for Escaping<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if !must_escape(c) {
                continue;
            }
            self.0.write_string_fragment(writer, &fragment[start..at])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(writer, "\\u{unit:04x}")?;
            }
            start = at + c.len_utf8();
        }
        self.0.write_string_fragment(writer, &fragment[start..])
    }

    // The layout is `F`'s: every method that writes structure is handed on.
    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_array(writer)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object(writer)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(writer, first)
    }

    fn end_object_key<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_key(writer)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_value(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every class of character the set holds, and ordinary text around it.
    const HOSTILE: &str = "a\u{1b}[2J\u{9b}31m\u{9d}0;t\u{9c}\u{7f}\u{202e}\u{2066}\u{2028}\u{2029}\u{200b}\u{feff}\u{e0041}\t\"\\é😀z";

    fn raw(text: &str) -> Option<char> {
        text.chars().find(|&c| must_escape(c) && c != '\n')
    }

    #[test]
    fn json_escapes_the_whole_set_and_parses_back_to_the_same_value() {
        let value = serde_json::json!({
            "model": HOSTILE,
            HOSTILE: [HOSTILE, 1, null],
        });
        let printed = json(&value).unwrap();
        assert_eq!(raw(&printed), None, "{printed}");
        assert!(printed.contains(r#"\u009b31m\u009d0;t\u009c\u007f\u202e\u2066\u2028\u2029\u200b\ufeff\udb40\udc41\t\"\\é😀z"#), "{printed}");
        let back: serde_json::Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(back, value);
        let line = json_line(&value).unwrap();
        assert_eq!(raw(&line), None, "{line}");
        assert_eq!(line.lines().count(), 1);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&line).unwrap(),
            value
        );
        // Pretty, as every subcommand printed it before: only strings differ.
        let plain = serde_json::json!({"a": [1, {"b": "c"}]});
        assert_eq!(
            json(&plain).unwrap(),
            serde_json::to_string_pretty(&plain).unwrap() + "\n"
        );
    }

    #[test]
    fn text_and_html_escape_the_same_set() {
        for printed in [text(HOSTILE), html(HOSTILE), lines(HOSTILE)] {
            assert_eq!(raw(&printed), None, "{printed}");
            assert!(printed.contains(r"\u{9b}31m\u{9d}0;t\u{9c}\u{7f}\u{202e}\u{2066}\u{2028}"));
        }
        assert_eq!(lines("a\nb\u{85}"), "a\nb\\u{85}");
        assert_eq!(html("<&>"), "&lt;&amp;&gt;");
    }
}
