//! Properties of the threat model over generated inputs: no source puts a
//! control character (other than newline and tab) into the prompt, and no
//! include, literal or computed, reads outside the shared folder.
#![cfg(unix)]

use crate::common;

use std::collections::BTreeMap;

use common::full_config;
use prompt_core::{Context, Pipeline, PromptBuilder};
use prompt_layers::load_session;
use prompt_layers::sources::Templates;
use prompt_tests::FixtureWorkspace;
use proptest::prelude::*;

/// Text with every kind of control character among ordinary ones.
fn hostile_text() -> impl Strategy<Value = String> {
    "[a-z #\n\t\r\u{0}-\u{1f}\u{7f}\u{80}-\u{9f}\u{feff}é語]{0,48}"
}

fn is_unwanted(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn no_source_output_holds_a_control_character(
        agents in hostile_text(),
        memory in hostile_text(),
        fact in hostile_text(),
        skill_name in hostile_text(),
        scratch in hostile_text(),
        dir_name in "[a-z\u{1}-\u{1f}\n]{1,8}",
    ) {
        let ws = FixtureWorkspace::new();
        std::fs::write(ws.repo.join("AGENTS.md"), &agents).unwrap();
        std::fs::write(ws.repo.join(".agent/memory/project.md"), &memory).unwrap();
        let line = serde_json::json!({"text": fact, "created_at": "2026-11-28T00:00:00Z"});
        std::fs::write(ws.repo.join(".agent/memory/facts.jsonl"), format!("{line}\n")).unwrap();
        let skill = ws.repo.join(".agent/skills/gen");
        std::fs::create_dir_all(&skill).unwrap();
        let name = serde_json::to_string(&format!("x{skill_name}")).unwrap();
        std::fs::write(skill.join("SKILL.md"), format!("---\nname: {name}\ndescription: {name}\n---\n")).unwrap();
        let pad = serde_json::json!({ scratch.clone(): scratch });
        std::fs::write(ws.repo.join(".agent/scratchpad.json"), pad.to_string()).unwrap();
        let nested = ws.repo.join("services/api/src").join(&dir_name);
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(nested.join("CLAUDE.md"), &agents).unwrap();

        let mut config = full_config(&ws);
        config.cwd = nested;
        let session = load_session(&config).unwrap();
        let turn = Context::new().with(config.load_scratchpad().unwrap());
        let pipeline = Pipeline::of::<prompt_layers::StandardPipeline>().unwrap();
        let prompt = PromptBuilder::new(&pipeline).build_cached(&session, &turn).unwrap();
        let text = prompt.text();
        prop_assert!(!text.chars().any(is_unwanted), "{:?}", text);
        for note in prompt.trace().layers.iter().flat_map(|l| &l.notes) {
            prop_assert!(!note.chars().any(is_unwanted), "{:?}", note);
        }
    }

    /// Issue 31, rows 1-3 and 6: whatever a JSON or YAML string holds once
    /// its escapes are decoded (controls, bidi, invisible characters,
    /// lookalike tags, newlines and headings), the value out of
    /// `sources::parsed` has no control or invisible character, no file tag
    /// in any spelling, and, unless its key is multi-line, no newline.
    #[test]
    fn parsed_values_are_clean_whatever_their_escapes_decode_to(
        value in "[a-z #<>/\n\t\r\u{0}-\u{1f}\u{7f}\u{85}\u{202e}\u{200b}\u{34f}\u{3164}\u{fe0f}\u{e0041}\u{e0100}\u{ff1c}\u{2c2}\u{1438}\u{2039}\u{338}\u{131}fileFILE]{0,64}",
        multiline in any::<bool>(),
    ) {
        use prompt_layers::sources::parsed::{json, Multiline};
        use prompt_layers::sources::yaml::{from_str_bounded, YamlLimits};
        let lines = if multiline { Multiline(&["body"]) } else { Multiline::NONE };
        let doc = serde_json::json!({"body": value, "list": [value]}).to_string();
        let from_json: BTreeMap<String, serde_json::Value> = json(&doc, lines).unwrap();
        // The same document in YAML, every character a YAML escape.
        let quoted: String = value
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_string() } else if (c as u32) < 0x10000 {
                format!("\\u{:04x}", c as u32)
            } else {
                format!("\\U{:08x}", c as u32)
            })
            .collect();
        let yaml = format!("body: \"{quoted}\"\nlist: [\"{quoted}\"]\n");
        let from_yaml: BTreeMap<String, serde_json::Value> =
            from_str_bounded(&yaml, &YamlLimits::CONFIG_FILE, lines).unwrap();
        for parsed in [from_json, from_yaml] {
            let body = parsed["body"].as_str().unwrap();
            let item = parsed["list"][0].as_str().unwrap();
            for (text, keeps_lines) in [(body, multiline), (item, multiline)] {
                prop_assert!(
                    !text.chars().any(|c| is_unwanted(c) || prompt_core::text::is_invisible(c)),
                    "{:?}", text
                );
                prop_assert!(keeps_lines || !text.contains('\n'), "{:?}", text);
                let tag = text.char_indices().any(|(at, c)| {
                    prompt_core::text::is_angle(c)
                        && prompt_core::text::starts_tag(&text[at + c.len_utf8()..], "file")
                });
                prop_assert!(!tag, "{:?}", text);
            }
        }
    }

    #[test]
    fn includes_never_read_outside_the_shared_folder(
        parts in prop::collection::vec(
            prop::sample::select(vec!["..", ".", "", "a.md", "sub", "b.md", "up", "out.md", "secret.md", "shared", "in", "/"]),
            1..6,
        ),
        prefix in prop::sample::select(vec!["@shared/", "@shared", "", "/", "@shared/./"]),
        computed in any::<bool>(),
    ) {
        let fixture = fixture();
        let name = format!("{prefix}{}", parts.join("/"));
        let source = if computed {
            format!("{{% set f = \"{name}\" %}}{{% include f ignore missing %}}")
        } else {
            format!("{{% include \"{name}\" ignore missing %}}")
        };
        let templates = Templates::new(Some(fixture.shared.clone()));
        if let Ok(text) = templates.render_str("base.md".as_ref(), &source, &BTreeMap::new()) {
            prop_assert!(!text.contains("OUTSIDE"), "{} read {:?}", name, text);
        }
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    shared: std::path::PathBuf,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: std::sync::OnceLock<Fixture> = std::sync::OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let shared = root.join("shared");
        std::fs::create_dir_all(shared.join("sub")).unwrap();
        std::fs::write(shared.join("a.md"), "INSIDE a").unwrap();
        std::fs::write(shared.join("sub/b.md"), "INSIDE b").unwrap();
        std::fs::write(root.join("secret.md"), "OUTSIDE").unwrap();
        std::fs::write(root.join("a.md"), "OUTSIDE").unwrap();
        std::os::unix::fs::symlink(root.join("secret.md"), shared.join("out.md")).unwrap();
        std::os::unix::fs::symlink(&root, shared.join("up")).unwrap();
        std::os::unix::fs::symlink(shared.join("sub"), shared.join("in")).unwrap();
        Fixture { _dir: dir, shared }
    })
}
