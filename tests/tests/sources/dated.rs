//! Dated entries (`facts.jsonl` and the like): absent files, malformed and
//! bare-dated lines, an entry dated now, and a tail cut at a whole line.

use prompt_layers::sources::{DatedConfig, DatedEntries, EntryBudget, EntryLimits, Root};

fn dated_spec(now: &str) -> DatedConfig<'static> {
    DatedConfig::new("text", "created_at", now.parse().unwrap()).limits(
        EntryLimits::DEFAULT
            .budget(EntryBudget::Bytes(1024))
            .max_entries(10)
            .read_cap(1024),
    )
}

fn load_lines(lines: &[&str], now: &str) -> DatedEntries {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("facts.jsonl"), lines.join("\n")).unwrap();
    DatedEntries::load(
        &[(ws.path().join("facts.jsonl"), Root::new(ws.path(), ""))],
        &dated_spec(now),
    )
}

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
    let spec = dated_spec("2026-11-30T00:00:00Z");
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

/// A line of invalid UTF-8 in a dated file is a malformed line, counted and
/// noted like any other, and the valid lines around it are kept.
#[test]
fn a_dated_line_of_invalid_utf8_is_counted_as_malformed() {
    let ws = tempfile::tempdir().unwrap();
    let mut bytes = br#"{"text": "Kept.", "created_at": "2026-11-02T09:30:00Z"}"#.to_vec();
    bytes.extend_from_slice(b"\n\xff\xfe not utf-8\n");
    std::fs::write(ws.path().join("facts.jsonl"), bytes).unwrap();
    let spec = dated_spec("2026-11-30T00:00:00Z");
    let read = DatedEntries::load(
        &[(ws.path().join("facts.jsonl"), Root::new(ws.path(), ""))],
        &spec,
    );
    assert_eq!(read.malformed, 1);
    assert_eq!(read.notes(), ["skipped 1 malformed line(s)"]);
    assert_eq!(read.entries.len(), 1);
}

/// An entry dated exactly now is kept (only later ones are "in the future");
/// a date without a time or offset is malformed, not future, even dated today.
#[test]
fn an_entry_dated_now_is_kept_and_a_bare_date_is_malformed() {
    let read = load_lines(
        &[
            r#"{"text": "Now.", "created_at": "2026-11-30T00:00:00Z"}"#,
            r#"{"text": "Bare past.", "created_at": "2026-11-02"}"#,
            r#"{"text": "Bare today.", "created_at": "2026-11-30"}"#,
        ],
        "2026-11-30T00:00:00Z",
    );
    let kept: Vec<&str> = read.entries.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(kept, ["Now."]);
    assert_eq!((read.future, read.malformed), (0, 2));
}

/// A dated file of exactly the read cap is read whole (not "read only its
/// last ..."); a longer one is read from its tail, and the line the cut
/// falls in is dropped whole rather than parsed as a malformed line.
#[test]
fn the_tail_of_a_dated_file_starts_at_a_whole_line() {
    let line =
        |n: usize| format!(r#"{{"text": "Entry {n}.", "created_at": "2026-11-0{n}T09:30:00Z"}}"#);
    let lines: Vec<String> = (1..=3).map(line).collect();
    let whole = lines.join("\n");
    let ws = tempfile::tempdir().unwrap();
    let path = ws.path().join("facts.jsonl");
    std::fs::write(&path, &whole).unwrap();
    let files = [(path, Root::new(ws.path(), ""))];

    let mut spec = dated_spec("2026-11-30T00:00:00Z");
    spec.limits.read_cap = whole.len();
    let read = DatedEntries::load(&files, &spec);
    assert!(read.partial.is_empty(), "{:?}", read.partial);
    assert_eq!(read.entries.len(), 3);

    // Cut 5 bytes into the first line: it is dropped, the other two are kept.
    spec.limits.read_cap = whole.len() - 5;
    let read = DatedEntries::load(&files, &spec);
    assert_eq!(read.partial.len(), 1);
    assert_eq!(read.malformed, 0);
    let kept: Vec<&str> = read.entries.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(kept, ["Entry 3.", "Entry 2."]);
}
