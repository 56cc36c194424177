//! Characters that change how text reads without showing, and tags a text
//! could forge: the one list the sources (which remove invisible characters
//! from file text) and every printer of file text (which escapes them)
//! share, and the one matcher every quote and reminder block escapes its
//! delimiters with.

mod invisible;

use std::borrow::Cow;

pub use invisible::UNICODE_VERSION;

/// Characters that show nothing: Unicode's `Default_Ignorable_Code_Point`
/// (which holds the variation selectors U+FE00-FE0F and U+E0100-E01EF, the
/// tag characters U+E0000-E0FFF, the Hangul fillers, U+034F, ...) and the
/// other format characters (category Cf) that show no glyph (the prepended
/// concatenation marks, which do, are not in it). They change how text is
/// shown (bidi overrides reorder it, zero-width characters hide inside
/// words) or carry hidden ASCII (tags, variation selectors) without being
/// seen, in a prompt or a terminal.
///
/// The table is generated from the Unicode Character Database
/// ([`UNICODE_VERSION`]) by `prompt-core/tools/generate_invisible.py`.
///
/// The line and paragraph separators (U+2028, U+2029) are not in the list:
/// JSON allows them raw inside a string. A printer that writes one line adds
/// them itself.
///
/// ```
/// use prompt_core::text::is_invisible;
///
/// assert!(is_invisible('\u{202e}')); // RIGHT-TO-LEFT OVERRIDE
/// assert!(is_invisible('\u{200b}')); // ZERO WIDTH SPACE
/// assert!(is_invisible('\u{34f}')); // COMBINING GRAPHEME JOINER
/// assert!(is_invisible('\u{e0041}')); // TAG LATIN CAPITAL LETTER A
/// assert!(is_invisible('\u{fe0f}') && is_invisible('\u{e0100}')); // variation selectors
/// assert!(!is_invisible('a') && !is_invisible('\n') && !is_invisible('\u{2028}'));
/// assert!(!is_invisible('\u{600}')); // ARABIC NUMBER SIGN: shows a glyph
/// ```
pub fn is_invisible(c: char) -> bool {
    if c < '\u{ad}' {
        return false;
    }
    invisible::INVISIBLE
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// `<` and the characters a reader may take for one: the full-width and
/// small forms, angle quotation marks and brackets, the modifier letter
/// `˂`, the Canadian syllabic `ᐸ`, ornamental brackets.
///
/// ```
/// use prompt_core::text::is_angle;
///
/// assert!(is_angle('<') && is_angle('\u{ff1c}') && is_angle('˂') && is_angle('ᐸ') && is_angle('‹'));
/// assert!(!is_angle('(') && !is_angle('>'));
/// ```
pub fn is_angle(c: char) -> bool {
    matches!(
        c,
        '<' | '\u{ff1c}' // ＜
            | '\u{fe64}' // ﹤
            | '\u{2039}' // ‹
            | '\u{00ab}' // «
            | '\u{2329}' // 〈
            | '\u{27e8}' // ⟨
            | '\u{3008}' // 〈
            | '\u{02c2}' // ˂
            | '\u{1438}' // ᐸ
            | '\u{276c}' // ❬
            | '\u{276e}' // ❮
            | '\u{2770}' // ❰
            | '\u{29fc}' // ⧼
            | '\u{2264}' // ≤ (a `<` with a stroke under it)
            | '\u{226e}' // ≮ (`<` + U+0338, composed)
    )
}

/// `/`, `\` and the characters a reader may take for one between `<` and a
/// tag name: full-width forms, the division, fraction and big solidi, the
/// combining overlays U+0337 and U+0338, the box-drawing diagonal, katakana `ノ`.
fn is_slash(c: char) -> bool {
    matches!(
        c,
        '/' | '\\'
            | '\u{ff0f}' // ／
            | '\u{ff3c}' // ＼
            | '\u{2215}' // ∕
            | '\u{2044}' // ⁄
            | '\u{29f8}' // ⧸
            | '\u{29f9}' // ⧹
            | '\u{2571}' // ╱
            | '\u{27cb}' // ⟋
            | '\u{30ce}' // ノ
            | '\u{0337}'
            | '\u{0338}'
    )
}

/// Marks that draw on the character before them (combining diacritics): a
/// reader sees through them to the letter underneath.
fn is_combining(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036f}'
        | '\u{1ab0}'..='\u{1aff}'
        | '\u{1dc0}'..='\u{1dff}'
        | '\u{20d0}'..='\u{20ff}'
        | '\u{fe20}'..='\u{fe2f}')
}

