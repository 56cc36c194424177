//! Pass 2: what no single key can check, resolved into a [`Layer`] or a
//! [`Pipeline`] ready to expand.

use std::path::PathBuf;

use heck::ToSnakeCase;
use proc_macro2::Span;
use syn::{Expr, Fields, Ident, ItemStruct, LitStr, Path};

use crate::ctxt::Ctxt;
use crate::keys::{self, Spanned};
use crate::names::{is_snake_case, layer_name, pipeline_name};
use crate::parse::{IncludeItem, LayerArgs, LayerKey, List, PipelineArgs, PipelineKey};

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

impl Content {
    pub(crate) fn literal(&self) -> &LitStr {
        match self {
            Content::Text(lit) | Content::File(lit, _) => lit,
        }
    }

    pub(crate) fn key(&self) -> &'static str {
        match self {
            Content::Text(_) => "text",
            Content::File(..) => "file",
        }
    }
}

/// A pipeline a layer joins, as the layer wrote it.
pub(crate) struct PipelineRef {
    pub(crate) path: Path,
    /// The path as written, for messages: `agents::Main`.
    pub(crate) written: String,
    /// The name the compile-time duplicate check assumes: the last segment in snake_case.
    pub(crate) assumed_name: String,
}

/// A layer whose attribute passed every check.
pub(crate) struct Layer {
    pub(crate) ident: Ident,
    pub(crate) krate: Path,
    pub(crate) name: String,
    /// The `name = ".."` literal, or the struct's name when the name is derived.
    pub(crate) name_span: Span,
    /// Empty: the default pipeline, unless `include_only`.
    pub(crate) pipelines: Vec<PipelineRef>,
    /// `pipeline = []`: the layer joins no pipeline until one includes it.
    pub(crate) include_only: bool,
    pub(crate) priority: Expr,
    pub(crate) stability: Spanned<keys::Stability>,
    pub(crate) paths: Vec<Spanned<keys::AssemblyPath>>,
    /// Empty: every mode (the key was not given).
    pub(crate) modes: Vec<Spanned<keys::PromptMode>>,
    pub(crate) yields: Option<Spanned<keys::Yields>>,
    pub(crate) channel: Option<Spanned<keys::Channel>>,
    pub(crate) scope: Option<Spanned<keys::Scope>>,
    pub(crate) after: Vec<Path>,
    pub(crate) before: Vec<Path>,
    pub(crate) silent: Option<LitStr>,
    pub(crate) content: Option<Content>,
    pub(crate) construct: Construct,
}

/// A pipeline whose attribute passed every check.
pub(crate) struct Pipeline {
    pub(crate) ident: Ident,
    pub(crate) krate: Path,
    pub(crate) name: String,
    pub(crate) paths: Vec<Spanned<keys::AssemblyPath>>,
    pub(crate) modes: Vec<Spanned<keys::PromptMode>>,
    pub(crate) separator: Option<LitStr>,
    /// `include = [..]`, each with its written name.
    pub(crate) include: Vec<(IncludeItem, String)>,
    pub(crate) scope_order: Option<Spanned<keys::ScopeOrder>>,
    /// `require_crates = [..]`: the layer crates it needs, as `use NAME as _;` names them.
    pub(crate) require_crates: Vec<String>,
}

pub(crate) fn krate(path: Option<&Path>) -> Path {
    path.cloned()
        .unwrap_or_else(|| syn::parse_quote!(::prompt_core))
}

fn generic(cx: &Ctxt, item: &ItemStruct, what: &str) {
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        let ident = &item.ident;
        cx.error_spanned_by(
            &item.generics,
            format!(
                "{what} `{ident}` is generic, but the registry builds each {what} once, as one type; \
                 declare a non-generic struct per instantiation (e.g. `struct {ident}ForX;`)"
            ),
        );
    }
}

/// `[..]` given but empty.
fn non_empty<T>(cx: &Ctxt, list: Option<&List<T>>, message: impl FnOnce() -> String) {
    if let Some(list) = list.filter(|l| l.tokens.elems.is_empty()) {
        cx.error_spanned_by(&list.tokens, message());
    }
}

