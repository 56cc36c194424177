//! The forgotten layer crate: a package of the binary's own Cargo workspace
//! that declares layers, that the binary's package depends on, and that
//! nothing in the binary names, so the linker dropped it with its layers.
//!
//! The binary cannot know a crate it did not link, so this asks Cargo:
//! `cargo metadata --format-version 1 --no-deps --offline` on the package
//! Cargo is running (`CARGO_MANIFEST_DIR`, set by `cargo run` and `cargo
//! test`), with a timeout and a cap on what it reads. Everything that does
//! not hold (no Cargo, no manifest, a timeout, output too large, JSON that
//! does not parse, a source tree too large to scan) makes the check say
//! nothing: it never guesses.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::pipeline::Problem;

/// How long `cargo metadata --no-deps` may take (it reads manifests only).
const TIMEOUT: Duration = Duration::from_secs(10);
/// The most bytes of its output read.
const MAX_OUTPUT: u64 = 32 << 20;
/// The most `.rs` files scanned per package, and bytes read per file.
const MAX_FILES: usize = 4096;
const MAX_FILE_BYTES: u64 = 4 << 20;
/// The deepest folder scanned below a library's source folder.
const MAX_DEPTH: usize = 16;

/// The packages of this binary's Cargo workspace that its package depends
/// on (directly or through other workspace packages, normal dependencies
/// only), that declare layers, and none of whose layers is linked into this
/// binary: one [`Problem::ForgottenCrate`] each, naming the `use` line to
/// add. [`check_pipelines`](super::check_pipelines) and every `prompt`
/// subcommand that builds a pipeline report them.
///
/// **Which package.** The one Cargo runs: `CARGO_MANIFEST_DIR` and
/// `CARGO_PKG_NAME`, which `cargo run` and `cargo test` set for the process
/// they start, and only when this executable is one of that package's
/// targets (its name is a target's name, or a test harness's
/// `name-hash`), so a process that merely inherited them says nothing.
/// Cargo itself is `$CARGO` (the Cargo that started the process), run in
/// that package's folder, never in the folder a command renders over: a
/// repository being rendered is not trusted to configure Cargo.
///
/// **Which packages declare layers.** Those that depend on `prompt-core`
/// (a normal, non-optional dependency) and whose library's sources (the
/// `.rs` files in the folder of its `src/lib.rs`, symlinks not followed)
/// hold a `#[prompt_layer` attribute (`#[prompt_layer(..)]`,
/// `#[prompt_core::prompt_layer(..)]`), outside `//` comments. A package that
/// uses `prompt-core` for the runtime only (assembling, contexts, its own
/// `Render` impls of layers declared elsewhere) has none and is never named.
/// A package whose attributes are all out of its builds (behind
/// `#[cfg(test)]`) says so in its `Cargo.toml`:
/// `[package.metadata.prompt-layers] declares-layers = false`.
/// A package counts as linked when any layer it declares is: one in the
/// binary's own `main.rs` or in the test's file counts for its package.
///
/// **When it says nothing.** Outside `cargo run` / `cargo test` (an
/// installed binary, a binary run from `target/` directly), when Cargo is
/// missing or does not answer within 10 s, prints more than 32 MiB or
/// fails, or when a library's sources are too many (over 4096 files) to
/// scan. The answer is computed once per process.
///
/// ```
/// // A doctest is no target of its package: nothing to report.
/// assert!(prompt_checks::testing::forgotten_crates().is_empty());
/// ```
pub fn forgotten_crates() -> Vec<Problem> {
    static FORGOTTEN: OnceLock<Vec<Problem>> = OnceLock::new();
    FORGOTTEN
        .get_or_init(|| {
            let linked: Vec<String> = crate::pipeline::registered_layers()
                .map(|spec| normal(spec.package()))
                .collect();
            find(&linked).unwrap_or_default()
        })
        .clone()
}

/// `-` and `_` are one in package and crate names.
fn normal(name: &str) -> String {
    name.replace('-', "_")
}

#[derive(Deserialize)]
struct Metadata {
    packages: Vec<Package>,
}

