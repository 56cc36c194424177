//! The text as a model reads it at once: escapes decoded in one pass, each
//! decoded stretch mapped back to the bytes it came from, so a secret found
//! in the decoded view is reported (and redacted) at its raw range.
//!
//! Decoded, each where it stands:
//!
//! - JSON's `\uXXXX` (surrogate pairs joined), the `\xHH` of Python, C and
//!   JavaScript strings, the `\u{H...}` of Rust, JavaScript and Swift (one
//!   to six hex digits), and a backslash before ASCII punctuation (JSON's
//!   `\"` and `\/`, Markdown's `\_`, `\-`, `\*`, ...);
//! - HTML character references: `&#115;`, `&#x73;`, and the named ones for
//!   ASCII punctuation (`&amp;`, `&lowbar;`, `&hyphen;`, ...);
//! - URL percent-encoding of printable ASCII, and of one UTF-8 character;
//! - a character whose fold (NFKC and UTS #39's confusables, the tag
//!   matcher's) is ASCII no longer than it, as full-width `ｓｋ－ａｎｔ－` is
//!   `sk-ant-`, `ﬁ` is `fi`, Cyrillic `ѕ` is `s` and `‐` is `-`.
//!
//! Each decoded stretch is no longer than its raw bytes, so the view is at
//! most as long as the text. What one pass leaves (an escape of an escape)
//! stays as it is; base64, hex, reversed text, rot13 and spaced-out groups
//! are not decoded (a shape guard does not undo transformations).

use std::ops::Range;

/// The decoded view of a text, and where each of its decoded stretches
/// came from.
#[derive(Debug)]
pub(super) struct Decoded {
    pub(super) text: String,
    /// Each decoded stretch: its range in `text`, and in the raw text. The
    /// bytes between two stretches are copied as they are.
    spans: Vec<(Range<usize>, Range<usize>)>,
}

impl Decoded {
    /// The raw range that `range` (in the decoded view) came from: a
    /// decoded stretch it touches counts whole.
    pub(super) fn raw_range(&self, range: Range<usize>) -> Range<usize> {
        let start = self.raw_start(range.start);
        let end = self.raw_end(range.end).max(start);
        start..end
    }

    fn raw_start(&self, at: usize) -> usize {
        let i = self.spans.partition_point(|(d, _)| d.start <= at);
        match i.checked_sub(1).map(|i| &self.spans[i]) {
            Some((d, r)) if at < d.end => r.start,
            Some((d, r)) => r.end + (at - d.end),
            None => at,
        }
    }

    fn raw_end(&self, at: usize) -> usize {
        let i = self.spans.partition_point(|(d, _)| d.start < at);
        match i.checked_sub(1).map(|i| &self.spans[i]) {
            Some((d, r)) if at <= d.end => r.end,
            Some((d, r)) => r.end + (at - d.end),
            None => at,
        }
    }
}

/// The decoded view of `text`, or `None` when nothing in it is decoded.
pub(super) fn decode(text: &str) -> Option<Decoded> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut spans = Vec::new();
    // The raw bytes before `copied` are in `out`.
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        let found = match bytes[at] {
            b'\\' => backslash(text, at),
            b'&' => reference(text, at),
            b'%' => percent(text, at),
            b if b >= 0x80 => compatible(text, at),
            _ => None,
        };
        match found {
            Some((decoded, end)) => {
                out.push_str(&text[copied..at]);
                let start = out.len();
                out.push_str(&decoded);
                spans.push((start..out.len(), at..end));
                copied = end;
                at = end;
            }
            // A character not decoded is stepped over whole.
            None => at += text[at..].chars().next().map_or(1, char::len_utf8),
        }
    }
    if spans.is_empty() {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(Decoded { text: out, spans })
}

