//! The `#[prompt_layer]` attribute. Use it as `prompt_core::prompt_layer`;
//! this crate has no runtime code and is not meant to be named directly.
//!
//! The work is split in three passes, each in its own module:
//! [`parse`] reads the attribute's keys into [`parse::Args`], collecting every
//! error; [`validate`] checks what no single key can (required keys, empty
//! lists, `text` with `file`, the file's existence) into a [`validate::Layer`];
//! [`expand`] writes the impls, the registration and the `const` checks. On any
//! error the struct is still emitted with a stub impl, so one mistake gives
//! one error.

mod errors;
mod expand;
mod parse;
mod validate;

use proc_macro::TokenStream;

/// Declares a prompt layer: writes its `PromptLayer` impl, registers it with
/// the pipeline and checks its priority band and relative order at compile time.
///
/// See the `prompt_core` crate docs for the keys.
#[proc_macro_attribute]
pub fn prompt_layer(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::prompt_layer(args.into(), input.into()).into()
}
