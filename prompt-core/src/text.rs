//! Characters that change how text reads without showing: the one list the
//! sources (which remove them from file text) and every printer of file
//! text (which escapes them) share.

/// Invisible format characters (Unicode category Cf, less the prepended
/// concatenation marks, which show as glyphs): they change how text is shown
/// (bidi overrides reorder it, zero-width characters hide inside words, tags
/// carry hidden ASCII) without being seen, in a prompt or a terminal.
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
/// assert!(!is_invisible('a') && !is_invisible('\n') && !is_invisible('\u{2028}'));
/// ```
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}'                      // soft hyphen
        | '\u{61c}'                   // ARABIC LETTER MARK (bidi)
        | '\u{180e}'                  // MONGOLIAN VOWEL SEPARATOR
        | '\u{200b}'..='\u{200f}'     // zero width space, ZWNJ, ZWJ, LRM, RLM
        | '\u{202a}'..='\u{202e}'     // bidi embeddings and overrides
        | '\u{2060}'..='\u{2064}'     // word joiner, invisible operators
        | '\u{2066}'..='\u{206f}'     // bidi isolates, deprecated format characters
        | '\u{feff}'                  // zero width no-break space (a BOM past the start)
        | '\u{fff9}'..='\u{fffb}'     // interlinear annotation
        | '\u{1bca0}'..='\u{1bca3}'   // shorthand format controls
        | '\u{1d173}'..='\u{1d17a}'   // musical symbol format controls
        | '\u{e0001}'                 // LANGUAGE TAG
        | '\u{e0020}'..='\u{e007f}'   // tag characters (hidden ASCII)
    )
}
