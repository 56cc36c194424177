//! The system-prompt arguments of the `claude` and `codex` command lines.
//!
//! Kept to one function per backend so they can later delegate to a shared
//! providers module without their callers changing.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::Invocation;

/// The file name Codex instructions are written under.
pub const INSTRUCTIONS_FILE: &str = "kitsoki-instructions.md";

/// The `claude` arguments that carry the system prompt.
///
/// Composed: `--system-prompt TEXT`, plus
/// `--exclude-dynamic-system-prompt-sections` when the verb excludes Claude
/// Code's dynamic sections. Legacy (`inherit_claude_default`):
/// `--append-system-prompt PERSONA`, only when the persona has text.
pub fn claude_args(invocation: &Invocation) -> Vec<String> {
    if invocation.legacy {
        return if invocation.system_prompt.is_empty() {
            Vec::new()
        } else {
            vec![
                "--append-system-prompt".to_owned(),
                invocation.system_prompt.clone(),
            ]
        };
    }
    let mut args = vec![
        "--system-prompt".to_owned(),
        invocation.system_prompt.clone(),
    ];
    if invocation.exclude_dynamic {
        args.push("--exclude-dynamic-system-prompt-sections".to_owned());
    }
    args
}

/// Writes the invocation's bytes to `dir/kitsoki-instructions.md` and returns
/// the `codex` arguments that point at it: `-c model_instructions_file=PATH`.
///
/// The file is written to a temporary name in `dir` and renamed into place,
/// so a concurrent reader sees the old bytes or the new ones, never half.
///
/// # Errors
/// The I/O error, with `dir` named in its message.
pub fn codex_args(invocation: &Invocation, dir: &Path) -> std::io::Result<Vec<String>> {
    let path = write_atomically(dir, INSTRUCTIONS_FILE, invocation.system_prompt.as_bytes())?;
    Ok(vec![
        "-c".to_owned(),
        format!("model_instructions_file={}", path.display()),
    ])
}

fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name_error = |e: std::io::Error| {
        std::io::Error::new(e.kind(), format!("{}: {e}", dir.join(name).display()))
    };
    let target = dir.join(name);
    let temp = dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, &target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(name_error)?;
    Ok(target)
}
