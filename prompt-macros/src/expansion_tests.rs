//! The whole expansion of each attribute shape, pretty-printed and
//! snapshotted (`src/snapshots/`): what every user's build compiles, read
//! whole when it changes. The tests in `expand.rs` pin single properties
//! (no struct literals, nothing named outside `__private_v1`); these show
//! everything else.
//!
//! Spans do not print, and outside a compiler the attribute's line is
//! `line!()`, so the output depends only on the input, the source file
//! given here, the package name Cargo sets (`prompt-macros`) and, for
//! `file = ".."`, the manifest directory, which is redacted.

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand;

/// The source file every expansion here is told it is in.
const FILE: &str = "src/layers/persona.rs";

/// `tokens` (items) pretty-printed, the manifest directory redacted.
fn pretty(tokens: TokenStream) -> String {
    let file: syn::File = match syn::parse2(tokens.clone()) {
        Ok(file) => file,
        Err(error) => panic!("the expansion is not a list of items: {error}\n{tokens}"),
    };
    let out = prettyplease::unparse(&file);
    match std::env::var("CARGO_MANIFEST_DIR") {
        Ok(dir) => out.replace(&dir, "[CARGO_MANIFEST_DIR]"),
        Err(_) => out,
    }
}

/// `#[prompt_layer(args)] item`, expanded twice: the two must be identical
/// (no iteration over a randomly seeded map).
fn layer(args: TokenStream, item: TokenStream) -> String {
    let once = pretty(expand::prompt_layer(
        args.clone(),
        item.clone(),
        Some(FILE.into()),
    ));
    let again = pretty(expand::prompt_layer(args, item, Some(FILE.into())));
    assert_eq!(once, again, "two expansions of one input differ");
    once
}

/// `#[prompt_pipeline(args)] item`, expanded twice, as [`layer`].
fn pipeline(args: TokenStream, item: TokenStream) -> String {
    let once = pretty(expand::prompt_pipeline(
        args.clone(),
        item.clone(),
        Some(FILE.into()),
    ));
    let again = pretty(expand::prompt_pipeline(args, item, Some(FILE.into())));
    assert_eq!(once, again, "two expansions of one input differ");
    once
}

#[test]
fn text_layer() {
    insta::assert_snapshot!(layer(
        quote!(
            priority = 100,
            stability = Stable,
            paths = [Basic, Cached],
            text = "You are terse."
        ),
        quote!(
            pub struct Persona;
        ),
    ));
}

