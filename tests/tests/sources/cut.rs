//! Properties of the size cap, over generated text (ASCII, accents, CJK,
//! emoji, control characters).

use prompt_layers::sources::__private::{cut, read_capped};
use prompt_layers::sources::{CappedText, Root};
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    "[a-zé語😀\n ]{0,64}"
}

/// The cut, computed the slow and obvious way: the longest prefix that ends
/// on a character boundary and is at most `cap` bytes.
fn expected_cut(input: &str, cap: usize) -> &str {
    let end = input
        .char_indices()
        .map(|(i, c)| i + c.len_utf8())
        .take_while(|&end| end <= cap)
        .last()
        .unwrap_or(0);
    &input[..end]
}

proptest! {
    #[test]
    fn the_cut_is_the_longest_prefix_within_the_cap(input in text(), cap in 0usize..80) {
        let kept = cut(&input, cap);
        prop_assert_eq!(kept, expected_cut(&input, cap));
        prop_assert!(kept.len() <= cap);
        // Longest: one more character would not fit (or there is none).
        if let Some(next) = input[kept.len()..].chars().next() {
            prop_assert!(kept.len() + next.len_utf8() > cap);
        } else {
            prop_assert_eq!(kept, input.as_str());
        }
    }

    #[test]
    fn the_rendered_text_is_the_cut_plus_a_marker_exactly_when_cut(input in text(), cap in 0usize..80) {
        let capped = CappedText::from_text("SOURCE.md", &input, cap);
        let rendered = capped.render();
        let cut_happened = input.len() > cap;
        prop_assert_eq!(capped.is_truncated(), cut_happened);
        prop_assert_eq!(capped.text.as_str(), expected_cut(&input, cap));
        let marker = capped.marker();
        prop_assert_eq!(marker.is_some(), cut_happened);
        let body = match &marker {
            Some(marker) => {
                prop_assert!(rendered.ends_with(marker.as_str()));
                prop_assert!(marker.starts_with("[…truncated: SOURCE.md is "));
                prop_assert!(rendered.len() <= cap + 2 + marker.len());
                rendered[..rendered.len() - marker.len()].trim_end_matches('\n').to_owned()
            }
            None => {
                prop_assert!(!rendered.contains("[…truncated"));
                rendered.clone()
            }
        };
        // The body is *the* cut, with trailing whitespace trimmed.
        prop_assert_eq!(body.as_str(), expected_cut(&input, cap).trim_end());
    }

    #[test]
    fn reading_a_file_caps_it_exactly_as_text_in_memory(input in text(), cap in 0usize..80) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.md");
        std::fs::write(&path, &input).unwrap();
        let from_disk = read_capped(&path, &Root::new(dir.path(), ""), cap).unwrap();
        prop_assert_eq!(from_disk, CappedText::from_text("f.md", &input, cap));
    }

    /// No source text keeps a control character other than newline and tab.
    #[test]
    fn no_capped_text_holds_a_control_character(
        bom in any::<bool>(),
        body in "[a-z\u{0}-\u{1f}\u{7f}\u{80}-\u{9f}é]{0,64}",
        cap in 0usize..80,
    ) {
        let input = if bom { format!("\u{feff}{body}") } else { body };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.md");
        std::fs::write(&path, &input).unwrap();
        let from_disk = read_capped(&path, &Root::new(dir.path(), ""), cap).unwrap();
        for text in [from_disk.text.as_str(), &from_disk.render()] {
            prop_assert!(
                !text.chars().any(|c| c.is_control() && c != '\n' && c != '\t'),
                "control character kept in {:?}", text
            );
        }
        prop_assert!(!from_disk.text.starts_with('\u{feff}'), "BOM kept");
    }
}
