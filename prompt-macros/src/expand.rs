//! Pass 3: the generated code.
//!
//! Generated code names only `<crate>::__private`, so a user's `Cargo.toml`
//! needs `prompt-core` and nothing else.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Item, ItemStruct, Lit, Path};

use crate::errors::Errors;
use crate::parse;
use crate::validate::{Construct, Content, Layer, Stub, validate};

/// The attribute's whole work: parse, validate, expand (or stub on error).
pub(crate) fn prompt_layer(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let item = match syn::parse2::<Item>(input.clone()) {
        Ok(Item::Struct(item)) => item,
        Ok(other) => {
            let (what, tokens) = match &other {
                Item::Enum(e) => ("an enum", e.enum_token.to_token_stream()),
                Item::Union(u) => ("a union", u.union_token.to_token_stream()),
                _ => ("this item", other.to_token_stream()),
            };
            errors.at(
                tokens,
                format!(
                    "`#[prompt_layer]` goes on a struct, not on {what}; declare a unit struct \
                     (`pub struct MyLayer;`) and implement `Render` for it"
                ),
            );
            let mut out = errors.into_compile_errors();
            out.extend(input);
            return out;
        }
        Err(error) => {
            let mut out = error.to_compile_error();
            out.extend(input);
            return out;
        }
    };

    let args = parse::parse(args, &item.ident.to_string(), &mut errors);
    let stub = Stub::new(&item, &args);
    match validate(&item, args, &mut errors) {
        Some(layer) => expand(&item, &layer),
        None => expand_stub(&item, &stub, errors),
    }
}

