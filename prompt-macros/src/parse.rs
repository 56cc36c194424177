//! Pass 1: the attributes' `key = value` pairs, read into typed [`LayerArgs`]
//! and [`PipelineArgs`].
//!
//! Each key is read on its own, so an unknown, repeated or ill-formed key is
//! reported at its own span and the other keys are still read.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::spanned::Spanned as _;
use syn::{Expr, ExprArray, Ident, Lit, LitStr, Path, Token};

use crate::ctxt::Ctxt;
use crate::keys::{self, Spanned, Word};
use crate::names::suggest;

/// One key's value. Owns the "given twice" check, and remembers that the key
/// was written (well-formed or not), so an ill-formed key is not also missing.
pub(crate) struct Slot<T> {
    key: &'static str,
    /// Where the key itself was written, once it was.
    key_span: Option<Span>,
    value: Option<T>,
}

impl<T> Slot<T> {
    fn new(key: &'static str) -> Self {
        Self {
            key,
            key_span: None,
            value: None,
        }
    }

    /// Reads the key's value with `read` (which records its own errors), or
    /// records why it cannot: given twice, or given without `= value`.
    fn read(
        &mut self,
        cx: &Ctxt,
        meta: &ParseNestedMeta<'_>,
        owner: &str,
        read: impl FnOnce(&Ctxt, &Expr) -> Option<T>,
    ) -> syn::Result<()> {
        if self.key_span.is_some() {
            cx.error_spanned_by(
                &meta.path,
                format!("{owner}: `{}` is given twice; keep one", self.key),
            );
            return skip_value(meta);
        }
        self.key_span = Some(meta.path.span());
        let Some(value) = value(cx, meta, self.key, owner)? else {
            return Ok(());
        };
        self.value = read(cx, &value);
        Ok(())
    }

    /// Whether the key was written, well-formed or not.
    pub(crate) fn written(&self) -> bool {
        self.key_span.is_some()
    }

    /// Where the key was written.
    pub(crate) fn key_span(&self) -> Option<Span> {
        self.key_span
    }

    pub(crate) fn get(&self) -> Option<&T> {
        self.value.as_ref()
    }

    pub(crate) fn take(&mut self) -> Option<T> {
        self.value.take()
    }
}

/// A bracketed list as written, and its items.
pub(crate) struct List<T> {
    /// The whole `[...]`, for errors about the list.
    pub(crate) tokens: ExprArray,
    pub(crate) items: Vec<T>,
}

/// `pipeline = Type` or `pipeline = [A, B]`: the types, each as written.
pub(crate) struct Pipelines {
    pub(crate) items: Vec<Path>,
}

/// One entry of `include = [..]`: a layer or set, and what the pipeline narrows.
pub(crate) struct IncludeItem {
    /// The entry as written, for errors about it.
    pub(crate) tokens: Expr,
    /// The layer or set type.
    pub(crate) path: Path,
    pub(crate) paths: Option<List<Spanned<keys::AssemblyPath>>>,
    pub(crate) modes: Option<List<Spanned<keys::PromptMode>>>,
    pub(crate) yields: Option<Spanned<keys::Yields>>,
}

