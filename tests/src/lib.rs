//! Helpers shared by the integration tests. This crate defines no layer, so
//! a test binary's pipelines hold only what that binary defines or names.

use std::path::{Path, PathBuf};

use prompt_core::pipeline::LayerEntry;
use prompt_core::spec::PipelineSpec;
use prompt_core::{LayerInput, LayerSpec, LayerWriter, Pipeline, Render, Stability};

pub mod redis;
pub mod workspaces;

// The repository's README and guides (`docs/*.md`), run as doctests so they
// cannot drift from the code. They live outside every published package, so
// this crate, which is never published, runs them.

/// The README's examples.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// `docs/adding-a-layer.md`'s examples.
#[cfg(doctest)]
#[doc = include_str!("../../docs/adding-a-layer.md")]
struct AddingALayerDoctests;

/// `docs/cache-health.md`'s examples.
#[cfg(doctest)]
#[doc = include_str!("../../docs/cache-health.md")]
struct CacheHealthDoctests;

/// `docs/cli.md`'s examples.
#[cfg(doctest)]
#[doc = include_str!("../../docs/cli.md")]
struct CliDoctests;

/// `docs/contract.md`'s examples.
#[cfg(doctest)]
#[doc = include_str!("../../docs/contract.md")]
struct ContractDoctests;

/// `docs/delivery.md`'s examples.
#[cfg(doctest)]
#[doc = include_str!("../../docs/delivery.md")]
struct DeliveryDoctests;

/// prompt-macros' crates.io README, whose example needs prompt-core, which
/// prompt-macros cannot depend on.
#[cfg(doctest)]
#[doc = include_str!("../../prompt-macros/README.md")]
struct MacrosReadmeDoctests;

/// `docs/keep-alive.md`'s examples.
#[cfg(doctest)]
#[doc = include_str!("../../docs/keep-alive.md")]
struct KeepAliveDoctests;

/// `docs/serving.md`'s examples.
#[cfg(doctest)]
#[doc = include_str!("../../docs/serving.md")]
struct ServingDoctests;

/// `docs/standard-layers.md`'s examples.
#[cfg(doctest)]
#[doc = include_str!("../../docs/standard-layers.md")]
struct StandardLayersDoctests;

/// `docs/tools.md`'s examples.
#[cfg(doctest)]
#[doc = include_str!("../../docs/tools.md")]
struct ToolsDoctests;

/// The pipeline the helpers' layers join: `"test"`, serving every path and mode.
pub const TEST: PipelineSpec = PipelineSpec::new("test");

/// A spec for `Pipeline::from_layers(TEST, ..)`, built with the public
/// constructors (no leak: entries keep specs by value). Paths: both; modes:
/// all; pipeline: `"test"`; defined at `prompt-tests: src/lib.rs:<priority>`.
pub const fn spec(name: &'static str, priority: u32, stability: Stability) -> LayerSpec {
    LayerSpec::new(name, priority, stability)
        .pipelines(&[TEST.name])
        .type_name("TestLayer")
        .defined_at("prompt-tests", "src/lib.rs", priority)
}

/// A layer that writes a fixed text (empty: silent).
#[derive(Debug, Clone)]
pub struct Fixed(pub String);

impl Render for Fixed {
    fn render(&self, out: &mut LayerWriter<'_>, _input: &LayerInput<'_>) {
        out.push_str(&self.0);
    }
}

/// A pipeline `"test"` of [`Fixed`] layers: `(name, priority, stability, text)`.
///
/// # Panics
/// When the layers do not form a valid pipeline: a test fixture bug.
pub fn fixed(layers: &[(&'static str, u32, Stability, &str)]) -> Pipeline {
    let entries = layers.iter().map(|(name, priority, stability, text)| {
        LayerEntry::new(spec(name, *priority, *stability), Fixed((*text).to_owned()))
    });
    match Pipeline::from_layers(TEST, entries) {
        Ok(pipeline) => pipeline,
        Err(error) => panic!("invalid test pipeline: {error}"),
    }
}

/// `tests/fixtures/real/<rel>`: the vendored real public AGENTS.md, CLAUDE.md and
/// SKILL.md files (byte-exact; origins and licences in `SOURCES.md` there).
///
/// # Panics
/// When the file is not there: a fixture was deleted or renamed.
pub fn real_fixture(rel: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/real")
        .join(rel);
    assert!(
        path.exists(),
        "real fixture {} is missing: it is vendored under tests/fixtures/real (see SOURCES.md there)",
        path.display()
    );
    path
}

/// A copy of `tests/fixtures/workspace` in a temporary directory, laid out as
///
/// ```text
/// <tmp>/outer/.agent/system-prompt.md   above the repository root: never found
/// <tmp>/outer/repo/.git                 the repository root marker (git cannot commit one)
/// <tmp>/outer/repo/...                  AGENTS.md, CLAUDE.md, .agent/, services/...
/// <tmp>/home/.agent/...                 user-level memory and skills
/// <tmp>/shared/                         the templates' shared folder
/// ```
pub struct FixtureWorkspace {
    /// Keeps the directory alive.
    pub dir: tempfile::TempDir,
    /// The repository root (the workspace).
    pub repo: PathBuf,
    /// The user's home.
    pub home: PathBuf,
    /// The shared template folder.
    pub shared: PathBuf,
}

impl FixtureWorkspace {
    /// Copies the fixture.
    ///
    /// # Panics
    /// When the temporary directory cannot be written: the test cannot run.
    pub fn new() -> Self {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/workspace");
        let dir = tempfile::tempdir().expect("temporary directory");
        let root = dir
            .path()
            .canonicalize()
            .expect("temporary directory resolves");
        let (outer, repo, home, shared) = (
            root.join("outer"),
            root.join("outer/repo"),
            root.join("home"),
            root.join("shared"),
        );
        copy_dir(&fixture.join("outer"), &outer);
        copy_dir(&fixture.join("repo"), &repo);
        copy_dir(&fixture.join("home"), &home);
        copy_dir(&fixture.join("shared"), &shared);
        std::fs::create_dir_all(repo.join(".git")).expect("create .git");
        Self {
            dir,
            repo,
            home,
            shared,
        }
    }
}

impl Default for FixtureWorkspace {
    fn default() -> Self {
        Self::new()
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create fixture directory");
    for entry in std::fs::read_dir(from).expect("read fixture directory") {
        let entry = entry.expect("fixture entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy fixture file");
        }
    }
}
