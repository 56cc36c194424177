//! The whole-CLI hostile-repository sweep: a repository whose every file an
//! agent reads is a link into the user's home (`~/.ssh`) or to the process's
//! own environment (`/proc/self`), run through every subcommand, every output
//! format, every reference agent and the default pipeline, with a secret in
//! the environment. Nothing from the fake home and no environment value may
//! reach stdout or stderr, nothing may panic, and nothing may hang.
//!
//! Each attack also has its own focused test next to the fix; this sweep is
//! the net that catches a path around all of them.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::command;

/// In every file of the fake `~/.ssh`.
const HOME_CANARY: &str = "CANARYHOME7F3A9Q";
/// In the environment the CLI runs with.
const ENV_CANARY: &str = "CANARYENV51C2EZ";

/// Where every file an agent may read lives, under the fake home, each
/// holding [`HOME_CANARY`] in a form its parser accepts (so a leak is not
/// hidden behind a parse error).
const SECRET_FILES: &[(&str, &str)] = &[
    (
        "id_rsa",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nCANARYHOME7F3A9Q\n-----END OPENSSH PRIVATE KEY-----\n",
    ),
    ("AGENTS.md", "# Secret\nCANARYHOME7F3A9Q\n"),
    ("CLAUDE.md", "CANARYHOME7F3A9Q\n"),
    ("SOUL.md", "CANARYHOME7F3A9Q\n"),
    ("IDENTITY.md", "CANARYHOME7F3A9Q\n"),
    ("TOOLS.md", "CANARYHOME7F3A9Q\n"),
    ("HEARTBEAT.md", "CANARYHOME7F3A9Q\n"),
    ("MEMORY.md", "CANARYHOME7F3A9Q\n"),
    ("user.md", "CANARYHOME7F3A9Q\n"),
    ("project.md", "CANARYHOME7F3A9Q\n"),
    ("system-prompt.md", "CANARYHOME7F3A9Q\n"),
    ("voice.md", "CANARYHOME7F3A9Q\n"),
    ("narrate.md", "CANARYHOME7F3A9Q\n"),
    ("_project.md", "CANARYHOME7F3A9Q\n"),
    (
        "SKILL.md",
        "---\nname: leak\ndescription: CANARYHOME7F3A9Q\n---\nCANARYHOME7F3A9Q\n",
    ),
    (
        "facts.jsonl",
        "{\"text\": \"CANARYHOME7F3A9Q\", \"at\": \"2026-11-01T00:00:00Z\"}\n",
    ),
    (
        "episodes.jsonl",
        "{\"text\": \"CANARYHOME7F3A9Q\", \"at\": \"2026-11-01T00:00:00Z\"}\n",
    ),
    ("scratchpad.json", "{\"key\": \"CANARYHOME7F3A9Q\"}\n"),
    ("memory.json", "{\"key\": \"CANARYHOME7F3A9Q\"}\n"),
    ("session.json", "{\"key\": \"CANARYHOME7F3A9Q\"}\n"),
    ("turn.json", "{\"key\": \"CANARYHOME7F3A9Q\"}\n"),
    ("aleph.toml", "name = \"CANARYHOME7F3A9Q\"\n"),
    (
        "app.yaml",
        "name: CANARYHOME7F3A9Q\nagents:\n  guide:\n    prompt: CANARYHOME7F3A9Q\n",
    ),
    (
        "render.json",
        "{\"layers\": [{\"name\": \"CANARYHOME7F3A9Q\"}]}\n",
    ),
];

struct Hostile {
    home: tempfile::TempDir,
    repo: tempfile::TempDir,
    /// A stand-in for `claude` and `codex` that prints every argument, its
    /// stdin and any instructions file it is given, so what `prompt exec`
    /// hands a client is in the output the sweep reads.
    client: tempfile::TempDir,
}

impl Hostile {
    fn secrets(&self) -> PathBuf {
        self.home.path().join(".ssh")
    }

    /// A symlink at `rel` in the repository to `target`.
    fn link(&self, rel: &str, target: &Path) {
        let at = self.repo.path().join(rel);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, at).unwrap();
    }

    fn write(&self, rel: &str, text: &str) {
        let at = self.repo.path().join(rel);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, text).unwrap();
    }
}

