//! The one matcher of a tag a text could forge: a quote's `<file>`, the
//! `<system-reminder>` block, however they are spelled.
//!
//! Every character after an angle is read as a reader takes it
//! ([`readings`]: compatibility forms folded, UTS #39 prototypes, small
//! capitals, case), one character at a time, so a match is found at the
//! characters that spell it: escaping rewrites the angle and leaves every
//! other byte as it was.

use std::borrow::Cow;

use smallvec::SmallVec;
use unicode_normalization::char::is_combining_mark;

use super::fold::{Reading, name_reading, readings, reads_as_angle};
use super::is_invisible;

/// How many characters after an angle [`starts_tag`] reads before it
/// decides that the angle starts a tag.
pub const TAG_LOOKAHEAD: usize = 256;

/// `<` and every character a reader may take for one: every code point whose
/// fold holds a `<` (its compatibility forms, `＜`, `﹤`; the characters
/// Unicode's confusables (UTS #39) give the prototype `<`, `‹`, `˂`, `ᐸ`,
/// `❮`, the Hiragana `く`; every character whose UCD name says it is drawn
/// as a `<`, `≤`, `≦`, `⩽`, `⋖`, `≺`, `◁`, `《`, `⟪`, `«`, `〈`, and those
/// UTS #39 ties to one; and `ᐊ`, which nothing in the data ties to one).
///
/// ```
/// use prompt_core::text::is_angle;
///
/// assert!(is_angle('<') && is_angle('\u{ff1c}') && is_angle('˂') && is_angle('ᐸ') && is_angle('‹'));
/// assert!(is_angle('≦') && is_angle('⋖') && is_angle('≺') && is_angle('◁') && is_angle('《') && is_angle('⟪'));
/// assert!(!is_angle('(') && !is_angle('>'));
/// ```
pub fn is_angle(c: char) -> bool {
    reads_as_angle(c)
}

/// Skipped anywhere inside a tag: what shows nothing (invisible characters,
/// controls but the newline) or draws on its neighbour (combining marks).
fn is_transparent(c: char) -> bool {
    is_invisible(c) || is_combining_mark(c) || (c.is_control() && c != '\n')
}

/// What may stand between the angle and the name: whitespace and slashes.
fn is_lead(reading: &[char]) -> bool {
    reading
        .iter()
        .all(|&c| c.is_whitespace() || c == '/' || c == '\\')
}

/// What a `-` of a name matches, any number of times or none: hyphens and
/// dashes, `_`, whitespace (`system_reminder`, `system reminder`,
/// `systemreminder` read as `system-reminder`).
fn is_joiner(c: char) -> bool {
    c == '-' || c == '_' || c == 'ー' || c.is_whitespace()
}

/// Whether `c`, right after a name, makes it part of a longer word
/// (`<files>`, `<file_path>`, `<file-x>`): then it is another tag.
fn continues(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// One piece of a name's reading: a character, or a `-` ([`is_joiner`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    Char(char),
    Joiner,
}

/// A tag's name as the matcher reads it.
pub(super) struct Name {
    units: Vec<Unit>,
}

/// The most units a name's reading may have (a state set is a `u64`).
const MAX_UNITS: usize = 63;

/// Where reading one character leaves a path through the name.
enum Step {
    /// At this unit (the name's length when the name is complete).
    At(usize),
    /// The name ended inside the reading, and what follows ends the tag.
    Tag,
    /// The reading does not continue the name.
    Off,
}

impl Name {
    /// `name`: ASCII letters, digits and `-`; its case does not matter.
    pub(super) fn new(name: &str) -> Self {
        let units = name_reading(name)
            .into_iter()
            .map(|c| {
                if c == '-' {
                    Unit::Joiner
                } else {
                    Unit::Char(c)
                }
            })
            .collect();
        Self { units }
    }

    fn end(&self) -> usize {
        self.units.len()
    }

    /// Reads `reading` from unit `at`.
    fn step(&self, mut at: usize, reading: &[char]) -> Step {
        for &c in reading {
            loop {
                match self.units.get(at) {
                    None if continues(c) => return Step::Off,
                    None => return Step::Tag,
                    Some(Unit::Joiner) if is_joiner(c) => break,
                    Some(Unit::Joiner) => at += 1,
                    Some(&Unit::Char(want)) if want == c => {
                        at += 1;
                        break;
                    }
                    Some(Unit::Char(_)) => return Step::Off,
                }
            }
        }
        Step::At(at)
    }

