//! A hostile repository against the parsers and the many-file sources
//! (docs/RELIABILITY.md, R7 and R8): YAML that expands (alias bombs, `%TAG`
//! prefixes, deep nesting) is refused at its line, and skills and nested
//! docs are read within one total budget, with a note when it is reached.
#![cfg(unix)]

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{full_config, notes, render};
use prompt_layers::SessionConfig;
use prompt_layers::sources::__private::SKILL_READ_CAP;
use prompt_layers::sources::yaml::{YamlLimit, YamlLimits, parse_bounded};
use prompt_layers::sources::{ProjectDocs, ProjectDocsConfig, Root, SkillIndex, SkillLimits};
use prompt_tests::FixtureWorkspace;

fn write_skill(skills: &Path, name: &str, text: &str) {
    let dir = skills.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

/// The frontmatter of row 7: 11.6 KB that would expand to 4000 x 600 x 600
/// = 1.44 billion values (2 minutes and 7.8 GB, then an abort, before).
fn alias_bomb() -> String {
    format!(
        "---\nname: bomb\ndescription: d\na: &a [{}]\nb: &b [{}]\nc: [{}]\n---\n",
        "x,".repeat(4000).trim_end_matches(','),
        "*a,".repeat(600).trim_end_matches(','),
        "*b,".repeat(600).trim_end_matches(','),
    )
}

// ---- row 7: YAML that expands --------------------------------------------

#[test]
fn an_alias_bomb_in_a_skill_frontmatter_is_refused_at_its_line_and_the_rest_load() {
    let ws = FixtureWorkspace::new();
    let bomb = alias_bomb();
    assert!((11_000..12_500).contains(&bomb.len()), "{}", bomb.len());
    write_skill(&ws.repo.join(".agent/skills"), "bomb", &bomb);
    let prompt = render(&full_config(&ws));
    let notes = notes(&prompt, "skills_index");
    // The budget runs out while `b` repeats `a`: at the 372nd value of its
    // 4th `*a`, a value written on line 4. So the parser stopped at the
    // 16,384th value (`name`, `description`, the 4,000 of `a` and
    // 3 x 4,000 + 372 of `b`, with their keys and lists), not 1.44 billion.
    let expected = "skipped: .agent/skills/bomb/SKILL.md: bad frontmatter: line 4: b[3][371]: \
                    more than 16384 values once anchors (`&name`) and aliases (`*name`) are \
                    expanded; write the values out instead of repeating them with aliases, \
                    or shorten the document";
    assert!(notes.iter().any(|n| n == expected), "{notes:#?}");
    // The other skills are indexed as before.
    assert!(
        prompt.text().contains("- deploy: Deploy the API"),
        "{}",
        prompt.text()
    );
}

#[test]
fn a_text_alias_bomb_is_refused_by_the_text_budget() {
    // 8 KB of text, repeated 1000 times by one line of aliases: 8 MB.
    let yaml = format!(
        "name: x\ndescription: &d \"{}\"\nmore: [{}]\n",
        "y".repeat(8 * 1024),
        "*d,".repeat(1000).trim_end_matches(',')
    );
    let error = parse_bounded(&yaml, &YamlLimits::FRONTMATTER).unwrap_err();
    assert_eq!(error.limit, Some(YamlLimit::Text));
    // The line of the text that is repeated.
    assert_eq!(error.line, Some(2));
    assert!(
        error
            .to_string()
            .ends_with("more than 64 KiB of text once anchors (`&name`), aliases (`*name`) and tags are expanded; write the text out once instead of repeating it with aliases"),
        "{error}"
    );
}

#[test]
fn a_tag_directive_is_refused_before_it_repeats_its_prefix_on_every_value() {
    // Without aliases: `%TAG` makes each `!e!a` carry the whole 8 KB prefix.
    let yaml = format!(
        "%TAG !e! tag:{}:\n--- {{name: x, description: d, t: [{}]}}\n",
        "p".repeat(8 * 1024),
        "!e!a 1,".repeat(1000)
    );
    let error = parse_bounded(&yaml, &YamlLimits::CONFIG_FILE).unwrap_err();
    assert_eq!(error.limit, Some(YamlLimit::Directive));
    assert_eq!(
        error.to_string(),
        "line 1: a `%` directive (`%TAG`, `%YAML`) is not accepted here; remove the line (or indent it, if it is text)"
    );
}

#[test]
fn deep_nesting_is_refused_before_parsing_flow_and_while_parsing_block() {
    // Flow: the parser's cost grows with depth squared (32,000 `{a: ` took
    // 14 s); 200 KB of it is refused unparsed.
    // The refusal is the scan's (the parser's own says `collections nest
    // deeper`, below), so the parser never sees more than 32 levels: 32
    // parse, 33 are refused by the scan.
    let nested = |depth: usize| format!("a: {}1{}\n", "{a: ".repeat(depth), "}".repeat(depth));
    let error = parse_bounded(&nested(40_000), &YamlLimits::CONFIG_FILE).unwrap_err();
    assert_eq!(error.limit, Some(YamlLimit::Depth));
    assert_eq!(error.to_string(), "line 1: `[` / `{` nest deeper than 32");
    assert!(parse_bounded(&nested(32), &YamlLimits::CONFIG_FILE).is_ok());
    let error = parse_bounded(&nested(33), &YamlLimits::CONFIG_FILE).unwrap_err();
    assert_eq!(error.to_string(), "line 1: `[` / `{` nest deeper than 32");
    // Block: counted as the value is built.
    let block: String = (0..40).map(|i| format!("{}k:\n", "  ".repeat(i))).collect();
    let error = parse_bounded(&block, &YamlLimits::CONFIG_FILE).unwrap_err();
    assert_eq!(error.limit, Some(YamlLimit::Depth));
    assert_eq!(
        error.to_string(),
        format!(
            "line 34: {}: collections nest deeper than 32; flatten the document",
            vec!["k"; 33].join(".")
        )
    );
}

#[test]
fn anchors_and_aliases_within_the_budget_still_parse() {
    let ws = tempfile::tempdir().unwrap();
    let skills = ws.path().join("skills");
    write_skill(
        &skills,
        "tools",
        "---\nname: tools\ndescription: d\nallowed: &t [Bash, Read]\nalso: *t\n---\n",
    );
    let index = SkillIndex::load(
        &[(skills, Root::new(ws.path(), ""))],
        &SkillLimits::default(),
    );
    assert!(index.problems.is_empty(), "{:?}", index.problems);
    let skill = &index.skills[0];
    assert_eq!(skill.extra["also"], serde_json::json!(["Bash", "Read"]));
    assert_eq!(skill.extra["allowed"], skill.extra["also"]);
}

// ---- row 8: many files, one budget ----------------------------------------

/// A valid SKILL.md whose frontmatter is `len` bytes between its `---` lines.
fn skill_of(name: &str, len: usize) -> String {
    let head = format!("name: {name}\ndescription: ");
    let yaml = format!("{head}{}\n", "d".repeat(len - head.len() - 1));
    assert_eq!(yaml.len(), len);
    format!("---\n{yaml}---\nThe body.\n")
}

fn skills_dir(count: usize, text: impl Fn(&str) -> String) -> (tempfile::TempDir, PathBuf) {
    let ws = tempfile::tempdir().unwrap();
    let skills = ws.path().join("skills");
    for i in 0..count {
        let name = format!("s{i:04}");
        write_skill(&skills, &name, &text(&name));
    }
    (ws, skills)
}

#[test]
fn four_thousand_skills_of_16_kb_frontmatter_stop_at_the_total_frontmatter_budget() {
    // Row 8: 4096 valid skills of 15.7 KB frontmatter each (52 s and 1.9 GB before).
    let len = 15_700;
    // Every skill after the 17th has frontmatter that does not parse: one
    // parsed would be a problem in the index.
    let (ws, skills) = skills_dir(4096, |name| {
        if name > "s0016" {
            format!("---\nname: {name}\ndescription: [unclosed\n---\n")
        } else {
            skill_of(name, len)
        }
    });
    let limits = SkillLimits::default();
    let index = SkillIndex::load(&[(skills, Root::new(ws.path(), ""))], &limits);
    // 256 KiB / 15,700 bytes: 16 frontmatters are parsed, the 17th stops the
    // reading, and none after it is parsed.
    let parsed = limits.max_total_frontmatter / len;
    assert_eq!(parsed, 16);
    assert!(index.problems.is_empty(), "{:?}", index.problems);
    assert_eq!(index.skills.len() + index.over_budget.len(), parsed);
    assert_eq!(index.not_indexed, 4096 - parsed);
    assert_eq!(
        index.notes(&limits)[0],
        "stopped at skills/s0016/SKILL.md: the 256 KiB budget of frontmatter for all skills \
         is reached; 4080 of 4096 SKILL.md file(s) not indexed (remove unused skills, or \
         raise the limit)"
    );
}

#[test]
fn each_skill_file_is_read_only_to_its_frontmatter_cap_and_all_share_a_read_budget() {
    // Small frontmatter, 1 MB bodies: each file costs at most SKILL_READ_CAP of reading.
    let (ws, skills) = skills_dir(5, |name| {
        format!(
            "---\nname: {name}\ndescription: d\n---\n{}",
            "b".repeat(1 << 20)
        )
    });
    let limits = SkillLimits::default().max_total_read(2 * SKILL_READ_CAP);
    let index = SkillIndex::load(&[(skills, Root::new(ws.path(), ""))], &limits);
    let names: Vec<&str> = index.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["s0000", "s0001"]);
    assert_eq!(index.not_indexed, 3);
    assert_eq!(
        index.limit_notes,
        [
            "stopped at skills/s0002/SKILL.md: the 34 KiB read budget for all SKILL.md files is \
          reached; 3 of 5 SKILL.md file(s) not indexed (remove unused skills, or raise the limit)"
        ]
    );
}