/// Declares one attribute's keys once: the key enum (with `ALL` and
/// `as_str`, which the unknown-key message and its suggestion use), the keys
/// that are required (with the example and reason their "missing" error
/// gives), the typed `Args` struct with one [`Slot`] per key (which owns the
/// "given twice" check), `wrote`, and the parser's dispatch. Adding a key is
/// one line here and its handling in `validate`.
macro_rules! attribute {
    (
        $(#[$args_meta:meta])* struct $Args:ident;
        $(#[$key_meta:meta])* enum $Key:ident {
            $(
                $field:ident: $ty:ty = $Variant:ident $text:literal
                $(required($example:literal, $why:literal))?
                $(was($old:literal))?
                => $read:expr,
            )+
        }
    ) => {
        $(#[$key_meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
        pub(crate) enum $Key {
            $($Variant,)+
        }

        impl $Key {
            /// Every key, in the order the docs list them.
            pub(crate) const ALL: &'static [$Key] = &[$($Key::$Variant,)+];

            /// Keys without which the attribute is an error, each with the
            /// example and the reason its "missing" error gives.
            pub(crate) const REQUIRED: &'static [($Key, &'static str, &'static str)] =
                &[$($(($Key::$Variant, $example, $why),)?)+];

            /// Keys under the name they had before 0.1.0, each with the key
            /// it became: an old key's error names the new one.
            pub(crate) const RENAMED: &'static [(&'static str, $Key)] =
                &[$($(($old, $Key::$Variant),)?)+];

            /// The key as written.
            pub(crate) const fn as_str(self) -> &'static str {
                match self {
                    $($Key::$Variant => $text,)+
                }
            }
        }

        $(#[$args_meta])*
        pub(crate) struct $Args {
            $(pub(crate) $field: Slot<$ty>,)+
            /// Keys suggested for unknown ones: a misspelt required key is
            /// reported once, as unknown, and not again as missing.
            pub(crate) suggested: Vec<$Key>,
        }

        impl $Args {
            fn new() -> Self {
                Self {
                    $($field: Slot::new($Key::$Variant.as_str()),)+
                    suggested: Vec::new(),
                }
            }

            /// Whether `key` was written, well-formed or not.
            pub(crate) fn wrote(&self, key: $Key) -> bool {
                match key {
                    $($Key::$Variant => self.$field.written(),)+
                }
            }

            fn key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>, owner: &str) -> syn::Result<()> {
                let Some(key) = known_key(cx, meta, owner, ($Key::ALL, $Key::RENAMED), $Key::as_str, &mut self.suggested)? else {
                    return Ok(());
                };
                let key_name = key.as_str();
                match key {
                    $($Key::$Variant => self.$field.read(cx, meta, owner, |cx, e| ($read)(cx, e, key_name, owner)),)+
                }
            }
        }
    };
}

attribute! {
    /// `#[prompt_layer(..)]` as written.
    struct LayerArgs;
    /// The keys of `#[prompt_layer(..)]`.
    enum LayerKey {
        priority: Expr = Priority "priority"
            required("priority = 100", " (Stable: 0..10_000, Dynamic: 10_000..20_000)")
            => expr,
        stability: Spanned<keys::Stability> = Stability "stability"
            required("stability = Stable", " or `stability = Dynamic`; there is no default, so that nothing per-call lands in the cached prefix by accident")
            => word,
        paths: List<Spanned<keys::AssemblyPath>> = Paths "paths"
            required("paths = [Basic, Cached]", " (or just one of them)")
            => word_list,
        modes: List<Spanned<keys::PromptMode>> = Modes "modes" => word_list,
        name: LitStr = Name "name" => string,
        pipeline: Pipelines = Pipeline "pipeline" => pipelines,
        after: List<Path> = After "after" => path_list,
        before: List<Path> = Before "before" => path_list,
        silent: LitStr = Silent "silent" => string,
        text: LitStr = Text "text" => string,
        file: LitStr = File "file" => string,
        yields: Spanned<keys::Yields> = Yields "yields" => word,
        channel: Spanned<keys::Channel> = Channel "channel" => word,
        scope: Spanned<keys::Scope> = Scope "scope" => word,
        krate: Path = Crate "crate" => crate_path,
    }
}

attribute! {
    /// `#[prompt_pipeline(..)]` as written.
    struct PipelineArgs;
    /// The keys of `#[prompt_pipeline(..)]`.
    enum PipelineKey {
        paths: List<Spanned<keys::AssemblyPath>> = Paths "paths"
            required("paths = [Basic, Cached]", " (or just one of them): the paths its callers assemble")
            => word_list,
        modes: List<Spanned<keys::PromptMode>> = Modes "modes" => word_list,
        separator: LitStr = Separator "separator" => string,
        include: List<IncludeItem> = Include "include" => include_list,
        scope_order: Spanned<keys::ScopeOrder> = ScopeOrder "scope_order" => word,
        require_crates: List<Path> = RequireCrates "require_crates" was("crates") => path_list,
        krate: Path = Crate "crate" => crate_path,
    }
}

