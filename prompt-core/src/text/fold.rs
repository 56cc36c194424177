//! The one fold every matcher reads text through: how a reader takes one
//! character, its compatibility form (NFKD), the prototype Unicode's
//! confusables give it (UTS #39), a character drawn as `<` by its name
//! ([`LESS_THAN_SHAPES`]), a small capital read as its letter.
//!
//! The tag matcher reads each character's fold in lowercase without its
//! marks ([`readings`]); the secrets guard reads a character as its fold
//! where that fold is ASCII ([`ascii_fold`]: `ѕk‐ant` is `sk-ant`). Each
//! character is folded on its own, so a match found over the folds is at
//! the characters it was found at: the byte offset in the original text is
//! the offset the escaping rewrites, or the guard reports.

use smallvec::SmallVec;
use unicode_normalization::char::{decompose_compatible, is_combining_mark};

use super::shapes::LESS_THAN_SHAPES;
use super::small_capitals::SMALL_CAPITALS;

/// What one character reads as: usually one character, none for a mark or
/// an invisible character, several for a ligature (`ﬁ`) or a prototype of
/// several (`m` is `rn` in UTS #39).
pub(super) type Reading = SmallVec<[char; 4]>;

/// Prototypes UTS #39 leaves as characters of their own that a reader
/// still takes for a Latin letter or for `<`, and that no name in the UCD
/// ties to one ([`LESS_THAN_SHAPES`] holds the `<` shapes names give): what
/// the data does not cover, kept by hand. Each is a prototype (the right
/// side of `confusables.txt`), so the characters UTS #39 ties to it read the
/// same.
const BEYOND_UTS39: &[(char, char)] = &[
    ('ĸ', 'k'), // the prototype of Cyrillic `к` and Greek `κ`
    ('ʍ', 'm'), // of Cyrillic `м` and the small capital `ᴍ`
    ('π', 'n'), // of Cyrillic `п`
    ('ς', 'c'), // of Greek `ϲ`
    ('ᐊ', '<'), // CANADIAN SYLLABICS A, drawn as `◁`
    ('ꞓ', 'e'), // of Greek `ε`
];

/// The ASCII characters UTS #39 gives another prototype (`m` is `rn`, `I`,
/// `1` and `|` are `l`, `0` is `O`, ...); every other ASCII character is its
/// own, and is read without a look-up.
const ASCII_WITH_PROTOTYPES: &[char] = &['"', '%', '0', '1', 'I', '`', 'm', '|'];

fn letter_of(c: char) -> char {
    if LESS_THAN_SHAPES.binary_search(&c).is_ok() {
        return '<';
    }
    let table = |t: &[(char, char)]| {
        t.binary_search_by_key(&c, |&(from, _)| from)
            .ok()
            .map(|i| t[i].1)
    };
    table(SMALL_CAPITALS)
        .or_else(|| table(BEYOND_UTS39))
        .unwrap_or(c)
}

