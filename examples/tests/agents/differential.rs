//! Differential tests: the reference agents against outputs their real
//! counterparts' own code produced for the same input files, with this
//! project's built-in texts in place of theirs.
//!
//! Each case is a folder under `tests/agents/differential/<agent>/`: the
//! input files, and `expected.txt`, the real agent's output. Only the inputs
//! and those outputs are checked in; how they were produced (and at which
//! upstream commit) is in CONTRIBUTING.md, "Differential tests". Every
//! difference the reproduction makes on purpose is applied to the expected
//! text here by one function per row of the agent's divergence table, so a
//! difference that is not in the table fails the test.

use std::path::{Path, PathBuf};

use prompt_core::AssemblyPath;
use prompt_examples::agents::kitsoki;
use prompt_examples::agents::recursive::{self, BaseFold, RecursiveConfig};
use prompt_layers::sources::__private::cut;
use prompt_layers::sources::clean;
use prompt_layers::sources::{CappedText, fence};

fn cases(agent: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/agents/differential")
        .join(agent);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    cases
}

/// A case's folder copied to a temporary one, with the real files its
/// `real.txt` names (from `tests/fixtures/real`) put in place.
fn materialise(case: &Path) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(case, tmp.path());
    std::fs::create_dir_all(tmp.path().join("workspace")).unwrap();
    if let Ok(list) = std::fs::read_to_string(case.join("real.txt")) {
        let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/real");
        for line in list.lines().filter(|l| !l.trim().is_empty()) {
            let (to, from) = line.split_once(' ').unwrap();
            let to = tmp.path().join(to);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(real.join(from), to).unwrap();
        }
    }
    tmp
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// recursive's divergence row "file text is fenced": the real agent writes
/// a file's kept bytes raw (and, for a cut project doc, a straddling
/// character as U+FFFD); here they are cleaned and fenced under the file's
/// name, a straddling character dropped whole.
fn fence_file(expected: &str, file: &Path, name: &str, cap: usize) -> String {
    let Ok(bytes) = std::fs::read(file) else {
        return expected.to_owned();
    };
    if bytes.is_empty() {
        return expected.to_owned();
    }
    let upstream_kept = String::from_utf8_lossy(&bytes[..bytes.len().min(cap)]).into_owned();
    let text = String::from_utf8(bytes).unwrap();
    let ours = fence(name, cut(&text, cap));
    assert!(
        expected.contains(&upstream_kept),
        "{name}'s kept text is not in the expected output"
    );
    expected.replacen(&upstream_kept, &ours, 1)
}

