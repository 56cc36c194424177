//! The `#[prompt_layer]` and `#[prompt_pipeline]` attributes. Use them as
//! `prompt_core::prompt_layer` and `prompt_core::prompt_pipeline`, where they
//! are documented; this crate has no runtime code and is not meant to be
//! named directly.
//!
//! The work is split the way serde_derive and thiserror split theirs:
//! `keys` lists every key and vocabulary once; `parse` reads the keys into
//! typed slots (each owning its "given twice" check); `validate` checks what
//! no single key can; `expand` writes the impls, the registration and the
//! `const` checks; `fallback` writes the stub emitted on error, so one
//! mistake gives one error. Errors gather in a `Ctxt` that must be checked.

mod ctxt;
mod expand;
#[cfg(test)]
mod expansion_tests;
mod fallback;
mod keys;
mod names;
mod parse;
mod validate;

use std::path::PathBuf;

use proc_macro::TokenStream;

/// The expansion of `#[prompt_layer]`, from the `prompt-macros` crate: use it as `prompt_core::prompt_layer`.
#[proc_macro_attribute]
pub fn prompt_layer(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::prompt_layer(args.into(), input.into(), source_file()).into()
}

/// The expansion of `#[prompt_pipeline]`, from the `prompt-macros` crate: use it as `prompt_core::prompt_pipeline`.
#[proc_macro_attribute]
pub fn prompt_pipeline(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::prompt_pipeline(args.into(), input.into(), source_file()).into()
}

/// The file the attribute is in, relative to the package's manifest
/// directory (`src/layers/base.rs`), so specs and manifests read the same on
/// every machine and for path or registry dependencies. `None` when it is
/// not under the manifest directory.
fn source_file() -> Option<String> {
    let file = proc_macro::Span::call_site().local_file()?;
    let file = if file.is_absolute() {
        file
    } else {
        std::env::current_dir().ok()?.join(file)
    };
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    let (file, manifest) = (file.canonicalize().ok()?, manifest.canonicalize().ok()?);
    let rel = file.strip_prefix(&manifest).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}