#[test]
fn the_skills_time_budget_stops_the_reading_with_a_note() {
    let (ws, skills) = skills_dir(3, |name| skill_of(name, 100));
    let limits = SkillLimits::default().max_load_time(Duration::ZERO);
    let index = SkillIndex::load(&[(skills, Root::new(ws.path(), ""))], &limits);
    assert!(index.skills.is_empty());
    assert_eq!(index.not_indexed, 3);
    assert_eq!(
        index.limit_notes,
        [
            "stopped at skills/s0000/SKILL.md: the 0 ms time budget for loading skills is \
          reached; 3 of 3 SKILL.md file(s) not indexed (remove unused skills, or raise the limit)"
        ]
    );
}

#[test]
fn the_total_budget_spans_the_workspace_and_home_skill_folders_and_shows_in_the_trace() {
    let ws = FixtureWorkspace::new();
    for i in 0..40 {
        write_skill(
            &ws.home.join(".agent/skills"),
            &format!("h{i:02}"),
            &skill_of(&format!("h{i:02}"), 15_000),
        );
    }
    let mut config = full_config(&ws);
    config.skills.max_total_frontmatter = 100_000;
    let prompt = render(&config);
    let notes = notes(&prompt, "skills_index");
    // The workspace's skills come first and are small; six 15 KB ones of the
    // home fit after them, then h06..h39 and review are not indexed.
    let stop = notes.iter().find(|n| n.starts_with("stopped at ")).unwrap();
    assert!(
        stop.starts_with(
            "stopped at ~/.agent/skills/h06/SKILL.md: the 97.7 KiB budget of frontmatter for \
             all skills is reached; 35 of 44 SKILL.md file(s) not indexed"
        ),
        "{notes:#?}"
    );
    assert!(prompt.text().contains("- h05: "));
    assert!(!prompt.text().contains("- h06: "));
}

