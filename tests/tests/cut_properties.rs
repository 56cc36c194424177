//! Properties of the size cap, over generated text (ASCII, accents, CJK, emoji).

use prompt_layers::sources::{CappedText, cut, read_capped};
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    "[a-zé語😀\n ]{0,64}"
}

proptest! {
    #[test]
    fn the_cut_is_the_longest_prefix_within_the_cap(input in text(), cap in 0usize..80) {
        let kept = cut(&input, cap);
        prop_assert!(input.starts_with(kept));
        prop_assert!(kept.len() <= cap);
        // Longest: one more character would not fit (or there is none).
        if let Some(next) = input[kept.len()..].chars().next() {
            prop_assert!(kept.len() + next.len_utf8() > cap);
        } else {
            prop_assert_eq!(kept, input.as_str());
        }
    }

    #[test]
    fn the_rendered_text_is_a_prefix_plus_a_marker_exactly_when_cut(input in text(), cap in 0usize..80) {
        let capped = CappedText::from_text("SOURCE.md", &input, cap);
        let rendered = capped.render();
        let cut_happened = input.len() > cap;
        prop_assert_eq!(capped.is_truncated(), cut_happened);
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
        // The body is the kept text with trailing whitespace trimmed: always a prefix of the input.
        prop_assert!(input.starts_with(body.as_str()));
        prop_assert!(body.len() <= cap);
    }

    #[test]
    fn reading_a_file_caps_it_exactly_as_text_in_memory(input in text(), cap in 0usize..80) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.md");
        std::fs::write(&path, &input).unwrap();
        let from_disk = read_capped(&path, "f.md", cap).unwrap();
        prop_assert_eq!(from_disk, CappedText::from_text("f.md", &input, cap));
    }
}