    /// Whether `rest`, what follows an angle, reads as this tag
    /// ([`starts_tag`]).
    pub(super) fn starts(&self, rest: &str) -> bool {
        if self.units.is_empty() || self.end() > MAX_UNITS {
            return true;
        }
        let mut chars = rest.chars();
        let mut seen = 0;
        // Whitespace, slashes and what shows nothing, before the name.
        let mut first = None;
        for c in chars.by_ref() {
            if seen == TAG_LOOKAHEAD {
                return true;
            }
            seen += 1;
            if is_transparent(c) {
                continue;
            }
            let read = readings(c);
            if read.iter().all(|r| is_lead(r)) {
                continue;
            }
            first = Some(read);
            break;
        }
        let Some(first) = first else {
            return false;
        };
        // Every path through the name at once: bit `i` is "at unit `i`",
        // bit `end` "the name is complete".
        let end = self.end();
        let mut paths: u64 = 1;
        let mut read: SmallVec<[Reading; 2]> = first;
        loop {
            let mut next = 0u64;
            for at in (0..=end).filter(|&at| paths & (1 << at) != 0) {
                for reading in &read {
                    match self.step(at, reading) {
                        Step::Tag => return true,
                        Step::At(to) => next |= 1 << to,
                        Step::Off => {}
                    }
                }
            }
            paths = next;
            if paths == 0 {
                return false;
            }
            // The next character that shows.
            read = loop {
                let Some(c) = chars.next() else {
                    return paths & (1 << end) != 0;
                };
                if seen == TAG_LOOKAHEAD {
                    return true;
                }
                seen += 1;
                if is_transparent(c) {
                    continue;
                }
                let read = readings(c);
                if read.iter().any(|r| !r.is_empty()) {
                    break read;
                }
            };
        }
    }
}

/// Whether `rest`, what follows an angle ([`is_angle`]), reads as a tag
/// named `name` (ASCII letters, digits and `-`), opening or closing: any
/// run of whitespace, slashes (`／`, `∕`, `⁄`, ...) and characters that
/// show nothing, then the name as a reader takes it, then no further letter,
/// digit, `_` or `-` (`<file_path>` and `<files>` are other tags).
///
/// Each character is read through its compatibility form (NFKC's folding:
/// `𝐟𝐢𝐥𝐞`, `𝚏𝚒𝚕𝚎`, full-width letters, `ᶠ`, the `ﬁ` ligature) and
/// Unicode's confusables (UTS #39: Cyrillic `е`, Greek `ι`, `ı`, `ſ`, dashes,
/// slashes), small capitals as their letter (`ꜰɪʟᴇ`), in any case; invisible
/// characters and combining marks inside it are skipped. A `-` of the name
/// matches any run of hyphens, dashes, `_` and whitespace, or none:
/// `system_reminder`, `system reminder` and `systemreminder` read as
/// `system-reminder`. Past [`TAG_LOOKAHEAD`] characters without a decision
/// the angle is taken as a tag (escaping one `<` too many is harmless;
/// missing one is not), and so is every angle for an empty name or one
/// whose reading is over 63 characters.
///
/// ```
/// use prompt_core::text::starts_tag;
///
/// assert!(starts_tag("/file>", "file"));
/// assert!(starts_tag(" / FILE >", "file"));
/// assert!(starts_tag("/fi\u{34f}le>", "file"));
/// assert!(starts_tag("/f\u{131}le>", "file")); // dotless i
/// assert!(starts_tag("\u{338}file>", "file"));
/// assert!(starts_tag("/\u{1d41f}\u{1d422}\u{1d425}\u{1d41e}>", "file")); // 𝐟𝐢𝐥𝐞
/// assert!(starts_tag("/\u{a730}\u{26a}\u{29f}\u{1d07}>", "file")); // ꜰɪʟᴇ
/// assert!(starts_tag("/SYSTEM-REMINDER >", "system-reminder"));
/// assert!(starts_tag("/system_reminder>", "system-reminder"));
/// assert!(!starts_tag("file_path>", "file") && !starts_tag("files>", "file"));
/// ```
pub fn starts_tag(rest: &str, name: &str) -> bool {
    Name::new(name).starts(rest)
}

/// `text` with the angle of every tag named `name` ([`starts_tag`]), opening
/// or closing, written `&lt;`: a quote or block delimited by that tag cannot
/// be ended or opened from inside, whatever lookalike, case, width or
/// invisible character spells it. Every other byte is left as it is.
///
/// ```
/// use prompt_core::text::escape_tags;
///
/// assert_eq!(escape_tags("a </FILE > b", "file"), "a &lt;/FILE > b");
/// assert_eq!(escape_tags("\u{ff1c}/file>", "file"), "&lt;/file>");
/// assert_eq!(escape_tags("</\u{1d41f}\u{1d422}\u{1d425}\u{1d41e}>", "file"), "&lt;/\u{1d41f}\u{1d422}\u{1d425}\u{1d41e}>");
/// assert_eq!(escape_tags("Vec<String> <files>", "file"), "Vec<String> <files>");
/// ```
pub fn escape_tags<'a>(text: &'a str, name: &str) -> Cow<'a, str> {
    escape_named_tags(text, &[name])
}

/// [`escape_tags`] for several names in one pass: the angle of every tag
/// named by one of `names` is written `&lt;`.
///
/// ```
/// use prompt_core::text::{REMINDER_TAG, escape_named_tags};
///
/// assert_eq!(
///     escape_named_tags("</file> </system_reminder> <p>", &["file", REMINDER_TAG]),
///     "&lt;/file> &lt;/system_reminder> <p>"
/// );
/// ```
pub fn escape_named_tags<'a>(text: &'a str, names: &[&str]) -> Cow<'a, str> {
    let names: SmallVec<[Name; 2]> = names.iter().map(|n| Name::new(n)).collect();
    let tag_at = |at: usize, c: char| {
        is_angle(c) && {
            let rest = &text[at + c.len_utf8()..];
            names.iter().any(|n| n.starts(rest))
        }
    };
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