/// Checks `args` against each other and `item`. `None` exactly when `cx` got
/// an error (the caller checks that it did).
pub(crate) fn layer(cx: &Ctxt, item: &ItemStruct, mut args: LayerArgs) -> Option<Layer> {
    let layer = item.ident.to_string();
    generic(cx, item, "layer");

    for &(key, example, why) in LayerKey::REQUIRED {
        // A misspelt key was already reported, with this key as its suggestion.
        if !args.wrote(key) && !args.suggested.contains(&key) {
            cx.error_at(
                Span::call_site(),
                format!(
                    "layer `{layer}` is missing `{}`: add `{example}`{why}",
                    key.as_str()
                ),
            );
        }
    }

    non_empty(cx, args.paths.get(), || {
        format!(
            "layer `{layer}` has an empty `paths`, so it would never render; list at least one of Basic, Cached"
        )
    });
    non_empty(cx, args.modes.get(), || {
        format!(
            "layer `{layer}` has an empty `modes`, so it would never render; list at least one of Full, Compact, Minimal, or drop the key for all three"
        )
    });
    for (key, list) in [("after", args.after.get()), ("before", args.before.get())] {
        non_empty(cx, list, || {
            format!("layer `{layer}` has an empty `{key}`; drop the key or name a layer")
        });
    }

    // `pipeline = []`: an include-only layer, for a layer library whose
    // layers must change no prompt until a pipeline includes them.
    let include_only = args.pipeline.get().is_some_and(|p| p.items.is_empty());
    let pipelines = args.pipeline.take().map(|p| {
        let mut refs: Vec<PipelineRef> = Vec::new();
        for path in p.items {
            let written = path_name(&path);
            if refs.iter().any(|r| r.written == written) {
                cx.error_spanned_by(
                    &path,
                    format!("layer `{layer}`: `{written}` is listed twice in `pipeline`; keep one"),
                );
                continue;
            }
            let assumed_name = path.segments.last().map_or_else(String::new, |s| {
                if s.ident == "DefaultPipeline" {
                    "default".to_owned()
                } else {
                    pipeline_name(&s.ident)
                }
            });
            refs.push(PipelineRef {
                path,
                written,
                assumed_name,
            });
        }
        refs
    });

    // A Stable layer is never cut and never moves: these keys would be lies.
    let stability = args.stability.get().map(|s| s.value);
    if stability == Some(keys::Stability::Stable) {
        if let Some(span) = args.yields.key_span() {
            cx.error_at(
                span,
                format!(
                    "layer `{layer}` is Stable, so it has no `yields`: a budget never cuts the cached prefix, \
                     which must stay byte-identical; drop the key, or make the layer Dynamic if it may shrink per call"
                ),
            );
        }
        if let Some(span) = args.channel.key_span() {
            cx.error_at(
                span,
                format!(
                    "layer `{layer}` is Stable, so it has no `channel`: its text is part of the cached system prompt \
                     and never moves; drop the key, or make the layer Dynamic if it belongs in a reminder"
                ),
            );
        }
    }

    // A Dynamic layer is rendered per call and never cached: shared with no one.
    if let (Some(keys::Stability::Dynamic), Some(span)) = (stability, args.scope.key_span()) {
        cx.error_at(
            span,
            format!(
                "layer `{layer}` is Dynamic, so it has no `scope`: its text may change on every call and is never cached, \
                 so no one shares it; drop the key, or make the layer Stable if it is the same for every call"
            ),
        );
    }

    let name = args.name.get().map_or_else(
        || layer_name(&item.ident),
        |lit| snake_case_value(cx, lit, "name", &layer),
    );
    if let Some(silent) = args.silent.get().filter(|s| s.value().trim().is_empty()) {
        cx.error_spanned_by(
            silent,
            format!("layer `{layer}`: `silent` says what session content wakes the layer; it cannot be empty"),
        );
    }

    let content = match (args.text.take(), args.file.take()) {
        (Some(_), Some(file)) => {
            cx.error_spanned_by(
                &file,
                format!("layer `{layer}` has both `text` and `file`; keep one"),
            );
            None
        }
        (Some(text), None) => {
            if text.value().trim().is_empty() {
                cx.error_spanned_by(
                    &text,
                    format!("layer `{layer}` has an empty `text`, so it would never render; write its text or drop the layer"),
                );
            }
            Some(Content::Text(text))
        }
        (None, Some(file)) => resolve_file(cx, &file, &layer).map(|abs| Content::File(file, abs)),
        (None, None) => None,
    };

    let construct = match &item.fields {
        Fields::Unit => Construct::Unit,
        Fields::Named(f) if f.named.is_empty() => Construct::EmptyBraces,
        Fields::Unnamed(f) if f.unnamed.is_empty() => Construct::EmptyParens,
        _ => Construct::Default,
    };

    if cx.has_errors() {
        return None;
    }
    Some(Layer {
        ident: item.ident.clone(),
        krate: krate(args.krate.get()),
        name,
        name_span: args
            .name
            .get()
            .map_or_else(|| item.ident.span(), LitStr::span),
        pipelines: pipelines.unwrap_or_default(),
        include_only,
        priority: args.priority.take()?,
        stability: args.stability.take()?,
        paths: args.paths.take()?.items,
        modes: args.modes.take().map(|m| m.items).unwrap_or_default(),
        yields: args.yields.take(),
        channel: args.channel.take(),
        scope: args.scope.take(),
        after: args.after.take().map(|l| l.items).unwrap_or_default(),
        before: args.before.take().map(|l| l.items).unwrap_or_default(),
        silent: args.silent.take(),
        content,
        construct,
    })
}