/// Reads `#[prompt_layer(args)]`, recording every problem in `cx`. `owner`
/// names the layer in messages: ``layer `Persona` ``.
pub(crate) fn layer_args(cx: &Ctxt, args: TokenStream, owner: &str) -> LayerArgs {
    let mut parsed = LayerArgs::new();
    let parser = syn::meta::parser(|meta| parsed.key(cx, &meta, owner));
    if let Err(error) = parser.parse2(args) {
        cx.syn_error(error);
    }
    parsed
}

/// Reads `#[prompt_pipeline(args)]`, recording every problem in `cx`.
pub(crate) fn pipeline_args(cx: &Ctxt, args: TokenStream, owner: &str) -> PipelineArgs {
    let mut parsed = PipelineArgs::new();
    let parser = syn::meta::parser(|meta| parsed.key(cx, &meta, owner));
    if let Err(error) = parser.parse2(args) {
        cx.syn_error(error);
    }
    parsed
}

/// The key `meta` names, or `None` after recording why it names none (not
/// an identifier, a key's name before 0.1.0, or unknown, with a suggestion
/// when one is close; the suggested or renamed key is pushed to `suggested`,
/// so it is not also reported missing).
fn known_key<K: Copy + 'static>(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    owner: &str,
    (all, renamed): (&'static [K], &'static [(&'static str, K)]),
    as_str: fn(K) -> &'static str,
    suggested: &mut Vec<K>,
) -> syn::Result<Option<K>> {
    let list = || {
        all.iter()
            .map(|k| as_str(*k))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some(ident) = meta.path.get_ident() else {
        cx.error_spanned_by(
            &meta.path,
            format!("{owner}: expected a key, one of: {}", list()),
        );
        skip_value(meta)?;
        return Ok(None);
    };
    let text = ident.to_string();
    if let Some(key) = all.iter().copied().find(|k| as_str(*k) == text) {
        return Ok(Some(key));
    }
    if let Some(&(_, key)) = renamed.iter().find(|(old, _)| *old == text) {
        let new = as_str(key);
        suggested.push(key);
        cx.error_spanned_by(
            &meta.path,
            format!("{owner}: `{text}` is now `{new}`; write `{new} = ..`"),
        );
        skip_value(meta)?;
        return Ok(None);
    }
    let suggestion = suggest(&text, all.iter().map(|k| (as_str(*k), *k)));
    let hint = suggestion
        .map(|k| format!(" (did you mean `{}`?)", as_str(k)))
        .unwrap_or_default();
    suggested.extend(suggestion);
    cx.error_spanned_by(
        &meta.path,
        format!(
            "{owner}: unknown key `{text}`{hint}; the keys are: {}",
            list()
        ),
    );
    skip_value(meta)?;
    Ok(None)
}

/// `key = <any expression>`, such as a priority.
fn expr(_: &Ctxt, expr: &Expr, _key: &str, _owner: &str) -> Option<Expr> {
    Some(expr.clone())
}

/// The `= value` after a key, as an expression. A key with no `=` is an
/// error at the key, and reading goes on.
fn value(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    key: &str,
    owner: &str,
) -> syn::Result<Option<Expr>> {
    if meta.input.peek(Token![=]) {
        return meta.value()?.parse::<Expr>().map(Some);
    }
    cx.error_spanned_by(
        &meta.path,
        format!("{owner}: `{key}` needs a value: `{key} = ...`"),
    );
    skip_value(meta)?;
    Ok(None)
}

/// Consumes whatever follows a rejected key, up to the next `,`.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else {
        while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
            meta.input.parse::<proc_macro2::TokenTree>()?;
        }
    }
    Ok(())
}

fn single_ident(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => p.path.get_ident(),
        _ => None,
    }
}