#[derive(Deserialize)]
struct Package {
    name: String,
    manifest_path: PathBuf,
    dependencies: Vec<Dependency>,
    targets: Vec<Target>,
    /// `[package.metadata]`: `prompt-layers.declares-layers = false` opts out.
    #[serde(default)]
    metadata: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Dependency {
    name: String,
    kind: Option<String>,
    #[serde(default)]
    optional: bool,
}

#[derive(Deserialize)]
struct Target {
    name: String,
    kind: Vec<String>,
    src_path: PathBuf,
}

impl Package {
    /// Its normal, non-optional dependencies' package names.
    fn needs(&self) -> impl Iterator<Item = &str> {
        self.dependencies
            .iter()
            .filter(|d| d.kind.is_none() && !d.optional)
            .map(|d| d.name.as_str())
    }

    /// Whether its `Cargo.toml` says it declares no layer whatever its
    /// sources hold: `[package.metadata.prompt-layers] declares-layers = false`.
    fn opts_out(&self) -> bool {
        self.metadata
            .as_ref()
            .and_then(|m| m.get("prompt-layers")?.get("declares-layers")?.as_bool())
            == Some(false)
    }

    /// Its library target, unless a proc-macro.
    fn lib(&self) -> Option<&Target> {
        self.targets.iter().find(|t| {
            t.kind
                .iter()
                .any(|k| matches!(k.as_str(), "lib" | "rlib" | "dylib"))
        })
    }
}

fn find(linked: &[String]) -> Option<Vec<Problem>> {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    let name = std::env::var("CARGO_PKG_NAME").ok()?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = dir.join("Cargo.toml");
    if !manifest.is_file() {
        return None;
    }
    let mut command = Command::new(cargo);
    command
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .arg("--manifest-path")
        .arg(&manifest)
        .current_dir(&dir)
        .env("CARGO_TERM_COLOR", "never");
    let output = run_bounded(command, MAX_OUTPUT, TIMEOUT)?;
    let metadata: Metadata = serde_json::from_slice(&output).ok()?;
    let root = metadata
        .packages
        .iter()
        .find(|p| p.name == name && same_file(&p.manifest_path, &manifest))?;
    if !is_target_of(root) {
        return None;
    }
    Some(forgotten(
        &metadata.packages,
        root,
        linked,
        &declares_layers,
    ))
}

/// Whether this executable is one of `package`'s targets: a binary of
/// that name, or a test harness `name-<hash>` (`cargo test`).
fn is_target_of(package: &Package) -> bool {
    let Some(stem) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.file_stem().map(|s| s.to_string_lossy().into_owned()))
    else {
        return false;
    };
    is_target_name(&stem, package.targets.iter().map(|t| t.name.as_str()))
}

/// Whether an executable named `stem` is built from one of `targets`: a
/// binary of that name, or a test harness `name-<16 hex digits>`.
fn is_target_name<'a>(stem: &str, mut targets: impl Iterator<Item = &'a str>) -> bool {
    let harness = stem
        .rsplit_once('-')
        .filter(|(_, hash)| hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()))
        .map(|(name, _)| normal(name));
    let stem = normal(stem);
    targets.any(|target| {
        let target = normal(target);
        target == stem || harness.as_ref() == Some(&target)
    })
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The packages `root` needs (itself included) that depend on
/// `prompt-core`, declare layers (`scan` says so of a library's entry
/// file) and have none in `linked`.
fn forgotten(
    packages: &[Package],
    root: &Package,
    linked: &[String],
    scan: &dyn Fn(&Path) -> Option<bool>,
) -> Vec<Problem> {
    let mut seen: Vec<&str> = vec![root.name.as_str()];
    let mut queue: Vec<&Package> = vec![root];
    let mut problems = Vec::new();
    while let Some(package) = queue.pop() {
        for need in package.needs() {
            if seen.contains(&need) {
                continue;
            }
            if let Some(found) = packages.iter().find(|p| p.name == need) {
                seen.push(need);
                queue.push(found);
            }
        }
        let uses_core = package.needs().any(|n| normal(n) == "prompt_core");
        let Some(lib) = package.lib() else { continue };
        if !uses_core || package.opts_out() || linked.contains(&normal(&package.name)) {
            continue;
        }
        if scan(&lib.src_path) == Some(true) {
            problems.push(Problem::ForgottenCrate {
                package: package.name.clone(),
                lib: normal(&lib.name),
                dependent: root.name.clone(),
            });
        }
    }
    problems.sort_by(|a, b| format!("{a}").cmp(&format!("{b}")));
    problems
}