#[test]
fn a_closing_line_cut_by_the_read_cap_is_not_taken_for_the_closing_line() {
    // The opening line's trailing spaces push `---x` across the read cap, so
    // only `---` of it is read. It must not close the frontmatter.
    let opening = format!("---{}\n", " ".repeat(2000));
    let head = "name: cut\ndescription: d\n";
    let pad = SKILL_READ_CAP - 3 - opening.len() - head.len() - 1;
    let yaml = format!("{head}{}\n", "#".repeat(pad));
    let text = format!("{opening}{yaml}---x\n---\nbody\n");
    let cut_at = SKILL_READ_CAP;
    assert_eq!(
        &text[cut_at - 3..cut_at],
        "---",
        "the cap must fall right after `---`"
    );
    let ws = tempfile::tempdir().unwrap();
    let skills = ws.path().join("skills");
    write_skill(&skills, "cut", &text);
    let index = SkillIndex::load(
        &[(skills, Root::new(ws.path(), ""))],
        &SkillLimits::default(),
    );
    assert!(index.skills.is_empty());
    assert_eq!(
        index.problems[0].to_string(),
        "skills/cut/SKILL.md: bad frontmatter: no closing `---` line after the frontmatter"
    );
}

// ---- nested project docs ----------------------------------------------------