/// `\uXXXX` (a surrogate pair as one character), `\xHH`, `\u{H...}` or
/// `\` before ASCII punctuation, at `at`: what it decodes to and where it
/// ends. Each is longer than the UTF-8 of what it decodes to.
fn backslash(text: &str, at: usize) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let next = *bytes.get(at + 1)?;
    if next == b'x' {
        let digits = std::str::from_utf8(bytes.get(at + 2..at + 4)?).ok()?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let c = char::from_u32(u32::from_str_radix(digits, 16).ok()?)?;
        return Some((c.to_string(), at + 4));
    }
    if next == b'u' && bytes.get(at + 2) == Some(&b'{') {
        let digits = &bytes[at + 3..];
        let close = digits.iter().take(7).position(|&b| b == b'}')?;
        let digits = std::str::from_utf8(&digits[..close]).ok()?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let c = char::from_u32(u32::from_str_radix(digits, 16).ok()?)?;
        return Some((c.to_string(), at + 3 + close + 1));
    }
    if next == b'u' {
        let high = hex4(bytes, at + 2)?;
        if (0xD800..0xDC00).contains(&high) {
            if bytes.get(at + 6..at + 8) != Some(b"\\u") {
                return None;
            }
            let low = hex4(bytes, at + 8)?;
            if !(0xDC00..0xE000).contains(&low) {
                return None;
            }
            let c = char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?;
            return Some((c.to_string(), at + 12));
        }
        let c = char::from_u32(high)?;
        return Some((c.to_string(), at + 6));
    }
    next.is_ascii_punctuation()
        .then(|| ((next as char).to_string(), at + 2))
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

/// The named references decoded: the ones for ASCII characters.
const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("sol", '/'),
    ("bsol", '\\'),
    ("colon", ':'),
    ("semi", ';'),
    ("period", '.'),
    ("comma", ','),
    ("lowbar", '_'),
    ("UnderBar", '_'),
    ("hyphen", '-'),
    ("dash", '-'),
    ("equals", '='),
    ("plus", '+'),
    ("num", '#'),
    ("percnt", '%'),
    ("excl", '!'),
    ("quest", '?'),
    ("commat", '@'),
    ("dollar", '$'),
    ("ast", '*'),
    ("midast", '*'),
    ("lpar", '('),
    ("rpar", ')'),
    ("lsqb", '['),
    ("lbrack", '['),
    ("rsqb", ']'),
    ("rbrack", ']'),
    ("lcub", '{'),
    ("lbrace", '{'),
    ("rcub", '}'),
    ("rbrace", '}'),
    ("verbar", '|'),
    ("vert", '|'),
    ("grave", '`'),
    ("Hat", '^'),
    ("Tab", '\t'),
    ("nbsp", ' '),
];

/// `&#NNN;`, `&#xHH;` or `&name;` at `at`.
fn reference(text: &str, at: usize) -> Option<(String, usize)> {
    let rest = &text.as_bytes()[at + 1..];
    let end = rest[..rest.len().min(34)].iter().position(|&b| b == b';')?;
    if !rest[..end]
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || b == b'#')
    {
        return None;
    }
    let body = &text[at + 1..at + 1 + end];
    let c = if let Some(number) = body.strip_prefix('#') {
        let value = match number.strip_prefix(['x', 'X']) {
            Some(hex) if (1..=6).contains(&hex.len()) => u32::from_str_radix(hex, 16).ok()?,
            Some(_) => return None,
            None if (1..=7).contains(&number.len()) => number.parse().ok()?,
            None => return None,
        };
        char::from_u32(value)?
    } else {
        NAMED.iter().find(|(name, _)| *name == body)?.1
    };
    Some((c.to_string(), at + 1 + end + 1))
}

/// `%HH` of printable ASCII, or the `%HH` bytes of one UTF-8 character.
fn percent(text: &str, at: usize) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let byte = |i: usize| -> Option<u8> {
        let digits = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
        if bytes[i] != b'%' || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u8::from_str_radix(digits, 16).ok()
    };
    let first = byte(at)?;
    if first.is_ascii() {
        return (0x20..0x7f)
            .contains(&first)
            .then(|| ((first as char).to_string(), at + 3));
    }
    let width = match first {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let mut encoded = vec![first];
    for k in 1..width {
        encoded.push(byte(at + 3 * k)?);
    }
    let c = std::str::from_utf8(&encoded).ok()?.chars().next()?;
    // A character that is ASCII in compatibility form decodes to that.
    let c = compatible_char(c).unwrap_or_else(|| c.to_string());
    Some((c, at + 3 * width))
}

