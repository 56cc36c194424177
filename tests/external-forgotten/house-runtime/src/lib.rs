//! Uses prompt-core for the runtime only: it builds contexts and declares no
//! layer (a `// #[prompt_layer(..)]` in a comment does not count), so no
//! `prompt` names it.

use prompt_core::Context;

/// The session this house's tools start from.
pub fn session() -> Context {
    Context::new()
}