#[test]
fn recursive_matches_its_real_assembly_but_for_its_table() {
    let cases = cases("recursive");
    assert_eq!(cases.len(), 24, "every recursive case is here");
    let mut failures = Vec::new();
    for case in &cases {
        let tmp = materialise(case);
        let root = tmp.path();
        let home = root.join("home");
        let config = RecursiveConfig {
            workspace: root.join("workspace"),
            home: home.is_dir().then_some(home.clone()),
            sub_agents: !case.join("sub_agents_off").exists(),
            summary_limit: recursive::SUMMARY_LIMIT,
            // The case's home stands for the user's own, as recursive reads it.
            home_is_users: true,
            workspace_dir: None,
            fixture: None,
        };
        // A case's scratchpad goes where recursive keeps it: under the
        // user's folder, in the folder named by the workspace's hash (the
        // harness placed it with recursive's own path functions).
        if let (Ok(pad), Some(to)) = (
            std::fs::read(case.join("scratchpad.json")),
            config.scratchpad_file(),
        ) {
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::write(to, pad).unwrap();
        }
        // Its session folders likewise, under `<that folder>/sessions/`.
        if case.join("sessions").is_dir() {
            let to = config.workspace_folder().unwrap().join("sessions");
            std::fs::create_dir_all(&to).unwrap();
            copy_dir(&case.join("sessions"), &to);
        }
        let fold = BaseFold {
            replacement: std::fs::read_to_string(case.join("system_prompt.txt")).ok(),
            append: std::fs::read_to_string(case.join("append.txt")).ok(),
        };
        let prompt = recursive::assemble(&config, &fold, AssemblyPath::Basic)
            .unwrap()
            .prompt;
        let ours = prompt.text();
        // Row 8: as in recursive, the skill index is not in the system
        // prompt (`expected.txt` has none) but in the per-turn reminder.
        let has_skills = root.join("workspace/.recursive/skills").is_dir()
            || home.join(".claude/skills").is_dir();
        assert_eq!(
            prompt
                .reminder()
                .is_some_and(|r| r.starts_with("# Available skills\n\n\n")),
            has_skills,
            "{}",
            case.display()
        );
        let mut expected = std::fs::read_to_string(case.join("expected.txt")).unwrap();
        let ws = root.join("workspace");
        for (file, name, cap) in [
            (
                ws.join("AGENTS.md"),
                "AGENTS.md",
                recursive::PROJECT_DOC_CAP,
            ),
            (
                ws.join("CLAUDE.md"),
                "CLAUDE.md",
                recursive::PROJECT_DOC_CAP,
            ),
            (
                home.join(".recursive/memory/user.md"),
                "~/.recursive/memory/user.md",
                recursive::MEMORY_CAP,
            ),
            (
                ws.join(".recursive/memory/project.md"),
                ".recursive/memory/project.md",
                recursive::MEMORY_CAP,
            ),
        ] {
            if fold.replacement.is_some() && cap == recursive::MEMORY_CAP {
                continue; // a replaced base has no memory sections
            }
            expected = fence_file(&expected, &file, name, cap);
        }
        // Row 10: the framework's rule on quotes opens the prompt.
        let expected = format!("{}\n\n{expected}", prompt_layers::QUOTED_FILES_RULE);
        if ours != expected {
            failures.push(format!(
                "{}:\n--- expected\n{expected}\n--- ours\n{ours}\n",
                case.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// kitsoki's call of a case: `call.txt` holds `VERB AGENT`.
fn kitsoki_call(case: &Path) -> kitsoki::Call {
    let call = std::fs::read_to_string(case.join("call.txt")).unwrap();
    let (verb, agent) = call.trim().split_once(' ').unwrap();
    kitsoki::Call {
        verb: verb.parse().unwrap(),
        agent: agent.to_owned(),
        system_prompt: None,
        prompt: None,
        args: Default::default(),
    }
}

/// kitsoki's divergence rows, applied to kitsoki's output: the story's text
/// is cleaned (row "cleaned"), and a project layer over the cap is cut with
/// the standard marker (row "cut").
fn kitsoki_rows(expected: &str, call: &kitsoki::Call, persona: &str) -> String {
    let (expected, _) = clean(expected);
    let separator = kitsoki::SEPARATOR;
    let task = [call.verb.contract(), persona.trim()]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    let Some((framework, rest)) = expected.split_once(separator) else {
        return expected;
    };
    let project = if task.is_empty() {
        rest
    } else {
        match rest.strip_suffix(&format!("{separator}{task}")) {
            Some(project) => project,
            None => return expected,
        }
    };
    if project.len() <= kitsoki::PROJECT_CAP {
        return expected;
    }
    let capped = CappedText::from_text("the project context", project, kitsoki::PROJECT_CAP);
    let mut out = format!("{framework}{separator}{}", capped.render());
    if !task.is_empty() {
        out.push_str(separator);
        out.push_str(&task);
    }
    out
}

#[test]
fn kitsoki_matches_its_real_composition_but_for_its_table() {
    let cases = cases("kitsoki");
    assert_eq!(cases.len(), 29, "every kitsoki case is here");
    let mut failures = Vec::new();
    for case in &cases {
        let tmp = materialise(case);
        let story = kitsoki::Story::load(&tmp.path().join("story"), &[]).unwrap();
        let call = kitsoki_call(case);
        let persona = story
            .agents
            .get(&call.agent)
            .map(|a| a.persona.clone())
            .unwrap_or_default();
        let ours = kitsoki::compose(&story, &call, AssemblyPath::Basic)
            .unwrap()
            .system_prompt;
        let raw = std::fs::read_to_string(case.join("expected.txt")).unwrap();
        let expected = kitsoki_rows(&raw, &call, &persona);
        if ours != expected {
            failures.push(format!(
                "{}:\n--- expected\n{expected}\n--- ours\n{ours}\n",
                case.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The rows of the table that follows `heading` in `text`, each line with
/// `prefix` taken off first (`//! ` for module docs).
fn table_after(text: &str, heading: &str, prefix: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.strip_prefix(prefix).unwrap_or(l))
        .skip_while(|l| *l != heading)
        .skip(1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .map(str::to_owned)
        .collect()
}

/// One divergence table per agent: docs/reference-agents.md holds the same
/// rows as the agent's module docs.
#[test]
fn the_divergence_tables_in_docs_are_the_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("../docs/reference-agents.md")).unwrap();
    for (agent, name) in [
        ("recursive", "recursive"),
        ("kitsoki", "kitsoki"),
        ("aleph", "Aleph"),
    ] {
        let module =
            std::fs::read_to_string(root.join(format!("src/agents/{agent}/mod.rs"))).unwrap();
        let in_module = table_after(&module, &format!("# Divergences from {name}"), "//! ");
        let in_docs = table_after(&docs, &format!("## {agent}"), "");
        assert!(in_module.len() > 2, "{agent}: no table in its module docs");
        assert_eq!(
            in_docs, in_module,
            "{agent}: docs/reference-agents.md differs"
        );
    }
}