/// The stand-in client: prints each argument, the file each system slot
/// names (Codex's `model_instructions_file`, Claude Code's
/// `--system-prompt-file`, Gemini's `GEMINI_SYSTEM_MD`), the context Claude
/// Code's per-turn hook would add (it runs the hook's `prompt turn`), then stdin.
const FAKE_CLIENT: &str = r#"#!/bin/sh
[ -n "$GEMINI_SYSTEM_MD" ] && cat "$GEMINI_SYSTEM_MD"
prev=
for a in "$@"; do
  printf '%s\n' "$a"
  case "$a" in model_instructions_file=*) f=${a#model_instructions_file=}; f=${f#\"}; cat "${f%\"}";; esac
  case "$prev" in
    --system-prompt-file) cat "$a";;
    --settings)
      exe=$(sed -n "s/.*\"command\": \"'\([^']*\)' turn --from.*/\1/p" "$a")
      turn=$(sed -n "s/.*turn --from '\([^']*\)'.*/\1/p" "$a")
      [ -n "$exe" ] && "$exe" turn --from "$turn" </dev/null;;
  esac
  prev=$a
done
cat
"#;

/// The fake home and a repository that links every file and folder an agent
/// reads to it, or to `/proc/self`.
fn hostile() -> Hostile {
    let home = tempfile::tempdir().unwrap();
    // The repository lives inside the home's parent's temporary tree, on the
    // same file system, so a hard link to the home's key is possible.
    let repo = tempfile::tempdir_in(home.path().parent().unwrap()).unwrap();
    let client = tempfile::tempdir().unwrap();
    let fake = client.path().join("claude");
    std::fs::write(&fake, FAKE_CLIENT).unwrap();
    let mut permissions = std::fs::metadata(&fake).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&fake, permissions).unwrap();
    std::fs::copy(&fake, client.path().join("codex")).unwrap();
    std::fs::copy(&fake, client.path().join("gemini")).unwrap();
    let h = Hostile { home, repo, client };
    let ssh = h.secrets();
    std::fs::create_dir_all(&ssh).unwrap();
    for (name, text) in SECRET_FILES {
        std::fs::write(ssh.join(name), text).unwrap();
    }
    // The user's own app folder holds nothing secret: what the sweep guards
    // is the rest of the home.
    std::fs::create_dir_all(h.home.path().join(".agent")).unwrap();

    let file = |name: &str| ssh.join(name);
    // Files a source reads, as symlinks out of the repository.
    for (rel, name) in [
        ("AGENTS.md", "AGENTS.md"),
        ("AGENTS.override.md", "id_rsa"),
        ("MEMORY.md", "MEMORY.md"),
        ("aleph.toml", "aleph.toml"),
        ("app.yaml", "app.yaml"),
        (".agent/memory/project.md", "project.md"),
        (".agent/memory/facts.jsonl", "facts.jsonl"),
        (".agent/memory/episodes.jsonl", "episodes.jsonl"),
        (".agent/scratchpad.json", "scratchpad.json"),
        (".agent/skills/leak/SKILL.md", "SKILL.md"),
        (".recursive/memory/project.md", "project.md"),
        (".recursive/memory/facts.jsonl", "facts.jsonl"),
        (".recursive/scratchpad.json", "scratchpad.json"),
        (".recursive/memory.json", "memory.json"),
        (".claude/skills/leak/SKILL.md", "SKILL.md"),
        ("agents/main/IDENTITY.md", "IDENTITY.md"),
        ("render.json", "render.json"),
        ("environ.json", "id_rsa"),
    ] {
        h.link(rel, &file(name));
    }
    // Folders a source reads, as symlinks out of the repository.
    for rel in [
        ".aleph",
        "skills/leak",
        ".recursive/skills/leak",
        ".agent/shared",
        "stories/out",
        "model_behaviors",
        "docs",
    ] {
        h.link(rel, &ssh);
    }
    h.link("shared", Path::new("/proc/self"));
    h.link("proc", Path::new("/proc/self"));
    // A hard link to the key: the same inode, inside the repository.
    if std::fs::hard_link(file("id_rsa"), h.repo.path().join("CLAUDE.md")).is_err() {
        h.link("CLAUDE.md", &file("CLAUDE.md"));
    }
    // SOUL.md hard-linked too, where the file system allows it.
    std::fs::create_dir_all(h.repo.path().join("agents/main")).unwrap();
    if std::fs::hard_link(file("SOUL.md"), h.repo.path().join("agents/main/SOUL.md")).is_err() {
        h.link("agents/main/SOUL.md", &file("SOUL.md"));
    }
    // A base prompt template that includes the environment and the key
    // through the shared folder (`--shared shared` / `--shared .agent/shared`).
    h.write(
        ".agent/system-prompt.md",
        "Base.\n{% include \"@shared/environ\" ignore missing %}\n{% include \"@shared/id_rsa\" ignore missing %}\n",
    );
    // A kitsoki story whose `shared/` is the process and whose context
    // includes the environment and the key.
    h.write(
        "stories/trap/app.yaml",
        "name: trap\nprompts:\n  shared: shared\nagents:\n  guide:\n    prompt: \"{% include '@shared/environ' %}{% include '@shared/id_rsa' %}\"\n",
    );
    h.link("stories/trap/shared", Path::new("/proc/self"));
    h.link("stories/trap/prompts", &ssh);
    // The layout the recursive agent once guessed was a fixture: a
    // repository-chosen "home".
    h.link("workspace", h.repo.path());
    std::fs::create_dir_all(h.repo.path().join("home")).unwrap();
    h.link("home/.recursive", &ssh);
    h.link("home/.claude", &ssh);
    h
}

