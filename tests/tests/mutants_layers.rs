//! Tests that kill the mutants cargo-mutants found surviving in
//! `prompt-layers`' sources (issue 11). Each test names the guarantee it
//! pins; README.md, "Mutation testing", has the recipe.

use prompt_layers::sources::{CappedText, Root};

/// A file that is longer than its metadata says (a file growing while it is
/// read; `/proc` files all report size 0) is still reported as over the cap:
/// the size in the marker is at least what was read, cap plus the byte that
/// showed the cut, so the marker never reads "is 10 B, cap 10 B".
#[cfg(target_os = "linux")]
#[test]
fn a_file_longer_than_its_metadata_says_is_reported_over_the_cap() {
    let root = Root::new("/proc/self", "/proc/self");
    let status = std::path::Path::new("/proc/self/status");
    assert_eq!(std::fs::metadata(status).unwrap().len(), 0, "the premise");
    let text = CappedText::read(status, &root, 10).unwrap();
    assert!(text.is_truncated());
    assert_eq!(text.text.len(), 10);
    assert_eq!(text.size, 11, "cap + the one byte that showed the cut");
    assert!(
        text.render().ends_with("is 11 B, cap 10 B]"),
        "{}",
        text.render()
    );
}

use prompt_layers::sources::{Budget, DatedEntries, DatedSpec};

/// An absent facts file is the common case (a new workspace), not a problem:
/// it adds no error and no note. A present file beside it is still read.
#[test]
fn an_absent_dated_file_is_skipped_without_a_problem() {
    let ws = tempfile::tempdir().unwrap();
    let root = Root::new(ws.path(), "");
    std::fs::write(
        ws.path().join("facts.jsonl"),
        r#"{"text": "The API is versioned.", "created_at": "2026-11-02T09:30:00Z"}"#,
    )
    .unwrap();
    let spec = DatedSpec {
        text_key: "text",
        time_key: "created_at",
        budget: Budget::Bytes(1024),
        max_entries: 10,
        read_cap: 1024,
        now: "2026-11-30T00:00:00Z".parse().unwrap(),
    };
    let files = [
        (ws.path().join("absent.jsonl"), root.clone()),
        (ws.path().join("facts.jsonl"), root),
    ];
    let read = DatedEntries::load(&files, &spec);
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    assert_eq!(read.notes(), Vec::<String>::new());
    assert_eq!(read.entries.len(), 1);
    assert_eq!(read.entries[0].text, "The API is versioned.");
}