/// Whether the library whose entry file is `lib_rs` declares a layer: any
/// `.rs` file in its folder and below holds a `#[prompt_layer` attribute.
/// `None` when the folder holds more than can be scanned.
fn declares_layers(lib_rs: &Path) -> Option<bool> {
    let root = lib_rs.parent()?;
    let mut folders = vec![(root.to_path_buf(), 0)];
    let mut files = 0;
    while let Some((folder, depth)) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            // Not followed: a symlink may lead anywhere.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                if depth < MAX_DEPTH {
                    folders.push((path, depth + 1));
                }
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "rs") {
                files += 1;
                if files > MAX_FILES {
                    return None;
                }
                let Ok(file) = std::fs::File::open(&path) else {
                    continue;
                };
                let mut text = Vec::new();
                if file.take(MAX_FILE_BYTES).read_to_end(&mut text).is_ok()
                    && has_layer_attribute(&String::from_utf8_lossy(&text))
                {
                    return Some(true);
                }
            }
        }
    }
    Some(false)
}

/// Whether `source` holds a `#[prompt_layer` attribute (any path before
/// it: `#[prompt_core::prompt_layer(`) on a line that is not a `//`
/// comment, of a layer that joins a pipeline at link time: an include-only
/// layer (`pipeline = []`) is not registered, so its crate is never
/// "forgotten" (a pipeline that includes it names it, which links it).
fn has_layer_attribute(source: &str) -> bool {
    source.lines().any(|line| {
        let line = line.trim_start();
        let Some(attribute) = line.strip_prefix("#[") else {
            return false;
        };
        let path_end = attribute
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == ' '))
            .unwrap_or(attribute.len());
        let is_layer = attribute[..path_end]
            .rsplit("::")
            .next()
            .is_some_and(|last| last.trim() == "prompt_layer");
        // `attribute` lies within `source`: read on from there.
        let at = attribute.as_ptr() as usize - source.as_ptr() as usize;
        is_layer && !include_only(&source[at..])
    })
}

/// Whether the attribute at the start of `from` (`prompt_layer(..)]` and
/// what follows) says `pipeline = []`. Reads up to the `)` that closes its
/// arguments, skipping string literals; an attribute it cannot read to its
/// end counts as registered (the check then says too much, never too little).
fn include_only(from: &str) -> bool {
    let Some(open) = from.find('(') else {
        return false;
    };
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut args = String::new();
    for c in from[open..].chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        if !c.is_whitespace() {
            args.push(c);
        }
    }
    args.contains(",pipeline=[]") || args.starts_with("(pipeline=[]")
}