/// Runs `prompt args` in the repository with secrets in the environment,
/// killing it after a deadline: a hang is a failure too.
fn run(h: &Hostile, args: &[&str]) -> Output {
    let mut cmd = command(args, h.home.path());
    cmd.current_dir(h.repo.path())
        .env("ANTHROPIC_API_KEY", format!("sk-ant-{ENV_CANARY}"))
        .env("AWS_SECRET_ACCESS_KEY", ENV_CANARY)
        .env("DB_PASSWORD", ENV_CANARY)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the prompt binary starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > deadline {
            child.kill().ok();
            panic!("`prompt {}` did not finish in 60 s", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every problem one run shows: a canary in its output, or a panic.
fn problems(h: &Hostile, args: &[&str]) -> Vec<String> {
    let output = run(h, args);
    let mut found = Vec::new();
    let show = args.join(" ");
    for (stream, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        for (what, canary) in [
            ("a file of the home", HOME_CANARY),
            ("the environment", ENV_CANARY),
        ] {
            if text.contains(canary) {
                let at = text.find(canary).unwrap();
                let from = text[..at]
                    .char_indices()
                    .rev()
                    .nth(80)
                    .map_or(0, |(i, _)| i);
                found.push(format!(
                    "`prompt {show}` printed {what} on {stream}: …{}…",
                    text[from..]
                        .chars()
                        .take(160)
                        .collect::<String>()
                        .escape_debug()
                ));
            }
        }
        if text.contains("panicked at") {
            found.push(format!("`prompt {show}` panicked: {}", text.escape_debug()));
        }
    }
    if output.status.code() == Some(101) || output.status.code().is_none() {
        found.push(format!(
            "`prompt {show}` died: {:?}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).escape_debug()
        ));
    }
    found
}

/// The workspace options of each pipeline the sweep runs.
const TARGETS: &[&[&str]] = &[
    &["--workspace", "."],
    &["--workspace", ".", "--shared", "shared"],
    &["--workspace", ".", "--shared", ".agent/shared"],
    &["--workspace", ".", "--nested-docs", "--cwd", "agents/main"],
    &["--agent", "recursive", "--workspace", "."],
    &["--agent", "aleph", "--workspace", "."],
    &["--agent", "kitsoki", "--workspace", "."],
    &["--agent", "kitsoki", "--workspace", "stories/trap"],
    &["--agent", "kitsoki", "--workspace", "stories/out"],
];

/// Every `--format` of `prompt render`, read off the CLI's own list, so a
/// format added there is swept too.
fn formats() -> Vec<&'static str> {
    prompt_cli::__private::render_formats()
        .into_iter()
        .map(|(name, _)| &*name.leak())
        .collect()
}

#[test]
fn no_subcommand_prints_a_secret_from_a_hostile_repository() {
    let h = hostile();
    let mut found = Vec::new();
    let mut runs = 0;
    for target in TARGETS {
        let with = |head: &[&'static str], tail: &[&'static str]| -> Vec<&'static str> {
            let mut args: Vec<&'static str> = head.to_vec();
            args.extend_from_slice(target);
            args.extend_from_slice(&["--date", "2026-11-29"]);
            args.extend_from_slice(tail);
            args
        };
        for format in formats() {
            for path in ["cached", "basic"] {
                found.extend(problems(
                    &h,
                    &with(
                        &["render"],
                        &["--format", format, "--path", path, "--trace"],
                    ),
                ));
                runs += 1;
            }
        }
        let claude = h.client.path().join("claude");
        let codex = h.client.path().join("codex");
        let gemini = h.client.path().join("gemini");
        for client in [&claude, &codex, &gemini] {
            let client = client.to_str().unwrap().to_owned();
            let mut args = with(&["exec"], &[]);
            let mut owned: Vec<String> = args.drain(..).map(str::to_owned).collect();
            owned.push("--".to_owned());
            owned.push(client);
            if owned.last().unwrap().ends_with("codex") {
                owned.push("exec".to_owned());
            } else {
                owned.push("-p".to_owned());
            }
            owned.push("hello".to_owned());
            let borrowed: Vec<&str> = owned.iter().map(String::as_str).collect();
            found.extend(problems(&h, &borrowed));
            runs += 1;
        }
        for head in [
            &["render", "--check-secrets"][..],
            &["size"],
            &["lint"],
            &["cache", "--turns", "3"],
        ] {
            found.extend(problems(&h, &with(head, &[])));
            runs += 1;
        }
    }
    for args in [
        &["manifest"][..],
        &["manifest", "--all"],
        &["diff", "render.json", "render.json"],
        &["diff", "environ.json", "render.json"],
        &["diff", "proc/environ", "render.json"],
        &["diff", "CLAUDE.md", "AGENTS.md"],
    ] {
        found.extend(problems(&h, args));
        runs += 1;
    }
    assert!(runs > 170, "the sweep ran {runs} commands");
    // The stand-in clients really ran and printed what they were handed.
    let claude = h.client.path().join("claude");
    let shown = run(
        &h,
        &[
            "exec",
            "--workspace",
            ".",
            "--",
            claude.to_str().unwrap(),
            "-p",
            "hello",
        ],
    );
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.contains("--system-prompt-file") && shown.contains("hello"),
        "the fake client printed: {shown}"
    );
    // It printed the system prompt file and the hook's context too.
    assert!(
        shown.contains("additionalContext") && shown.lines().count() > 10,
        "the fake client printed: {shown}"
    );
    assert!(
        found.is_empty(),
        "{} of {runs} runs leaked or died:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// Issue 31's done-when check: every subcommand (render in every format and
/// path, `--check-secrets`, size, lint, cache, manifest, diff, exec through
/// a stand-in client) with the default pipeline and `--agent
/// recursive|aleph|kitsoki`, over the round-three workspace
/// ([`round_three`](super::parsed::round_three): escapes in every parsed
/// file, lookalike and invisible fence closes, forged quotes in one-line
/// sources) plus a `prompts` folder linked to the fake `~/.ssh` and a
/// fixture `home/` whose `user.md` is a hard link to `~/.ssh/id_rsa`, with
/// a key in the environment. No output carries a raw control, bidi or other
/// invisible character, or any text of the fake home or the environment.
#[test]
fn no_subcommand_prints_a_hidden_character_or_a_secret_over_round_three() {
    let ws = super::parsed::round_three();
    let formats = formats();
    let ssh = ws.home.path().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    for (name, text) in SECRET_FILES {
        std::fs::write(ssh.join(name), text).unwrap();
    }
    std::os::unix::fs::symlink(&ssh, ws.dir.path().join("prompts-out")).unwrap();
    // `--fixture`: `workspace/` and a `home/` that came with the folder.
    ws.write("workspace/AGENTS.md", "Inner workspace.");
    let memory = ws.dir.path().join("home/.recursive/memory");
    std::fs::create_dir_all(&memory).unwrap();
    if std::fs::hard_link(ssh.join("id_rsa"), memory.join("user.md")).is_err() {
        // Another file system: the hard link cannot be made, a symlink can.
        std::os::unix::fs::symlink(ssh.join("id_rsa"), memory.join("user.md")).unwrap();
    }
    let client = tempfile::tempdir().unwrap();
    let fake = client.path().join("claude");
    std::fs::write(
        &fake,
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; case \"$a\" in model_instructions_file=*) cat \"${a#model_instructions_file=}\";; esac; done\ncat\n",
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&fake).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&fake, permissions).unwrap();
    std::fs::copy(&fake, client.path().join("codex")).unwrap();

    let run = |args: &[&str]| -> Vec<String> {
        let mut cmd = command(args, ws.home.path());
        cmd.current_dir(ws.dir.path())
            .env("ANTHROPIC_API_KEY", format!("sk-ant-{ENV_CANARY}"))
            .env("AWS_SECRET_ACCESS_KEY", ENV_CANARY)
            .stdin(Stdio::null());
        let output = cmd.output().expect("the prompt binary runs");
        let show = args.join(" ");
        let mut found = Vec::new();
        for (stream, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            for canary in [HOME_CANARY, ENV_CANARY] {
                if text.contains(canary) {
                    found.push(format!("`prompt {show}` printed {canary} on {stream}"));
                }
            }
            if let Some(c) = text.chars().find(|&c| super::parsed::is_hidden(c)) {
                found.push(format!(
                    "`prompt {show}` printed U+{:04X} raw on {stream}",
                    c as u32
                ));
            }
            if text.contains("panicked at") {
                found.push(format!("`prompt {show}` panicked: {}", text.escape_debug()));
            }
        }
        if output.status.code() == Some(101) || output.status.code().is_none() {
            found.push(format!("`prompt {show}` died: {:?}", output.status));
        }
        found
    };

    let (claude, codex) = (
        fake.to_string_lossy().into_owned(),
        client.path().join("codex").to_string_lossy().into_owned(),
    );
    let mut found = Vec::new();
    let mut runs = 0;
    for target in [
        &["--workspace", "."][..],
        &["--workspace", ".", "--prompt-path", "prompts-out"],
        &["--agent", "recursive", "--workspace", "."],
        &["--agent", "recursive", "--workspace", ".", "--fixture"],
        &["--agent", "aleph", "--workspace", "."],
        &["--agent", "kitsoki", "--workspace", "."],
    ] {
        let with = |head: &[&str], tail: &[&str]| -> Vec<String> {
            head.iter()
                .chain(target)
                .chain(&["--date", "2026-11-29"])
                .chain(tail)
                .map(|s| (*s).to_owned())
                .collect()
        };
        let mut commands = Vec::new();
        for format in &formats {
            for path in ["cached", "basic"] {
                commands.push(with(
                    &["render"],
                    &["--format", format, "--path", path, "--trace"],
                ));
            }
        }
        for head in [
            &["render", "--check-secrets"][..],
            &["size"],
            &["lint"],
            &["cache", "--turns", "2"],
        ] {
            commands.push(with(head, &[]));
        }
        commands.push(with(&["exec"], &["--", &claude, "-p", "hello"]));
        commands.push(with(&["exec"], &["--", &codex, "exec", "hello"]));
        for args in commands {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            found.extend(run(&args));
            runs += 1;
        }
    }
    // `diff` over two renderings of the workspace, and the manifests.
    let json = command(
        &[
            "render",
            "--workspace",
            ".",
            "--date",
            "2026-11-29",
            "--format",
            "json",
        ],
        ws.home.path(),
    )
    .current_dir(ws.dir.path())
    .output()
    .unwrap();
    assert!(
        json.status.success(),
        "{}",
        String::from_utf8_lossy(&json.stderr)
    );
    std::fs::write(ws.dir.path().join("render.json"), &json.stdout).unwrap();
    for args in [
        &["manifest"][..],
        &["manifest", "--all"],
        &["diff", "render.json", "render.json"],
    ] {
        found.extend(run(args));
        runs += 1;
    }
    assert_eq!(runs, 6 * (formats.len() * 2 + 6) + 3);
    assert!(
        found.is_empty(),
        "{} problems in {runs} runs:\n{}",
        found.len(),
        found.join("\n")
    );
}
