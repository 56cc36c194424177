//! docs/RELIABILITY.md's R10-R12 and the CLI weak items: every subcommand is as
//! hardened as `render`. `prompt diff` reads only regular files, without
//! blocking, up to a cap, checks every number, escapes what it prints;
//! `--app`, `--model` and `--date` are checked at parsing and never echoed
//! raw; `render --check-secrets` finds secrets where the layers put them.

use crate::common;

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use common::{Workspace, command};

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Neither stream holds a byte that drives a terminal (ESC, BEL, CSI) or a
/// bidi override.
fn assert_inert(output: &Output) {
    for text in [stdout(output), stderr(output)] {
        assert!(
            !text.contains(['\x1b', '\x07', '\u{9b}', '\u{202e}']),
            "raw control reached the terminal: {text:?}"
        );
    }
}

/// `prompt <args>` with `HOME` at `home`, killed (and the test failed) if it
/// runs longer than `limit`: a read that blocks is a failure, not a hang.
fn run_within(args: &[&str], home: &Path, limit: Duration) -> Output {
    let mut child = command(args, home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the prompt binary runs");
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("`prompt {}` still ran after {limit:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A workspace with one AGENTS.md, rendered as JSON: the input of `prompt diff`.
fn rendered_json(ws: &Workspace) -> serde_json::Value {
    ws.write("AGENTS.md", "Run the tests.\nKeep commits small.\n");
    let output = ws.run(&["render", "--format", "json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn write_json(ws: &Workspace, name: &str, value: &serde_json::Value) -> String {
    let path = ws.dir.path().join(name);
    std::fs::write(&path, serde_json::to_string(value).unwrap()).unwrap();
    path.display().to_string()
}

/// Row 10: a layer name holding OSC 52 (clipboard write), clear-screen and
/// a bidi override, and a changed line holding the same: printed escaped.
#[test]
fn diff_prints_a_hostile_layer_name_and_line_escaped() {
    let ws = Workspace::empty(&[]);
    let clean = rendered_json(&ws);
    let mut hostile = clean.clone();
    let evil = "base\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u{202e}";
    hostile["trace"]["layers"][0]["name"] = evil.into();
    let a = write_json(&ws, "a.json", &hostile);
    let b = write_json(&ws, "b.json", &clean);

    // The same bytes inside a changed line of the layer's text.
    let mut changed = clean.clone();
    let content = changed["parts"][0]["content"].as_str().unwrap().to_owned();
    let new = content.replacen("Run the tests.", "Run \x1b]52;c;eA==\x07 tests", 1);
    assert_ne!(new, content, "the fixture holds the line");
    let grown = new.len() - content.len();
    changed["parts"][0]["content"] = new.into();
    let layers = changed["trace"]["layers"].as_array_mut().unwrap();
    let docs = layers
        .iter_mut()
        .find(|l| l["name"] == "project_context")
        .unwrap();
    docs["bytes"] = (docs["bytes"].as_u64().unwrap() + grown as u64).into();
    let c = write_json(&ws, "c.json", &changed);
    let output = command(&["diff", &b, &c], ws.home.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_inert(&output);
    assert!(
        stdout(&output).contains(r#"  B: "Run \u{1b}]52;c;eA==\u{7} tests""#),
        "{}",
        stdout(&output)
    );

    // A names its first layer with the hostile bytes; B's text differs, so
    // the report names that layer.
    let output = command(&["diff", &a, &c], ws.home.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_inert(&output);
    assert!(
        stdout(&output).contains(
            r"first changed Stable layer: `base\u{1b}]52;c;cm0gLXJmIH4=\u{7}\u{1b}[2J\u{202e}` (it speaks only in A)"
        ),
        "{}",
        stdout(&output)
    );
}

/// Row 11: `"bytes": 18446744073709551615` (and a sum that wraps) is an
/// error naming the file and the field, exit 2; no panic.
#[test]
fn diff_refuses_byte_counts_that_overflow_naming_the_field() {
    let ws = Workspace::empty(&[]);
    let clean = rendered_json(&ws);
    let a = write_json(&ws, "a.json", &clean);
    for (index, bytes) in [(0, u64::MAX), (1, u64::MAX - 10)] {
        let mut hostile = clean.clone();
        hostile["trace"]["layers"][index]["bytes"] = bytes.into();
        let b = write_json(&ws, "b.json", &hostile);
        let output = command(&["diff", &a, &b], ws.home.path()).output().unwrap();
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(
            err.starts_with(&format!(
                "prompt: {b}: `trace.layers[{index}].bytes` (layer `"
            )),
            "{err}"
        );
        assert!(
            err.contains(&format!(
                "is {bytes}, which with the layers before it exceeds the"
            )),
            "{err}"
        );
    }
}

/// Weak item: `prompt diff` on a FIFO no writer opens returned at once
/// (it used to wait forever), refusing it as not a regular file.
#[cfg(unix)]
#[test]
fn diff_refuses_a_fifo_without_blocking() {
    let ws = Workspace::empty(&[]);
    let a = write_json(&ws, "a.json", &rendered_json(&ws));
    let fifo = ws.dir.path().join("b.json");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let fifo = fifo.display().to_string();
    let output = run_within(
        &["diff", &a, &fifo],
        ws.home.path(),
        Duration::from_secs(20),
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!(
            "prompt: `{fifo}` is not a regular file (a directory, FIFO, socket or device): \
             pass the file `prompt render --format json` wrote\n"
        )
    );
}

/// Weak item: a 3 GiB file (sparse: no disk used) is refused from its size,
/// naming the file and the cap, without reading it.
#[test]
fn diff_refuses_a_file_over_the_cap_without_reading_it() {
    let ws = Workspace::empty(&[]);
    let a = write_json(&ws, "a.json", &rendered_json(&ws));
    let huge = ws.dir.path().join("huge.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let huge = huge.display().to_string();
    // The refusal names the size from the file's metadata: nothing of it was read.
    let output = run_within(
        &["diff", &a, &huge],
        ws.home.path(),
        Duration::from_secs(20),
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        format!(
            "prompt: `{huge}` is 3221225472 bytes, over the 67108864-byte cap of `prompt diff`: \
             pass the file `prompt render --format json` wrote\n"
        )
    );
}

/// A directory and a character device are refused the same way; `/dev/zero`
/// (endless) is never read.
#[test]
fn diff_refuses_a_directory_and_a_device() {
    let ws = Workspace::empty(&[]);
    let a = write_json(&ws, "a.json", &rendered_json(&ws));
    let dir = ws.dir.path().display().to_string();
    let mut others = vec![dir];
    if cfg!(unix) {
        others.push("/dev/zero".to_owned());
    }
    for other in &others {
        let output = run_within(
            &["diff", &a, other],
            ws.home.path(),
            Duration::from_secs(20),
        );
        assert_eq!(output.status.code(), Some(2), "{other}");
        assert!(
            stderr(&output).contains(&format!("`{other}` is not a regular file")),
            "{}",
            stderr(&output)
        );
    }
}

/// Weak item: `--model` / `--date` holding OSC 52 or a bidi override used to
/// reach the terminal raw in `--trace` and `prompt cache`. Now refused at
/// parsing (exit 2), the value shown escaped and cut, nothing rendered.
#[test]
fn model_and_date_with_terminal_escapes_are_refused_at_parsing() {
    let ws = Workspace::empty(&[]);
    let osc = "m\x1b]52;c;cm0gLXJmIH4=\x07";
    let cases: [(&[&str], &str); 4] = [
        (&["render", "--trace", "--model", osc], "--model"),
        (&["cache", "--turns", "2", "--model", osc], "--model"),
        (
            &["render", "--trace", "--date", "2026\u{202e}-11-29"],
            "--date",
        ),
        (&["size", "--date", "x\x1b[2J"], "--date"),
    ];
    for (args, flag) in cases {
        let mut all = vec![args[0], "--workspace", "."];
        all.extend(&args[1..]);
        let output = command(&all, ws.home.path())
            .current_dir(ws.dir.path())
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(stdout(&output).is_empty(), "{args:?}");
        assert_inert(&output);
        let err = stderr(&output);
        assert!(err.starts_with(&format!("error: {flag}: got `")), "{err}");
        assert!(err.contains("control or invisible character U+"), "{err}");
        assert!(err.contains("one line of at most"), "{err}");
    }
}

/// Weak item: `--app` of 100,000 characters was accepted (800 KB of
/// warnings); now each over-long argument is one short error that says
/// what a valid value looks like.
#[test]
fn overlong_arguments_are_one_short_error() {
    let ws = Workspace::empty(&[]);
    let long = "a".repeat(100_000);
    for (flag, limit) in [("--app", 64), ("--model", 128), ("--date", 64)] {
        let output = command(&["render", "--workspace", ".", flag, &long], ws.home.path())
            .current_dir(ws.dir.path())
            .output()
            .unwrap();
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{flag}");
        assert!(err.len() < 600, "{flag}: {} bytes of error", err.len());
        assert!(
            err.starts_with(&format!(
                "error: {flag}: got `{}`... (100000 characters)",
                "a".repeat(32)
            )),
            "{err}"
        );
        assert!(err.contains(&format!("{limit}")), "{err}");
    }
    // The limits themselves pass.
    let output = ws.run(&[
        "render",
        "--app",
        &"a".repeat(64),
        "--model",
        &"m".repeat(128),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
}

/// `--app` with a leading dot (the folder would be `..ferris`), a path
/// separator, or nothing but dots is refused at parsing, saying what a
/// valid name looks like; a dotted name is answered with the name to pass.
#[test]
fn app_with_a_leading_dot_or_a_separator_is_refused_at_parsing() {
    let ws = Workspace::empty(&[]);
    let output = ws.run(&["render", "--app=.ferris"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.starts_with(
            "error: --app: got `.ferris`: the folders are `.<app>`, so this would read \
             `..ferris`; pass the name without its dot: `--app ferris`"
        ),
        "{err}"
    );
    for app in ["a/b", "a\\b", "..", "", "-x"] {
        let output = ws.run(&["render", &format!("--app={app}")]);
        assert_eq!(output.status.code(), Some(2), "{app:?}");
        let err = stderr(&output);
        assert!(
            err.starts_with(&format!(
                "error: --app: got `{app}`; an app name is a plain folder name"
            )),
            "{err}"
        );
        assert!(err.contains("no leading dot and no `/`"), "{err}");
        assert!(
            err.contains("(e.g. `agent`, whose folders are `.agent`)"),
            "{err}"
        );
    }
}

/// Row 12: a fact, the scratchpad, a list item and prose in AGENTS.md, and a
/// connection string; `--check-secrets` used to pass them all. Now each is
/// named with its layer and the prompt is not printed; `--redact` prints it
/// with none of them.
#[test]
fn check_secrets_finds_secrets_where_the_layers_put_them() {
    let ws = Workspace::empty(&[]);
    ws.write(
        ".agent/memory/facts.jsonl",
        "{\"text\": \"DB_PASSWORD=Fact5ecretPw\", \"created_at\": \"2026-11-01T00:00:00Z\"}\n",
    );
    ws.write(
        ".agent/scratchpad.json",
        r#"{"db_password": "Pad5ecretPw"}"#,
    );
    ws.write(
        "AGENTS.md",
        "# Rules\n\n- DB_PASSWORD=List5ecretPw\n\nDeploy with AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY set.\n\nDATABASE_URL=postgres://admin:S3cret@db.internal:5432/app\n",
    );
    let secrets = [
        "Fact5ecretPw",
        "Pad5ecretPw",
        "List5ecretPw",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "S3cret@",
    ];
    let plain = ws.run(&["render"]);
    assert!(plain.status.success(), "{}", stderr(&plain));
    for secret in secrets {
        assert!(
            stdout(&plain).contains(secret),
            "the fixture renders {secret}"
        );
    }

    let checked = ws.run(&["render", "--check-secrets"]);
    assert_eq!(checked.status.code(), Some(1));
    assert!(stdout(&checked).is_empty(), "the prompt is not printed");
    let err = stderr(&checked);
    let layers: Vec<&str> = err
        .lines()
        .filter_map(|l| l.strip_prefix("          in layer "))
        .collect();
    assert_eq!(
        layers,
        [
            "project_context",
            "project_context",
            "project_context",
            "facts",
            "scratchpad"
        ],
        "{err}"
    );
    assert_eq!(
        err.matches("connection string password at bytes").count(),
        1,
        "{err}"
    );
    assert_eq!(
        err.matches("secret assignment at bytes").count(),
        4,
        "{err}"
    );
    assert!(err.contains("holds 5 credential-shaped string(s)"), "{err}");

    let redacted = ws.run(&["render", "--check-secrets", "--redact"]);
    assert!(redacted.status.success(), "{}", stderr(&redacted));
    let out = stdout(&redacted);
    for secret in secrets {
        assert!(!out.contains(secret), "{secret} left in:\n{out}");
    }
    assert!(
        out.contains("postgres://admin:[REDACTED connection string password]@db.internal"),
        "{out}"
    );
}

/// Round four, issue 38: `prompt diff a.json b.json` in a repository whose
/// `b.json` is a symlink to a file of the user's (a token file holding one
/// JSON string) followed the link and echoed the value in its parse error
/// (`invalid type: string "sk-..."`). The files are read through the roots:
/// a link out of the current folder, or a folder of the path that leads out
/// of it, is refused by name, exit 2, and no byte of the file is printed; a
/// link that stays inside is read.
#[cfg(unix)]
#[test]
fn diff_refuses_a_repository_link_out_and_prints_nothing_of_its_target() {
    const TOKEN: &str = "sk-ant-api03-diff-link-token";
    let ws = Workspace::empty(&[]);
    let a = rendered_json(&ws);
    write_json(&ws, "a.json", &a);
    let theirs = ws.home.path().join(".config/tool");
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(theirs.join("b.json"), format!("\"{TOKEN}\"")).unwrap();
    std::os::unix::fs::symlink(theirs.join("b.json"), ws.dir.path().join("b.json")).unwrap();
    std::os::unix::fs::symlink(&theirs, ws.dir.path().join("reports")).unwrap();
    for (b, expected) in [
        (
            "b.json",
            "prompt: `b.json` is refused: it leads outside its folder through the symlink b.json; \
             a repository may not choose where its files point (pass the real file)",
        ),
        (
            "reports/b.json",
            "prompt: `reports/b.json` is refused: its folder leads outside the current folder \
             through the symlink reports; a repository may not choose where its files point \
             (pass the real file)",
        ),
    ] {
        let output = command(&["diff", "a.json", b], ws.home.path())
            .current_dir(ws.dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{b}");
        assert_eq!(stderr(&output).trim_end(), expected);
        let printed = stdout(&output) + &stderr(&output);
        assert!(!printed.contains("sk-ant"), "{printed}");
        assert!(!printed.contains(".config"), "{printed}");
    }
    // A link that stays in the current folder is read.
    std::os::unix::fs::symlink("a.json", ws.dir.path().join("latest.json")).unwrap();
    let output = command(&["diff", "a.json", "latest.json"], ws.home.path())
        .current_dir(ws.dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}
