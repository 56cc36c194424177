//! The `#[prompt_layer]` attribute. Use it as `prompt_core::prompt_layer`;
//! this crate has no runtime code and is not meant to be named directly.
//!
//! The work is split in three passes, each in its own module: `parse` reads
//! the attribute's keys into `Args`, collecting every error; `validate` checks
//! what no single key can (required keys, empty lists, `text` with `file`, the
//! file's existence) into a `Layer`; `expand` writes the impls, the
//! registration and the `const` checks. On any error the struct is still
//! emitted with a stub impl, so one mistake gives one error.

mod errors;
mod expand;
mod parse;
mod validate;

use proc_macro::TokenStream;

/// Declares a prompt layer: writes its `PromptLayer` impl, registers it with
/// the pipeline and checks its priority band and relative order at compile time.
///
/// Goes on a non-generic struct. A unit struct is used as is; a struct with
/// fields is built once with `Default::default()`. Per-call data comes
/// through the context, never through fields.
///
/// | key | required | meaning |
/// |---|---|---|
/// | `priority = EXPR` | yes | position; any `const u32` expression (`100`, `BASE + 10`) |
/// | `stability = Stable \| Dynamic` | yes | cache partition; Stable priorities lie in `0..10_000`, Dynamic in `10_000..20_000` |
/// | `paths = [Basic, Cached]` | yes | entry points it renders on; non-empty |
/// | `modes = [Full, Compact, Minimal]` | no | modes it speaks in; default all three |
/// | `name = "snake_case"` | no | default: the struct's name in snake_case |
/// | `pipeline = "name"` | no | the pipeline it joins; default `"default"` |
/// | `after = [Type, ..]`, `before = [Type, ..]` | no | relative order, checked at compile time |
/// | `silent = "what wakes it"` | no | declares the layer conditionally silent, and says when it speaks |
/// | `text = "..."` / `file = "path.md"` | no | static content; the attribute writes the `Render` impl. `file` is relative to the crate's manifest directory and embedded at compile time |
/// | `crate = path` | no | where `prompt_core` is, for crates that re-export it |
///
/// Rejected at compile time, each at the offending key: a missing, unknown,
/// repeated or ill-formed key; empty `paths` or `modes`; a priority outside
/// its stability's band; an `after`/`before` that the priorities contradict or
/// that crosses pipelines; two layers of one pipeline with the same name (or
/// the same literal priority) in one binary; a generic struct, an enum or a
/// union; a missing `Render` impl; `text`/`file` together with a hand `Render`
/// impl; a `file` that does not exist.
#[proc_macro_attribute]
pub fn prompt_layer(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::prompt_layer(args.into(), input.into()).into()
}