/// `command`'s standard output, when it exits successfully within
/// `timeout` having printed at most `limit` bytes; its standard input and
/// error are closed. A child still running at the deadline is killed.
fn run_bounded(mut command: Command, limit: u64, timeout: Duration) -> Option<Vec<u8>> {
    let deadline = Instant::now() + timeout;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let stdout = child.stdout.take()?;
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let read = stdout.take(limit + 1).read_to_end(&mut out);
        let _ = send.send(read.ok().filter(|_| out.len() as u64 <= limit).map(|_| out));
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    // A grandchild holding the pipe open must not block us either.
    let out = receive
        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .ok()??;
    status.success().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_or_a_test_harness_of_the_package_is_its_target() {
        let targets = ["prompt", "house_prompt", "cross_crate_priority"];
        for stem in [
            "prompt",
            "prompt-9af087ac37460392",
            "house_prompt-0123456789abcdef",
            "cross_crate_priority-0123456789abcdef",
        ] {
            assert!(is_target_name(stem, targets.into_iter()), "{stem}");
        }
        for stem in [
            "rust_out",
            "prompt-x",
            "other-0123456789abcdef",
            "prompt-0123",
        ] {
            assert!(!is_target_name(stem, targets.into_iter()), "{stem}");
        }
    }

    #[test]
    fn the_attribute_is_found_with_any_path_and_not_in_comments() {
        assert!(has_layer_attribute(
            "#[prompt_layer(priority = 1)]\nstruct A;"
        ));
        assert!(has_layer_attribute(
            "  #[prompt_core::prompt_layer(priority = 1)]"
        ));
        assert!(has_layer_attribute("#[::prompt_core::prompt_layer("));
        assert!(!has_layer_attribute("// #[prompt_layer(priority = 1)]"));
        assert!(!has_layer_attribute("/// #[prompt_layer(priority = 1)]"));
        assert!(!has_layer_attribute("#[prompt_pipeline(paths = [Basic])]"));
        assert!(!has_layer_attribute("#[derive(Debug)] // prompt_layer"));
        assert!(!has_layer_attribute("use prompt_core::prompt_layer;"));
    }

    #[test]
    fn an_include_only_layer_is_not_counted() {
        let include_only = "#[prompt_layer(\n    priority = 1,\n    text = \"a ) \\\" ]\",\n    pipeline = []\n)]\npub struct A;";
        assert!(!has_layer_attribute(include_only));
        assert!(!has_layer_attribute(
            "#[prompt_layer(pipeline = [], priority = 1)]"
        ));
        // One layer that joins a pipeline is enough.
        assert!(has_layer_attribute(&format!(
            "{include_only}\n#[prompt_layer(priority = 2, pipeline = [Main])]\nstruct B;"
        )));
        assert!(has_layer_attribute(
            "#[prompt_layer(priority = 1, text = \"pipeline = []\")]"
        ));
    }

    fn package(name: &str, needs: &[&str], lib: bool) -> Package {
        Package {
            name: name.to_owned(),
            manifest_path: PathBuf::from(format!("/w/{name}/Cargo.toml")),
            dependencies: needs
                .iter()
                .map(|n| Dependency {
                    name: (*n).to_owned(),
                    kind: None,
                    optional: false,
                })
                .collect(),
            metadata: None,
            targets: lib
                .then(|| Target {
                    name: normal(name),
                    kind: vec!["lib".to_owned()],
                    src_path: PathBuf::from(format!("/w/{name}/src/lib.rs")),
                })
                .into_iter()
                .collect(),
        }
    }

    /// A layer crate the binary depends on and does not link is named; a
    /// runtime-only dependent, a linked one, and one the binary does not
    /// depend on are not.
    #[test]
    fn only_unlinked_layer_crates_the_binary_needs_are_named() {
        let packages = [
            package(
                "app",
                &["prompt-core", "house-layers", "runtime-only", "linked"],
                false,
            ),
            package("house-layers", &["prompt-core"], true),
            package("runtime-only", &["prompt-core", "deep-layers"], true),
            package("deep-layers", &["prompt-core"], true),
            package("linked", &["prompt-core"], true),
            package("elsewhere", &["prompt-core"], true),
            package("prompt-core", &[], true),
        ];
        let scan = |path: &Path| Some(!path.starts_with("/w/runtime-only"));
        let problems = forgotten(&packages, &packages[0], &["linked".to_owned()], &scan);
        let named: Vec<_> = problems
            .iter()
            .map(|p| match p {
                Problem::ForgottenCrate { lib, .. } => lib.as_str(),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(named, ["deep_layers", "house_layers"]);
        // A package that says it declares none is not named.
        let mut quiet = packages;
        quiet[1].metadata = Some(serde_json::json!({"prompt-layers": {"declares-layers": false}}));
        let quiet = forgotten(&quiet, &quiet[0], &["linked".to_owned()], &scan);
        assert_eq!(quiet.len(), 1, "{quiet:?}");
        // The package's own library, which its main.rs does not name.
        let mut own = package("app", &["prompt-core"], true);
        own.targets[0].src_path = PathBuf::from("/w/app/src/lib.rs");
        let own = forgotten(std::slice::from_ref(&own), &own, &[], &scan);
        assert_eq!(own.len(), 1);
        assert!(
            own[0]
                .to_string()
                .contains("add `use app as _;` to its `src/main.rs` (or the test's file)"),
            "{}",
            own[0]
        );
        assert!(
            problems[1]
                .to_string()
                .contains("add `use house_layers as _;`"),
            "{}",
            problems[1]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_command_that_does_not_answer_in_time_is_killed() {
        let mut sleep = Command::new("sleep");
        sleep.arg("5");
        let started = Instant::now();
        assert_eq!(run_bounded(sleep, 10, Duration::from_millis(100)), None);
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[cfg(unix)]
    #[test]
    fn output_over_the_limit_is_refused() {
        let mut yes = Command::new("yes");
        yes.arg("x");
        assert_eq!(run_bounded(yes, 1000, Duration::from_secs(2)), None);
        let mut echo = Command::new("echo");
        echo.arg("hi");
        assert_eq!(
            run_bounded(echo, 1000, Duration::from_secs(2)).as_deref(),
            Some(&b"hi\n"[..])
        );
    }
}
