//! The CLI's options as a new user meets them: `--home`, the user file's
//! name in notes, `--set` for an agent's own settings, `--sub-agent` on
//! recursive, a kitsoki story with only `app.yaml`, `prompt cache` on a model
//! it does not price, and a budget whose notice does not fit.

use crate::common;

use common::{Workspace, command};

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &std::process::Output) -> String {
    assert!(output.status.success(), "{}", stderr(output));
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn home_names_the_folder_whose_app_dir_holds_the_user_file() {
    let ws = Workspace::empty(&[]);
    let home = tempfile::tempdir().unwrap();
    let h = home.path().to_str().unwrap();
    // Absent: the note names it as the README does, under `~`.
    let output = ws.run(&["render", "--app", "ferris", "--home", h, "--trace"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("- ~/.ferris/memory/user.md: absent or empty"),
        "{}",
        stderr(&output)
    );
    // Present in `--home`, not in `HOME` (which the run sets elsewhere).
    std::fs::create_dir_all(home.path().join(".ferris/memory")).unwrap();
    std::fs::write(
        home.path().join(".ferris/memory/user.md"),
        "Prefers small commits.",
    )
    .unwrap();
    let text = stdout(&ws.run(&["render", "--app", "ferris", "--home", h]));
    assert!(
        text.contains(
            "# User preferences\n\n<file path=\"~/.ferris/memory/user.md\">\nPrefers small commits."
        ),
        "{text}"
    );
    let without = stdout(&ws.run(&["render", "--app", "ferris"]));
    assert!(!without.contains("Prefers small commits."), "{without}");
}

#[test]
fn recursive_states_the_coordinator_only_with_sub_agents() {
    let home = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["render", "--agent", "recursive"];
        args.extend(extra);
        stdout(&command(&args, home.path()).output().unwrap())
    };
    let without = run(&[]);
    assert!(!without.contains("## Coordinator workflow"), "{without}");
    let with = run(&["--sub-agent", "tester=Runs the tests."]);
    assert!(with.contains("## Coordinator workflow"), "{with}");
}

#[test]
fn kitsoki_renders_a_story_that_has_only_app_yaml_for_a_chosen_verb_and_agent() {
    let story = tempfile::tempdir().unwrap();
    std::fs::write(
        story.path().join("app.yaml"),
        "app:\n  id: bare\n  context: A bare story.\nagents:\n  \
         keeper:\n    system_prompt: You keep the lighthouse.\n  \
         pilot:\n    system_prompt: You steer the boat.\n",
    )
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let ws = story.path().to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["render", "--agent", "kitsoki", "--workspace", ws];
        args.extend(extra);
        command(&args, home.path()).output().unwrap()
    };
    // No `guide` and no prompts/: the first agent by name, verb `ask`.
    let text = stdout(&run(&[]));
    assert!(text.contains("A bare story."), "{text}");
    assert!(text.contains("You keep the lighthouse."), "{text}");
    let pilot = stdout(&run(&["--set", "agent=pilot", "--set", "verb=decide"]));
    assert!(pilot.contains("You steer the boat."), "{pilot}");
    assert!(!pilot.contains("lighthouse"), "{pilot}");
    assert_ne!(pilot, stdout(&run(&["--set", "agent=pilot"])));

    let unknown = run(&["--set", "agent=nobody"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        stderr(&unknown).contains("the story has no agent `nobody`; its agents: keeper, pilot"),
        "{}",
        stderr(&unknown)
    );
    let verb = run(&["--set", "verb=sing"]);
    assert!(
        stderr(&verb).contains("--set verb: unknown verb `sing`; one of: route, ask"),
        "{}",
        stderr(&verb)
    );
    let key = run(&["--set", "colour=red"]);
    assert_eq!(key.status.code(), Some(2));
    assert!(
        stderr(&key).contains("agent `kitsoki` has no setting `colour`; verb ("),
        "{}",
        stderr(&key)
    );
}

#[test]
fn cache_refuses_a_model_whose_prices_it_does_not_know_and_says_its_unit() {
    let ws = Workspace::empty(&[]);
    // OpenAI's GPT-5 line is priced (OpenAI's multipliers); its older
    // families and other providers are not.
    for model in ["gpt-4o", "gemini-2.5-pro"] {
        let output = ws.run(&["cache", "--turns", "2", "--model", model]);
        assert_eq!(output.status.code(), Some(2), "{model}");
        let err = stderr(&output);
        assert!(
            err.starts_with(&format!(
                "prompt: --model {model}: `prompt cache` simulates Anthropic's prompt cache"
            )),
            "{err}"
        );
        assert!(err.contains("Claude Sonnet 4.5"), "{err}");
        assert!(err.contains("such as gpt-5.6"), "{err}");
        assert!(output.stdout.is_empty());
    }
    let gpt = stdout(&ws.run(&["cache", "--turns", "2", "--model", "gpt-5"]));
    assert!(
        gpt.contains("model gpt-5 (OpenAI GPT-4o and later), TTL 24h"),
        "{gpt}"
    );
    assert!(gpt.contains("cache write 1.00x, cache read 0.10x"), "{gpt}");
    let text = stdout(&ws.run(&["cache", "--turns", "2"]));
    assert!(text.contains("model claude-sonnet-4-5"), "{text}");
    assert!(text.contains("cost (tok-eq)"), "{text}");
    assert!(
        text.contains("cost is in input-token equivalents"),
        "{text}"
    );
}

#[test]
fn a_budget_the_stable_prefix_fits_never_fails_because_of_the_notice() {
    let ws = Workspace::empty(&[]);
    ws.write("AGENTS.md", "Run `make test` before you commit.");
    let json: serde_json::Value =
        serde_json::from_slice(&ws.run(&["render", "--format", "json"]).stdout).unwrap();
    let stable = json["parts"][0]["content"].as_str().unwrap().to_owned();
    assert_eq!(json["parts"][0]["cache"], true);
    let chars = stable.chars().count();
    // Room for the stable prefix, not for the notice beside it.
    let budget = (chars + 20).to_string();
    let output = ws.run(&["render", "--budget-chars", &budget, "--trace"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        String::from_utf8(output.stdout.clone()).unwrap(),
        stable + "\n"
    );
    assert!(
        stderr(&output).contains("; shed scratchpad, runtime_context")
            || stderr(&output).contains("; shed runtime_context"),
        "{}",
        stderr(&output)
    );
    // Below the stable prefix it is the error naming the prefix, as before.
    let under = ws.run(&["render", "--budget-chars", &(chars - 1).to_string()]);
    assert_eq!(under.status.code(), Some(1));
    assert!(stderr(&under).contains("the stable prefix alone measures"));
}