/// Skipped anywhere inside a tag: what shows nothing or draws on its neighbour.
fn is_transparent(c: char) -> bool {
    is_invisible(c) || is_combining(c) || (c.is_control() && c != '\n')
}

/// `c` as the ASCII a reader takes it for (lowercase), for the letters,
/// digits and `-` of a tag name: full-width forms, Cyrillic and Greek
/// homoglyphs, the dotless `ı`, the long `ſ`, dashes. Anything else is
/// itself, lowercased.
fn fold(c: char) -> char {
    let c = match c {
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
        _ => c,
    };
    match c {
        'ı' | 'і' | 'І' | 'ɩ' | 'ι' | 'Ι' | 'ӏ' | 'Ӏ' | 'ⅰ' | 'Ⅰ' => 'i',
        'ſ' | 'ƒ' | 'ꞙ' => 'f',
        'ǀ' | 'ⅼ' | 'Ⅼ' | 'ℓ' | '|' => 'l',
        'е' | 'Е' | 'ε' | 'Ε' | 'ҽ' | '℮' => 'e',
        'а' | 'А' | 'α' | 'Α' => 'a',
        'с' | 'С' | 'ϲ' | 'Ϲ' => 'c',
        'о' | 'О' | 'ο' | 'Ο' | 'σ' => 'o',
        'р' | 'Р' | 'ρ' | 'Ρ' => 'p',
        'ѕ' | 'Ѕ' => 's',
        'у' | 'У' | 'γ' | 'Υ' => 'y',
        'т' | 'Т' | 'τ' | 'Τ' => 't',
        'м' | 'М' | 'Μ' => 'm',
        'г' | 'Г' => 'r',
        'п' | 'η' | 'Ν' => 'n',
        'ԁ' => 'd',
        'к' | 'К' | 'κ' | 'Κ' => 'k',
        'х' | 'Х' | 'χ' | 'Χ' => 'x',
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{fe63}' | '\u{2043}' => '-',
        c => c.to_ascii_lowercase(),
    }
}

