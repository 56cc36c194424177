//! Pass 2: what no single key can check, resolved into a [`Layer`] ready to expand.

use std::path::PathBuf;

use heck::ToSnakeCase;
use proc_macro2::Span;
use syn::{Expr, Fields, Ident, ItemStruct, LitStr, Path};

use crate::errors::Errors;
use crate::parse::{Args, IdentList};

/// How the registry builds the layer value.
pub(crate) enum Construct {
    /// `struct X;`
    Unit,
    /// `struct X {}`
    EmptyBraces,
    /// `struct X();`
    EmptyParens,
    /// Fields: through `Default`.
    Default,
}

/// Static content the macro renders for the user.
pub(crate) enum Content {
    /// `text = "..."`
    Text(LitStr),
    /// `file = "..."`: the literal, for spans, and the absolute path to embed.
    File(LitStr, String),
}

/// A layer whose attribute passed every check.
pub(crate) struct Layer {
    pub(crate) ident: Ident,
    pub(crate) krate: Path,
    pub(crate) name: String,
    /// The `name = ".."` literal, or the struct's name when the name is derived.
    pub(crate) name_span: Span,
    pub(crate) pipeline: String,
    pub(crate) priority: Expr,
    pub(crate) stability: Ident,
    pub(crate) paths: Vec<Ident>,
    pub(crate) modes: Vec<Ident>,
    pub(crate) after: Vec<Path>,
    pub(crate) before: Vec<Path>,
    pub(crate) silent: Option<LitStr>,
    pub(crate) content: Option<Content>,
    pub(crate) construct: Construct,
}

/// The parts of the attribute the error stub can still use.
pub(crate) struct Stub {
    pub(crate) krate: Path,
    pub(crate) name: String,
    pub(crate) has_content: bool,
}

impl Stub {
    pub(crate) fn new(item: &ItemStruct, args: &Args) -> Self {
        Stub {
            krate: krate(args),
            name: args
                .name
                .as_ref()
                .map_or_else(|| default_name(&item.ident), LitStr::value),
            has_content: args.text.is_some() || args.file.is_some(),
        }
    }
}

fn krate(args: &Args) -> Path {
    args.krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::prompt_core))
}

fn default_name(ident: &Ident) -> String {
    ident.to_string().to_snake_case()
}