fn nested_workspace(depth: usize) -> (tempfile::TempDir, PathBuf) {
    let ws = tempfile::tempdir().unwrap();
    let mut dir = ws.path().to_owned();
    for i in 0..depth {
        dir = dir.join(format!("d{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("AGENTS.md"), "x".repeat(1000)).unwrap();
    }
    (ws, dir)
}

#[test]
fn nested_docs_stop_walking_once_their_budget_is_spent_and_say_how_much_is_left() {
    let (ws, cwd) = nested_workspace(50);
    let config = ProjectDocsConfig::default()
        .nested(true)
        .nested_budget(4000);
    let docs = ProjectDocs::load(&Root::new(ws.path(), ""), &cwd, &config);
    // Three docs of 1000 bytes and their headings, the fourth cut to what is left.
    assert_eq!(docs.docs.len(), 4);
    assert!(docs.docs[3].text.is_truncated());
    assert_eq!(
        docs.limit_notes,
        [
            "stopped at d0/d1/d2/d3/d4: the 3.9 KiB budget of directory-level docs is spent; \
          46 of 50 directories down to the working directory not looked at"
        ]
    );
    assert!(docs.over_budget.is_empty(), "{:?}", docs.over_budget);
}

#[test]
fn the_nested_docs_time_budget_stops_the_walk_with_a_note_in_the_trace() {
    let (ws, cwd) = nested_workspace(3);
    let mut config = SessionConfig::new("agent", ws.path());
    config.cwd = cwd;
    config.project_docs.nested = true;
    config.project_docs.nested_time_budget = Duration::ZERO;
    let prompt = render(&config);
    assert_eq!(
        notes(&prompt, "project_context")[0],
        "stopped at d0: the 0 ms time budget of directory-level docs is spent; 3 of 3 \
         directories down to the working directory not looked at"
    );
}

// ---- the count is exact ------------------------------------------------------

proptest::proptest! {
    /// For chains of anchors and aliases (`a0: &a0 [x, ...]`, `a1: &a1 [*a0, ...]`, ...),
    /// the document parses exactly when its expanded value count is within the
    /// budget, and is refused for values (never for anything else) otherwise.
    #[test]
    fn alias_chains_parse_exactly_when_their_expansion_fits(
        widths in proptest::collection::vec(1usize..12, 1..5),
        max_nodes in 1usize..3000,
    ) {
        let mut yaml = String::new();
        let mut total = 1; // the top mapping
        let mut size = 1; // a value of the level below: first a scalar
        for (i, &n) in widths.iter().enumerate() {
            let item = if i == 0 { "x".to_owned() } else { format!("*a{}", i - 1) };
            yaml.push_str(&format!("a{i}: &a{i} [{}]\n", vec![item; n].join(", ")));
            size = 1 + n * size;
            total += 1 + size; // the key, and the sequence with all it repeats
        }
        let limits = YamlLimits::FRONTMATTER.max_nodes(max_nodes).max_text(usize::MAX);
        match parse_bounded(&yaml, &limits) {
            Ok(_) => proptest::prop_assert!(total <= max_nodes, "{total} > {max_nodes}"),
            Err(error) => {
                proptest::prop_assert!(total > max_nodes, "{total} <= {max_nodes}: {error}");
                proptest::prop_assert_eq!(error.limit, Some(YamlLimit::Nodes));
            }
        }
    }
}