#[test]
fn file_layer() {
    let out = layer(
        quote!(
            priority = 100,
            stability = Stable,
            paths = [Cached],
            file = "README.md"
        ),
        quote!(
            pub struct Persona;
        ),
    );
    assert!(
        out.contains("\"[CARGO_MANIFEST_DIR]/README.md\""),
        "the embedded path is the manifest directory's, redacted: {out}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn render_layer() {
    insta::assert_snapshot!(layer(
        quote!(priority = 100, stability = Stable, paths = [Cached]),
        quote!(
            pub struct Persona;
        ),
    ));
}

#[test]
fn dynamic_layer() {
    insta::assert_snapshot!(layer(
        quote!(
            priority = 10_500,
            stability = Dynamic,
            paths = [Basic],
            yields = Truncate,
            channel = Reminder,
            silent = "no open files"
        ),
        quote!(
            pub struct OpenFiles;
        ),
    ));
}

#[test]
fn scope_layer() {
    insta::assert_snapshot!(layer(
        quote!(
            priority = 200,
            stability = Stable,
            paths = [Cached],
            scope = Project,
            text = "The project is a compiler."
        ),
        quote!(
            pub struct ProjectFacts;
        ),
    ));
}

#[test]
fn ordered_layer() {
    insta::assert_snapshot!(layer(
        quote!(
            priority = 300,
            stability = Stable,
            paths = [Cached],
            after = [Persona],
            before = [rules::Rules, Tools],
            text = "Be careful."
        ),
        quote!(
            pub struct Caution;
        ),
    ));
}

#[test]
fn named_layer() {
    insta::assert_snapshot!(layer(
        quote!(
            priority = 100,
            stability = Stable,
            paths = [Cached],
            name = "persona_v2",
            text = "You are terse."
        ),
        quote!(
            pub struct Persona;
        ),
    ));
}

#[test]
fn layer_in_one_pipeline() {
    insta::assert_snapshot!(layer(
        quote!(
            priority = 100,
            stability = Stable,
            paths = [Cached],
            modes = [Full],
            pipeline = agents::Main,
            text = "You are terse."
        ),
        quote!(
            pub struct Persona;
        ),
    ));
}

#[test]
fn layer_in_two_pipelines() {
    insta::assert_snapshot!(layer(
        quote!(
            priority = 100,
            stability = Stable,
            paths = [Basic, Cached],
            modes = [Full, Compact],
            pipeline = [Main, agents::SubAgent],
            text = "You are terse."
        ),
        quote!(
            pub struct Persona;
        ),
    ));
}

#[test]
fn include_only_layer() {
    let out = layer(
        quote!(
            priority = 100,
            stability = Stable,
            paths = [Cached],
            pipeline = [],
            text = "You are terse."
        ),
        quote!(
            pub struct Persona;
        ),
    );
    assert!(!out.contains("inventory"), "registered: {out}");
    insta::assert_snapshot!(out);
}

#[test]
fn modes_layer() {
    insta::assert_snapshot!(layer(
        quote!(
            priority = 100,
            stability = Stable,
            paths = [Basic, Cached],
            modes = [Full, Compact],
            text = "You are terse."
        ),
        quote!(
            pub struct Persona;
        ),
    ));
}

/// Fields: built through `Default`; a priority that is not a literal gets no
/// priority symbol.
#[test]
fn layer_with_fields() {
    insta::assert_snapshot!(layer(
        quote!(priority = BASE + 1, stability = Dynamic, paths = [Basic]),
        quote!(
            #[derive(Default)]
            pub struct Clock {
                offset: i64,
            }
        ),
    ));
}

#[test]
fn layer_with_crate_path() {
    insta::assert_snapshot!(layer(
        quote!(
            crate = ::my_framework::prompt_core,
            priority = 100,
            stability = Stable,
            paths = [Cached],
            text = "You are terse."
        ),
        quote!(
            pub struct Persona;
        ),
    ));
}

/// A mistake: the struct, the errors, a stub impl and nothing registered.
#[test]
fn layer_with_errors() {
    let out = layer(
        quote!(priority = 100, paths = [], text = "You are terse."),
        quote!(
            pub struct Persona;
        ),
    );
    assert!(!out.contains("inventory"), "a stub is registered: {out}");
    insta::assert_snapshot!(out);
}

#[test]
fn plain_pipeline() {
    insta::assert_snapshot!(pipeline(
        quote!(paths = [Cached]),
        quote!(
            pub struct Main;
        ),
    ));
}

#[test]
fn pipeline_with_every_key() {
    insta::assert_snapshot!(pipeline(
        quote!(
            crate = ::my_framework::prompt_core,
            paths = [Basic, Cached],
            modes = [Full, Minimal],
            separator = "\n\n",
            scope_order = Relaxed,
            include = [
                Persona,
                my_layers::Standard(paths = [Cached], modes = [Full], yields = Shed)
            ],
            require_crates = [my_layers, more_layers]
        ),
        quote!(
            pub struct SubAgent;
        ),
    ));
}

#[test]
fn pipeline_with_errors() {
    let out = pipeline(
        quote!(paths = [Basic], include = [Persona, Persona]),
        quote!(
            pub struct Main;
        ),
    );
    assert!(!out.contains("inventory"), "a stub is registered: {out}");
    insta::assert_snapshot!(out);
}
