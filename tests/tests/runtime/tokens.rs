//! Token counts: the exact counters against known encodings, and the
//! approximate counter's error on the real fixtures, measured.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use prompt_core::tokens::{ApproxCounter, Cl100kBase, O200kBase, TokenCounter};

/// Counts fixed by the encodings themselves, checked by running tiktoken-rs
/// 0.12. Cross-check with a published value: OpenAI's cookbook ("How to count
/// tokens with tiktoken") encodes "tiktoken is great!" in cl100k_base as
/// [83, 1609, 5963, 374, 2294, 0], six tokens. Special-token text counts as
/// ordinary text (`<|endoftext|>` is 7 tokens, not the one special token).
#[test]
fn exact_counters_match_the_known_encodings_of_fixed_strings() {
    let cases: &[(&str, usize, usize)] = &[
        // (text, o200k_base, cl100k_base)
        ("", 0, 0),
        ("hello world", 2, 2),
        ("The quick brown fox jumps over the lazy dog", 9, 9),
        ("tiktoken is great!", 6, 6),
        ("你好，世界", 3, 6),
        ("<|endoftext|>", 7, 7),
    ];
    for &(text, o200k, cl100k) in cases {
        assert_eq!(O200kBase.count(text), o200k, "o200k_base: {text:?}");
        assert_eq!(Cl100kBase.count(text), cl100k, "cl100k_base: {text:?}");
    }
}

#[test]
fn counters_name_themselves() {
    assert_eq!(ApproxCounter.name(), "approx");
    assert_eq!(O200kBase.name(), "o200k_base");
    assert_eq!(Cl100kBase.name(), "cl100k_base");
}

#[test]
fn the_approximate_counter_applies_its_documented_ratios() {
    assert_eq!(ApproxCounter.count(""), 0);
    assert_eq!(ApproxCounter.count("a"), 1);
    assert_eq!(ApproxCounter.count("abcd"), 1);
    assert_eq!(ApproxCounter.count("abcde"), 2);
    assert_eq!(ApproxCounter.count("hello world"), 3);
    // CJK: ¾ token per character, counted by character, not by UTF-8 byte.
    assert_eq!(ApproxCounter.count("你好世界"), 3);
    assert_eq!(ApproxCounter.count("日本語のテキスト"), 6);
    assert_eq!(ApproxCounter.count("한국어"), 3);
    // Mixed: 6 ASCII quarters + 2 CJK × 3 quarters = 12 quarters.
    assert_eq!(ApproxCounter.count("hello 世界"), 3);
    // An emoji or an accented letter is one non-CJK character.
    assert_eq!(ApproxCounter.count("café ☕"), 2);
}

#[test]
fn counters_work_behind_references_boxes_and_arcs() {
    let shared: Arc<dyn TokenCounter> = Arc::new(O200kBase);
    let boxed: Box<dyn TokenCounter> = Box::new(ApproxCounter);
    let by_ref: &dyn TokenCounter = &Cl100kBase;
    assert_eq!(shared.count("hello world"), 2);
    assert_eq!(boxed.count("hello world"), 3);
    assert_eq!(by_ref.count("hello world"), 2);
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let counter = Arc::clone(&shared);
            std::thread::spawn(move || counter.count("hello world"))
        })
        .collect();
    for thread in threads {
        assert_eq!(thread.join().unwrap(), 2);
    }
}

#[test]
fn long_and_repetitive_inputs_are_counted_without_a_panic() {
    for text in [
        " ".repeat(100_000),
        "a".repeat(100_000),
        "\n".repeat(50_000),
        "!@#$%^&*()".repeat(10_000),
    ] {
        let exact = O200kBase.count(&text);
        assert!(exact > 0 && exact <= text.len(), "{exact}");
        assert!(Cl100kBase.count(&text) > 0);
    }
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// The figures in `ApproxCounter`'s rustdoc come from this test:
/// `cargo test -p prompt-tests --test runtime approx_error_on_real_fixtures -- --nocapture`.
#[test]
fn approx_error_on_real_fixtures() {
    let root = prompt_tests::real_fixture("");
    let mut files = Vec::new();
    markdown_files(&root, &mut files);
    files.sort();
    assert!(files.len() >= 15, "{files:?}");

    let (mut approx_total, mut exact_total, mut abs_error_sum) = (0usize, 0usize, 0f64);
    println!(
        "{:<48} {:>7} {:>7} {:>7} {:>8}",
        "fixture", "chars", "o200k", "approx", "error"
    );
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let (approx, exact) = (ApproxCounter.count(&text), O200kBase.count(&text));
        let error = approx as f64 / exact as f64 - 1.0;
        println!(
            "{:<48} {:>7} {:>7} {:>7} {:>+7.1}%",
            file.strip_prefix(&root).unwrap().display(),
            text.chars().count(),
            exact,
            approx,
            error * 100.0
        );
        assert!(
            error.abs() <= 0.30,
            "{}: approx {approx} vs o200k {exact}",
            file.display()
        );
        approx_total += approx;
        exact_total += exact;
        abs_error_sum += error.abs();
    }
    let total_error = approx_total as f64 / exact_total as f64 - 1.0;
    println!(
        "total: approx {approx_total} vs o200k {exact_total}: {:+.1}%; mean absolute error per file {:.1}%",
        total_error * 100.0,
        abs_error_sum / files.len() as f64 * 100.0
    );
    assert!(total_error.abs() <= 0.05, "{total_error}");
}