/// `key = Variant`.
fn word<W: Word>(cx: &Ctxt, expr: &Expr, key: &str, owner: &str) -> Option<Spanned<W>> {
    let Some(ident) = single_ident(expr) else {
        let names: Vec<&str> = W::ALL.iter().map(|(_, n)| *n).collect();
        let either = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!(
                "{} or `{last}`",
                rest.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => names.join(""),
        };
        cx.error_spanned_by(
            expr,
            format!(
                "{owner}: `{key}` takes {either}, without quotes: `{key} = {}`",
                names[0]
            ),
        );
        return None;
    };
    match W::from_ident(ident) {
        Some(value) => Some(Spanned {
            value,
            span: ident.span(),
        }),
        None => {
            cx.error_spanned_by(
                ident,
                format!(
                    "{owner}: unknown {} `{ident}`; write {}",
                    W::WHAT,
                    W::alternatives(key)
                ),
            );
            None
        }
    }
}

/// `key = [A, B]`: each item checked against the vocabulary, none twice.
fn word_list<W: Word>(cx: &Ctxt, expr: &Expr, key: &str, owner: &str) -> Option<List<Spanned<W>>> {
    let Expr::Array(array) = expr else {
        let all: Vec<&str> = W::ALL.iter().map(|(_, n)| *n).collect();
        cx.error_spanned_by(
            expr,
            format!(
                "{owner}: `{key}` takes a list: `{key} = [{}]`",
                all.join(", ")
            ),
        );
        return None;
    };
    let mut items: Vec<Spanned<W>> = Vec::new();
    for elem in &array.elems {
        match single_ident(elem).and_then(|i| W::from_ident(i).map(|w| (i, w))) {
            Some((ident, value)) => {
                if items.iter().any(|i| i.value == value) {
                    cx.error_spanned_by(
                        ident,
                        format!("{owner}: `{ident}` is listed twice in `{key}`; keep one"),
                    );
                } else {
                    items.push(Spanned {
                        value,
                        span: ident.span(),
                    });
                }
            }
            None => {
                cx.error_spanned_by(elem, format!("{owner}: `{key}` lists only {}", W::listed()))
            }
        }
    }
    Some(List {
        tokens: array.clone(),
        items,
    })
}

fn string(cx: &Ctxt, expr: &Expr, key: &str, owner: &str) -> Option<LitStr> {
    if let Expr::Lit(syn::ExprLit {
        lit: Lit::Str(s), ..
    }) = expr
    {
        return Some(s.clone());
    }
    cx.error_spanned_by(
        expr,
        format!("{owner}: `{key}` takes a string literal: `{key} = \"...\"`"),
    );
    None
}

fn type_path(expr: &Expr) -> Option<&Path> {
    match expr {
        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => Some(&p.path),
        _ => None,
    }
}

/// `key = [TypeA, TypeB]`.
fn path_list(cx: &Ctxt, expr: &Expr, key: &str, owner: &str) -> Option<List<Path>> {
    let items = match expr {
        Expr::Array(array) => array
            .elems
            .iter()
            .map(type_path)
            .collect::<Option<Vec<_>>>(),
        _ => None,
    };
    match (expr, items) {
        (Expr::Array(array), Some(items)) => Some(List {
            tokens: array.clone(),
            items: items.into_iter().cloned().collect(),
        }),
        _ => {
            cx.error_spanned_by(
                expr,
                format!("{owner}: `{key}` takes a list of layer types: `{key} = [OtherLayer]`"),
            );
            None
        }
    }
}

