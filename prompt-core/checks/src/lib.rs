//! Checks of [prompt-core](prompt_core)'s assembled prompts, each a module:
//!
//! | module | feature | what it checks |
//! |---|---|---|
//! | [`testing`] | | annotated renderings for snapshot tests, and the free test ([`testing::check_pipelines`], [`testing::forgotten_crates`]) |
//! | [`diff`] | | why two renderings do not share their stable prefix |
//! | `contract` | `contract` (default) | the reference agents' contract checks and byte ratchets |
//! | `secrets` | `secrets` (default) | a scan of a rendered prompt (or a request body) for credential-shaped strings |
//! | [`write`](mod@write) | | the one writer of the tools' files: never through a device, a FIFO or a symlinked folder, never half a file |
//!
//! The runtime (`prompt-core`) holds none of them, so a crate that only
//! declares and assembles layers compiles none of them; a test crate adds
//! this package to its `[dev-dependencies]`.

#![cfg_attr(docsrs, feature(doc_cfg))]

// The paths these modules were written against inside prompt-core
// (`crate::spec::…`, `crate::assembly::…`), kept so they read as they did.
#[allow(unused_imports)] // which names are used depends on the features
use prompt_core::{AssembledPrompt, assembly, context, pipeline, spec, text, tokens};

#[cfg(feature = "contract")]
pub mod contract;
pub mod diff;
#[cfg(feature = "secrets")]
pub mod secrets;
pub mod testing;
pub mod write;

/// This package's crates.io README, run as a doctest so it cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
