//! The dependency direction inside `prompt-core`, `prompt-checks` and
//! `prompt-providers`: each module uses only the modules below it, so each
//! crate has a bottom and no cycle. A name a crate's root takes from another
//! crate (`use prompt_core::spec;` in a tool package) is outside, below all.
//!
//! The order is the one `ARCHITECTURE.md` draws. Every source file is parsed
//! with `syn`, and every path that reaches into the crate counts: a `use`
//! (one line or a group over many), a `crate::x::..` path in code or inside
//! a macro call, `super::` climbing out of a top-level module, and a name
//! the crate root re-exports (`crate::Pipeline` is a use of `pipeline`, the
//! module `lib.rs` takes it from). Comments and doc text do not count, nor
//! do `#[cfg(test)]` items, which may reach anywhere. A path from a module
//! to one not below it fails the test with the file, the line and the rule.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::Visit;

/// Bottom up. Modules on one rank may not use each other either, unless
/// listed in the same rank's group below.
const ORDER: &[&[&str]] = &[
    &["spec"],
    &["fingerprint", "text", "tokens", "checks"],
    &["context"],
    &["layer"],
    &["layer_set"],
    &["registry"],
    &["tools"],
    &["pipeline"],
    &["budget"],
    &["assembly"],
    // The macro support module: generated code's one entry point, above all.
    &["__private_v1"],
];

/// One crate whose modules are ranked.
struct Tree {
    /// Its `src/`, from the repository's root.
    src: &'static str,
    /// Its modules, bottom up, as [`ORDER`] is prompt-core's.
    order: &'static [&'static [&'static str]],
    /// The module a top-level module counts as: prompt-providers' request
    /// files are one module (`providers`), as they were inside prompt-core.
    fold: fn(&str) -> &str,
}

const CORE: Tree = Tree {
    src: "prompt-core/src",
    order: ORDER,
    fold: |module| module,
};

const CHECKS: Tree = Tree {
    src: "prompt-core/checks/src",
    order: &[&["write", "testing", "secrets"], &["diff"], &["contract"]],
    fold: |module| module,
};

const PROVIDERS: Tree = Tree {
    src: "prompt-core/providers/src",
    // The simulators sit on top: a session with gaps is priced by the
    // keep-alive policy itself, not a copy of its formula.
    order: &[
        &["providers"],
        &["observe"],
        &["keepalive"],
        &["simulation"],
    ],
    fold: |module| match module {
        "affinity" | "anthropic" | "bedrock" | "claude_cli" | "codex" | "conversation" | "cost"
        | "gemini" | "history" | "lifetimes" | "message" | "mid_conversation" | "minimums"
        | "openai" | "placement" | "plan" => "providers",
        _ => module,
    },
};

const TREES: [&Tree; 3] = [&CORE, &CHECKS, &PROVIDERS];

impl Tree {
    fn rank(&self, module: &str) -> Option<usize> {
        let module = (self.fold)(module);
        self.order.iter().position(|rank| rank.contains(&module))
    }
}

/// What the crate root makes of a name: the top-level module that defines
/// it, or a crate outside (the re-exported attributes).
type RootNames = BTreeMap<String, String>;

/// The names `lib.rs` re-exports, each mapped to the first segment of its
/// `use` path (`Pipeline` -> `pipeline`, `prompt_layer` -> `prompt_macros`).
fn root_names(lib: &str) -> RootNames {
    let file = syn::parse_file(lib).expect("lib.rs parses");
    let mut names = RootNames::new();
    for item in &file.items {
        if let syn::Item::Use(item) = item {
            let mut leaves = Vec::new();
            use_leaves(&item.tree, &mut Vec::new(), &mut leaves);
            for (path, name) in leaves {
                let from = path.first().cloned().unwrap_or_default();
                assert_ne!(
                    name, "*",
                    "lib.rs glob-re-exports `{from}`: name the items, so this check can tell which module each comes from"
                );
                names.insert(name, from);
            }
        }
    }
    names
}

/// Every leaf of a `use` tree: its full path (segments, leaf included) with
/// the name it binds (the rename, `*` for a glob).
fn use_leaves(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            use_leaves(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) => {
            let mut full = prefix.clone();
            full.push(name.ident.to_string());
            out.push((full, name.ident.to_string()));
        }
        syn::UseTree::Rename(rename) => {
            let mut full = prefix.clone();
            full.push(rename.ident.to_string());
            out.push((full, rename.rename.to_string()));
        }
        syn::UseTree::Glob(_) => out.push((prefix.clone(), "*".to_owned())),
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                use_leaves(tree, prefix, out);
            }
        }
    }
}

