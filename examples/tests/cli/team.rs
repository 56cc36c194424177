//! `prompt cache --users N`: a team over one workspace holding sentry's
//! AGENTS.md (a real 8 KiB project doc, the README's figures), with and
//! without scope order.

use crate::common;
use common::Workspace;

fn sentry() -> Workspace {
    let ws = Workspace::empty(&[]);
    let agents = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/real/agents/getsentry__sentry__AGENTS.md");
    ws.write("AGENTS.md", &std::fs::read_to_string(agents).unwrap());
    ws
}

#[test]
fn ten_teammates_read_the_project_part_and_save_tokens_and_dollars() {
    let ws = sentry();
    let output = ws.run(&["cache", "--users", "10", "--json"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let users = report["users"].as_array().unwrap();
    assert_eq!(users.len(), 10);
    let n = |v: &serde_json::Value| v.as_u64().unwrap();
    // The first teammate writes everything either way.
    assert_eq!(
        n(&users[0]["scoped"]["tokens_written"]),
        n(&users[0]["unscoped"]["tokens_written"])
    );
    assert_eq!(n(&users[0]["scoped"]["tokens_read"]), 0);
    for user in &users[1..] {
        // Every later one reads the Global + Project part (sentry's 8 KiB
        // AGENTS.md, over 90% of the prefix) and writes only its own part...
        let (read, written) = (
            n(&user["scoped"]["tokens_read"]),
            n(&user["scoped"]["tokens_written"]),
        );
        assert!(read > 9 * written, "{user}");
        // ...where one breakpoint at the end has it write the whole prefix again.
        assert_eq!(n(&user["unscoped"]["tokens_read"]), 0);
        assert_eq!(n(&user["unscoped"]["tokens_written"]), read + written);
    }
    let saved = report["tokens_saved"].as_i64().unwrap();
    assert_eq!(saved as u64, 9 * n(&users[1]["scoped"]["tokens_read"]));
    let usd_saved = report["usd_saved"].as_f64().unwrap();
    let unscoped_usd = report["unscoped"]["usd"].as_f64().unwrap();
    assert!(
        usd_saved > 0.7 * unscoped_usd,
        "{usd_saved} of {unscoped_usd}"
    );

    let text = ws.run(&["cache", "--users", "10"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("10 teammates who differ only in a one-line ~/.agent/memory/user.md"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "scope order saves {saved} tokens written and USD {usd_saved:.5}"
        )),
        "{text}"
    );
}

#[test]
fn a_prefix_below_the_minimum_saves_nothing_and_users_excludes_turns() {
    let ws = Workspace::empty(&[]);
    ws.write("AGENTS.md", "Run make check.\n");
    let output = ws.run(&["cache", "--users", "3", "--json"]);
    assert!(output.status.success());
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["tokens_saved"], 0);
    assert_eq!(report["scoped"]["tokens_written"], 0);
    assert_eq!(report["scoped"], report["unscoped"]);

    let both = ws.run(&["cache", "--users", "3", "--turns", "2"]);
    assert_eq!(both.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&both.stderr).contains("cannot be used with"));
}

#[test]
fn diff_says_two_teammates_differ_only_below_project() {
    let ws = sentry();
    let render = |line: &str, out: &str| {
        let memory = ws.home.path().join(".agent/memory");
        std::fs::create_dir_all(&memory).unwrap();
        std::fs::write(memory.join("user.md"), line).unwrap();
        let output = ws.run(&["render", "--format", "json"]);
        assert!(output.status.success());
        std::fs::write(ws.dir.path().join(out), output.stdout).unwrap();
    };
    render("Answer in English.\n", "a.json");
    render("Answer in German.\n", "b.json");
    let output = common::command(&["diff", "a.json", "b.json"], ws.home.path())
        .current_dir(ws.dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("first changed Stable layer: `user_preferences`"),
        "{text}"
    );
    assert!(
        text.contains("they differ only below scope Project"),
        "{text}"
    );
}

/// A price that is not a finite number at or above zero is refused before
/// any rendering, naming the option and the value, instead of printing
/// `USD NaN` (or negative savings) in every row.
#[test]
fn a_price_that_is_not_a_price_is_refused_with_a_message() {
    let ws = Workspace::empty(&[]);
    ws.write("AGENTS.md", "Run make check.\n");
    for (value, why) in [
        ("NaN", "is not a number"),
        ("inf", "is not a number"),
        ("-infinity", "is not a number"),
        ("-1", "is negative"),
        ("three", "not a number"),
    ] {
        let output = ws.run(&["cache", "--users", "2", &format!("--usd-per-mtok={value}")]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{value}: {stderr}");
        assert!(output.stdout.is_empty(), "{value}");
        assert!(stderr.contains("--usd-per-mtok"), "{value}: {stderr}");
        assert!(stderr.contains(why), "{value}: {stderr}");
        assert!(!stderr.contains("USD NaN"), "{value}: {stderr}");
    }
    // A negative number after a space is the option's value, not a flag.
    let spaced = ws.run(&["cache", "--users", "2", "--usd-per-mtok", "-1"]);
    assert!(String::from_utf8_lossy(&spaced.stderr).contains("is negative"));
    // Zero is a price (a free tier, or a self-hosted model).
    let free = ws.run(&["cache", "--users", "2", "--usd-per-mtok", "0"]);
    assert!(
        free.status.success(),
        "{}",
        String::from_utf8_lossy(&free.stderr)
    );
}

/// `--users` with `--agent` says why not and what to run instead, and
/// `--help` says so before anyone tries.
#[test]
fn users_with_an_agent_says_why_not_and_help_says_so_too() {
    let ws = Workspace::empty(&[]);
    let output = ws.run(&["cache", "--users", "2", "--agent", "recursive"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--users simulates teammates who differ in the standard")
            && stderr.contains("agent `recursive` does not read")
            && stderr.contains("--pipeline recursive"),
        "{stderr}"
    );
    let guide = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/delivery.md"),
    )
    .unwrap();
    assert!(
        guide.contains("`cache --users` refuses `--agent`") && guide.contains("`--pipeline NAME`"),
        "docs/delivery.md says what the CLI does"
    );
    let help = ws.run(&["cache", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("With `--pipeline` only, not `--agent`"),
        "{help}"
    );
}
