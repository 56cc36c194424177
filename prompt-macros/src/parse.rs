//! Pass 1: the attribute's `key = value` pairs, read into [`Args`].
//!
//! Each key is read on its own, so an unknown, repeated or ill-formed key is
//! reported at its own span and the other keys are still read.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{Expr, ExprArray, Ident, Lit, LitStr, Path, Token};

use crate::errors::Errors;

/// Every key the attribute takes, in the order the docs list them.
pub(crate) const KEYS: &[&str] = &[
    "priority",
    "stability",
    "paths",
    "modes",
    "name",
    "pipeline",
    "after",
    "before",
    "silent",
    "text",
    "file",
    "crate",
];

/// A bracketed list of bare identifiers, e.g. `[Basic, Cached]`.
pub(crate) struct IdentList {
    /// The whole `[...]`, for errors about the list.
    pub(crate) tokens: ExprArray,
    /// The identifiers, each checked against the key's variants.
    pub(crate) items: Vec<Ident>,
}

/// The attribute's arguments as written. `None`: key absent (or unusable).
#[derive(Default)]
pub(crate) struct Args {
    pub(crate) priority: Option<Expr>,
    pub(crate) stability: Option<Ident>,
    pub(crate) paths: Option<IdentList>,
    pub(crate) modes: Option<IdentList>,
    pub(crate) name: Option<LitStr>,
    pub(crate) pipeline: Option<LitStr>,
    pub(crate) after: Option<(ExprArray, Vec<Path>)>,
    pub(crate) before: Option<(ExprArray, Vec<Path>)>,
    pub(crate) silent: Option<LitStr>,
    pub(crate) text: Option<LitStr>,
    pub(crate) file: Option<LitStr>,
    pub(crate) krate: Option<Path>,
    /// The keys read so far, well-formed or not: to reject a repeated one,
    /// and to not call an ill-formed key missing.
    seen: Vec<String>,
}

impl Args {
    /// Whether `key` was written, well-formed or not.
    pub(crate) fn wrote(&self, key: &str) -> bool {
        self.seen.iter().any(|k| k == key)
    }
}

/// Reads `args`, recording every problem in `errors`. `layer` is the struct's
/// name, for messages.
pub(crate) fn parse(args: TokenStream, layer: &str, errors: &mut Errors) -> Args {
    let mut parsed = Args::default();
    let parser = syn::meta::parser(|meta| parsed.key(meta, layer, errors));
    if let Err(error) = parser.parse2(args) {
        errors.push(error);
    }
    parsed
}