/// One path into the crate from a file: the line it is on and the top-level
/// module it reaches (or the root name it could not resolve).
#[derive(Debug, PartialEq, Eq)]
enum Reach {
    /// A top-level module (`crate::spec`, or `crate::Pipeline` resolved).
    Module { line: usize, module: String },
    /// A name at the root that is neither a module nor a re-export.
    Unknown { line: usize, name: String },
}

/// Walks one file, collecting where its paths reach.
struct Scan<'a> {
    tree: &'a Tree,
    roots: &'a RootNames,
    /// The module path of the file, then of the inline modules the walk is in
    /// (`providers/anthropic/scopes.rs` -> `[providers, anthropic, scopes]`).
    path: Vec<String>,
    found: Vec<Reach>,
}

impl Scan<'_> {
    /// `segments` as written (`crate::a::b`, `super::super::a`, `a::b`): the
    /// crate-root name it names, if it leaves the file's own tree that way.
    fn root_segment<'s>(&self, segments: &'s [String]) -> Option<&'s str> {
        match segments.first()?.as_str() {
            // `use crate as providers;`: `crate::providers::x` is `crate::x`.
            "crate" => match segments.get(1) {
                Some(alias) if self.roots.get(alias).is_some_and(|from| from == "crate") => {
                    segments.get(2).map(String::as_str)
                }
                name => name.map(String::as_str),
            },
            "super" => {
                let climbs = segments.iter().take_while(|s| *s == "super").count();
                // From `a::b::c`, one `super` is `a::b`; `len` of them is the root.
                (climbs >= self.path.len())
                    .then(|| segments.get(climbs).map(String::as_str))
                    .flatten()
            }
            _ => None,
        }
    }

    fn reach(&mut self, segments: &[String], line: usize) {
        let Some(name) = self.root_segment(segments) else {
            return;
        };
        let reach = if self.tree.rank(name).is_some() || name == "self" {
            Reach::Module {
                line,
                module: (self.tree.fold)(name).to_owned(),
            }
        } else if let Some(module) = self.roots.get(name) {
            Reach::Module {
                line,
                module: (self.tree.fold)(module).to_owned(),
            }
        } else {
            Reach::Unknown {
                line,
                name: name.to_owned(),
            }
        };
        self.found.push(reach);
    }

    /// `crate :: name` inside a macro's tokens (`$crate` is the macro's own).
    fn scan_tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        for (at, token) in tokens.iter().enumerate() {
            match token {
                TokenTree::Group(group) => self.scan_tokens(group.stream()),
                TokenTree::Ident(ident) if ident == "crate" || ident == "super" => {
                    let dollar = at > 0
                        && matches!(&tokens[at - 1], TokenTree::Punct(p) if p.as_char() == '$');
                    if dollar {
                        continue;
                    }
                    let mut segments = vec![ident.to_string()];
                    let mut next = at + 1;
                    while let (
                        Some(TokenTree::Punct(first)),
                        Some(TokenTree::Punct(second)),
                        Some(TokenTree::Ident(name)),
                    ) = (tokens.get(next), tokens.get(next + 1), tokens.get(next + 2))
                    {
                        if first.as_char() != ':'
                            || first.spacing() != Spacing::Joint
                            || second.as_char() != ':'
                        {
                            break;
                        }
                        segments.push(name.to_string());
                        next += 3;
                    }
                    // `super` alone in a macro is a word, not a path.
                    if segments.len() > 1 {
                        self.reach(&segments, ident.span().start().line);
                    }
                }
                _ => {}
            }
        }
    }
}

