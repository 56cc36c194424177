//! The capped cut: the longest char-boundary prefix within the cap, cleaned,
//! and the same from a file as from memory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use prompt_layers::sources::__private::{cut, decode};
use prompt_layers::sources::clean;
use prompt_layers::sources::CappedText;

fuzz_target!(|input: (u16, &[u8])| {
    let (cap, data) = input;
    let cap = usize::from(cap % 512);
    // Bytes as a file holds them: the decode of a cut must match the cut of the text.
    let mut head = data.to_vec();
    let truncated = head.len() > cap;
    head.truncate(cap);
    let decoded = decode(head, truncated, "f.md");
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let kept = cut(text, cap);
    assert!(kept.len() <= cap);
    assert!(text.starts_with(kept));
    if let Some(next) = text[kept.len()..].chars().next() {
        assert!(kept.len() + next.len_utf8() > cap, "not the longest prefix");
    }
    assert_eq!(
        decoded.as_deref().ok(),
        Some(kept),
        "file and memory disagree"
    );
    let capped = CappedText::from_text("f.md", text, cap);
    assert_eq!(capped.is_truncated(), text.len() > cap);
    assert!(
        !capped
            .text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
    );
    assert_eq!(clean(kept).0, capped.text);
    let rendered = capped.render();
    match capped.marker() {
        Some(marker) => {
            assert!(capped.is_truncated());
            assert!(rendered.ends_with(&marker));
            assert!(marker.starts_with("[…truncated: f.md is "));
            assert!(rendered.len() <= cap + 2 + marker.len());
        }
        None => {
            assert!(!capped.is_truncated());
            assert_eq!(rendered, capped.text.trim_end());
        }
    }
});
