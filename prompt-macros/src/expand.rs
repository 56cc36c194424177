//! Pass 3: the generated code.
//!
//! Generated code names only `<crate>::__private_v1`, so a user's
//! `Cargo.toml` needs `prompt-core` and nothing else, and builds every spec
//! through `const fn` constructors, never struct literals, so a field added
//! to a spec in `prompt-core` breaks no generated code.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Item, ItemStruct, Lit};

use crate::ctxt::Ctxt;
use crate::fallback;
use crate::names::{layer_name, pipeline_name};
use crate::parse;
use crate::validate::{self, Construct, Content, Layer, Pipeline, path_name};

/// Where the attribute is, for the spec's `file`: relative to the package's
/// manifest directory when the macro could tell, else `file!()` at run time.
pub(crate) type SourceFile = Option<String>;

/// The struct the attribute is on, or the tokens to emit when it is not one.
fn struct_item(input: TokenStream, what: &str, how: &str) -> Result<ItemStruct, TokenStream> {
    match syn::parse2::<Item>(input.clone()) {
        Ok(Item::Struct(item)) => Ok(item),
        Ok(other) => {
            let (kind, tokens) = match &other {
                Item::Enum(e) => ("an enum", e.enum_token.to_token_stream()),
                Item::Union(u) => ("a union", u.union_token.to_token_stream()),
                _ => ("this item", other.to_token_stream()),
            };
            let mut out = syn::Error::new_spanned(
                tokens,
                format!("`#[{what}]` goes on a struct, not on {kind}; {how}"),
            )
            .to_compile_error();
            out.extend(input);
            Err(out)
        }
        Err(error) => {
            let mut out = error.to_compile_error();
            out.extend(input);
            Err(out)
        }
    }
}

/// `#[prompt_layer]`'s whole work: parse, validate, expand (or fall back on error).
pub(crate) fn prompt_layer(args: TokenStream, input: TokenStream, file: SourceFile) -> TokenStream {
    let item = match struct_item(
        input,
        "prompt_layer",
        "declare a unit struct (`pub struct MyLayer;`) and implement `Render` for it",
    ) {
        Ok(item) => item,
        Err(out) => return out,
    };
    let cx = Ctxt::new();
    let owner = format!("layer `{}`", item.ident);
    let args = parse::layer_args(&cx, args, &owner);
    let stub_krate = validate::krate(args.krate.get());
    let stub_name = args
        .name
        .get()
        .map_or_else(|| layer_name(&item.ident), |lit| lit.value());
    let layer = validate::layer(&cx, &item, args);
    match (cx.check(), layer) {
        (Ok(()), Some(layer)) => expand_layer(&item, &layer, &file),
        (Err(errors), _) => fallback::layer(&item, &stub_krate, &stub_name, errors),
        (Ok(()), None) => panic!(
            "prompt-macros bug: layer `{}` failed validation without an error",
            item.ident
        ),
    }
}

/// `#[prompt_pipeline]`'s whole work.
pub(crate) fn prompt_pipeline(
    args: TokenStream,
    input: TokenStream,
    file: SourceFile,
) -> TokenStream {
    let item = match struct_item(
        input,
        "prompt_pipeline",
        "declare a unit struct: `pub struct MyPipeline;`",
    ) {
        Ok(item) => item,
        Err(out) => return out,
    };
    let cx = Ctxt::new();
    let owner = format!("pipeline `{}`", item.ident);
    let args = parse::pipeline_args(&cx, args, &owner);
    let stub_krate = validate::krate(args.krate.get());
    let pipeline = validate::pipeline(&cx, &item, args);
    match (cx.check(), pipeline) {
        (Ok(()), Some(pipeline)) => expand_pipeline(&item, &pipeline, &file),
        (Err(errors), _) => {
            fallback::pipeline(&item, &stub_krate, &pipeline_name(&item.ident), errors)
        }
        (Ok(()), None) => panic!(
            "prompt-macros bug: pipeline `{}` failed validation without an error",
            item.ident
        ),
    }
}

