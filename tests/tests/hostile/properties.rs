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
        let pipeline = Pipeline::collect().unwrap();
        let prompt = PromptBuilder::new(&pipeline).build_cached(&session, &turn).unwrap();
        let text = prompt.text();
        prop_assert!(!text.chars().any(is_unwanted), "{:?}", text);
        for note in prompt.trace().layers.iter().flat_map(|l| &l.notes) {
            prop_assert!(!note.chars().any(is_unwanted), "{:?}", note);
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