/// The character at `at` in its compatibility form, when that form is ASCII
/// and no longer in bytes.
fn compatible(text: &str, at: usize) -> Option<(String, usize)> {
    let c = text[at..].chars().next()?;
    compatible_char(c).map(|ascii| (ascii, at + c.len_utf8()))
}

/// `c` as the tag matcher folds it, where that is ASCII no longer than `c`
/// ([`crate::text::ascii_fold`]: NFKC, UTS #39's confusables).
fn compatible_char(c: char) -> Option<String> {
    let ascii: String = crate::text::ascii_fold(c)?;
    (ascii.len() <= c.len_utf8()).then_some(ascii)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(text: &str) -> String {
        decode(text).map_or_else(|| text.to_owned(), |d| d.text)
    }

    #[test]
    fn each_cheap_encoding_is_decoded_where_it_stands() {
        assert_eq!(view(r"\u0073k-ant-x"), "sk-ant-x");
        assert_eq!(view(r"\ud83d\ude00!"), "\u{1f600}!");
        assert_eq!(view(r"\x73\x6B-\xe9 \xZZ \x7"), "sk-\u{e9} \\xZZ \\x7");
        assert_eq!(
            view(r"\u{73}\u{006b}\u{1F600} \u{} \u{110000} \u{1234567} \u{12"),
            "sk\u{1f600} \\u{} \\u{110000} \\u{1234567} \\u{12"
        );
        assert_eq!(view(r"ghp\_abc \-x \\ \n"), r"ghp_abc -x \ \n");
        assert_eq!(
            view("&#115;k&#x2d;a &lowbar; &amp;&bogus; &#xZZ;"),
            "sk-a _ &&bogus; &#xZZ;"
        );
        assert_eq!(view("sig=a%2Bb%3D %zz %00 %EF%BC%B3"), "sig=a+b= %zz %00 S");
        assert_eq!(
            view("\u{ff53}\u{ff4b}\u{ff0d}ant \u{fb01}le caf\u{e9}"),
            "sk-ant file caf\u{e9}"
        );
        assert!(decode("plain text, café").is_none());
    }

    #[test]
    fn decoded_ranges_map_back_to_the_raw_bytes() {
        let raw = r"key \u0073k-ant-&#x41;BC end";
        let decoded = decode(raw).unwrap();
        assert_eq!(decoded.text, "key sk-ant-ABC end");
        let start = decoded.text.find("sk").unwrap();
        let range = decoded.raw_range(start..start + "sk-ant-ABC".len());
        assert_eq!(&raw[range], r"\u0073k-ant-&#x41;BC");
        // A range starting or ending inside a stretch takes it whole.
        let inside = decoded.raw_range(start + 1..start + 2);
        assert_eq!(&raw[inside], "k");
        let full_width = "a \u{ff53}\u{ff4b} b";
        let decoded = decode(full_width).unwrap();
        assert_eq!(&full_width[decoded.raw_range(2..4)], "\u{ff53}\u{ff4b}");
    }

    #[test]
    fn the_view_is_never_longer_than_the_text() {
        for text in [
            "\u{fdfa}\u{fdfa}",
            "&amp;&#1114111;&#x10FFFF;",
            r"\u00e9\u0041",
            r"\xff\x41\u{10FFFF}\u{0}\u{7ff}",
            "%C3%A9%41",
            "\u{3000}\u{ff01}\u{2460}",
        ] {
            let view = view(text);
            assert!(view.len() <= text.len(), "{text:?} -> {view:?}");
        }
    }
}
