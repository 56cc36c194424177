//! Sources: everything that is read from disk, before assembly.
//!
//! Layers are pure; the I/O lives here. Each loader returns its value with
//! any [`SourceError`]s inside (naming the file), never a panic and never a
//! silent cut. [`crate::load_session`] runs them all and puts the results in
//! a session [`Context`](prompt_core::Context) for the layers to read.
//!
//! Every file is read the same way, because every file may come from a
//! repository the user did not write: only regular files (a FIFO or device
//! is refused without being opened), never through a symlink out of the
//! file's [`Root`], never more than a cap (append-only logs: their tail), and
//! with control characters other than newline and tab and invisible format
//! characters (bidi overrides, zero-width characters) removed, a BOM dropped
//! and lone CR line endings turned into `\n`; a value out of a parser is
//! cleaned again after parsing, in [`parsed`]. Discovery never walks above the
//! workspace. File text enters a prompt only inside a [`fence`]
//! (`<file path="…">…</file>`, the delimiter escaped inside) or folded onto
//! one line ([`one_line`]).
//!
//! A source or layer of your own reads hostile text the same way, with the
//! same parts: [`Root`] and [`CappedText::read`] to read a file, [`clean`]
//! (its [`Cleaned`] says what it removed; [`is_invisible`] is the set it
//! removes) for text you got some other way, [`fence`] or [`one_line`] to
//! put it into a prompt, [`visible`] to name it in a note or an error, and
//! [`git_branch`] for a runtime fact ([`RuntimeFacts::git_branch`](crate::RuntimeFacts::git_branch)).

mod base_prompt;
mod capped;
mod dated;
mod discover;
mod error;
mod fs;
mod git;
mod memory;
pub mod parsed;
mod project_docs;
mod scratchpad;
mod skills;
mod templates;
mod text;
pub mod yaml;

pub use base_prompt::{BasePromptConfig, BasePromptText, DEFAULT_BASE_PROMPT, PromptOrigin};
pub use capped::CappedText;
pub use dated::{Dated, DatedConfig, DatedEntries, EntryBudget, EntryLimits, Episodes, Facts};
pub use error::SourceError;
pub use fs::Root;
pub use git::git_branch;
pub use memory::{MemoryFile, MemoryLimits, ProjectMemory, UserPreferences};
pub use project_docs::{PROJECT_DOC_NAMES, ProjectDoc, ProjectDocs, ProjectDocsConfig};
pub use scratchpad::Scratchpad;
pub use skills::{Skill, SkillIndex, SkillLimits};
pub use templates::{SHARED_PREFIX, TemplateLimits, Templates};
pub use text::{Cleaned, clean, demote_headings, fence, is_invisible, one_line, visible};

pub(crate) use error::report;
pub(crate) use fs::is_plain_name;

/// What the CLI library (`prompt-cli`, pinned to this release with `=`)
/// reads files and reports errors with, so its reads are the sources' own
/// (capped, through a [`Root`]). Not API: no semver promise beyond
/// the `prompt-cli` of the same release.
#[doc(hidden)]
pub mod __cli {
    pub use super::error::report;
    pub use super::fs::{Opened, open, read_head};
}

// Without `--cfg prompt_unstable`, nothing but the hooks below calls these
// helpers: they stay built (the hooks test what the sources run).
#[cfg(not(prompt_unstable))]
const _: () = {
    let _ = (
        skills::parse_skill,
        skills::parse_frontmatter,
        templates::check_syntax,
    );
};

/// Implementation helpers, reachable for this project's tests, benchmarks
/// and fuzz targets only, behind `--cfg prompt_unstable` (in `RUSTFLAGS`, as
/// this workspace's `.cargo/config.toml` sets it; tokio's `tokio_unstable`
/// model: a dependency cannot turn it on for you, as it could a feature).
/// Not part of the API: anything here may change.
#[cfg(prompt_unstable)]
#[doc(hidden)]
pub mod __private {
    pub use super::capped::{cut, decode, read_capped};
    pub use super::discover::{find_upward, repo_root};
    pub use super::fs::is_plain_name;
    pub use super::scratchpad::SCRATCHPAD_CAP;
    pub use super::skills::{FRONTMATTER_CAP, SKILL_READ_CAP, parse_frontmatter, parse_skill};
    pub use super::templates::{TEMPLATE_CAP, check_syntax, resolve_shared};
}