/// Whether `attrs` hold `#[cfg(test)]` (or a `cfg(all(test, ..))`).
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        if !attr.path().is_ident("cfg") {
            return false;
        }
        let syn::Meta::List(list) = &attr.meta else {
            return false;
        };
        let words: Vec<String> = list
            .tokens
            .clone()
            .into_iter()
            .filter_map(|t| match t {
                TokenTree::Ident(i) => Some(i.to_string()),
                _ => None,
            })
            .collect();
        words.first().is_some_and(|w| w == "test")
            || (words.first().is_some_and(|w| w == "all") && words.iter().any(|w| w == "test"))
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

impl<'ast> Visit<'ast> for Scan<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !test_only(item_attrs(item)) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs = match item {
            syn::ImplItem::Const(i) => &i.attrs,
            syn::ImplItem::Fn(i) => &i.attrs,
            syn::ImplItem::Type(i) => &i.attrs,
            syn::ImplItem::Macro(i) => &i.attrs,
            _ => return syn::visit::visit_impl_item(self, item),
        };
        if !test_only(attrs) {
            syn::visit::visit_impl_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, module: &'ast syn::ItemMod) {
        self.path.push(module.ident.to_string());
        syn::visit::visit_item_mod(self, module);
        self.path.pop();
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut leaves = Vec::new();
        use_leaves(&item.tree, &mut Vec::new(), &mut leaves);
        let line = syn::spanned::Spanned::span(&item.tree).start().line;
        for (path, _) in leaves {
            self.reach(&path, line);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = path
            .segments
            .first()
            .map_or(0, |s| s.ident.span().start().line);
        self.reach(&segments, line);
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.scan_tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

/// The module path of a file of `src/` (`None`: the crate root).
fn module_path(relative: &Path) -> Option<Vec<String>> {
    let mut path: Vec<String> = relative
        .iter()
        .map(|c| c.to_str().unwrap().trim_end_matches(".rs").to_owned())
        .collect();
    if path.last().is_some_and(|last| last == "mod") {
        path.pop();
    }
    match path.first()?.as_str() {
        "lib" => None,
        "private_v1" => {
            path[0] = "__private_v1".to_owned();
            Some(path)
        }
        _ => Some(path),
    }
}

/// The problems of one file: every path to a module not below its own, and
/// every root name that is neither a module nor a re-export.
fn check_file(tree: &Tree, relative: &Path, source: &str, roots: &RootNames) -> Vec<String> {
    let Some(path) = module_path(relative) else {
        return Vec::new(); // the root re-exports everything
    };
    let module = (tree.fold)(&path[0]).to_owned();
    let shown = relative.display();
    let Some(own) = tree.rank(&module) else {
        return vec![format!(
            "{shown}: module `{module}` has no place in ORDER (tests/tests/architecture.rs); add it at the rank of what it uses"
        )];
    };
    let found = match reaches(tree, &path, source, roots) {
        Ok(found) => found,
        Err(e) => return vec![format!("{shown}: does not parse: {e}")],
    };
    let mut problems = Vec::new();
    for reach in found {
        match reach {
            Reach::Module { module: used, .. } if used == module || used == "self" => {}
            Reach::Module { line, module: used } => match tree.rank(&used) {
                Some(theirs) if theirs < own => {}
                Some(_) => problems.push(format!(
                    "{shown}:{line}: `{module}` uses `crate::{used}`, which is not below it; \
                     move what it needs down (constants and error types belong with \
                     the lowest module that uses them)"
                )),
                // A crate outside, re-exported by the root (the attributes).
                None => {}
            },
            Reach::Unknown { line, name } => problems.push(format!(
                "{shown}:{line}: `crate::{name}` is neither a module in ORDER nor a name lib.rs \
                 re-exports, so this check cannot place it"
            )),
        }
    }
    problems
}

/// Where the paths of a file at module path `path` reach.
fn reaches(
    tree: &Tree,
    path: &[String],
    source: &str,
    roots: &RootNames,
) -> syn::Result<Vec<Reach>> {
    let file = syn::parse_file(source)?;
    let mut scan = Scan {
        tree,
        roots,
        path: path.to_vec(),
        found: Vec::new(),
    };
    scan.visit_file(&file);
    Ok(scan.found)
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn src(tree: &Tree) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(tree.src)
}

/// prompt-core's root names (see [`read_tree_roots`]).
fn tree_roots() -> &'static RootNames {
    static ROOTS: std::sync::OnceLock<RootNames> = std::sync::OnceLock::new();
    ROOTS.get_or_init(|| read_tree_roots(&CORE))
}

/// The root's names: what `lib.rs` re-exports, and each `#[macro_export]`
/// macro (which lives at the root whatever file defines it) mapped to the
/// module of that file.
fn read_tree_roots(tree: &Tree) -> RootNames {
    let src = src(tree);
    let mut roots = root_names(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut all = Vec::new();
    files(&src, &mut all);
    for file in all {
        let Some(path) = module_path(file.strip_prefix(&src).unwrap()) else {
            continue;
        };
        let parsed = syn::parse_file(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for item in parsed.items {
            if let syn::Item::Macro(mac) = item
                && let Some(name) = &mac.ident
                && mac.attrs.iter().any(|a| a.path().is_ident("macro_export"))
            {
                roots.insert(name.to_string(), path[0].clone());
            }
        }
    }
    roots
}

#[test]
fn every_module_uses_only_the_modules_below_it() {
    let mut problems = Vec::new();
    for tree in TREES {
        let src = src(tree);
        let roots = read_tree_roots(tree);
        let mut all = Vec::new();
        files(&src, &mut all);
        all.sort();
        assert!(
            all.len() > 30,
            "found only {} files in {}",
            all.len(),
            tree.src
        );
        for file in &all {
            let text = std::fs::read_to_string(file).unwrap();
            let relative = file.strip_prefix(&src).unwrap();
            problems.extend(
                check_file(tree, relative, &text, &roots)
                    .into_iter()
                    .map(|problem| format!("{}/{problem}", tree.src)),
            );
        }
    }
    // The scan sees the tree's real paths: a provider reaches the prompt it
    // delivers through its root's `AssembledPrompt`, prompt-core's (outside).
    let roots = read_tree_roots(&PROVIDERS);
    let openai = std::fs::read_to_string(src(&PROVIDERS).join("openai.rs")).unwrap();
    let found = reaches(&PROVIDERS, &["openai".into()], &openai, &roots).unwrap();
    assert!(
        found
            .iter()
            .any(|r| matches!(r, Reach::Module { module, .. } if module == "prompt_core")),
        "{found:?}"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The tree's own re-exports resolve to the modules that define them.
#[test]
fn root_re_exports_resolve_to_their_modules() {
    let roots = tree_roots();
    assert_eq!(roots["Pipeline"], "pipeline");
    assert_eq!(roots["AssembledPrompt"], "assembly");
    assert_eq!(roots["LayerSpec"], "spec");
    assert_eq!(roots["prompt_layer"], "prompt_macros");
    assert_eq!(roots["__prompt_core_v1_unique_symbol"], "__private_v1");
}

// The checker against planted imports: each kind of upward path fails it.

fn planted(file: &str, source: &str) -> Vec<String> {
    check_file(&CORE, Path::new(file), source, tree_roots())
}

#[test]
fn a_use_through_a_root_re_export_is_resolved_and_fails() {
    let problems = planted("spec/mod.rs", "use crate::Pipeline;\n");
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("spec/mod.rs:1: `spec` uses `crate::pipeline`"),
        "{problems:?}"
    );
    // The same name in a path of code, and renamed in a group.
    assert_eq!(
        planted(
            "spec/layer.rs",
            "fn f() { let _ = crate::AssembledPrompt::text; }"
        )
        .len(),
        1
    );
    assert_eq!(
        planted("context.rs", "use crate::{TokenBudget as B};").len(),
        1
    );
}

#[test]
fn a_multi_line_group_fails() {
    let problems = planted(
        "spec/mod.rs",
        "use std::fmt;\nuse crate::{\n    fingerprint,\n    assembly::PromptText,\n};\n",
    );
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems.iter().all(|p| p.starts_with("spec/mod.rs:2:")));
    assert!(problems[1].contains("`crate::assembly`"), "{problems:?}");
    // Nested groups too.
    assert_eq!(
        planted(
            "budget/fit.rs",
            "use crate::{spec::Scope, {assembly::{x, y}}};"
        )
        .len(),
        2
    );
}

#[test]
fn paths_in_code_in_macros_and_through_super_fail() {
    let code = "pub fn f() -> usize {\n    crate::budget::max()\n}";
    assert_eq!(
        planted("layer.rs", code),
        [
            "layer.rs:2: `layer` uses `crate::budget`, which is not below it; move what it needs down \
         (constants and error types belong with the lowest module that uses them)"
        ]
    );
    let in_macro = "fn f() { println!(\"{}\", crate::providers::NAME); }";
    assert_eq!(planted("assembly/render.rs", in_macro).len(), 1);
    let climbing = "use super::super::assembly::PromptText;";
    assert_eq!(planted("pipeline/validate.rs", climbing).len(), 1);
    // `super` that stays inside the module is its own business.
    assert!(planted("pipeline/validate.rs", "use super::error::PipelineError;").is_empty());
    let providers = read_tree_roots(&PROVIDERS);
    let scopes = Path::new("anthropic/scopes.rs");
    assert!(check_file(&PROVIDERS, scopes, "use super::super::Message;", &providers).is_empty());
    // Its request files are one module, below `observe`, through the alias too.
    let upward = "use crate::providers::observe::Provider;";
    assert_eq!(check_file(&PROVIDERS, scopes, upward, &providers).len(), 1);
    let observe = Path::new("observe/log.rs");
    assert!(
        check_file(
            &PROVIDERS,
            observe,
            "use crate::providers::cost;",
            &providers
        )
        .is_empty()
    );
}

#[test]
fn code_after_a_test_item_is_still_checked() {
    let code = "#[cfg(test)]\nfn helper() { crate::contract::x(); }\n\nuse crate::diff::Explain;\n";
    let problems = planted("spec/mod.rs", code);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("spec/mod.rs:4:"), "{problems:?}");
}

#[test]
fn comments_strings_tests_and_downward_paths_pass() {
    let code = r#"
//! See [`Pipeline`](crate::Pipeline) and crate::assembly.
use crate::spec::LayerSpec;
use crate::{context::Context, spec::Stability};
/// [`x`](crate::pipeline::Pipeline)
fn f() -> &'static str { "crate::contract::run" }
macro_rules! m { () => { $crate::__private_v1::x() } }
#[cfg(test)]
mod tests { use crate::*; use crate::assembly::PromptBuilder; }
"#;
    assert_eq!(planted("layer.rs", code), Vec::<String>::new());
}

#[test]
fn a_root_name_that_is_not_re_exported_fails() {
    let problems = planted("spec/mod.rs", "use crate::NoSuchThing;");
    assert_eq!(problems.len(), 1);
    assert!(problems[0].contains("neither a module in ORDER nor a name lib.rs"));
}

#[test]
fn a_module_missing_from_order_fails() {
    let problems = planted("newthing.rs", "pub fn f() {}");
    assert!(
        problems[0].contains("has no place in ORDER"),
        "{problems:?}"
    );
}