/// Checks a pipeline's `args` against `item`. `None` exactly when `cx` got an error.
pub(crate) fn pipeline(cx: &Ctxt, item: &ItemStruct, mut args: PipelineArgs) -> Option<Pipeline> {
    let ident = &item.ident;
    generic(cx, item, "pipeline");
    for &(key, example, why) in PipelineKey::REQUIRED {
        if !args.wrote(key) && !args.suggested.contains(&key) {
            cx.error_at(
                Span::call_site(),
                format!(
                    "pipeline `{ident}` is missing `{}`: add `{example}`{why}",
                    key.as_str()
                ),
            );
        }
    }
    non_empty(cx, args.paths.get(), || {
        format!(
            "pipeline `{ident}` has an empty `paths`, so no layer could render in it; list at least one of Basic, Cached"
        )
    });
    non_empty(cx, args.modes.get(), || {
        format!(
            "pipeline `{ident}` has an empty `modes`; list at least one of Full, Compact, Minimal, or drop the key for all three"
        )
    });
    non_empty(cx, args.include.get(), || {
        format!("pipeline `{ident}` has an empty `include`; drop the key, or name a layer or set")
    });
    let serves_path = |p: keys::AssemblyPath| {
        args.paths
            .get()
            .is_none_or(|l| l.items.iter().any(|s| s.value == p))
    };
    let serves_mode = |m: keys::PromptMode| {
        args.modes
            .get()
            .is_none_or(|l| l.items.iter().any(|s| s.value == m))
    };
    let mut include: Vec<(IncludeItem, String)> = Vec::new();
    for item in args.include.take().map(|l| l.items).unwrap_or_default() {
        let written = path_name(&item.path);
        if include.iter().any(|(_, w)| *w == written) {
            cx.error_spanned_by(
                &item.path,
                format!("pipeline `{ident}` includes `{written}` twice; keep one (narrow it there if needed)"),
            );
            continue;
        }
        non_empty(cx, item.paths.as_ref(), || {
            format!(
                "pipeline `{ident}` narrows `{written}` to no path, so it would never render; list a path, or leave it out of `include`"
            )
        });
        non_empty(cx, item.modes.as_ref(), || {
            format!(
                "pipeline `{ident}` narrows `{written}` to no mode, so it would never render; list a mode, or drop `modes` to keep the layer's own"
            )
        });
        for s in item.paths.iter().flat_map(|l| &l.items) {
            if !serves_path(s.value) {
                cx.error_at(
                    s.span,
                    format!("pipeline `{ident}` narrows `{written}` to path `{}`, which the pipeline does not serve; list only paths of its own `paths`", s.ident()),
                );
            }
        }
        for s in item.modes.iter().flat_map(|l| &l.items) {
            if !serves_mode(s.value) {
                cx.error_at(
                    s.span,
                    format!("pipeline `{ident}` narrows `{written}` to mode `{}`, which the pipeline does not serve; list only modes of its own `modes`", s.ident()),
                );
            }
        }
        include.push((item, written));
    }
    non_empty(cx, args.require_crates.get(), || {
        format!(
            "pipeline `{ident}` has an empty `require_crates`; drop the key, or name the layer crates it needs"
        )
    });
    let mut crates: Vec<String> = Vec::new();
    for path in args
        .require_crates
        .take()
        .map(|l| l.items)
        .unwrap_or_default()
    {
        match path.get_ident() {
            Some(krate) if !crates.contains(&krate.to_string()) => crates.push(krate.to_string()),
            Some(krate) => cx.error_spanned_by(
                &path,
                format!("pipeline `{ident}` lists crate `{krate}` twice in `require_crates`; keep one"),
            ),
            None => cx.error_spanned_by(
                &path,
                format!("pipeline `{ident}`: `require_crates` takes crate names as `use NAME as _;` writes them (`require_crates = [my_layers]`), not paths"),
            ),
        }
    }
    let name = pipeline_name(ident);
    if name == "default" {
        cx.error_spanned_by(
            ident,
            format!("pipeline `{ident}` would be named `default`, which is `prompt_core::spec::DefaultPipeline`'s; rename the type, or drop the layers' `pipeline` key to join the default pipeline"),
        );
    }
    if cx.has_errors() {
        return None;
    }
    Some(Pipeline {
        ident: ident.clone(),
        krate: krate(args.krate.get()),
        name,
        paths: args.paths.take()?.items,
        modes: args.modes.take().map(|m| m.items).unwrap_or_default(),
        separator: args.separator.take(),
        include,
        require_crates: crates,
        scope_order: args.scope_order.take(),
    })
}

