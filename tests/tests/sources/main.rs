//! The sources of `prompt-layers`: loading files from disk with caps,
//! discovery, files through a root, the size cut, dated entries, skills, the
//! parsers (YAML, frontmatter) and templates against hostile input and at
//! their limits, and real public files.

#[path = "../common/mod.rs"]
mod common;

mod cut;
mod dated;
mod files;
mod frontmatter;
mod loading;
mod parsers;
mod real_fixtures;
mod skills;
mod support;
mod template_rules;
mod templates;
