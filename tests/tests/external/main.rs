//! Crates outside this workspace, built the way a user builds them: one that
//! depends only on prompt-core (`standalone`), the README's own `prompt`
//! binary (`cli`), and a workspace whose sub-agent includes the standard set
//! and a crate that never heard of it (`compose`), and a crate that uses
//! minijinja 2 with its default features and minijinja 3 (`minijinja`).
//! Mutation runs leave this binary out: it builds a crate per run.

mod cli;
mod compose;
mod minijinja;
mod standalone;
