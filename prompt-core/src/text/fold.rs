//! How a reader takes one character inside a tag: its compatibility form
//! (NFKD, marks dropped), the prototype Unicode's confusables give it
//! (UTS #39), a small capital read as its letter, in lowercase.
//!
//! Each character is read on its own, so a match found over the readings
//! is at the characters it was found at: the byte offset of the angle in the
//! original text is the offset the escaping rewrites.

use smallvec::SmallVec;
use unicode_normalization::char::{decompose_compatible, is_combining_mark};

use super::small_capitals::SMALL_CAPITALS;

/// What one character reads as: usually one character, none for a mark or
/// an invisible character, several for a ligature (`ﬁ`) or a prototype of
/// several (`m` is `rn` in UTS #39).
pub(super) type Reading = SmallVec<[char; 4]>;

/// Prototypes UTS #39 leaves as characters of their own that a reader
/// still takes for a Latin letter or for `<` between tags: what the
/// confusables data does not cover, kept by hand. Each is a prototype (the
/// right side of `confusables.txt`), so the characters UTS #39 ties to it
/// read the same: `❬` stands for `〈`, `⟨` and `〈` as well.
const BEYOND_UTS39: &[(char, char)] = &[
    ('«', '<'),
    ('ĸ', 'k'), // the prototype of Cyrillic `к` and Greek `κ`
    ('ʍ', 'm'), // of Cyrillic `м` and the small capital `ᴍ`
    ('π', 'n'), // of Cyrillic `п`
    ('ς', 'c'), // of Greek `ϲ`
    ('≤', '<'),
    ('❬', '<'), // of `〈`, `⟨`, `〈`
    ('❰', '<'),
    ('⧼', '<'),
    ('ꞓ', 'e'), // of Greek `ε`
];

/// The ASCII characters UTS #39 gives another prototype (`m` is `rn`, `I`,
/// `1` and `|` are `l`, `0` is `O`, ...); every other ASCII character is its
/// own, and is read without a look-up.
const ASCII_WITH_PROTOTYPES: &[char] = &['"', '%', '0', '1', 'I', '`', 'm', '|'];

fn letter_of(c: char) -> char {
    let table = |t: &[(char, char)]| {
        t.binary_search_by_key(&c, |&(from, _)| from)
            .ok()
            .map(|i| t[i].1)
    };
    table(SMALL_CAPITALS)
        .or_else(|| table(BEYOND_UTS39))
        .unwrap_or(c)
}

/// `S`: the prototype of `c` (UTS #39 skeleton, marks dropped), small
/// capitals and [`BEYOND_UTS39`] read as their letter, lowercased.
fn prototype(c: char, out: &mut Reading) {
    if c.is_ascii() && !ASCII_WITH_PROTOTYPES.contains(&c) {
        out.push(c.to_ascii_lowercase());
        return;
    }
    let mut buf = [0; 4];
    for p in unicode_security::skeleton(c.encode_utf8(&mut buf)) {
        if is_combining_mark(p) {
            continue;
        }
        match letter_of(p) {
            // A letter of the tables is ASCII: read as ASCII is (`m` is `rn`).
            letter if letter != p => prototype(letter, out),
            _ => out.extend(p.to_lowercase()),
        }
    }
}

/// The compatibility decomposition of `c` without its marks (`𝐟` is `f`,
/// `ﬁ` is `fi`, `＜` is `<`, `≮` is `<`).
fn compatible(c: char, mut each: impl FnMut(char)) {
    if c.is_ascii() {
        return each(c);
    }
    decompose_compatible(c, |d| {
        if !is_combining_mark(d) {
            each(d);
        }
    });
}

/// The readings of `c`: its prototype after lowercasing (`I` is `i`, `Ι` is
/// `ι`, then `i`), and the prototype of its prototype (`М` is `M`, then `m`,
/// then `rn`, where the lowercase `м` has a prototype of its own). One
/// reading when both agree.
pub(super) fn readings(c: char) -> SmallVec<[Reading; 2]> {
    let lower = c.to_ascii_lowercase();
    if c.is_ascii()
        && !ASCII_WITH_PROTOTYPES.contains(&c)
        && !ASCII_WITH_PROTOTYPES.contains(&lower)
    {
        let mut one = Reading::new();
        one.push(lower);
        let mut out = SmallVec::new();
        out.push(one);
        return out;
    }
    let mut lower_first = Reading::new();
    let mut twice = Reading::new();
    compatible(c, |d| {
        for l in d.to_lowercase() {
            prototype(l, &mut lower_first);
        }
        let mut once = Reading::new();
        prototype(d, &mut once);
        for p in once {
            prototype(p, &mut twice);
        }
    });
    let mut out = SmallVec::new();
    let same = lower_first == twice;
    out.push(lower_first);
    if !same {
        out.push(twice);
    }
    out
}

/// The one reading of a tag's name (lowercase ASCII), as [`readings`]
/// reads the same letters in a text.
pub(super) fn name_reading(name: &str) -> Vec<char> {
    let mut out = Reading::new();
    for c in name.chars() {
        prototype(c.to_ascii_lowercase(), &mut out);
    }
    out.into_vec()
}

/// Whether `c` reads as `<` ([`ANGLES`]).
pub(super) fn reads_as_angle(c: char) -> bool {
    if c.is_ascii() {
        return c == '<';
    }
    ANGLES.binary_search(&c).is_ok()
}