fn defined_at(p: &TokenStream, file: &SourceFile) -> TokenStream {
    let (krate, file, line) = defined_at_parts(p, file);
    quote!(.defined_at(#krate, #file, #line))
}

/// The package, file and line of the attribute, as literals where the macro
/// knows them (`CARGO_PKG_NAME` from Cargo's environment, the line from the
/// attribute's span), else as `env!`/`file!()`/`line!()`.
fn defined_at_parts(p: &TokenStream, file: &SourceFile) -> (TokenStream, TokenStream, TokenStream) {
    let krate = match std::env::var("CARGO_PKG_NAME") {
        Ok(name) => quote!(#name),
        Err(_) => quote!(#p::core::env!("CARGO_PKG_NAME")),
    };
    let file = match file {
        Some(rel) => quote!(#rel),
        None => quote!(#p::core::file!()),
    };
    let line = match line_of_call_site() {
        Some(line) => quote!(#line),
        None => quote!(#p::core::line!()),
    };
    (krate, file, line)
}

/// The line of the attribute, where a compiler runs the macro (`None` in the
/// macro's own unit tests, which run outside one).
fn line_of_call_site() -> Option<u32> {
    if !proc_macro::is_available() {
        return None;
    }
    u32::try_from(proc_macro::Span::call_site().line()).ok()
}

/// A `const` check: `problem` is an expression of type `Msg`; when it holds a
/// message, the build fails with it at `span`.
fn const_check(p: &TokenStream, span: Span, problem: TokenStream) -> TokenStream {
    let p = respan(p.clone(), span);
    quote_spanned! {span=>
        const _: () = #p::fail_on(#problem);
    }
}

/// The struct, untouched, and everything the layer needs.
fn expand_layer(item: &ItemStruct, layer: &Layer, file: &SourceFile) -> TokenStream {
    let krate = &layer.krate;
    let p = quote!(#krate::__private_v1);
    let ident = &layer.ident;
    let me = quote!(<#ident as #p::PromptLayer>::SPEC);
    let name = &layer.name;
    let priority = &layer.priority;

    let mut spec = {
        let stability = layer.stability.ident();
        let paths = layer.paths.iter().map(|s| {
            let i = s.ident();
            quote!(#p::AssemblyPath::#i)
        });
        let type_name = ident.to_string();
        let (krate, file, line) = defined_at_parts(&p, file);
        quote! {
            #p::LayerSpec::__declared(
                #name, #priority, #p::Stability::#stability, &[#(#paths),*],
                #type_name, #krate, #file, #line,
            )
        }
    };
    if !layer.modes.is_empty() {
        let modes = layer.modes.iter().map(|s| {
            let i = s.ident();
            quote!(#p::PromptMode::#i)
        });
        spec.extend(quote!(.modes(&[#(#modes),*])));
    }
    if !layer.pipelines.is_empty() {
        let names = layer.pipelines.iter().map(|r| {
            let path = &r.path;
            quote_spanned!(path.span()=> <#path as #p::PromptPipeline>::SPEC.name)
        });
        spec.extend(quote!(.pipelines(&[#(#names),*])));
    } else if layer.include_only {
        spec.extend(quote!(.pipelines(&[])));
    }
    if let Some(yields) = &layer.yields {
        let i = yields.ident();
        spec.extend(quote!(.yields(#p::Yields::#i)));
    }
    if let Some(channel) = &layer.channel {
        let i = channel.ident();
        spec.extend(quote!(.channel(#p::Channel::#i)));
    }
    if let Some(scope) = &layer.scope {
        let i = scope.ident();
        spec.extend(quote!(.scope(#p::Scope::#i)));
    }
    for (method, list) in [("after", &layer.after), ("before", &layer.before)] {
        if !list.is_empty() {
            let method = syn::Ident::new(method, Span::call_site());
            let links = list
                .iter()
                .map(|other| quote_spanned!(other.span()=> #p::link(#p::layer_spec::<#other>)));
            spec.extend(quote!(.#method(&[#(#links),*])));
        }
    }
    if let Some(silent) = &layer.silent {
        spec.extend(quote!(.silent(#silent)));
    }

    // A text layer names its text and takes the trait's renderer and the
    // text registration, shared by every text layer: no function of its
    // own. A layer that renders itself is boxed with its band (its
    // stability as a type, so a Stable layer's `LayerInput::get` reads
    // session values only).
    let (renderer, registration) = match &layer.content {
        Some(Content::Text(lit)) => (
            quote_spanned!(lit.span()=> const __TEXT: &'static str = #lit;),
            quote!(#p::text_registration::<#ident>()),
        ),
        Some(Content::File(lit, abs)) => (
            quote_spanned!(lit.span()=> const __TEXT: &'static str = #p::core::include_str!(#abs);),
            quote!(#p::text_registration::<#ident>()),
        ),
        None => {
            let construct = match layer.construct {
                Construct::Unit => quote!(#ident),
                Construct::EmptyBraces => quote!(#ident {}),
                Construct::EmptyParens => quote!(#ident()),
                Construct::Default => quote_spanned!(ident.span()=> #p::default_layer::<#ident>()),
            };
            let band = syn::Ident::new(
                layer.stability.ident().to_string().as_str(),
                Span::call_site(),
            );
            (
                quote_spanned! {ident.span()=>
                    fn __renderer() -> #p::BoxedRender {
                        #p::boxed::<#p::#band, _>(#construct)
                    }
                },
                quote!(#p::registration::<#ident>()),
            )
        }
    };

    let mut checks = vec![const_check(
        &p,
        priority.span(),
        quote!(#p::band_of::<#ident>()),
    )];
    let joined = pipeline_specs(&p, layer);
    let one = one_pipeline(&p, layer);
    // The scope orders of the pipelines the layer joins (none: the default
    // pipeline's, strict), for the scope check of each relation.
    let orders = layer.pipelines.iter().map(|r| {
        let path = &r.path;
        quote_spanned!(path.span()=> <#path as #p::PromptPipeline>::SPEC.scope_order)
    });
    let orders = quote!(&[#(#orders),*]);
    for (after, list) in [(true, &layer.after), (false, &layer.before)] {
        for other in list {
            let written = path_name(other);
            checks.push(const_check(
                &p,
                other.span(),
                quote_spanned!(other.span()=> #p::relation_problem(&#me, &#p::layer_spec::<#other>(), #after, #written, &[#(#joined),*])),
            ));
            checks.push(const_check(
                &p,
                other.span(),
                quote_spanned!(other.span()=> #p::scope_relation_problem(&#me, &#p::layer_spec::<#other>(), #after, #written, #orders)),
            ));
        }
    }
    if !layer.pipelines.is_empty() {
        // The layers its pipelines include are known here: a clash with one
        // of them is this layer's to fix, reported at its priority.
        checks.push(const_check(
            &p,
            priority.span(),
            match &one {
                Some(One {
                    spec,
                    bounds,
                    written,
                }) => quote!(#p::included_clash_in::<#ident>(#spec, #bounds, #written)),
                None => quote!(#p::included_clash_of::<#ident>()),
            },
        ));
    }
    checks.extend(reach_checks(&p, layer, one.as_ref()));
    if let Some(content) = &layer.content {
        let message = format!(
            "layer `{ident}` has `{key} = ..`, so the attribute renders it, and also a hand `impl Render for {ident}`: \
             drop the `{key}` key or the impl",
            key = content.key()
        );
        let span = content.literal().span();
        let p = respan(p.clone(), span);
        checks.push(quote_spanned! {span=>
            const _: () = {
                #[allow(unused_imports)]
                use #p::NoRender as _;
                #p::fail_if(#p::Probe::<#ident, #p::Stable>::HAS_RENDER || #p::Probe::<#ident, #p::Dynamic>::HAS_RENDER, #message)
            };
        });
    }

    let duplicates = duplicate_checks(layer, &p, one.as_ref());
    // The pipelines it joins, named once for all its checks.
    let joins = if layer.pipelines.len() < 2 {
        TokenStream::new()
    } else {
        let written = layer.pipelines.iter().map(|r| r.written.as_str());
        quote! {
            const __PIPELINES: &'static [&'static #p::PipelineSpec] = &[#(#joined),*];
            const __WRITTEN: &'static [&'static str] = &[#(#written),*];
        }
    };

    // An include-only layer (`pipeline = []`) joins no pipeline at link
    // time: the sets that carry it build it, so it is not registered.
    let registration = if layer.include_only {
        TokenStream::new()
    } else {
        quote! {
            #p::inventory::submit! {
                #registration
            }
        }
    };

    quote! {
        #item

        #[automatically_derived]
        impl #p::PromptLayer for #ident {
            const SPEC: #p::LayerSpec = #spec;

            #renderer
            #joins
        }

        #(#checks)*
        #duplicates
        #registration
    }
}

/// For a layer in exactly one pipeline: that pipeline's spec (as in
/// [`pipeline_specs`]) and its name as written, which its checks take as
/// arguments. A layer in several reads them from its `__PIPELINES` and
/// `__WRITTEN`.
fn one_pipeline(p: &TokenStream, layer: &Layer) -> Option<One> {
    match layer.pipelines.as_slice() {
        [only] => {
            let path = &only.path;
            Some(One {
                spec: quote_spanned!(path.span()=> <#path as #p::PromptPipeline>::__SPEC_REF),
                bounds: quote_spanned!(path.span()=> <#path as #p::PromptPipeline>::__SCOPE_BOUNDS),
                written: only.written.clone(),
            })
        }
        _ => None,
    }
}

/// The one pipeline of a layer, as its checks take it ([`one_pipeline`]).
struct One {
    /// `<P as PromptPipeline>::__SPEC_REF`, at the path's span.
    spec: TokenStream,
    /// `<P as PromptPipeline>::__SCOPE_BOUNDS`, at the path's span.
    bounds: TokenStream,
    /// The path as written.
    written: String,
}

/// `<P as PromptPipeline>::__SPEC_REF` (a `&PipelineSpec` to its one
/// `static`) for each pipeline the layer names, at its span.
fn pipeline_specs(p: &TokenStream, layer: &Layer) -> Vec<TokenStream> {
    layer
        .pipelines
        .iter()
        .map(|r| {
            let path = &r.path;
            quote_spanned!(path.span()=> <#path as #p::PromptPipeline>::__SPEC_REF)
        })
        .collect()
}

/// A layer renders in a pipeline on the paths and modes both list. Checked
/// per pipeline: the two meet on some path and some mode (at the pipeline's
/// type); per path and mode the layer lists: some pipeline serves it (at the
/// word). No check fires for a path that one pipeline serves and another does
/// not, so no message pushes a user to narrow a layer that renders somewhere.
fn reach_checks(p: &TokenStream, layer: &Layer, one: Option<&One>) -> Vec<TokenStream> {
    if layer.pipelines.is_empty() {
        return Vec::new();
    }
    let ident = &layer.ident;
    let mut checks = Vec::new();
    // With one pipeline this never fires: the layer meets it on a path and a
    // mode, or it meets no pipeline at all (the phantom checks' mistake).
    if layer.pipelines.len() > 1 {
        for (index, r) in layer.pipelines.iter().enumerate() {
            checks.push(const_check(
                p,
                r.path.span(),
                quote!(#p::never_renders_of::<#ident>(#index)),
            ));
        }
    }
    // One item for every listed path: at most one of them is ever reported
    // (two paths, each listed once), at its own word.
    if let Some(first) = layer.paths.first() {
        let mut arms = TokenStream::new();
        for (index, s) in layer.paths.iter().enumerate() {
            let span = s.span;
            let pp = respan(p.clone(), span);
            let fail = quote_spanned!(span=> #pp::fail_on(problem));
            if index + 1 == layer.paths.len() {
                arms.extend(if index == 0 { fail } else { quote!({ #fail }) });
            } else {
                arms.extend(quote!(if at == #index { #fail } else));
            }
        }
        let span = first.span;
        let phantom = match one {
            Some(One { spec, written, .. }) => {
                quote!(#p::phantom_paths_in::<#ident>(#spec, #written))
            }
            None => quote!(#p::phantom_paths_of::<#ident>()),
        };
        let at = if layer.paths.len() > 1 {
            quote!(at)
        } else {
            quote!(_)
        };
        checks.push(quote_spanned! {span=>
            const _: () = {
                let (problem, #at) = #phantom;
                #arms
            };
        });
    }
    for (index, s) in layer.modes.iter().enumerate() {
        checks.push(const_check(
            p,
            s.span,
            match one {
                Some(One { spec, written, .. }) => {
                    quote!(#p::phantom_mode_in::<#ident>(#index, #spec, #written))
                }
                None => quote!(#p::phantom_mode_of::<#ident>(#index)),
            },
        ));
    }
    checks
}

/// Private items named after (pipeline, name) and, for a literal priority,
/// (pipeline, priority), placed by `prompt_core`'s `unique_symbol!`: a
/// second layer of the same
/// module with the same one fails to build at its key, and the note points
/// at the first. Nothing is exported, so a module is the widest namespace a
/// layer can write to without adding to its crate's API; across modules and
/// crates the pipeline's own check (collect time, `testing::check_pipelines`,
/// every `prompt` subcommand) names both.
/// A pipeline is keyed by its type's name as written, so a const check
/// rejects an alias (which would key wrong).
fn duplicate_checks(layer: &Layer, p: &TokenStream, one: Option<&One>) -> TokenStream {
    let pipelines: Vec<&str> = if layer.include_only {
        // In no pipeline of its own: the pipelines that include it check it.
        Vec::new()
    } else if layer.pipelines.is_empty() {
        vec!["default"]
    } else {
        layer
            .pipelines
            .iter()
            .map(|r| r.assumed_name.as_str())
            .collect()
    };
    let mut out = TokenStream::new();
    for pipeline in pipelines {
        let mut names = vec![(
            format!("two_layers_named_{}_in_pipeline_{pipeline}", layer.name),
            layer.name_span,
        )];
        if let Some(priority) = literal_priority(&layer.priority) {
            names.push((
                format!("two_layers_with_priority_{priority}_in_pipeline_{pipeline}"),
                layer.priority.span(),
            ));
        }
        for (name, span) in names {
            out.extend(unique_symbol(p, &name, span));
        }
    }
    let ident = &layer.ident;
    let aliases = layer.pipelines.iter().enumerate().map(|(index, r)| {
        let assumed = &r.assumed_name;
        const_check(
            p,
            r.path.span(),
            match one {
                Some(One { spec, written, .. }) => {
                    quote!(#p::pipeline_alias_problem(#spec, #assumed, #written))
                }
                None => quote!(#p::pipeline_alias_of::<#ident>(#index, #assumed)),
            },
        )
    });
    out.extend(aliases);
    out
}

/// A private, uninhabited type called `name` in the module of the attribute,
/// placed by `prompt_core`'s `unique_symbol!`: in the type namespace only, not exported,
/// not in the docs. Its tokens carry the user's `span`, so a clash is
/// reported at the offending
/// key and the first definition at its own. `name` is made of snake_case
/// layer and pipeline names and digits; anything else is left unchecked.
fn unique_symbol(p: &TokenStream, name: &str, span: Span) -> TokenStream {
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return TokenStream::new();
    }
    let ident = syn::Ident::new(name, span);
    let item = quote_spanned! {span=>
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        enum #ident {}
    };
    let p = respan(p.clone(), span);
    quote_spanned!(span=> #p::unique_symbol!(#item);)
}

/// `tokens` with every span set to `span`: a path into `prompt_core` used as
/// a macro, so a failing `const` check points at the user's key rather than
/// the whole attribute.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(group) = &tree {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                tree = proc_macro2::TokenTree::Group(inner);
            } else {
                tree.set_span(span);
            }
            tree
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

/// The struct, untouched, its `PromptPipeline` impl and its registration.
fn expand_pipeline(item: &ItemStruct, pipeline: &Pipeline, file: &SourceFile) -> TokenStream {
    let krate = &pipeline.krate;
    let p = quote!(#krate::__private_v1);
    let ident = &pipeline.ident;
    let name = &pipeline.name;
    let paths = pipeline.paths.iter().map(|s| {
        let i = s.ident();
        quote!(#p::AssemblyPath::#i)
    });
    let mut spec = quote! {
        #p::PipelineSpec::new(#name)
            .paths(&[#(#paths),*])
            .type_name(#p::core::stringify!(#ident))
    };
    if !pipeline.modes.is_empty() {
        let modes = pipeline.modes.iter().map(|s| {
            let i = s.ident();
            quote!(#p::PromptMode::#i)
        });
        spec.extend(quote!(.modes(&[#(#modes),*])));
    }
    if let Some(separator) = &pipeline.separator {
        spec.extend(quote!(.separator(#separator)));
    }
    let mut checks = Vec::new();
    if !pipeline.include.is_empty() {
        let entries = pipeline.include.iter().map(|(item, written)| {
            let path = &item.path;
            let mut entry = quote_spanned!(path.span()=> #p::include::<#path>(#written));
            if let Some(paths) = &item.paths {
                let paths = paths.items.iter().map(|s| {
                    let i = s.ident();
                    quote!(#p::AssemblyPath::#i)
                });
                entry.extend(quote!(.paths(&[#(#paths),*])));
            }
            if let Some(modes) = &item.modes {
                let modes = modes.items.iter().map(|s| {
                    let i = s.ident();
                    quote!(#p::PromptMode::#i)
                });
                entry.extend(quote!(.modes(&[#(#modes),*])));
            }
            if let Some(yields) = &item.yields {
                let i = yields.ident();
                entry.extend(quote!(.yields(#p::Yields::#i)));
            }
            entry
        });
        spec.extend(quote!(.include(&[#(#entries),*])));
        for (index, (item, _)) in pipeline.include.iter().enumerate() {
            checks.push(const_check(
                &p,
                item.tokens.span(),
                quote!(#p::include_problem(<#ident as #p::PromptPipeline>::__SPEC_REF, #index)),
            ));
        }
    }
    if !pipeline.require_crates.is_empty() {
        let crates = &pipeline.require_crates;
        spec.extend(quote!(.required_crates(&[#(#crates),*])));
    }
    if let Some(order) = &pipeline.scope_order {
        let i = order.ident();
        spec.extend(quote!(.scope_order(#p::ScopeOrder::#i)));
    }
    spec.extend(defined_at(&p, file));
    let unique = unique_symbol(&p, &format!("two_pipelines_named_{name}"), ident.span());
    quote! {
        #item

        #[automatically_derived]
        impl #p::PromptPipeline for #ident {
            const SPEC: #p::PipelineSpec = #spec;
            const __SPEC_REF: &'static #p::PipelineSpec = {
                static SPEC: #p::PipelineSpec = <#ident as #p::PromptPipeline>::SPEC;
                &SPEC
            };
        }

        #unique
        #(#checks)*

        #p::inventory::submit! {
            #p::PipelineRegistration::new(&<#ident as #p::PromptPipeline>::SPEC)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(args: TokenStream, item: TokenStream) -> String {
        prompt_layer(args, item, Some("src/x.rs".into())).to_string()
    }

    /// Generated code must survive a field added to a spec: it builds every
    /// spec through constructors (`LayerSpec` is `#[non_exhaustive]`, so a
    /// literal would not even compile outside prompt-core) and names nothing
    /// outside `<crate>::__private_v1`.
    #[test]
    fn generated_code_uses_constructors_and_names_only_the_private_module() {
        for out in [
            expand(
                quote!(
                    priority = 1,
                    stability = Dynamic,
                    paths = [Basic, Cached],
                    modes = [Full],
                    pipeline = [Main, Sub],
                    after = [A],
                    before = [B],
                    silent = "x",
                    yields = Keep,
                    channel = Reminder,
                    text = "Hi."
                ),
                quote!(
                    pub struct Persona;
                ),
            ),
            expand(
                quote!(priority = 1, stability = Stable, paths = [Basic]),
                quote!(
                    pub struct Persona {
                        a: u8,
                    }
                ),
            ),
            prompt_pipeline(
                quote!(paths = [Basic], modes = [Full], separator = "\n"),
                quote!(
                    pub struct Main;
                ),
                None,
            )
            .to_string(),
        ] {
            for literal in [
                "LayerSpec {",
                "Registration {",
                "PipelineSpec {",
                "PipelineRegistration {",
            ] {
                assert!(
                    !out.contains(literal),
                    "struct literal `{literal}` in {out}"
                );
            }
            assert!(!out.contains(":: std ::"), "names std directly: {out}");
            let roots = out.matches(":: core ::").count();
            let private = out.matches("__private_v1 :: core ::").count();
            assert_eq!(roots, private, "names core outside __private_v1: {out}");
            assert!(out.contains("# [automatically_derived]"), "{out}");
        }
    }

    // The whole expansion of each attribute shape (errors and stubs,
    // include-only, one and two pipelines, priority symbols) is
    // snapshotted in `expansion_tests.rs`.
}
