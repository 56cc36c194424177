//! Byte ceilings that only go down, kept in a committed JSON file.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::report::{Check, Finding};
use super::size::{AssemblySize, Sizes};

/// The environment variable that rewrites ratchet files: `PROMPT_RATCHET=update`.
pub const RATCHET_ENV: &str = "PROMPT_RATCHET";

/// Measured bytes below this share of the ceiling (per cent) ask for a lower ceiling.
pub const FAR_UNDER_PERCENT: usize = 90;

/// Whether a ratchet run compares against the file or rewrites it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RatchetMode {
    /// Fail when over a ceiling, or far under it.
    #[default]
    Check,
    /// Write the measured sizes as the new ceilings (temp file, then rename).
    Update,
}

impl RatchetMode {
    /// [`Update`](Self::Update) when `PROMPT_RATCHET=update`, else [`Check`](Self::Check).
    pub fn from_env() -> Self {
        match std::env::var(RATCHET_ENV) {
            Ok(value) if value.eq_ignore_ascii_case("update") => RatchetMode::Update,
            _ => RatchetMode::Check,
        }
    }
}

/// One path and mode's ceilings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Ceiling {
    stable_bytes: usize,
    dynamic_bytes: usize,
}

/// The file: pipeline -> `"path/mode"` -> ceilings. Sorted, so rewrites diff cleanly.
type Ceilings = BTreeMap<String, BTreeMap<String, Ceiling>>;

/// Serialises read-modify-write of ratchet files within one test binary.
static FILE_LOCK: Mutex<()> = Mutex::new(());

/// Compares `sizes` with the ceilings in `file`, or rewrites them.
/// Returns (failures, notes).
pub(crate) fn check(sizes: &Sizes, file: &Path, mode: RatchetMode) -> (Vec<Finding>, Vec<Finding>) {
    let _guard = FILE_LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let subject = format!("ratchet file {}", file.display());
    let update_fix = format!(
        "if the change is intended, run the tests with {RATCHET_ENV}=update to rewrite {} and commit it",
        file.display()
    );
    let mut ceilings = match read(file) {
        Ok(ceilings) => ceilings,
        Err(problem) if mode == RatchetMode::Check => {
            return (vec![finding(&subject, problem, &update_fix)], Vec::new());
        }
        // Update: an unreadable file is replaced.
        Err(_) => Ceilings::new(),
    };
    let measured: BTreeMap<String, Ceiling> = sizes
        .assemblies
        .iter()
        .map(|a| {
            (
                key(a),
                Ceiling {
                    stable_bytes: a.stable_bytes,
                    dynamic_bytes: a.dynamic_bytes,
                },
            )
        })
        .collect();
    if mode == RatchetMode::Update {
        if ceilings.get(&sizes.pipeline) == Some(&measured) {
            return (Vec::new(), Vec::new());
        }
        ceilings.insert(sizes.pipeline.clone(), measured);
        return match write(file, &ceilings) {
            Ok(()) => (
                Vec::new(),
                vec![finding(
                    &subject,
                    format!("rewritten with the sizes of pipeline `{}`", sizes.pipeline),
                    "review and commit it",
                )],
            ),
            Err(problem) => (
                vec![finding(
                    &subject,
                    problem,
                    "make its folder writable, or point the contract at another file",
                )],
                Vec::new(),
            ),
        };
    }
    let Some(committed) = ceilings.get(&sizes.pipeline) else {
        return (
            vec![finding(
                &subject,
                format!("has no ceilings for pipeline `{}`", sizes.pipeline),
                &update_fix,
            )],
            Vec::new(),
        );
    };
    let mut failures = Vec::new();
    for assembly in &sizes.assemblies {
        let key = key(assembly);
        let Some(ceiling) = committed.get(&key) else {
            failures.push(finding(
                &subject,
                format!("has no ceiling for pipeline `{}` {key}", sizes.pipeline),
                &update_fix,
            ));
            continue;
        };
        for (part, bytes, limit) in [
            ("stable prefix", assembly.stable_bytes, ceiling.stable_bytes),
            (
                "dynamic suffix",
                assembly.dynamic_bytes,
                ceiling.dynamic_bytes,
            ),
        ] {
            let at = format!("pipeline `{}` {key}", sizes.pipeline);
            if bytes > limit {
                failures.push(finding(
                    &subject,
                    format!(
                        "the {part} of {at} is {bytes} B, over its ceiling of {limit} B by {} B; largest layers: {}",
                        bytes - limit,
                        largest(assembly)
                    ),
                    &format!("shrink those layers, or {update_fix}"),
                ));
            } else if bytes * 100 < limit * FAR_UNDER_PERCENT {
                failures.push(finding(
                    &subject,
                    format!(
                        "the {part} of {at} is {bytes} B, far under its ceiling of {limit} B (below {FAR_UNDER_PERCENT}%): lower the ceiling so the saving is kept"
                    ),
                    &format!("run the tests with {RATCHET_ENV}=update to rewrite {} and commit it", file.display()),
                ));
            }
        }
    }
    for key in committed.keys() {
        if !measured.contains_key(key) {
            failures.push(finding(
                &subject,
                format!(
                    "has a ceiling for pipeline `{}` {key}, which no layer renders any more",
                    sizes.pipeline
                ),
                &update_fix,
            ));
        }
    }
    (failures, Vec::new())
}

fn key(assembly: &AssemblySize) -> String {
    format!("{}/{}", assembly.path, assembly.mode)
}

fn largest(assembly: &AssemblySize) -> String {
    assembly
        .largest(5)
        .iter()
        .filter(|l| l.bytes > 0)
        .map(|l| format!("`{}` ({}) {} B", l.name, l.stability, l.bytes))
        .collect::<Vec<_>>()
        .join(", ")
}

fn finding(subject: &str, problem: String, fix: &str) -> Finding {
    Finding {
        check: Check::Ratchet,
        subject: subject.to_owned(),
        problem,
        fix: fix.to_owned(),
    }
}

fn read(file: &Path) -> Result<Ceilings, String> {
    // A FIFO would block the read, a device never end it.
    if let Ok(meta) = std::fs::metadata(file)
        && !meta.is_file()
    {
        return Err("is not a regular file (a FIFO, a device or a folder); not read".to_owned());
    }
    let text = std::fs::read_to_string(file).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "does not exist".to_owned(),
        _ => format!("cannot be read: {e}"),
    })?;
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "is not a ratchet file (line {}: {e}); expected {{\"<pipeline>\": {{\"<path>/<mode>\": {{\"stable_bytes\": N, \"dynamic_bytes\": N}}}}}}",
            e.line()
        )
    })
}

/// Writes `ceilings` to `file` through [`crate::write::replace_file`]: a
/// reader never sees half a file, and a `file` that is not a regular file
/// (a device, a FIFO, a folder) is refused, not replaced.
fn write(file: &Path, ceilings: &Ceilings) -> Result<(), String> {
    let mut text =
        serde_json::to_string_pretty(ceilings).map_err(|e| format!("cannot be serialised: {e}"))?;
    text.push('\n');
    crate::write::replace_file(file, text.as_bytes(), crate::write::Access::Default).map_err(|e| {
        // The message, then its I/O error (a source, not part of the message).
        match std::error::Error::source(&e) {
            Some(source) => format!("{e}: {source}"),
            None => e.to_string(),
        }
    })
}
