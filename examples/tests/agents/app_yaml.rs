//! A hostile kitsoki `app.yaml` (docs/RELIABILITY.md, R7): YAML that expands past
//! its bounds is refused naming the file and the line, before it fills
//! memory; ordinary anchors and aliases still load.

use prompt_examples::agents::kitsoki::{KitsokiError, STORY_FILE_CAP, Story};

/// A story folder holding `app.yaml` = `yaml`.
fn story(yaml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap(); // stop the upward search here
    std::fs::write(dir.path().join("app.yaml"), yaml).unwrap();
    dir
}

fn load_error(yaml: &str) -> String {
    let dir = story(yaml);
    // Unbounded, these take minutes and gigabytes: the refusal below names the
    // bound that stopped the parser, so the work done is bounded by it, not timed.
    let error = Story::load(dir.path(), &[]).unwrap_err();
    assert!(matches!(error, KitsokiError::AppYaml { .. }), "{error:?}");
    let shown = error.to_string();
    // Named as the story names it, never by its absolute path.
    shown
        .strip_prefix("app.yaml: ")
        .unwrap_or_else(|| panic!("{shown}"))
        .to_owned()
}

#[test]
fn a_255_kib_app_yaml_that_repeats_its_context_in_every_persona_is_refused() {
    // 120 KB of context, then as many agents as fit under 256 KiB, each
    // persona an alias of it: 4,500 x 120 KB (1.2 GB before).
    let mut yaml = format!(
        "app:\n  id: s\n  context: &c \"{}\"\nagents:\n",
        "c".repeat(120_000)
    );
    let mut i = 0;
    while yaml.len() + 40 < STORY_FILE_CAP {
        yaml.push_str(&format!("  a{i:05}: {{system_prompt: *c}}\n"));
        i += 1;
    }
    assert!(yaml.len() > 255 * 1024, "{}", yaml.len());
    assert_eq!(
        load_error(&yaml),
        "line 3: agents.a00007.system_prompt: more than 1 MiB of text once anchors (`&name`), \
         aliases (`*name`) and tags are expanded; write the text out once instead of \
         repeating it with aliases"
    );
}

#[test]
fn an_alias_bomb_in_a_key_kitsoki_ignores_is_refused_too() {
    let yaml = format!(
        "app:\n  id: s\nx: &x [{}]\ny: &y [{}]\nz: [{}]\n",
        "v,".repeat(4000).trim_end_matches(','),
        "*x,".repeat(600).trim_end_matches(','),
        "*y,".repeat(600).trim_end_matches(','),
    );
    let error = load_error(&yaml);
    assert!(
        error.starts_with("line 3: y[15][1511]: more than 65536 values once anchors"),
        "{error}"
    );
}

#[test]
fn deep_flow_nesting_in_app_yaml_is_refused_unparsed() {
    let yaml = format!(
        "app:\n  id: s\n  context: {}x{}\n",
        "{a: ".repeat(40_000),
        "}".repeat(40_000)
    );
    assert_eq!(load_error(&yaml), "line 3: `[` / `{` nest deeper than 32");
}

#[test]
fn a_type_error_keeps_its_line_and_path() {
    let yaml = "app:\n  id: s\nagents:\n  guide:\n    inherit_claude_default: maybe\n";
    let error = load_error(yaml);
    assert!(
        error.starts_with("line 5: agents.guide.inherit_claude_default: invalid type: string"),
        "{error}"
    );
}

#[test]
fn ordinary_anchors_and_aliases_still_load() {
    let yaml =
        "app:\n  id: s\nagents:\n  a: {system_prompt: &p Be brief.}\n  b: {system_prompt: *p}\n";
    let dir = story(yaml);
    let loaded = Story::load(dir.path(), &[]).unwrap();
    assert_eq!(loaded.agents["a"].persona, "Be brief.");
    assert_eq!(loaded.agents["b"].persona, "Be brief.");
}
