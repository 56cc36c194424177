//! What the attribute embeds at compile time (`text = ".."`, `file = ".."`),
//! and a crate outside the workspace that depends on `prompt-core` alone.
//! The compile errors themselves are the `ui` binary (trybuild).

mod external;
mod static_content;