/// `file` relative to the crate's manifest directory, checked to exist.
fn resolve_file(cx: &Ctxt, file: &LitStr, layer: &str) -> Option<String> {
    let rel = file.value();
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        cx.error_spanned_by(
            file,
            format!("layer `{layer}`: `file` needs CARGO_MANIFEST_DIR, which only cargo sets; build with cargo or use `text`"),
        );
        return None;
    };
    let path = PathBuf::from(dir).join(&rel);
    if path.is_file() {
        Some(path.to_string_lossy().into_owned())
    } else {
        cx.error_spanned_by(
            file,
            format!(
                "layer `{layer}`: no file `{rel}` in this crate; `file` is relative to the crate's manifest directory (where its Cargo.toml is)"
            ),
        );
        None
    }
}

/// The literal's value, with an error at it when it is not snake_case.
fn snake_case_value(cx: &Ctxt, lit: &LitStr, key: &str, layer: &str) -> String {
    let value = lit.value();
    if !is_snake_case(&value) {
        let suggestion = value.to_snake_case();
        let hint = if is_snake_case(&suggestion) {
            format!("; try \"{suggestion}\"")
        } else {
            String::new()
        };
        cx.error_spanned_by(
            lit,
            format!(
                "layer `{layer}`: {key} \"{value}\" is not snake_case (lowercase ASCII letters, digits and `_`, starting with a letter){hint}"
            ),
        );
    }
    value
}