/// Every character but `<` that reads as `<`: its compatibility form's
/// prototype ends with one (`＜`, `﹤`, `‹`, `˂`, `ᐸ`, `❮`, `≮`, `≪`, the
/// Hiragana `く`; and [`BEYOND_UTS39`]). It is what [`by_the_data`] says of
/// every code point, kept as a table so that finding the angles of a text
/// costs a look-up per character; a test holds the two to each other, so a
/// new release of the data shows here as a failing test, not as a silent
/// change of what is escaped.
const ANGLES: &[char] = &[
    '\u{00ab}',  // «
    '\u{02c2}',  // ˂
    '\u{1438}',  // ᐸ
    '\u{1444}',  // ᑄ
    '\u{150c}',  // ᔌ
    '\u{16b2}',  // ᚲ
    '\u{2039}',  // ‹
    '\u{2264}',  // ≤
    '\u{226a}',  // ≪
    '\u{226e}',  // ≮
    '\u{2270}',  // ≰
    '\u{22d8}',  // ⋘
    '\u{2329}',  // 〈
    '\u{276c}',  // ❬
    '\u{276e}',  // ❮
    '\u{2770}',  // ❰
    '\u{27e8}',  // ⟨
    '\u{29fc}',  // ⧼
    '\u{2aa5}',  // ⪥
    '\u{2d66}',  // ⵦ
    '\u{3008}',  // 〈
    '\u{304f}',  // く
    '\u{3050}',  // ぐ
    '\u{3111}',  // ㄑ
    '\u{31db}',  // ㇛
    '\u{fe3f}',  // ︿
    '\u{fe64}',  // ﹤
    '\u{ff1c}',  // ＜
    '\u{1032d}', // 𐌭
    '\u{16aec}', // 𖫬
    '\u{1d236}', // 𝈶
    '\u{21fe8}', // 𡿨
];

/// Whether `c` reads as `<`, from the data: what [`ANGLES`] holds.
#[cfg(test)]
fn by_the_data(c: char) -> bool {
    let mut last = None;
    compatible(c, |d| {
        let mut reading = Reading::new();
        prototype(d, &mut reading);
        if let Some(&p) = reading.last() {
            last = Some(p);
        }
    });
    last == Some('<')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(c: char) -> String {
        readings(c)
            .iter()
            .map(|r| r.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("|")
    }

    #[test]
    fn the_tables_are_sorted() {
        for table in [SMALL_CAPITALS, BEYOND_UTS39] {
            for pair in table.windows(2) {
                assert!(pair[0].0 < pair[1].0, "{pair:?}");
            }
        }
    }

    #[test]
    fn the_ascii_shortcut_agrees_with_the_data() {
        for c in (0..128u8).map(char::from) {
            let skeleton: String = unicode_security::skeleton(c.encode_utf8(&mut [0; 4])).collect();
            assert_eq!(
                skeleton == c.to_string(),
                !ASCII_WITH_PROTOTYPES.contains(&c),
                "{c:?} has the prototype {skeleton:?}"
            );
        }
    }

    #[test]
    fn ascii_reads_as_the_data_reads_it() {
        for c in (0..128u8).map(char::from) {
            let mut lower_first = Reading::new();
            prototype(c.to_ascii_lowercase(), &mut lower_first);
            let mut once = Reading::new();
            prototype(c, &mut once);
            let mut twice = Reading::new();
            once.iter().for_each(|&p| prototype(p, &mut twice));
            let mut all: SmallVec<[Reading; 2]> = SmallVec::new();
            all.push(lower_first.clone());
            if twice != lower_first {
                all.push(twice);
            }
            assert_eq!(readings(c), all, "{c:?}");
        }
    }

    #[test]
    fn lookalikes_read_as_their_letter() {
        for (c, reads) in [
            ('f', "f"),
            ('F', "f"),
            ('I', "i|l"),
            ('\u{1d41f}', "f"), // MATHEMATICAL BOLD SMALL F
            ('\u{1d68f}', "f"), // MATHEMATICAL MONOSPACE SMALL F
            ('\u{a730}', "f"),  // LATIN LETTER SMALL CAPITAL F
            ('\u{26a}', "i"),   // LATIN LETTER SMALL CAPITAL I
            ('\u{29f}', "l"),   // LATIN LETTER SMALL CAPITAL L
            ('\u{1d07}', "e"),  // LATIN LETTER SMALL CAPITAL E
            ('\u{1da0}', "f"),  // MODIFIER LETTER SMALL F
            ('\u{fb01}', "fi"),
            ('м', "rn"),
            ('М', "rn"),
            ('\u{1d0d}', "rn"), // LATIN LETTER SMALL CAPITAL M
            ('т', "t"),
            ('ε', "e"),
            ('m', "rn"),
        ] {
            assert_eq!(one(c), reads, "U+{:04X}", c as u32);
        }
        assert_eq!(
            name_reading("system-reminder").iter().collect::<String>(),
            "systern-rerninder"
        );
    }

    #[test]
    fn the_angle_table_is_what_the_data_says() {
        for pair in ANGLES.windows(2) {
            assert!(pair[0] < pair[1], "{pair:?}");
        }
        let found: Vec<char> = (0x80..=0x10_ffff)
            .filter_map(char::from_u32)
            .filter(|&c| by_the_data(c))
            .collect();
        assert_eq!(
            found, ANGLES,
            "ANGLES must list what the UCD data reads as `<`"
        );
    }

    #[test]
    fn angles_are_read_from_the_data() {
        for c in [
            '<', '\u{ff1c}', '\u{fe64}', '‹', '˂', 'ᐸ', '❮', '≮', '≪', '〈', '⟨', '«', '≤',
        ] {
            assert!(reads_as_angle(c), "U+{:04X}", c as u32);
        }
        for c in ['(', '>', 'a', '›', '語', '\u{1f600}'] {
            assert!(!reads_as_angle(c), "U+{:04X}", c as u32);
        }
    }
}
