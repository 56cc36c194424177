//! Where the standard layers sit, with gaps for a user's own.
//!
//! Stable layers lie in `0..10_000`, Dynamic ones in `10_000..20_000`.
//! Standard layers use multiples of 1000 so a user layer can go anywhere in
//! between, e.g. `priority = priorities::BASE + 10`.

/// The base prompt / persona: first, the most stable text there is.
pub const BASE: u32 = 1_000;
/// Runtime facts (date, cwd, model, ...): the first Dynamic layer.
pub const RUNTIME: u32 = 10_000;