/// `pipeline = Type` or `pipeline = [A, B]`.
fn pipelines(cx: &Ctxt, expr: &Expr, _key: &str, owner: &str) -> Option<Pipelines> {
    let form = "a pipeline type declared with `#[prompt_pipeline]`, or a list of them: `pipeline = Reviewer`, `pipeline = [Main, SubAgent]`";
    let items = match expr {
        Expr::Array(array) => array
            .elems
            .iter()
            .map(type_path)
            .collect::<Option<Vec<_>>>(),
        Expr::Lit(lit) if matches!(lit.lit, Lit::Str(_)) => {
            cx.error_spanned_by(
                expr,
                format!("{owner}: `pipeline` takes {form}; a pipeline is a type now, not a string"),
            );
            return None;
        }
        other => type_path(other).map(|p| vec![p]),
    };
    let Some(items) = items else {
        cx.error_spanned_by(expr, format!("{owner}: `pipeline` takes {form}"));
        return None;
    };
    Some(Pipelines {
        items: items.into_iter().cloned().collect(),
    })
}

/// `include = [Layer, some::Set, Other(paths = [Basic], modes = [Full], yields = Truncate)]`.
fn include_list(cx: &Ctxt, expr: &Expr, key: &str, owner: &str) -> Option<List<IncludeItem>> {
    let form = "`include = [MyLayer, other_crate::SomeSet, Docs(paths = [Basic])]`";
    let Expr::Array(array) = expr else {
        cx.error_spanned_by(
            expr,
            format!("{owner}: `{key}` takes a list of layers and layer sets: {form}"),
        );
        return None;
    };
    let mut items = Vec::new();
    for elem in &array.elems {
        let (path, args) = match elem {
            Expr::Call(call) => match type_path(&call.func) {
                Some(path) => (Some(path), Some(&call.args)),
                None => (None, None),
            },
            other => (type_path(other), None),
        };
        let Some(path) = path else {
            cx.error_spanned_by(
                elem,
                format!(
                    "{owner}: `{key}` lists layer and set types, each optionally narrowed: {form}"
                ),
            );
            continue;
        };
        let mut item = IncludeItem {
            tokens: elem.clone(),
            path: path.clone(),
            paths: None,
            modes: None,
            yields: None,
        };
        let written = path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect::<Vec<_>>()
            .join("::");
        let what = format!("{owner}: the narrowing of `{written}`");
        for arg in args.into_iter().flatten() {
            let Expr::Assign(assign) = arg else {
                cx.error_spanned_by(
                    arg,
                    format!("{what} takes `paths = [..]`, `modes = [..]` or `yields = ..`"),
                );
                continue;
            };
            let name = single_ident(&assign.left).map(ToString::to_string);
            let repeated = |cx: &Ctxt, given: bool| {
                if given {
                    cx.error_spanned_by(
                        &assign.left,
                        format!(
                            "{what}: `{}` is given twice; keep one",
                            name.as_deref().unwrap_or("?")
                        ),
                    );
                }
                given
            };
            match name.as_deref() {
                Some("paths") => {
                    if !repeated(cx, item.paths.is_some()) {
                        item.paths = word_list(cx, &assign.right, "paths", &what);
                    }
                }
                Some("modes") => {
                    if !repeated(cx, item.modes.is_some()) {
                        item.modes = word_list(cx, &assign.right, "modes", &what);
                    }
                }
                Some("yields") => {
                    if !repeated(cx, item.yields.is_some()) {
                        item.yields = word(cx, &assign.right, "yields", &what);
                    }
                }
                Some(other @ ("priority" | "stability")) => cx.error_spanned_by(
                    &assign.left,
                    format!("{what}: `{other}` stays the layer's own (the order checks rest on it); a pipeline narrows only `paths`, `modes` and `yields`"),
                ),
                _ => cx.error_spanned_by(
                    &assign.left,
                    format!("{what}: a pipeline narrows only `paths`, `modes` and `yields`"),
                ),
            }
        }
        items.push(item);
    }
    Some(List {
        tokens: array.clone(),
        items,
    })
}