/// Checks `args` against each other and `item`; `None` when `errors` got any.
pub(crate) fn validate(item: &ItemStruct, args: Args, errors: &mut Errors) -> Option<Layer> {
    let layer = item.ident.to_string();
    let krate = krate(&args);

    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        errors.at(
            &item.generics,
            format!(
                "layer `{layer}` is generic, but the registry builds each layer once, as one type; \
                 declare a non-generic struct per instantiation (e.g. `struct {layer}ForX;`)"
            ),
        );
    }

    let missing = |errors: &mut Errors, key: &str, example: &str, why: &str| {
        errors.span(
            Span::call_site(),
            format!("layer `{layer}` is missing `{key}`: add `{example}`{why}"),
        );
    };
    if !args.wrote("priority") {
        missing(
            errors,
            "priority",
            "priority = 100",
            " (Stable: 0..10_000, Dynamic: 10_000..20_000)",
        );
    }
    if !args.wrote("stability") {
        missing(
            errors,
            "stability",
            "stability = Stable",
            " or `stability = Dynamic`; there is no default, so that nothing per-call lands in the cached prefix by accident",
        );
    }
    if !args.wrote("paths") {
        missing(
            errors,
            "paths",
            "paths = [Basic, Cached]",
            " (or just one of them)",
        );
    }

    let non_empty = |errors: &mut Errors, list: &Option<IdentList>, key: &str, all: &str| {
        if let Some(list) = list.as_ref().filter(|l| l.tokens.elems.is_empty()) {
            errors.at(
                &list.tokens,
                format!(
                    "layer `{layer}` has an empty `{key}`, so it would never render; list at least one of {all}{}",
                    if key == "modes" { ", or drop the key for all three" } else { "" }
                ),
            );
        }
    };
    non_empty(errors, &args.paths, "paths", "Basic, Cached");
    non_empty(errors, &args.modes, "modes", "Full, Compact, Minimal");
    for (key, list) in [("after", &args.after), ("before", &args.before)] {
        if let Some((tokens, _)) = list.as_ref().filter(|(t, _)| t.elems.is_empty()) {
            errors.at(
                tokens,
                format!("layer `{layer}` has an empty `{key}`; drop the key or name a layer"),
            );
        }
    }

    let name = args.name.as_ref().map_or_else(
        || default_name(&item.ident),
        |lit| snake_case_value(lit, "name", &layer, errors),
    );
    let pipeline = args.pipeline.as_ref().map_or_else(
        || "default".to_owned(),
        |lit| snake_case_value(lit, "pipeline", &layer, errors),
    );
    if let Some(silent) = args.silent.as_ref().filter(|s| s.value().trim().is_empty()) {
        errors.at(
            silent,
            format!("layer `{layer}`: `silent` says what session content wakes the layer; it cannot be empty"),
        );
    }

    let content = match (&args.text, &args.file) {
        (Some(_), Some(file)) => {
            errors.at(
                file,
                format!("layer `{layer}` has both `text` and `file`; keep one"),
            );
            None
        }
        (Some(text), None) => {
            if text.value().is_empty() {
                errors.at(
                    text,
                    format!("layer `{layer}` has an empty `text`, so it would never render; write its text or drop the layer"),
                );
            }
            Some(Content::Text(text.clone()))
        }
        (None, Some(file)) => {
            resolve_file(file, &layer, errors).map(|abs| Content::File(file.clone(), abs))
        }
        (None, None) => None,
    };

    let construct = match &item.fields {
        Fields::Unit => Construct::Unit,
        Fields::Named(f) if f.named.is_empty() => Construct::EmptyBraces,
        Fields::Unnamed(f) if f.unnamed.is_empty() => Construct::EmptyParens,
        _ => Construct::Default,
    };

    if !errors.is_empty() {
        return None;
    }
    let (Some(priority), Some(stability), Some(paths)) =
        (args.priority, args.stability, args.paths)
    else {
        return None;
    };
    Some(Layer {
        ident: item.ident.clone(),
        krate,
        name,
        name_span: args
            .name
            .as_ref()
            .map_or_else(|| item.ident.span(), LitStr::span),
        pipeline,
        priority,
        stability,
        paths: paths.items,
        modes: args.modes.map(|m| m.items).unwrap_or_default(),
        after: args.after.map(|(_, p)| p).unwrap_or_default(),
        before: args.before.map(|(_, p)| p).unwrap_or_default(),
        silent: args.silent,
        content,
        construct,
    })
}

/// `file` relative to the crate's manifest directory, checked to exist.
fn resolve_file(file: &LitStr, layer: &str, errors: &mut Errors) -> Option<String> {
    let rel = file.value();
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        errors.at(
            file,
            format!("layer `{layer}`: `file` needs CARGO_MANIFEST_DIR, which only cargo sets; build with cargo or use `text`"),
        );
        return None;
    };
    let path = PathBuf::from(dir).join(&rel);
    if path.is_file() {
        Some(path.to_string_lossy().into_owned())
    } else {
        errors.at(
            file,
            format!(
                "layer `{layer}`: no file `{rel}` in this crate; `file` is relative to the crate's manifest directory (where its Cargo.toml is)"
            ),
        );
        None
    }
}

/// The literal's value, with an error at it when it is not snake_case.
fn snake_case_value(lit: &LitStr, key: &str, layer: &str, errors: &mut Errors) -> String {
    let value = lit.value();
    if !is_snake_case(&value) {
        let suggestion = value.to_snake_case();
        let hint = if is_snake_case(&suggestion) {
            format!("; try \"{suggestion}\"")
        } else {
            String::new()
        };
        errors.at(
            lit,
            format!(
                "layer `{layer}`: {key} \"{value}\" is not snake_case (lowercase ASCII letters, digits and `_`, starting with a letter){hint}"
            ),
        );
    }
    value
}

fn is_snake_case(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z'))
        && bytes.all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
}
