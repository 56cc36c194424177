//! Characters that change how text reads without showing, and tags a text
//! could forge: the one list the sources (which remove invisible characters
//! from file text) and every printer of file text (which escapes them)
//! share, and the one matcher every quote and reminder block escapes its
//! delimiters with ([`escape_tags`]: compatibility forms folded as NFKC
//! does, Unicode's confusables (UTS #39), the `<` shapes the UCD names,
//! small capitals, case, spacing and invisible characters). The secrets
//! guard reads the same fold.
//!
//! Line and paragraph separators ([`is_line_separator`]) end a line for a
//! reader but not for Markdown: text a quote holds takes each as `\n`, a
//! one-line value as a space, and a name (a path) shows it as an escape
//! (`\u{2028}`), as it shows a newline.

mod fold;
mod invisible;
mod shapes;
mod small_capitals;
mod tags;

pub use invisible::UNICODE_VERSION;
pub use tags::{TAG_LOOKAHEAD, escape_named_tags, escape_tags, is_angle, starts_tag};

/// The tag of the block that carries text outside the system slot
/// (`<system-reminder>`): Claude Code's own harness messages use it, so no
/// text from a file may open or close one, in any channel.
pub const REMINDER_TAG: &str = "system-reminder";

/// The line and paragraph separators, U+2028 and U+2029 (the characters of
/// categories Zl and Zp). A model reads each as a line break; Markdown and
/// JSON do not, so cleaning file text keeps them (a raw one is valid inside a
/// JSON string, where a newline is not) and every printer of file text
/// decides: a newline in quoted text, a space on one line, an escape in a
/// name.
///
/// ```
/// use prompt_core::text::is_line_separator;
///
/// assert!(is_line_separator('\u{2028}') && is_line_separator('\u{2029}'));
/// assert!(!is_line_separator('\n') && !is_line_separator(' '));
/// ```
pub fn is_line_separator(c: char) -> bool {
    matches!(c, '\u{2028}' | '\u{2029}')
}

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
/// JSON allows them raw inside a string; see [`is_line_separator`].
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

/// Characters no printer may write raw, to a terminal or into a file a
/// person opens: every control character (C0, DEL and the C1 set, whose
/// U+009B, U+009D and U+009C are a terminal's CSI, OSC and ST),
/// every [invisible](is_invisible) one (bidi overrides and isolates,
/// zero-width characters, tags) and the [line and paragraph
/// separators](is_line_separator). The one set every output escapes:
/// the CLI's text, JSON and HTML writers, and the cache diff's report.
///
/// ```
/// use prompt_core::text::must_escape;
///
/// for c in ['\u{1b}', '\u{7f}', '\u{9b}', '\u{9d}', '\u{202e}', '\u{2066}', '\u{2028}', '\u{200b}'] {
///     assert!(must_escape(c), "U+{:04X}", c as u32);
/// }
/// assert!(!must_escape('a') && !must_escape('\u{e9}') && !must_escape('\u{1f600}'));
/// ```
pub fn must_escape(c: char) -> bool {
    c.is_control() || is_invisible(c) || is_line_separator(c)
}

/// The fold of `c` where it is ASCII, in its case: its compatibility form,
/// each non-ASCII piece of it through its UTS #39 prototype, a `<` shape and
/// small capitals (Cyrillic `ѕ` is `s`, Greek `κ` is `k`, `‐` and `−` are
/// `-`, full-width `ｓ` is `s`, `ﬁ` is `fi`); `None` when any piece of it is
/// not ASCII (`é`, whose mark stays) or when `c` is ASCII itself. The tag
/// matcher and the secrets guard read this one fold.
///
/// ```
/// use prompt_core::text::ascii_fold;
///
/// assert_eq!(ascii_fold('ѕ').as_deref(), Some("s"));
/// assert_eq!(ascii_fold('\u{2212}').as_deref(), Some("-"));
/// assert_eq!(ascii_fold('s'), None);
/// ```
pub fn ascii_fold(c: char) -> Option<String> {
    fold::ascii_fold(c).map(|reading| reading.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

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

    /// Issue 38: what a hand list missed, read from the UCD data.
    #[test]
    fn compatibility_forms_confusables_and_small_capitals_are_read_as_letters() {
        for rest in [
            "/\u{1d41f}\u{1d422}\u{1d425}\u{1d41e}>", // 𝐟𝐢𝐥𝐞 (mathematical bold)
            "/\u{1d68f}\u{1d692}\u{1d695}\u{1d68e}>", // 𝚏𝚒𝚕𝚎 (mathematical monospace)
            "/\u{1d5f3}\u{1d5f6}\u{1d5f9}\u{1d5f2}>", // 𝗳𝗶𝗹𝗲 (sans-serif bold)
            "/\u{a730}\u{26a}\u{29f}\u{1d07}>",       // ꜰɪʟᴇ (small capitals)
            "\u{ff0f}\u{1da0}ile>",                   // ／ᶠile (modifier letter)
            "/\u{24d5}\u{24d8}\u{24db}\u{24d4}>",     // ⓕⓘⓛⓔ (circled)
            "/FIlE>",
            "/fi1e>",
        ] {
            assert!(starts_tag(rest, "file"), "{rest}");
        }
        for rest in [
            "/\u{1d42c}\u{1d432}\u{1d42c}\u{1d42d}\u{1d41e}\u{1d426}-\u{1d42b}\u{1d41e}\u{1d426}\u{1d422}\u{1d427}\u{1d41d}\u{1d41e}\u{1d42b}>",
            "/system_reminder>",
            "/system reminder>",
            "/systemreminder>",
            "/SYSTEM__REMINDER>",
            "/system\u{2014}reminder>",
            "/systern-reminder>",
            "/\u{a731}\u{28f}\u{a731}\u{1d1b}\u{1d07}\u{1d0d}-\u{280}\u{1d07}\u{1d0d}\u{26a}\u{274}\u{1d05}\u{1d07}\u{280}>",
        ] {
            assert!(starts_tag(rest, "system-reminder"), "{rest}");
        }
        for rest in [
            "/system>",
            "/system-reminders>",
            "/system_reminder_x>",
            "/system-remind>",
            "/sys-tem-reminder>",
        ] {
            assert!(!starts_tag(rest, "system-reminder"), "{rest}");
        }
        for rest in [
            "/fi\u{1d425}\u{1d42c}>",
            "/\u{1d41f}\u{1d422}\u{1d425}\u{1d41e}_path>",
        ] {
            assert!(!starts_tag(rest, "file"), "{rest}");
        }
    }

    #[test]
    fn escaping_rewrites_only_the_angle_of_a_match() {
        let text = "Vec<String> \u{ff1c}/\u{1d41f}ile> « quoted » <p> a<b\u{2028}c";
        assert_eq!(
            escape_named_tags(text, &["file", REMINDER_TAG]),
            "Vec<String> &lt;/\u{1d41f}ile> « quoted » <p> a<b\u{2028}c"
        );
        let plain = "# Build\n\nRun `cargo test`; see <https://example.com> and Vec<u8>.\n";
        assert!(matches!(
            escape_named_tags(plain, &["file", REMINDER_TAG]),
            Cow::Borrowed(_)
        ));
    }
}