/// `S`: the prototype of `c` (UTS #39 skeleton, marks dropped), a `<`
/// shape, small capitals and [`BEYOND_UTS39`] read as their letter,
/// lowercased.
fn prototype(c: char, out: &mut Reading) {
    if c.is_ascii() && !ASCII_WITH_PROTOTYPES.contains(&c) {
        out.push(c.to_ascii_lowercase());
        return;
    }
    // A `<` shape whose prototype is another character (`⋖` is `<·`) is
    // still a `<`.
    if !c.is_ascii() && LESS_THAN_SHAPES.binary_search(&c).is_ok() {
        out.push('<');
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

/// The fold of `c` where it is ASCII, in its case: its compatibility form,
/// each non-ASCII piece of it through its UTS #39 prototype, a `<` shape,
/// small capitals and [`BEYOND_UTS39`] (Cyrillic `ѕ` is `s`, Greek `κ` is
/// `k`, `‐` and `−` are `-`, full-width `ｓ` is `s`, `ﬁ` is `fi`); `None`
/// when any piece of it is not ASCII (`é`, whose mark stays) or when `c`
/// is ASCII itself. The secrets guard reads its decoded view through it.
pub(super) fn ascii_fold(c: char) -> Option<Reading> {
    if c.is_ascii() {
        return None;
    }
    let mut out = Reading::new();
    let mut ascii = true;
    decompose_compatible(c, |d| {
        if !ascii {
            return;
        }
        if d.is_ascii() {
            return out.push(d);
        }
        if LESS_THAN_SHAPES.binary_search(&d).is_ok() {
            return out.push('<');
        }
        let mut buf = [0; 4];
        for p in unicode_security::skeleton(d.encode_utf8(&mut buf)) {
            match letter_of(p) {
                l if l.is_ascii() => out.push(l),
                _ => ascii = false,
            }
        }
    });
    (ascii && !out.is_empty()).then_some(out)
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
/// fold holds one (`＜`, `﹤`, `‹`, `˂`, `ᐸ`, `❮`, `≮`, `≪`, the Hiragana
/// `く`; every [`LESS_THAN_SHAPES`] (`≦`, `⋖`, `≺`, `◁`, `《`), what UTS #39
/// ties to one (`〈` and `く` through `❬`), and [`BEYOND_UTS39`] (`ᐊ`)). It is what [`by_the_data`] says of
/// every code point, kept as a table so that finding the angles of a text
/// costs a look-up per character; a test holds the two to each other, so a
/// new release of the data shows here as a failing test, not as a silent
/// change of what is escaped.
const ANGLES: &[char] = &[
    '\u{00ab}',  // « LEFT-POINTING DOUBLE ANGLE QUOTATION MARK
    '\u{02c2}',  // ˂ MODIFIER LETTER LEFT ARROWHEAD
    '\u{02f1}',  // ˱ MODIFIER LETTER LOW LEFT ARROWHEAD
    '\u{140a}',  // ᐊ CANADIAN SYLLABICS A
    '\u{1417}',  // ᐗ CANADIAN SYLLABICS WA
    '\u{1418}',  // ᐘ CANADIAN SYLLABICS WEST-CREE WA
    '\u{142e}',  // ᐮ CANADIAN SYLLABICS AN
    '\u{1438}',  // ᐸ CANADIAN SYLLABICS PA
    '\u{1444}',  // ᑄ CANADIAN SYLLABICS PWA
    '\u{1445}',  // ᑅ CANADIAN SYLLABICS WEST-CREE PWA
    '\u{150c}',  // ᔌ CANADIAN SYLLABICS NASKAPI SPWA
    '\u{16b2}',  // ᚲ RUNIC LETTER KAUNA
    '\u{2039}',  // ‹ SINGLE LEFT-POINTING ANGLE QUOTATION MARK
    '\u{2264}',  // ≤ LESS-THAN OR EQUAL TO
    '\u{2266}',  // ≦ LESS-THAN OVER EQUAL TO
    '\u{2268}',  // ≨ LESS-THAN BUT NOT EQUAL TO
    '\u{226a}',  // ≪ MUCH LESS-THAN
    '\u{226e}',  // ≮ NOT LESS-THAN
    '\u{2270}',  // ≰ NEITHER LESS-THAN NOR EQUAL TO
    '\u{2272}',  // ≲ LESS-THAN OR EQUIVALENT TO
    '\u{2274}',  // ≴ NEITHER LESS-THAN NOR EQUIVALENT TO
    '\u{2276}',  // ≶ LESS-THAN OR GREATER-THAN
    '\u{2277}',  // ≷ GREATER-THAN OR LESS-THAN
    '\u{2278}',  // ≸ NEITHER LESS-THAN NOR GREATER-THAN
    '\u{2279}',  // ≹ NEITHER GREATER-THAN NOR LESS-THAN
    '\u{227a}',  // ≺ PRECEDES
    '\u{227c}',  // ≼ PRECEDES OR EQUAL TO
    '\u{227e}',  // ≾ PRECEDES OR EQUIVALENT TO
    '\u{2280}',  // ⊀ DOES NOT PRECEDE
    '\u{22b0}',  // ⊰ PRECEDES UNDER RELATION
    '\u{22d6}',  // ⋖ LESS-THAN WITH DOT
    '\u{22d8}',  // ⋘ VERY MUCH LESS-THAN
    '\u{22da}',  // ⋚ LESS-THAN EQUAL TO OR GREATER-THAN
    '\u{22db}',  // ⋛ GREATER-THAN EQUAL TO OR LESS-THAN
    '\u{22dc}',  // ⋜ EQUAL TO OR LESS-THAN
    '\u{22de}',  // ⋞ EQUAL TO OR PRECEDES
    '\u{22e0}',  // ⋠ DOES NOT PRECEDE OR EQUAL
    '\u{22e6}',  // ⋦ LESS-THAN BUT NOT EQUIVALENT TO
    '\u{22e8}',  // ⋨ PRECEDES BUT NOT EQUIVALENT TO
    '\u{2329}',  // 〈 LEFT-POINTING ANGLE BRACKET
    '\u{2343}',  // ⍃ APL FUNCTIONAL SYMBOL QUAD LESS-THAN
    '\u{23ea}',  // ⏪ BLACK LEFT-POINTING DOUBLE TRIANGLE
    '\u{23ee}',  // ⏮ BLACK LEFT-POINTING DOUBLE TRIANGLE WITH VERTICAL BAR
    '\u{23f4}',  // ⏴ BLACK MEDIUM LEFT-POINTING TRIANGLE
    '\u{25c0}',  // ◀ BLACK LEFT-POINTING TRIANGLE
    '\u{25c1}',  // ◁ WHITE LEFT-POINTING TRIANGLE
    '\u{25c2}',  // ◂ BLACK LEFT-POINTING SMALL TRIANGLE
    '\u{25c3}',  // ◃ WHITE LEFT-POINTING SMALL TRIANGLE
    '\u{276c}',  // ❬ MEDIUM LEFT-POINTING ANGLE BRACKET ORNAMENT
    '\u{276e}',  // ❮ HEAVY LEFT-POINTING ANGLE QUOTATION MARK ORNAMENT
    '\u{2770}',  // ❰ HEAVY LEFT-POINTING ANGLE BRACKET ORNAMENT
    '\u{27e8}',  // ⟨ MATHEMATICAL LEFT ANGLE BRACKET
    '\u{27ea}',  // ⟪ MATHEMATICAL LEFT DOUBLE ANGLE BRACKET
    '\u{2976}',  // ⥶ LESS-THAN ABOVE LEFTWARDS ARROW
    '\u{2977}',  // ⥷ LEFTWARDS ARROW THROUGH LESS-THAN
    '\u{2991}',  // ⦑ LEFT ANGLE BRACKET WITH DOT
    '\u{2993}',  // ⦓ LEFT ARC LESS-THAN BRACKET
    '\u{2996}',  // ⦖ DOUBLE RIGHT ARC LESS-THAN BRACKET
    '\u{29c0}',  // ⧀ CIRCLED LESS-THAN
    '\u{29fc}',  // ⧼ LEFT-POINTING CURVED ANGLE BRACKET
    '\u{2a79}',  // ⩹ LESS-THAN WITH CIRCLE INSIDE
    '\u{2a7b}',  // ⩻ LESS-THAN WITH QUESTION MARK ABOVE
    '\u{2a7d}',  // ⩽ LESS-THAN OR SLANTED EQUAL TO
    '\u{2a7f}',  // ⩿ LESS-THAN OR SLANTED EQUAL TO WITH DOT INSIDE
    '\u{2a81}',  // ⪁ LESS-THAN OR SLANTED EQUAL TO WITH DOT ABOVE
    '\u{2a83}',  // ⪃ LESS-THAN OR SLANTED EQUAL TO WITH DOT ABOVE RIGHT
    '\u{2a85}',  // ⪅ LESS-THAN OR APPROXIMATE
    '\u{2a87}',  // ⪇ LESS-THAN AND SINGLE-LINE NOT EQUAL TO
    '\u{2a89}',  // ⪉ LESS-THAN AND NOT APPROXIMATE
    '\u{2a8b}',  // ⪋ LESS-THAN ABOVE DOUBLE-LINE EQUAL ABOVE GREATER-THAN
    '\u{2a8c}',  // ⪌ GREATER-THAN ABOVE DOUBLE-LINE EQUAL ABOVE LESS-THAN
    '\u{2a8d}',  // ⪍ LESS-THAN ABOVE SIMILAR OR EQUAL
    '\u{2a8f}',  // ⪏ LESS-THAN ABOVE SIMILAR ABOVE GREATER-THAN
    '\u{2a90}',  // ⪐ GREATER-THAN ABOVE SIMILAR ABOVE LESS-THAN
    '\u{2a91}',  // ⪑ LESS-THAN ABOVE GREATER-THAN ABOVE DOUBLE-LINE EQUAL
    '\u{2a92}',  // ⪒ GREATER-THAN ABOVE LESS-THAN ABOVE DOUBLE-LINE EQUAL
    '\u{2a93}',  // ⪓ LESS-THAN ABOVE SLANTED EQUAL ABOVE GREATER-THAN ABOVE SLANTED EQUAL
    '\u{2a94}',  // ⪔ GREATER-THAN ABOVE SLANTED EQUAL ABOVE LESS-THAN ABOVE SLANTED EQUAL
    '\u{2a95}',  // ⪕ SLANTED EQUAL TO OR LESS-THAN
    '\u{2a97}',  // ⪗ SLANTED EQUAL TO OR LESS-THAN WITH DOT INSIDE
    '\u{2a99}',  // ⪙ DOUBLE-LINE EQUAL TO OR LESS-THAN
    '\u{2a9b}',  // ⪛ DOUBLE-LINE SLANTED EQUAL TO OR LESS-THAN
    '\u{2a9d}',  // ⪝ SIMILAR OR LESS-THAN
    '\u{2a9f}',  // ⪟ SIMILAR ABOVE LESS-THAN ABOVE EQUALS SIGN
    '\u{2aa1}',  // ⪡ DOUBLE NESTED LESS-THAN
    '\u{2aa3}',  // ⪣ DOUBLE NESTED LESS-THAN WITH UNDERBAR
    '\u{2aa4}',  // ⪤ GREATER-THAN OVERLAPPING LESS-THAN
    '\u{2aa5}',  // ⪥ GREATER-THAN BESIDE LESS-THAN
    '\u{2aa6}',  // ⪦ LESS-THAN CLOSED BY CURVE
    '\u{2aa8}',  // ⪨ LESS-THAN CLOSED BY CURVE ABOVE SLANTED EQUAL
    '\u{2aaf}',  // ⪯ PRECEDES ABOVE SINGLE-LINE EQUALS SIGN
    '\u{2ab1}',  // ⪱ PRECEDES ABOVE SINGLE-LINE NOT EQUAL TO
    '\u{2ab3}',  // ⪳ PRECEDES ABOVE EQUALS SIGN
    '\u{2ab5}',  // ⪵ PRECEDES ABOVE NOT EQUAL TO
    '\u{2ab7}',  // ⪷ PRECEDES ABOVE ALMOST EQUAL TO
    '\u{2ab9}',  // ⪹ PRECEDES ABOVE NOT ALMOST EQUAL TO
    '\u{2abb}',  // ⪻ DOUBLE PRECEDES
    '\u{2af7}',  // ⫷ TRIPLE NESTED LESS-THAN
    '\u{2af9}',  // ⫹ DOUBLE-LINE SLANTED LESS-THAN OR EQUAL TO
    '\u{2bc7}',  // ⯇ BLACK MEDIUM LEFT-POINTING TRIANGLE CENTRED
    '\u{2cb4}',  // Ⲵ COPTIC CAPITAL LETTER OLD COPTIC AIN
    '\u{2cb5}',  // ⲵ COPTIC SMALL LETTER OLD COPTIC AIN
    '\u{2d66}',  // ⵦ TIFINAGH LETTER YE
    '\u{3008}',  // 〈 LEFT ANGLE BRACKET
    '\u{300a}',  // 《 LEFT DOUBLE ANGLE BRACKET
    '\u{304f}',  // く HIRAGANA LETTER KU
    '\u{3050}',  // ぐ HIRAGANA LETTER GU
    '\u{3111}',  // ㄑ BOPOMOFO LETTER Q
    '\u{31db}',  // ㇛ CJK STROKE PD
    '\u{fe3d}',  // ︽ PRESENTATION FORM FOR VERTICAL LEFT DOUBLE ANGLE BRACKET
    '\u{fe3f}',  // ︿ PRESENTATION FORM FOR VERTICAL LEFT ANGLE BRACKET
    '\u{fe64}',  // ﹤ SMALL LESS-THAN SIGN
    '\u{ff1c}',  // ＜ FULLWIDTH LESS-THAN SIGN
    '\u{1032d}', // 𐌭 OLD ITALIC LETTER YE
    '\u{16aec}', // 𖫬 BASSA VAH LETTER E
    '\u{1d236}', // 𝈶 GREEK INSTRUMENTAL NOTATION SYMBOL-40
    '\u{1f780}', // 🞀 BLACK LEFT-POINTING ISOSCELES RIGHT TRIANGLE
    '\u{21fe8}', // 𡿨 CJK UNIFIED IDEOGRAPH-21FE8
];

/// Whether `c` reads as `<`, from the data: what [`ANGLES`] holds (the
/// fold of one of its compatibility pieces holds a `<`).
#[cfg(test)]
fn by_the_data(c: char) -> bool {
    let mut angle = false;
    compatible(c, |d| {
        let mut reading = Reading::new();
        prototype(d, &mut reading);
        angle |= reading.contains(&'<');
    });
    angle
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

    /// Hostile round five: the `<` twins a hand list missed are read as
    /// `<` from the UCD names (`≦`, `⩽`, `⋖`, `≺`, `◁`, `《`, `⟪`) or by
    /// [`BEYOND_UTS39`] (`ᐊ`).
    #[test]
    fn every_lookalike_of_round_five_reads_as_an_angle() {
        for c in ['≦', '⩽', '⋖', '≺', '◁', 'ᐊ', '《', '⟪', '⪡', '⏴', '≷'] {
            assert!(reads_as_angle(c), "U+{:04X}", c as u32);
            assert!(by_the_data(c), "U+{:04X}", c as u32);
        }
        for pair in LESS_THAN_SHAPES.windows(2) {
            assert!(pair[0] < pair[1], "{pair:?}");
        }
    }

    /// The guard's view: a lookalike folds to ASCII in its case, and what
    /// is not wholly ASCII stays as it is.
    #[test]
    fn ascii_fold_keeps_case_and_leaves_what_is_not_ascii() {
        let fold = |c: char| ascii_fold(c).map(|r| r.iter().collect::<String>());
        for (c, ascii) in [
            ('ѕ', "s"),        // CYRILLIC SMALL LETTER DZE
            ('Ѕ', "S"),        // CYRILLIC CAPITAL LETTER DZE
            ('κ', "k"),        // GREEK SMALL LETTER KAPPA
            ('р', "p"),        // CYRILLIC SMALL LETTER ER
            ('ο', "o"),        // GREEK SMALL LETTER OMICRON
            ('\u{2010}', "-"), // HYPHEN
            ('\u{2212}', "-"), // MINUS SIGN
            ('\u{ff53}', "s"), // FULLWIDTH LATIN SMALL LETTER S
            ('\u{fb01}', "fi"),
            ('\u{1d41a}', "a"), // MATHEMATICAL BOLD SMALL A
            ('≦', "<"),
        ] {
            assert_eq!(fold(c).as_deref(), Some(ascii), "U+{:04X}", c as u32);
        }
        for c in ['a', '<', 'é', '語', '\u{1f600}', 'ж'] {
            assert_eq!(fold(c), None, "U+{:04X}", c as u32);
        }
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
