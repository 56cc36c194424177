//! The sources of `prompt-layers`: loading files from disk with caps,
//! discovery, the size cut, the parsers (YAML, frontmatter) and templates
//! against hostile input, real public files, and the edge cases mutation
//! runs found unguarded.

#[path = "../common/mod.rs"]
mod common;

mod cut;
mod edges;
mod loading;
mod parsers;
mod real_fixtures;
mod support;
mod templates;