/// Whether `rest`, what follows an angle ([`is_angle`]), reads as a tag
/// named `name` (ASCII, lowercase), opening or closing: any run of
/// whitespace, slashes (`／`, `∕`, `⁄`, U+0338 and other lookalikes) and characters that
/// show nothing, then the name in any case, width or homoglyph, with
/// invisible and combining characters inside it ignored, and then no further
/// letter, digit, `_` or `-` (`<file_path>` and `<files>` are other tags).
/// The ligatures `ﬁ` and `ﬂ` read as `fi` and `fl`.
///
/// ```
/// use prompt_core::text::starts_tag;
///
/// assert!(starts_tag("/file>", "file"));
/// assert!(starts_tag(" / FILE >", "file"));
/// assert!(starts_tag("/fi\u{34f}le>", "file"));
/// assert!(starts_tag("/f\u{131}le>", "file")); // dotless i
/// assert!(starts_tag("\u{338}file>", "file"));
/// assert!(starts_tag("/SYSTEM-REMINDER >", "system-reminder"));
/// assert!(!starts_tag("file_path>", "file") && !starts_tag("files>", "file"));
/// ```
pub fn starts_tag(rest: &str, name: &str) -> bool {
    // Bounded, so a text of many angles before one long run of spaces or
    // marks costs linear time: past [`TAG_LOOKAHEAD`] characters without a
    // decision, the angle is taken as a tag (escaping one too many `<` is
    // harmless; missing one is not).
    let mut chars = rest.chars().take(TAG_LOOKAHEAD + 1).enumerate();
    let mut pending = None;
    for (seen, c) in chars.by_ref() {
        if seen == TAG_LOOKAHEAD {
            return true;
        }
        if !(c.is_whitespace() || is_slash(c) || is_transparent(c)) {
            pending = Some(c);
            break;
        }
    }
    let Some(first) = pending else {
        return false;
    };
    let mut exhausted = false;
    let mut letters = std::iter::once(first)
        .chain(chars.by_ref().map(|(seen, c)| {
            if seen == TAG_LOOKAHEAD {
                exhausted = true;
            }
            c
        }))
        .filter(|&c| !is_transparent(c))
        .flat_map(|c| match c {
            '\u{fb01}' => ['f', 'i'].into_iter().take(2),
            '\u{fb02}' => ['f', 'l'].into_iter().take(2),
            c => [fold(c), ' '].into_iter().take(1),
        });
    let named = name.chars().all(|want| letters.next() == Some(want));
    let after = letters.next();
    drop(letters);
    if exhausted {
        return true;
    }
    named && !after.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

/// How many characters after an angle [`starts_tag`] reads before it
/// decides that the angle starts a tag.
pub const TAG_LOOKAHEAD: usize = 256;

/// `text` with the angle of every tag named `name` ([`starts_tag`]), opening
/// or closing, written `&lt;`: a quote or block delimited by that tag cannot
/// be ended or opened from inside, whatever lookalike, case, width or
/// invisible character spells it.
///
/// ```
/// use prompt_core::text::escape_tags;
///
/// assert_eq!(escape_tags("a </FILE > b", "file"), "a &lt;/FILE > b");
/// assert_eq!(escape_tags("\u{ff1c}/file>", "file"), "&lt;/file>");
/// assert_eq!(escape_tags("Vec<String> <files>", "file"), "Vec<String> <files>");
/// ```
pub fn escape_tags<'a>(text: &'a str, name: &str) -> Cow<'a, str> {
    let tag_at = |at: usize, c: char| is_angle(c) && starts_tag(&text[at + c.len_utf8()..], name);
    let mut tags = text.char_indices().filter(|&(at, c)| tag_at(at, c));
    let Some(first) = tags.next() else {
        return Cow::Borrowed(text);
    };
    // Each angle is looked at once: the text before a tag is copied whole.
    let mut out = String::with_capacity(text.len() + 8);
    let mut copied = 0;
    for (at, c) in std::iter::once(first).chain(tags) {
        out.push_str(&text[copied..at]);
        out.push_str("&lt;");
        copied = at + c.len_utf8();
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_disjoint() {
        for pair in invisible::INVISIBLE.windows(2) {
            assert!(pair[0].0 <= pair[0].1 && pair[0].1 < pair[1].0, "{pair:?}");
        }
    }

    #[test]
    fn every_invisible_character_the_attacks_used_is_in_the_set() {
        for c in [
            '\u{34f}',
            '\u{115f}',
            '\u{1160}',
            '\u{3164}',
            '\u{ffa0}',
            '\u{17b4}',
            '\u{180b}',
            '\u{180f}',
            '\u{fe00}',
            '\u{fe0f}',
            '\u{e0100}',
            '\u{e01ef}',
            '\u{e0001}',
            '\u{e0020}',
            '\u{e007f}',
            '\u{ad}',
            '\u{61c}',
            '\u{2064}',
            '\u{fff9}',
        ] {
            assert!(is_invisible(c), "U+{:04X}", c as u32);
        }
        for c in ['\u{600}', '\u{2028}', ' ', 'x', '\u{1f600}', '\u{e1000}'] {
            assert!(!is_invisible(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn lookalike_tags_are_found_and_other_text_is_not() {
        for (rest, angle) in [
            ("/file>", '<'),
            ("\u{338}/file>", '<'),
            ("/file>", '˂'),
            ("/file>", 'ᐸ'),
            ("/f\u{131}le>", '‹'),
            ("/file>", '\u{ff1c}'),
            ("\u{ff0f}\u{ff46}\u{ff49}\u{ff4c}\u{ff45}>", '<'),
            ("/fi\u{34f}le>", '<'),
            ("/fi\u{fe0f}le>", '<'),
            ("/\u{fb01}le>", '<'),
            ("/fil\u{435}>", '<'),
            ("\u{2215}file>", '<'),
        ] {
            assert!(is_angle(angle) && starts_tag(rest, "file"), "{angle}{rest}");
        }
        // Past the lookahead the angle is taken as a tag (fail closed), so
        // many angles before one long run cost linear time.
        assert!(starts_tag(&format!("{}/file>", " ".repeat(300)), "file"));
        assert!(starts_tag(
            &format!("/fi{}le>", "\u{301}".repeat(300)),
            "file"
        ));
        assert!(!starts_tag(&format!("{}x", " ".repeat(200)), "file"));
        for rest in [
            "file_path>",
            "files>",
            "file-x>",
            "profile>",
            "fi le>",
            "String>",
        ] {
            assert!(!starts_tag(rest, "file"), "{rest}");
        }
        for rest in [
            "/system-reminder>",
            "/SYSTEM-REMINDER >",
            " / System-Reminder>",
            "/\u{ff53}ystem-reminder>",
            "/system\u{2010}reminder>",
        ] {
            assert!(starts_tag(rest, "system-reminder"), "{rest}");
        }
    }
}