/// The struct, untouched, and everything the layer needs.
fn expand(item: &ItemStruct, layer: &Layer) -> TokenStream {
    let krate = &layer.krate;
    let p = quote!(#krate::__private);
    let ident = &layer.ident;
    let name = &layer.name;
    let pipeline = &layer.pipeline;
    let priority = &layer.priority;
    let stability = &layer.stability;
    let paths = layer.paths.iter().map(|i| quote!(#p::AssemblyPath::#i));
    let modes = if layer.modes.is_empty() {
        quote!(#p::PromptMode::ALL)
    } else {
        let modes = layer.modes.iter().map(|m| quote!(#p::PromptMode::#m));
        quote!(&[#(#modes),*])
    };
    let silent = match &layer.silent {
        Some(lit) => quote!(#p::core::option::Option::Some(#lit)),
        None => quote!(#p::core::option::Option::None),
    };

    let spec = quote! {
        impl #p::PromptLayer for #ident {
            const SPEC: #p::LayerSpec = #p::LayerSpec {
                name: #name,
                priority: #priority,
                stability: #p::Stability::#stability,
                paths: &[#(#paths),*],
                modes: #modes,
                pipeline: #pipeline,
                silent: #silent,
                type_name: #p::core::stringify!(#ident),
                file: #p::core::file!(),
                line: #p::core::line!(),
            };
        }
    };

    let band = band_check(layer, &p);
    let order = order_checks(layer, &p);
    let unique = unique_symbols(layer);
    let render = layer
        .content
        .as_ref()
        .map(|content| render_impl(ident, content, &p));
    let construct = match layer.construct {
        Construct::Unit => quote!(#ident),
        Construct::EmptyBraces => quote!(#ident {}),
        Construct::EmptyParens => quote!(#ident()),
        Construct::Default => quote_spanned!(ident.span()=> #p::default_layer::<#ident>()),
    };
    let boxed = quote_spanned!(ident.span()=> #p::boxed(#construct));

    quote! {
        #item
        #spec
        #render
        #band
        #order
        #unique
        #p::inventory::submit! {
            #p::Registration {
                spec: &<#ident as #p::PromptLayer>::SPEC,
                build: || #boxed,
            }
        }
    }
}

/// A `const` assert that the priority lies in the stability's band.
fn band_check(layer: &Layer, p: &TokenStream) -> TokenStream {
    let ident = &layer.ident;
    let stability = &layer.stability;
    let (band, other, other_band) = if stability == "Stable" {
        ("0..10_000", "Dynamic", "10_000..20_000")
    } else {
        ("10_000..20_000", "Stable", "0..10_000")
    };
    let message = format!(
        "layer `{}` is {stability}, so its priority must be in {band}: change `priority`, \
         or make the layer {other} (band {other_band}) if that is what it is",
        layer.name
    );
    quote_spanned! {layer.priority.span()=>
        const _: () = {
            if !#p::Stability::#stability.admits(<#ident as #p::PromptLayer>::SPEC.priority) {
                ::core::panic!(#message);
            }
        };
    }
}

/// `const` asserts for `after = [..]` and `before = [..]`.
fn order_checks(layer: &Layer, p: &TokenStream) -> TokenStream {
    let ident = &layer.ident;
    let me = &layer.name;
    let relations = layer
        .after
        .iter()
        .map(|other| ("after", other))
        .chain(layer.before.iter().map(|other| ("before", other)));
    relations
        .map(|(key, other)| {
            let other_name = path_name(other);
            let pipeline_message = format!(
                "layer `{me}` declares `{key} = [{other_name}]`, but `{other_name}` is in another pipeline; \
                 relative order only holds within one pipeline: drop the relation or move one of the layers"
            );
            let (holds, order_message) = if key == "after" {
                (
                    quote!(other.priority < me.priority),
                    format!(
                        "layer `{me}` declares `after = [{other_name}]`, but its priority is not higher than `{other_name}`'s: \
                         raise `{me}`'s priority above `{other_name}`'s, or lower `{other_name}`'s"
                    ),
                )
            } else {
                (
                    quote!(me.priority < other.priority),
                    format!(
                        "layer `{me}` declares `before = [{other_name}]`, but its priority is not lower than `{other_name}`'s: \
                         lower `{me}`'s priority below `{other_name}`'s, or raise `{other_name}`'s"
                    ),
                )
            };
            quote_spanned! {other.span()=>
                const _: () = {
                    let me = <#ident as #p::PromptLayer>::SPEC;
                    let other = <#other as #p::PromptLayer>::SPEC;
                    if !#p::str_eq(me.pipeline, other.pipeline) {
                        ::core::panic!(#pipeline_message);
                    }
                    if !(#holds) {
                        ::core::panic!(#order_message);
                    }
                };
            }
        })
        .collect()
}

/// Exported symbols named after (pipeline, name) and, for a literal priority,
/// (pipeline, priority): a second layer with the same one fails to build (same
/// crate: "symbol ... is already defined", at the second layer's key) or to link
/// (another crate: "multiple definition of ..."), and the symbol says what clashed.
fn unique_symbols(layer: &Layer) -> TokenStream {
    let pipeline = &layer.pipeline;
    let name_span = layer.name_span;
    let mut symbols = vec![(
        format!(
            "prompt_layer: pipeline \"{pipeline}\" has two layers named \"{}\"; rename one with name = \"...\"",
            layer.name
        ),
        name_span,
    )];
    if let Some(priority) = literal_priority(&layer.priority) {
        symbols.push((
            format!(
                "prompt_layer: pipeline \"{pipeline}\" has two layers with priority {priority}; give one another priority"
            ),
            layer.priority.span(),
        ));
    }
    symbols
        .into_iter()
        .map(|(symbol, span)| {
            // The item's name carries the user's span, so the clash is reported
            // at the offending key; the attributes keep the macro's own span,
            // so a crate's `unsafe_code` lint does not count them as its own.
            let slot = syn::Ident::new("SLOT", span);
            quote! {
                const _: () = {
                    #[used]
                    #[unsafe(export_name = #symbol)]
                    static #slot: u8 = 0;
                };
            }
        })
        .collect()
}

fn literal_priority(expr: &Expr) -> Option<u32> {
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Int(int) => int.base10_parse::<u32>().ok(),
            _ => None,
        },
        Expr::Group(group) => literal_priority(&group.expr),
        Expr::Paren(paren) => literal_priority(&paren.expr),
        _ => None,
    }
}

/// The `Render` impl for `text = ".."` or `file = ".."`.
fn render_impl(ident: &syn::Ident, content: &Content, p: &TokenStream) -> TokenStream {
    let (text, span) = match content {
        Content::Text(lit) => (lit.to_token_stream(), lit.span()),
        Content::File(lit, abs) => (
            quote_spanned!(lit.span()=> #p::core::include_str!(#abs)),
            lit.span(),
        ),
    };
    quote_spanned! {span=>
        impl #p::Render for #ident {
            fn render(&self, out: &mut ::std::string::String, _input: &#p::LayerInput<'_>) {
                out.push_str(#text);
            }
        }
    }
}

/// After an error: the struct, the errors, and stub impls so that code naming
/// the layer does not fail a second time.
fn expand_stub(item: &ItemStruct, stub: &Stub, errors: Errors) -> TokenStream {
    let errors = errors.into_compile_errors();
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        return quote!(#item #errors);
    }
    let krate = &stub.krate;
    let p = quote!(#krate::__private);
    let ident = &item.ident;
    let name = &stub.name;
    let render = stub.has_content.then(|| {
        quote! {
            impl #p::Render for #ident {
                fn render(&self, _out: &mut ::std::string::String, _input: &#p::LayerInput<'_>) {}
            }
        }
    });
    quote! {
        #item
        #errors
        impl #p::PromptLayer for #ident {
            const SPEC: #p::LayerSpec = #p::error_spec(#name, #p::core::stringify!(#ident));
        }
        #render
    }
}

/// `a::b::C` as written, without the spaces `to_string` puts in.
fn path_name(path: &Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}
