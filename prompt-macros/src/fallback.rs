//! What the attributes emit after an error: the struct, the errors, and stub
//! impls, so that code naming the layer or pipeline does not fail a second
//! time. (As thiserror's `fallback`.)

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ItemStruct, Path};

/// The struct, `errors`, and a `PromptLayer` impl whose spec satisfies every
/// relation that names it.
pub(crate) fn layer(
    item: &ItemStruct,
    krate: &Path,
    name: &str,
    errors: TokenStream,
) -> TokenStream {
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        return quote!(#item #errors);
    }
    let p = quote!(#krate::__private_v1);
    let ident = &item.ident;
    quote! {
        #item
        #errors
        #[automatically_derived]
        impl #p::PromptLayer for #ident {
            const SPEC: #p::LayerSpec = #p::error_spec(#name, #p::core::stringify!(#ident));
            fn __renderer() -> #p::BoxedRender {
                #p::core::unreachable!("a layer whose attribute has errors is never registered")
            }
        }
    }
}

/// The struct, `errors`, and a `PromptPipeline` impl that serves everything,
/// so layers naming it get no second error.
pub(crate) fn pipeline(
    item: &ItemStruct,
    krate: &Path,
    name: &str,
    errors: TokenStream,
) -> TokenStream {
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        return quote!(#item #errors);
    }
    let p = quote!(#krate::__private_v1);
    let ident = &item.ident;
    quote! {
        #item
        #errors
        #[automatically_derived]
        impl #p::PromptPipeline for #ident {
            const SPEC: #p::PipelineSpec = #p::error_pipeline_spec(#name, #p::core::stringify!(#ident));
        }
    }
}
