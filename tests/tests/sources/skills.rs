//! The skill index's limits: its byte limit counted line by line, at most
//! `max_skills` kept, the note on those left out, and no skills folder.

use std::path::Path;

use prompt_layers::sources::{Root, SkillIndex, SkillLimits};

fn skills(names: &[&str]) -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    for name in names {
        let dir = ws.path().join("skills").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: Do {name}.\n---\nBody.\n"),
        )
        .unwrap();
    }
    ws
}

fn load(ws: &Path, limits: &SkillLimits) -> SkillIndex {
    SkillIndex::load(&[(ws.join("skills"), Root::new(ws, ""))], limits)
}

fn kept(index: &SkillIndex) -> Vec<&str> {
    index.skills.iter().map(|s| s.name.as_str()).collect()
}

/// The byte limit counts each index line and its newline: lines that
/// fill it exactly are all kept, one byte less leaves the last one out.
#[test]
fn the_byte_limit_counts_each_line_and_its_newline() {
    let ws = skills(&["a", "b"]);
    let all = load(ws.path(), &SkillLimits::default());
    let exact: usize = all.skills.iter().map(|s| s.index_line().len() + 1).sum();
    assert_eq!(exact, "- a: Do a. (skills/a/SKILL.md)\n".len() * 2);
    let fits = SkillLimits::default().max_bytes(exact);
    assert_eq!(kept(&load(ws.path(), &fits)), ["a", "b"]);
    let short = SkillLimits::default().max_bytes(exact - 1);
    let index = load(ws.path(), &short);
    assert_eq!(kept(&index), ["a"]);
    assert_eq!(index.over_budget, ["b"]);
}

/// `max_skills` is the most kept.
#[test]
fn at_most_max_skills_are_kept() {
    let ws = skills(&["a", "b", "c"]);
    let limits = SkillLimits::default().max_skills(2);
    let index = load(ws.path(), &limits);
    assert_eq!(kept(&index), ["a", "b"]);
    assert_eq!(index.over_budget, ["c"]);
}

/// The note names up to ten skills left out, then counts the rest.
#[test]
fn the_note_names_ten_left_out_skills_then_counts() {
    let names: Vec<String> = (0..11).map(|i| format!("s{i:02}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let limits = SkillLimits::default().max_skills(0);

    let ten = skills(&refs[..10]);
    let notes = load(ten.path(), &limits).notes(&limits);
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].ends_with(": s00, s01, s02, s03, s04, s05, s06, s07, s08, s09"),
        "{}",
        notes[0]
    );

    let eleven = skills(&refs);
    let notes = load(eleven.path(), &limits).notes(&limits);
    assert!(notes[0].ends_with("s09 and 1 more"), "{}", notes[0]);
}

/// A workspace without a skills folder has no skills and no problem.
#[test]
fn an_absent_skills_folder_is_no_problem() {
    let ws = tempfile::tempdir().unwrap();
    let index = load(ws.path(), &SkillLimits::default());
    assert!(index.skills.is_empty());
    assert!(index.problems.is_empty(), "{:?}", index.problems);
    assert!(index.notes(&SkillLimits::default()).is_empty());
}