fn crate_path(cx: &Ctxt, expr: &Expr, _key: &str, owner: &str) -> Option<Path> {
    match type_path(expr) {
        Some(path) => Some(path.clone()),
        None => {
            cx.error_spanned_by(
                expr,
                format!("{owner}: `crate` takes a path: `crate = ::my_crate::prompt_core`"),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    fn parse(args: TokenStream) -> (LayerArgs, Result<(), String>) {
        let cx = Ctxt::new();
        let parsed = layer_args(&cx, args, "layer `Persona`");
        (parsed, cx.check().map_err(|e| e.to_string()))
    }

    #[test]
    fn well_formed_keys_are_read_into_typed_values() {
        let (args, result) = parse(quote!(
            priority = BASE + 1,
            stability = Dynamic,
            paths = [Cached],
            modes = [Full, Minimal],
            pipeline = [Main, agents::SubAgent],
            yields = Truncate,
            channel = Reminder,
            after = [Persona],
        ));
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(
            args.stability.get().unwrap().value,
            keys::Stability::Dynamic
        );
        let paths: Vec<_> = args
            .paths
            .get()
            .unwrap()
            .items
            .iter()
            .map(|p| p.value)
            .collect();
        assert_eq!(paths, [keys::AssemblyPath::Cached]);
        assert_eq!(args.modes.get().unwrap().items.len(), 2);
        assert_eq!(args.pipeline.get().unwrap().items.len(), 2);
        assert_eq!(args.yields.get().unwrap().value, keys::Yields::Truncate);
        assert_eq!(args.channel.get().unwrap().value, keys::Channel::Reminder);
        assert!(args.wrote(LayerKey::After) && !args.wrote(LayerKey::Before));
    }

    #[test]
    fn a_single_pipeline_type_is_a_list_of_one() {
        let (args, result) = parse(quote!(pipeline = Reviewer));
        assert!(result.is_ok());
        assert_eq!(args.pipeline.get().unwrap().items.len(), 1);
    }

    #[test]
    fn a_repeated_key_is_an_error_and_the_first_value_stays() {
        let (args, result) = parse(quote!(priority = 1, priority = 2));
        assert!(
            result
                .unwrap_err()
                .contains("`priority` is given twice; keep one")
        );
        assert!(matches!(args.priority.get(), Some(Expr::Lit(_))));
    }

    #[test]
    fn an_unknown_key_suggests_the_closest_one_and_remembers_it() {
        let (args, result) = parse(quote!(prority = 1));
        let error = result.unwrap_err();
        assert!(
            error.contains("unknown key `prority` (did you mean `priority`?)"),
            "{error}"
        );
        assert_eq!(args.suggested, [LayerKey::Priority]);
        assert!(!args.wrote(LayerKey::Priority));
    }

    #[test]
    fn ill_formed_values_are_each_reported_and_still_count_as_written() {
        let (args, result) = parse(quote!(
            stability = "Stable",
            paths = Basic,
            modes = [Full, Verbose, Full],
            pipeline = "reviewer",
            yields = Later,
            text,
        ));
        let error = result.unwrap_err();
        for expected in [
            "`stability` takes `Stable` or `Dynamic`, without quotes",
            "`paths` takes a list: `paths = [Basic, Cached]`",
            "`modes` lists only `Full`, `Compact`, `Minimal`",
            "`Full` is listed twice in `modes`",
            "a pipeline is a type now, not a string",
            "unknown yields `Later`; write `yields = Shed`, `yields = Truncate` or `yields = Keep`",
            "`text` needs a value: `text = ...`",
        ] {
            assert!(error.contains(expected), "missing {expected:?} in {error}");
        }
        assert!(
            args.wrote(LayerKey::Stability)
                && args.wrote(LayerKey::Paths)
                && args.wrote(LayerKey::Text)
        );
        assert!(args.stability.get().is_none());
    }

    #[test]
    fn pipeline_keys_are_their_own_set() {
        let cx = Ctxt::new();
        let args = pipeline_args(
            &cx,
            quote!(paths = [Basic], separator = "\n", priority = 1),
            "pipeline `Main`",
        );
        let error = cx.check().unwrap_err().to_string();
        assert!(error.contains("unknown key `priority`"), "{error}");
        assert!(args.wrote(PipelineKey::Paths) && args.wrote(PipelineKey::Separator));
    }
}