impl Args {
    fn key(
        &mut self,
        meta: ParseNestedMeta<'_>,
        layer: &str,
        errors: &mut Errors,
    ) -> syn::Result<()> {
        let key = match meta.path.get_ident() {
            Some(ident) => ident.to_string(),
            None => {
                errors.at(
                    &meta.path,
                    format!(
                        "layer `{layer}`: expected a key, one of: {}",
                        KEYS.join(", ")
                    ),
                );
                skip_value(&meta)?;
                return Ok(());
            }
        };
        if !KEYS.contains(&key.as_str()) {
            errors.at(
                &meta.path,
                format!(
                    "layer `{layer}`: unknown key `{key}`{}; the keys are: {}",
                    suggest(&key)
                        .map(|s| format!(" (did you mean `{s}`?)"))
                        .unwrap_or_default(),
                    KEYS.join(", ")
                ),
            );
            skip_value(&meta)?;
            return Ok(());
        }
        if self.seen.contains(&key) {
            errors.at(
                &meta.path,
                format!("layer `{layer}`: `{key}` is given twice; keep one"),
            );
            skip_value(&meta)?;
            return Ok(());
        }
        self.seen.push(key.clone());

        let Some(value) = value(&meta, &key, layer, errors)? else {
            return Ok(());
        };
        let fail = |errors: &mut Errors, what: &str| {
            errors.at(&value, format!("layer `{layer}`: `{key}` takes {what}"));
        };
        match key.as_str() {
            "priority" => self.priority = Some(value),
            "stability" => match single_ident(&value) {
                Some(ident) if ident == "Stable" || ident == "Dynamic" => self.stability = Some(ident),
                Some(ident) => errors.at(
                    &ident,
                    format!("layer `{layer}`: unknown stability `{ident}`; write `stability = Stable` or `stability = Dynamic`"),
                ),
                None => fail(errors, "`Stable` or `Dynamic`, without quotes: `stability = Stable`"),
            },
            "paths" | "modes" => {
                let variants: &[&str] = if key == "paths" {
                    &["Basic", "Cached"]
                } else {
                    &["Full", "Compact", "Minimal"]
                };
                let example = format!("[{}]", variants.join(", "));
                match ident_list(&value, variants, &key, layer, errors) {
                    Some(list) if key == "paths" => self.paths = Some(list),
                    Some(list) => self.modes = Some(list),
                    None => fail(errors, &format!("a list: `{key} = {example}`")),
                }
            }
            "name" | "pipeline" | "silent" | "text" | "file" => match string(&value) {
                Some(lit) => {
                    let slot = match key.as_str() {
                        "name" => &mut self.name,
                        "pipeline" => &mut self.pipeline,
                        "silent" => &mut self.silent,
                        "text" => &mut self.text,
                        _ => &mut self.file,
                    };
                    *slot = Some(lit);
                }
                None => fail(errors, &format!("a string literal: `{key} = \"...\"`")),
            },
            "after" | "before" => match path_list(&value) {
                Some(list) if key == "after" => self.after = Some(list),
                Some(list) => self.before = Some(list),
                None => fail(errors, &format!("a list of layer types: `{key} = [OtherLayer]`")),
            },
            // The last key of `KEYS`: `crate`.
            _ => match &value {
                Expr::Path(p) if p.qself.is_none() => self.krate = Some(p.path.clone()),
                _ => fail(errors, "a path: `crate = ::my_crate::prompt_core`"),
            },
        }
        Ok(())
    }
}

/// The `= value` after a key, as an expression. A key with no `=` is an
/// error at the key, and reading goes on.
fn value(
    meta: &ParseNestedMeta<'_>,
    key: &str,
    layer: &str,
    errors: &mut Errors,
) -> syn::Result<Option<Expr>> {
    if meta.input.peek(Token![=]) {
        return meta.value()?.parse::<Expr>().map(Some);
    }
    errors.at(
        &meta.path,
        format!("layer `{layer}`: `{key}` needs a value: `{key} = ...`"),
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

fn single_ident(expr: &Expr) -> Option<Ident> {
    match expr {
        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => p.path.get_ident().cloned(),
        _ => None,
    }
}

fn string(expr: &Expr) -> Option<LitStr> {
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Str(s) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}

fn ident_list(
    expr: &Expr,
    variants: &[&str],
    key: &str,
    layer: &str,
    errors: &mut Errors,
) -> Option<IdentList> {
    let Expr::Array(array) = expr else {
        return None;
    };
    let mut items: Vec<Ident> = Vec::new();
    for elem in &array.elems {
        match single_ident(elem) {
            Some(ident) if variants.iter().any(|v| ident == v) => {
                if items.contains(&ident) {
                    errors.at(
                        &ident,
                        format!("layer `{layer}`: `{ident}` is listed twice in `{key}`; keep one"),
                    );
                } else {
                    items.push(ident);
                }
            }
            _ => errors.at(
                elem,
                format!(
                    "layer `{layer}`: `{key}` lists only {}",
                    variants
                        .iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        }
    }
    Some(IdentList {
        tokens: array.clone(),
        items,
    })
}

fn path_list(expr: &Expr) -> Option<(ExprArray, Vec<Path>)> {
    let Expr::Array(array) = expr else {
        return None;
    };
    let paths = array
        .elems
        .iter()
        .map(|elem| match elem {
            Expr::Path(p) if p.qself.is_none() => Some(p.path.clone()),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((array.clone(), paths))
}

/// The known key closest to a misspelt one, when it is close.
fn suggest(key: &str) -> Option<&'static str> {
    KEYS.iter()
        .map(|k| (distance(key, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3))
        .min()
        .map(|(_, k)| k)
}

/// Levenshtein distance, for [`suggest`].
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
