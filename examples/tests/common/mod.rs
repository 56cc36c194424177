#![allow(dead_code)] // each test binary uses the part it needs
//! What the CLI test binaries share: how the `prompt` binary is started, and
//! a temporary workspace to start it in.

use std::path::Path;
use std::process::{Command, Output};

/// `prompt <args>` with `HOME` at `home`, UTC, and no `RUST_LOG` or `SHELL`
/// from the machine, so what it states is the same everywhere.
pub fn command(args: &[&str], home: &Path) -> Command {
    command_for(Path::new(env!("CARGO_BIN_EXE_prompt")), args, home)
}

/// [`command`] for another `prompt` binary: `program`.
pub fn command_for(program: &Path, args: &[&str], home: &Path) -> Command {
    let mut command = Command::new(program);
    command
        .args(args)
        .env("HOME", home)
        .env("TZ", "UTC")
        .env_remove("RUST_LOG")
        .env_remove("SHELL");
    command
}

/// Set for a test binary that is a user's own `prompt`: its `main` then runs
/// `prompt_cli::main()` with the test's layers linked in.
pub const AS_CLI: &str = "PROMPT_AS_CLI";

/// `PROGRAM render --workspace WS --date 2026-11-29 <extra>` with `HOME` at
/// `home`: `program` is this package's `prompt`, or, when `own`, the test
/// binary itself acting as a user's own `prompt` (see [`AS_CLI`]).
pub fn render_with(program: &Path, own: bool, home: &Path, ws: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "render",
        "--workspace",
        ws.to_str().unwrap(),
        "--date",
        "2026-11-29",
    ];
    args.extend(extra);
    let mut command = command_for(program, &args, home);
    if own {
        command.env(AS_CLI, "1");
    }
    command.output().unwrap()
}

/// A temporary workspace and home folder for one CLI test. Each test file
/// seeds its own files on it.
pub struct Workspace {
    /// The workspace.
    pub dir: tempfile::TempDir,
    /// `HOME` for the runs.
    pub home: tempfile::TempDir,
    /// Arguments every run adds after `--workspace . --date 2026-11-29`.
    extra: &'static [&'static str],
}

impl Workspace {
    /// An empty workspace whose runs add `extra` to their arguments.
    pub fn empty(extra: &'static [&'static str]) -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            extra,
        }
    }

    /// Writes `text` to `rel` inside the workspace, creating folders.
    pub fn write(&self, rel: &str, text: &str) {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// `prompt <args> --workspace . --date 2026-11-29 <extra>`, run inside
    /// the workspace (so the working directory it states is `.` on every
    /// machine).
    pub fn run(&self, args: &[&str]) -> std::process::Output {
        let mut all = args.to_vec();
        all.extend(["--workspace", ".", "--date", "2026-11-29"]);
        all.extend(self.extra);
        command(&all, self.home.path())
            .current_dir(self.dir.path())
            .output()
            .expect("the prompt binary runs")
    }
}