/// `a::b::C` as written, without the spaces `to_string` puts in.
pub(crate) fn path_name(path: &Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use quote::quote;

    use super::*;
    use crate::parse::layer_args;

    fn error(args: TokenStream, item: TokenStream) -> String {
        match validate(args, item) {
            Ok(layer) => panic!("layer `{}` validated", layer.name),
            Err(errors) => errors,
        }
    }

    fn validate(args: TokenStream, item: TokenStream) -> Result<Layer, String> {
        let cx = Ctxt::new();
        let item: ItemStruct = syn::parse2(item).unwrap();
        let parsed = layer_args(&cx, args, "layer `Persona`");
        let layer = layer(&cx, &item, parsed);
        match (cx.check(), layer) {
            (Ok(()), Some(layer)) => Ok(layer),
            (Err(errors), None) => Err(errors.to_string()),
            (Ok(()), None) => panic!("validation failed without an error"),
            (Err(errors), Some(_)) => panic!("validation passed with errors: {errors}"),
        }
    }

    #[test]
    fn a_complete_attribute_validates() {
        let layer = validate(
            quote!(
                priority = 1,
                stability = Dynamic,
                paths = [Cached],
                yields = Keep,
                channel = Reminder
            ),
            quote!(
                struct PersonaLayer;
            ),
        )
        .unwrap();
        assert_eq!(layer.name, "persona");
        assert!(layer.pipelines.is_empty() && layer.modes.is_empty());
        assert!(matches!(layer.construct, Construct::Unit));
    }

    #[test]
    fn each_missing_required_key_is_reported() {
        let error = error(
            quote!(text = "Hi."),
            quote!(
                struct Persona;
            ),
        );
        for key in ["priority", "stability", "paths"] {
            assert!(error.contains(&format!("is missing `{key}`")), "{error}");
        }
    }

    #[test]
    fn a_misspelt_required_key_is_not_also_missing() {
        let error = error(
            quote!(
                prority = 1,
                stability = Stable,
                paths = [Basic],
                text = "Hi."
            ),
            quote!(
                struct Persona;
            ),
        );
        assert!(error.contains("did you mean `priority`?"), "{error}");
        assert!(!error.contains("is missing `priority`"), "{error}");
    }

    #[test]
    fn yields_and_channel_are_rejected_on_a_stable_layer() {
        let error = error(
            quote!(
                priority = 1,
                stability = Stable,
                paths = [Basic],
                text = "Hi.",
                yields = Shed,
                channel = System
            ),
            quote!(
                struct Persona;
            ),
        );
        assert!(
            error.contains("is Stable, so it has no `yields`"),
            "{error}"
        );
        assert!(
            error.contains("is Stable, so it has no `channel`"),
            "{error}"
        );
    }

    #[test]
    fn scope_is_rejected_on_a_dynamic_layer_only() {
        let error = error(
            quote!(
                priority = 10_000,
                stability = Dynamic,
                paths = [Basic],
                text = "Hi.",
                scope = User
            ),
            quote!(
                struct Clock;
            ),
        );
        assert!(
            error.contains("is Dynamic, so it has no `scope`"),
            "{error}"
        );
        let layer = validate(
            quote!(
                priority = 1,
                stability = Stable,
                paths = [Basic],
                text = "Hi.",
                scope = Project
            ),
            quote!(
                struct Docs;
            ),
        )
        .unwrap();
        assert_eq!(layer.scope.unwrap().value, keys::Scope::Project);
    }

    #[test]
    fn pipelines_keep_the_written_path_and_the_assumed_name() {
        let layer = validate(
            quote!(
                priority = 1,
                stability = Stable,
                paths = [Basic],
                text = "Hi.",
                pipeline = [agents::SubAgent, Main]
            ),
            quote!(
                struct Persona;
            ),
        )
        .unwrap();
        let names: Vec<_> = layer
            .pipelines
            .iter()
            .map(|p| (p.written.as_str(), p.assumed_name.as_str()))
            .collect();
        assert_eq!(names, [("agents::SubAgent", "sub_agent"), ("Main", "main")]);
    }

    #[test]
    fn structural_mistakes_are_rejected() {
        let error = error(
            quote!(
                priority = 1,
                stability = Stable,
                paths = [],
                modes = [],
                text = "",
                file = "x.md",
                name = "Bad"
            ),
            quote!(
                struct Persona<T>(T);
            ),
        );
        for expected in [
            "is generic",
            "empty `paths`",
            "empty `modes`",
            "both `text` and `file`",
            r#"name \"Bad\" is not snake_case"#,
        ] {
            assert!(error.contains(expected), "missing {expected:?} in {error}");
        }
    }

    #[test]
    fn a_struct_with_fields_is_built_through_default() {
        let layer = validate(
            quote!(priority = 1, stability = Stable, paths = [Basic]),
            quote!(
                struct Persona {
                    style: u8,
                }
            ),
        )
        .unwrap();
        assert!(matches!(layer.construct, Construct::Default));
    }
}
