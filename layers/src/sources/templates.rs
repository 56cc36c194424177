//! Prompt templates: a small, bounded subset of minijinja, with includes
//! confined to one shared folder.
//!
//! The subset is checked over minijinja's own parse tree
//! (`minijinja::machinery`, minijinja pinned with `=` in the workspace), parsed
//! with the settings the engine uses: there is no second lexer whose idea of
//! where a tag, a comment or a `raw` block ends could differ from the engine's.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use minijinja::machinery::ast::{BinOpKind, CallArg, Expr, Stmt};
use minijinja::machinery::{Span, Token, WhitespaceConfig, parse, tokenize};
use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Rest, StringInput};
use minijinja::{Environment, ErrorKind, State, UndefinedBehavior, Value};

use super::SourceError;
use super::capped::{Size, read_capped};
use super::fs::Root;
use super::text::clean;

/// The largest template file read, in bytes. A larger one is an error, not a cut:
/// half a template is not a template.
pub const TEMPLATE_CAP: usize = 256 * 1024;

/// The prefix that names a file in the shared folder: `{% include "@shared/x.md" %}`.
pub const SHARED_PREFIX: &str = "@shared/";

/// What one template render may spend. Over any of them the render stops
/// with [`SourceError::TemplateLimit`], and the base prompt falls back to the built-in one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TemplateLimits {
    /// Instructions the engine may run. Default 100,000.
    pub fuel: u64,
    /// Bytes of output. Default 64 KiB.
    pub max_output: usize,
    /// How deep includes may nest (a chain longer than this is refused before
    /// rendering; a cycle is reported as a cycle). Default 16.
    pub max_include_depth: usize,
    /// The longest value a caller's variable may hold. Default 16 KiB: one
    /// comparison or `in` is one instruction of fuel whatever the lengths it
    /// compares, so this keeps a loop of them well under a second.
    pub max_variable: usize,
}

impl Default for TemplateLimits {
    fn default() -> Self {
        Self {
            fuel: 100_000,
            max_output: 64 * 1024,
            max_include_depth: 16,
            max_variable: 16 * 1024,
        }
    }
}

/// Renders prompt templates.
///
/// `{% include "@shared/x.md" %}` reads `x.md` from the shared folder and
/// nowhere else: `..`, absolute paths, symlinks that lead out of the folder
/// and include cycles are errors naming the including file, for literal and
/// computed (`{% include name %}`) names alike. `ignore missing` is honoured.
/// Undefined variables are errors too, with file and line.
///
/// A template is text from a repository the user may not trust, so the
/// language is a bounded subset: `{{ expressions }}` with the filters `upper`,
/// `lower`, `title`, `capitalize`, `trim`, `default` (`d`), `length`,
/// `first`, `last` and the tests `defined`, `undefined`, `none`, `true`,
/// `false`, `string`; the tags `if`/`elif`/`else`, `for`, `set x = ...`,
/// `include` and `raw`. Operators that build strings or collections (`~`,
/// `+`, `*`, `**`, list, tuple and map literals), subscripts, calls, and
/// tags that capture output or reach other templates (`macro`, `call`,
/// `filter`, block `set`, `with`, `block`, `extends`, `import`) are refused
/// before rendering, with the file and line. The check reads minijinja's own
/// parse tree, so text in a comment or a `raw` block is text to it exactly
/// as to the engine: a commented-out `{% include %}` is not an include.
///
/// What one render may cost is bounded: [`TemplateLimits`] bounds the
/// instructions run (fuel), the output and the include depth; a string
/// literal is at most 4 KiB, a tag at most 256 tokens and a template at most
/// 256 `elif`s (deeper trees overflow minijinja's stack); and the filters of
/// one render read at most 1 MiB in all (a filter is one instruction whatever
/// it is given, so without this a loop of `x|title` over a long `x` runs for
/// minutes inside the fuel). Over a bound the render stops with
/// [`SourceError::Template`] or [`SourceError::TemplateLimit`] naming the
/// file and the limit. Variables are the caller's: their length bounds what
/// one comparison or `in` costs.
///
/// ```
/// use std::collections::BTreeMap;
/// use prompt_layers::sources::Templates;
///
/// let shared = tempfile::tempdir().unwrap();
/// std::fs::write(shared.path().join("rules.md"), "Be brief, {{ user }}.").unwrap();
/// let templates = Templates::new(Some(shared.path().to_owned()));
/// let vars = BTreeMap::from([("user".to_owned(), "Ada".to_owned())]);
/// let text = templates
///     .render_str("base.md".as_ref(), "Hello.\n{% include \"@shared/rules.md\" %}", &vars)
///     .unwrap();
/// assert_eq!(text, "Hello.\nBe brief, Ada.");
/// ```
#[derive(Debug, Clone, Default)]
pub struct Templates {
    shared: Option<Root>,
    limits: TemplateLimits,
    /// Undefined variables render as empty text instead of failing.
    lenient: bool,
}

impl Templates {
    /// Templates whose `@shared/` includes resolve in the root `shared`,
    /// already opened (and, for a folder inside a repository, derived from
    /// its root with [`Root::within`]): includes are read by walking from
    /// that open folder, so the folder is never looked up by path again.
    /// Its label should be `@shared`.
    pub fn with_shared_root(shared: Root) -> Self {
        Self {
            shared: Some(shared),
            limits: TemplateLimits::default(),
            lenient: false,
        }
    }

    /// Templates whose `@shared/` includes resolve in `shared` (none allowed
    /// when `None`), a folder the caller chose: it is opened now, as named.
    /// For a folder a repository holds, derive a root and use
    /// [`Templates::with_shared_root`].
    pub fn new(shared: Option<PathBuf>) -> Self {
        Self {
            shared: shared.map(|dir| Root::new(dir, "@shared")),
            limits: TemplateLimits::default(),
            lenient: false,
        }
    }

    /// The same templates under other limits.
    pub fn with_limits(mut self, limits: TemplateLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The same templates, where an undefined variable (or an attribute of
    /// one) renders as empty text instead of being an error: the rule of
    /// Django-style engines such as pongo2, for reproducing an agent that
    /// renders with one.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use prompt_layers::sources::Templates;
    ///
    /// let templates = Templates::new(None).with_lenient_undefined();
    /// let text = templates
    ///     .render_str("p.md".as_ref(), "A{{ nothing }}B{{ args.day }}C", &BTreeMap::new())
    ///     .unwrap();
    /// assert_eq!(text, "ABC");
    /// ```
    pub fn with_lenient_undefined(mut self) -> Self {
        self.lenient = true;
        self
    }

    /// Reads and renders the template at `path`, which must lie in `root`.
    pub fn render_file(
        &self,
        path: &Path,
        root: &Root,
        vars: &BTreeMap<String, String>,
    ) -> Result<String, SourceError> {
        let source = read_template(path, root)?;
        self.render_str(Path::new(&root.show(path)), &source, vars)
    }

    /// Renders `source`, naming it `path` in errors.
    pub fn render_str(
        &self,
        path: &Path,
        source: &str,
        vars: &BTreeMap<String, String>,
    ) -> Result<String, SourceError> {
        if let Some((name, value)) = vars
            .iter()
            .find(|(_, v)| v.len() > self.limits.max_variable)
        {
            // One comparison or `in` is one instruction of fuel whatever the
            // lengths it compares: a long variable would let a loop of them
            // run for seconds inside the fuel.
            return Err(SourceError::TemplateLimit {
                path: path.to_owned(),
                limit: format!(
                    "the variable `{}` holds {}, over the {} a template variable may hold",
                    super::text::visible(name),
                    Size(value.len() as u64),
                    Size(self.limits.max_variable as u64)
                ),
            });
        }
        let root = path.to_string_lossy().into_owned();
        let includes = check_template(source).map_err(|(line, message)| SourceError::Template {
            path: path.to_owned(),
            line,
            message,
        })?;
        self.check_includes(
            path,
            includes,
            &mut vec![root.clone()],
            &mut BTreeSet::new(),
        )?;

        let mut env = Environment::empty();
        env.set_undefined_behavior(if self.lenient {
            UndefinedBehavior::Chainable
        } else {
            UndefinedBehavior::Strict
        });
        // As `whitespace()`: the check parses as the engine does.
        env.set_keep_trailing_newline(true);
        env.set_fuel(Some(self.limits.fuel));
        let budget = Arc::new(FilterBudget::default());
        add_filters(&mut env, &budget);
        // The guard's own error, when it refuses a computed include: the
        // engine would only say "template not found".
        let refused: Arc<Mutex<Option<SourceError>>> = Arc::default();
        let shared = self.shared.clone();
        let slot = Arc::clone(&refused);
        let from = path.to_owned();
        env.set_loader(move |name| {
            let file = match resolve_shared(shared.as_ref(), name, &from) {
                Ok(file) => file,
                Err(error) => {
                    let message = error.to_string();
                    slot.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .get_or_insert(error);
                    return Err(minijinja::Error::new(ErrorKind::InvalidOperation, message));
                }
            };
            let Some(root) = shared.as_ref() else {
                return Ok(None);
            };
            let source = match read_template(&file, root) {
                Ok(source) => source,
                // Absent: `None` lets `ignore missing` work, and is "not found" otherwise.
                Err(error) if error.is_not_found() => return Ok(None),
                Err(error) => {
                    return Err(minijinja::Error::new(
                        ErrorKind::InvalidOperation,
                        error.to_string(),
                    ));
                }
            };
            // Every include, literal or computed, is checked here on the very
            // text the engine will parse (a literal one was checked before
            // rendering too, but its file may have changed since); the error
            // names the included file.
            if let Err((line, message)) = check_template(&source) {
                let error = SourceError::Template {
                    path: PathBuf::from(root.show(&file)),
                    line,
                    message,
                };
                let message = error.to_string();
                slot.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get_or_insert(error);
                return Err(minijinja::Error::new(ErrorKind::SyntaxError, message));
            }
            Ok(Some(source))
        });
        let to_error = |e: minijinja::Error| {
            if let Some(error) = refused
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
            {
                return error;
            }
            if let Some(error) = budget.over(path) {
                return error;
            }
            self.template_error(path, &root, &e)
        };
        env.add_template_owned(root.clone(), source.to_owned())
            .map_err(to_error)?;
        let template = env.get_template(&root).map_err(to_error)?;
        let mut out = Limited::new(self.limits.max_output);
        let rendered = template.render_captured_to(vars, &mut out).map(drop);
        if out.over {
            return Err(SourceError::TemplateLimit {
                path: path.to_owned(),
                limit: format!("output over {}", Size(self.limits.max_output as u64)),
            });
        }
        rendered.map_err(to_error)?;
        let text = String::from_utf8_lossy(&out.bytes);
        Ok(clean(&text).0)
    }

    /// Follows `includes`, the literal includes of the template at `path`
    /// (from its parse tree), depth first, rejecting any
    /// that leave the shared folder, any cycle and any chain deeper than the
    /// limit. Each file is checked once (`checked`), so a template that
    /// includes one file many times costs one read.
    fn check_includes(
        &self,
        path: &Path,
        includes: Vec<(String, bool)>,
        stack: &mut Vec<String>,
        checked: &mut BTreeSet<String>,
    ) -> Result<(), SourceError> {
        for (include, ignore_missing) in includes {
            let file = resolve_shared(self.shared.as_ref(), &include, path)?;
            if stack.contains(&include) {
                let mut chain = stack.clone();
                chain.push(include);
                return Err(SourceError::IncludeCycle {
                    path: PathBuf::from(&stack[0]),
                    chain,
                });
            }
            if stack.len() > self.limits.max_include_depth {
                let mut chain = stack.clone();
                chain.push(include);
                return Err(SourceError::TemplateLimit {
                    path: PathBuf::from(&stack[0]),
                    limit: format!(
                        "includes nest deeper than {} ({})",
                        self.limits.max_include_depth,
                        chain.join(" -> ")
                    ),
                });
            }
            if checked.contains(&include) {
                continue;
            }
            let Some(root) = self.shared.as_ref() else {
                continue;
            };
            let text = match read_template(&file, root) {
                Ok(text) => text,
                Err(error) if error.is_not_found() && ignore_missing => continue,
                Err(error) => return Err(error),
            };
            let shown = PathBuf::from(root.show(&file));
            let nested =
                check_template(&text).map_err(|(line, message)| SourceError::Template {
                    path: shown.clone(),
                    line,
                    message,
                })?;
            stack.push(include.clone());
            self.check_includes(&shown, nested, stack, checked)?;
            stack.pop();
            checked.insert(include);
        }
        Ok(())
    }

    fn template_error(&self, path: &Path, root: &str, error: &minijinja::Error) -> SourceError {
        // The innermost error says what went wrong, and where.
        let mut inner: &minijinja::Error = error;
        while let Some(source) =
            std::error::Error::source(inner).and_then(|s| s.downcast_ref::<minijinja::Error>())
        {
            inner = source;
        }
        let file = match inner.name() {
            Some(name) if name != root => PathBuf::from(name),
            _ => path.to_owned(),
        };
        match inner.kind() {
            ErrorKind::OutOfFuel => {
                return SourceError::TemplateLimit {
                    path: path.to_owned(),
                    limit: format!("fuel of {} instructions spent", self.limits.fuel),
                };
            }
            ErrorKind::TemplateNotFound => {
                return SourceError::NotFound {
                    path: PathBuf::from(
                        inner
                            .detail()
                            .and_then(|d| d.split('"').nth(1))
                            .unwrap_or("template"),
                    ),
                };
            }
            _ => {}
        }
        SourceError::Template {
            path: file,
            line: inner.line().unwrap_or(0),
            message: inner.detail().map_or_else(
                || inner.kind().to_string(),
                |d| format!("{}: {d}", inner.kind()),
            ),
        }
    }
}

/// Output that stops at a limit.
struct Limited {
    bytes: Vec<u8>,
    max: usize,
    over: bool,
}

impl Limited {
    fn new(max: usize) -> Self {
        Self {
            bytes: Vec::new(),
            max,
            over: false,
        }
    }
}

impl io::Write for Limited {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.bytes.len() + buf.len() > self.max {
            self.over = true;
            return Err(io::Error::other("template output limit"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn read_template(path: &Path, root: &Root) -> Result<String, SourceError> {
    let text = read_capped(path, root, TEMPLATE_CAP)?;
    if text.is_truncated() {
        return Err(SourceError::Template {
            path: PathBuf::from(&text.name),
            line: 0,
            message: format!(
                "larger than the {} template limit",
                Size(TEMPLATE_CAP as u64)
            ),
        });
    }
    Ok(text.text)
}

/// The file `include` names in `shared`, or why it may not be read.
/// `from` is the including file, for the error. Every include goes through
/// here, literal or computed.
pub fn resolve_shared(
    shared: Option<&Root>,
    include: &str,
    from: &Path,
) -> Result<PathBuf, SourceError> {
    let reject = |reason: &str| SourceError::IncludeRejected {
        path: from.to_owned(),
        include: super::text::visible(include),
        reason: reason.to_owned(),
    };
    let Some(rest) = include.strip_prefix(SHARED_PREFIX) else {
        return Err(reject(
            "includes must name a file in the shared folder, as \"@shared/<file>\"",
        ));
    };
    let relative = Path::new(rest);
    if rest.is_empty()
        || relative
            .components()
            .any(|c| matches!(c, Component::RootDir | Component::Prefix(_)))
    {
        return Err(reject("absolute paths are not allowed"));
    }
    if relative.components().any(|c| c == Component::ParentDir) {
        return Err(reject("`..` is not allowed"));
    }
    if rest.chars().any(char::is_control) {
        return Err(reject("control characters are not allowed"));
    }
    let Some(shared) = shared else {
        return Err(reject("no shared folder is configured"));
    };
    let candidate = shared.dir().join(relative);
    // Symlinks: the reader refuses a target outside the folder; say so here
    // too, as an include error naming the including file.
    if let (Ok(resolved), Ok(root)) = (candidate.canonicalize(), shared.dir().canonicalize())
        && !resolved.starts_with(&root)
    {
        return Err(reject(
            "it resolves outside the shared folder (through a symlink)",
        ));
    }
    Ok(candidate)
}

// ---- the subset, checked over minijinja's own parse tree --------------------

/// The filters a template may use, each a wrapper that charges the render's
/// filter budget (see [`FilterBudget`]).
const FILTERS: [&str; 10] = [
    "upper",
    "lower",
    "title",
    "capitalize",
    "trim",
    "default",
    "d",
    "length",
    "first",
    "last",
];

/// The tests a template may use (`x is defined`): each is constant time.
const TESTS: [&str; 6] = ["defined", "undefined", "none", "true", "false", "string"];

/// The tags a template may use, for error messages.
const TAGS: &str = "if, elif, else, for, set, include, raw";

/// The longest string literal a template may hold. Every string a template
/// can reach is a literal, a variable or a filter's result, so this bounds
/// what one comparison or `in` of the template's own making costs.
const LITERAL_CAP: usize = 4 * 1024;

/// The most tokens one `{{ }}` or `{% %}` tag may hold. Chains such as
/// `a.b.b.b…`, `x|trim|trim…` or `a - a - a…` parse into a tree as deep as
/// they are long, and minijinja (and dropping the tree) recurse over it: a
/// bound on tokens per tag is a bound on that depth.
const TAG_TOKEN_CAP: usize = 256;

/// The most `elif` tags a template may hold. minijinja parses an `elif`
/// chain by recursing once per `elif`, outside its own recursion guard: a
/// thousand of them overflow the stack.
const ELIF_CAP: usize = 256;

/// The whitespace settings the engine parses with (see [`Templates::render_str`]):
/// the check parses with the same ones, so it sees the tree that runs.
fn whitespace() -> WhitespaceConfig {
    WhitespaceConfig {
        keep_trailing_newline: true,
        ..WhitespaceConfig::default()
    }
}

/// The syntax the engine parses with: minijinja's default delimiters.
// A unit struct without minijinja's `custom_syntax` feature, a real one
// with it: `default()` is right either way.
#[allow(clippy::default_constructed_unit_structs)]
fn syntax() -> SyntaxConfig {
    SyntaxConfig::default()
}

/// A refusal: the 1-based line and what to change.
type Refusal = (usize, String);

/// Checks `source` against the bounded subset (see [`Templates`]) over the
/// tree minijinja itself parses, and returns its literal includes (name and
/// `ignore missing`) in order. Text in comments and `raw` blocks is not in
/// the tree, so it is never checked and never included.
fn check_template(source: &str) -> Result<Vec<(String, bool)>, Refusal> {
    check_tokens(source)?;
    let tree = parse(source, "template", syntax(), whitespace())
        .map_err(|error| (error.line().unwrap_or(0), describe(&error)))?;
    let mut walk = Walk {
        source,
        includes: Vec::new(),
    };
    walk.stmt(&tree)?;
    Ok(walk.includes)
}

/// Refuses a tag of more than [`TAG_TOKEN_CAP`] tokens and a template of
/// more than [`ELIF_CAP`] `elif` tags, using minijinja's own tokenizer. A
/// lexing error is left to the parser, which reports it.
fn check_tokens(source: &str) -> Result<(), Refusal> {
    let mut in_tag: Option<(Span, usize)> = None;
    let mut elifs = 0usize;
    for token in tokenize(source, false, syntax(), whitespace()) {
        let Ok((token, span)) = token else {
            return Ok(());
        };
        match token {
            Token::VariableStart | Token::BlockStart => in_tag = Some((span, 0)),
            Token::VariableEnd | Token::BlockEnd => in_tag = None,
            _ => {
                let Some((start, count)) = &mut in_tag else {
                    continue;
                };
                *count += 1;
                if *count == 1 && matches!(token, Token::Ident("elif")) {
                    elifs += 1;
                    if elifs > ELIF_CAP {
                        return Err((
                            line_at(source, start.start_offset),
                            format!(
                                "more than {ELIF_CAP} `elif` tags are not supported in prompt templates"
                            ),
                        ));
                    }
                }
                if *count > TAG_TOKEN_CAP {
                    return Err((
                        line_at(source, start.start_offset),
                        format!(
                            "a tag of more than {TAG_TOKEN_CAP} tokens is not supported in prompt templates (split it up)"
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The 1-based line of byte `offset` (exact past line 65,535, where
/// minijinja's own line numbers stop counting).
fn line_at(source: &str, offset: u32) -> usize {
    let end = usize::try_from(offset).map_or(source.len(), |o| o.min(source.len()));
    source.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// A parse error as one line: its kind and detail. An unknown tag says
/// which tags there are.
fn describe(error: &minijinja::Error) -> String {
    match error.detail() {
        Some(detail) if detail.starts_with("unknown statement") => format!(
            "the `{}` tag is not supported in prompt templates (use {TAGS})",
            detail.trim_start_matches("unknown statement").trim()
        ),
        Some(detail) => format!("{}: {detail}", error.kind()),
        None => error.kind().to_string(),
    }
}

/// Walks a parsed template, refusing what the subset leaves out and
/// collecting literal includes.
struct Walk<'s> {
    source: &'s str,
    includes: Vec<(String, bool)>,
}

impl Walk<'_> {
    fn refuse(&self, span: Span, message: impl Into<String>) -> Refusal {
        (line_at(self.source, span.start_offset), message.into())
    }

    fn tag(&self, span: Span, name: &str) -> Refusal {
        self.refuse(
            span,
            format!("the `{name}` tag is not supported in prompt templates (use {TAGS})"),
        )
    }

    fn body(&mut self, stmts: &[Stmt<'_>]) -> Result<(), Refusal> {
        stmts.iter().try_for_each(|stmt| self.stmt(stmt))
    }

    fn stmt(&mut self, stmt: &Stmt<'_>) -> Result<(), Refusal> {
        match stmt {
            Stmt::Template(template) => self.body(&template.children),
            Stmt::EmitRaw(_) => Ok(()),
            Stmt::EmitExpr(emit) => self.expr(&emit.expr),
            Stmt::IfCond(cond) => {
                self.expr(&cond.expr)?;
                self.body(&cond.true_body)?;
                self.body(&cond.false_body)
            }
            Stmt::ForLoop(for_loop) => {
                if for_loop.recursive {
                    return Err(self.refuse(
                        for_loop.span(),
                        "recursive loops are not supported in prompt templates",
                    ));
                }
                self.target(&for_loop.target, true)?;
                self.expr(&for_loop.iter)?;
                if let Some(filter) = &for_loop.filter_expr {
                    self.expr(filter)?;
                }
                self.body(&for_loop.body)?;
                self.body(&for_loop.else_body)
            }
            Stmt::Set(set) => {
                self.target(&set.target, false)?;
                self.expr(&set.expr)
            }
            Stmt::SetBlock(set) => Err(self.refuse(
                set.span(),
                "block `{% set %}` is not supported; write `{% set name = value %}`",
            )),
            Stmt::Include(include) => {
                self.expr(&include.name)?;
                if let Expr::Const(name) = &include.name
                    && let Some(name) = name.value.as_str()
                {
                    self.includes
                        .push((name.to_owned(), include.ignore_missing));
                }
                Ok(())
            }
            Stmt::WithBlock(s) => Err(self.tag(s.span(), "with")),
            Stmt::AutoEscape(s) => Err(self.tag(s.span(), "autoescape")),
            Stmt::FilterBlock(s) => Err(self.tag(s.span(), "filter")),
            Stmt::Block(s) => Err(self.tag(s.span(), "block")),
            Stmt::Import(s) => Err(self.tag(s.span(), "import")),
            Stmt::FromImport(s) => Err(self.tag(s.span(), "from")),
            Stmt::Extends(s) => Err(self.tag(s.span(), "extends")),
            Stmt::Do(s) => Err(self.tag(s.span(), "do")),
        }
    }

    /// What `set` or `for` assigns to: a name (a `for` may unpack into names).
    fn target(&mut self, target: &Expr<'_>, unpack: bool) -> Result<(), Refusal> {
        match target {
            Expr::Var(_) => Ok(()),
            Expr::List(names) if unpack => {
                names.items.iter().try_for_each(|n| self.target(n, true))
            }
            Expr::List(names) => Err(self.refuse(
                names.span(),
                "tuples (`a, b`) are not supported outside `for` in prompt templates",
            )),
            other => Err(self.refuse(
                other.span(),
                "only a name can be assigned in prompt templates: `{% set name = value %}`",
            )),
        }
    }

    fn expr(&mut self, expr: &Expr<'_>) -> Result<(), Refusal> {
        match expr {
            Expr::Var(_) => Ok(()),
            Expr::Const(constant) => match constant.value.as_str() {
                Some(text) if text.len() > LITERAL_CAP => Err(self.refuse(
                    constant.span(),
                    format!(
                        "a string literal of {} is over the {} limit for literals in prompt templates (write long text outside tags)",
                        Size(text.len() as u64),
                        Size(LITERAL_CAP as u64)
                    ),
                )),
                _ => Ok(()),
            },
            Expr::UnaryOp(op) => self.expr(&op.expr),
            Expr::BinOp(op) => {
                let refused = match op.op {
                    BinOpKind::Concat => Some("~"),
                    BinOpKind::Add => Some("+"),
                    BinOpKind::Mul => Some("*"),
                    BinOpKind::Pow => Some("**"),
                    _ => None,
                };
                if let Some(name) = refused {
                    return Err(self.refuse(
                        op.span(),
                        format!("the `{name}` operator is not supported in prompt templates"),
                    ));
                }
                self.expr(&op.left)?;
                self.expr(&op.right)
            }
            Expr::Compare(compare) => {
                self.expr(&compare.expr)?;
                compare.ops.iter().try_for_each(|op| self.expr(&op.expr))
            }
            Expr::IfExpr(if_expr) => {
                self.expr(&if_expr.test_expr)?;
                self.expr(&if_expr.true_expr)?;
                if_expr
                    .false_expr
                    .as_ref()
                    .map_or(Ok(()), |e| self.expr(e))
            }
            Expr::Filter(filter) => {
                if !FILTERS.contains(&filter.name) {
                    return Err(self.refuse(
                        filter.span(),
                        format!(
                            "the `{}` filter is not supported in prompt templates (use {})",
                            filter.name,
                            FILTERS.join(", ")
                        ),
                    ));
                }
                if let Some(value) = &filter.expr {
                    self.expr(value)?;
                }
                self.args(&filter.args)
            }
            Expr::Test(test) => {
                if !TESTS.contains(&test.name) {
                    return Err(self.refuse(
                        test.span(),
                        format!(
                            "the `{}` test is not supported in prompt templates (use {})",
                            test.name,
                            TESTS.join(", ")
                        ),
                    ));
                }
                self.expr(&test.expr)?;
                self.args(&test.args)
            }
            Expr::GetAttr(attr) => self.expr(&attr.expr),
            Expr::GetItem(item) => Err(self.refuse(
                item.span(),
                "subscripts (`x[...]`) are not supported in prompt templates",
            )),
            Expr::Slice(slice) => Err(self.refuse(
                slice.span(),
                "slices (`x[a:b]`) are not supported in prompt templates",
            )),
            Expr::Call(call) => Err(self.refuse(
                call.span(),
                "calls (`f(...)`) are not supported in prompt templates; only filters take arguments: `x | default(\"y\")`",
            )),
            Expr::List(list) => Err(self.refuse(
                list.span(),
                "list and map literals and tuples (`[a, b]`, `(a, b)`, `a, b`) are not supported in prompt templates",
            )),
            Expr::Map(map) => Err(self.refuse(
                map.span(),
                "list and map literals (`{...}`) are not supported in prompt templates",
            )),
        }
    }

    fn args(&mut self, args: &[CallArg<'_>]) -> Result<(), Refusal> {
        for arg in args {
            match arg {
                CallArg::Pos(value) | CallArg::Kwarg(_, value) => self.expr(value)?,
                CallArg::PosSplat(value) | CallArg::KwargSplat(value) => {
                    return Err(self.refuse(
                        value.span(),
                        "argument splats (`*args`, `**kwargs`) are not supported in prompt templates",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Refuses what the bounded subset leaves out (see [`Templates`]): returns the
/// 1-based line and what to change. The check runs over minijinja's own
/// parse tree, so comments and `raw` blocks are text to it exactly as they
/// are to the engine.
pub fn check_syntax(source: &str) -> Result<(), (usize, String)> {
    check_template(source).map(drop)
}

// ---- what filters may cost ----------------------------------------------------

/// The bytes filters may read in one render, summed over every call. Fuel
/// counts instructions, and one filter call is one instruction whatever
/// its input: without this, a loop of `x|title` over a long `x` runs for
/// minutes inside the fuel.
const FILTER_BUDGET: u64 = 1024 * 1024;

/// What the filters of one render have read, and the call that went over.
#[derive(Debug, Default)]
struct FilterBudget {
    spent: AtomicU64,
    over: Mutex<Option<(&'static str, u64)>>,
}

impl FilterBudget {
    /// Charges `cost` bytes to the budget for a call of `filter`; over the
    /// budget, the call fails and is remembered for the error.
    fn charge(&self, filter: &'static str, cost: u64) -> Result<(), minijinja::Error> {
        let spent = self
            .spent
            .fetch_add(cost, Ordering::Relaxed)
            .saturating_add(cost);
        if spent > FILTER_BUDGET {
            self.over
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get_or_insert((filter, cost));
            return Err(minijinja::Error::new(
                ErrorKind::InvalidOperation,
                format!("filters read over {} in one render", Size(FILTER_BUDGET)),
            ));
        }
        Ok(())
    }

    /// The error for a render that went over, if it did.
    fn over(&self, path: &Path) -> Option<SourceError> {
        let (filter, cost) = (*self.over.lock().unwrap_or_else(PoisonError::into_inner))?;
        Some(SourceError::TemplateLimit {
            path: path.to_owned(),
            limit: format!(
                "filters read over {} in one render (the `{filter}` filter was given {})",
                Size(FILTER_BUDGET),
                Size(cost)
            ),
        })
    }
}

/// What reading `value` costs a filter: its length in bytes if a string,
/// a small constant otherwise (numbers, booleans, none and the loop object
/// print short).
fn cost(value: &Value) -> u64 {
    value.as_str().map_or(16, |text| text.len() as u64).max(1)
}

/// The allowed filters, each charging the budget before it runs: the cost
/// of every filter is at most linear in what it is charged.
fn add_filters(env: &mut Environment<'_>, budget: &Arc<FilterBudget>) {
    use minijinja::{filters, tests};
    let b = Arc::clone(budget);
    env.add_filter("upper", move |state: &State, value: Value| {
        b.charge("upper", cost(&value))?;
        Ok::<_, minijinja::Error>(filters::upper(StringInput::new(state, &value)?))
    });
    let b = Arc::clone(budget);
    env.add_filter("lower", move |state: &State, value: Value| {
        b.charge("lower", cost(&value))?;
        Ok::<_, minijinja::Error>(filters::lower(StringInput::new(state, &value)?))
    });
    let b = Arc::clone(budget);
    env.add_filter("title", move |state: &State, value: Value| {
        b.charge("title", cost(&value))?;
        let text = StringInput::new(state, &value)?;
        Ok::<_, minijinja::Error>(filters::title(text.as_str().into()))
    });
    let b = Arc::clone(budget);
    env.add_filter("capitalize", move |state: &State, value: Value| {
        b.charge("capitalize", cost(&value))?;
        Ok::<_, minijinja::Error>(filters::capitalize(StringInput::new(state, &value)?))
    });
    let b = Arc::clone(budget);
    env.add_filter(
        "trim",
        move |state: &State, value: Value, chars: Option<String>| {
            // Trimming a set of characters compares each character with
            // every one in the set.
            let set = chars
                .as_ref()
                .map_or(1, |c| c.chars().count().max(1) as u64);
            b.charge("trim", cost(&value).saturating_mul(set))?;
            Ok::<_, minijinja::Error>(filters::trim(
                StringInput::new(state, &value)?,
                chars.map(Into::into),
            ))
        },
    );
    for name in ["default", "d"] {
        let b = Arc::clone(budget);
        env.add_filter(
            name,
            move |state: &State, value: Value, args: Rest<Value>| {
                b.charge(name, cost(&value))?;
                filters::default(state, &value, args)
            },
        );
    }
    let b = Arc::clone(budget);
    env.add_filter("length", move |value: Value| {
        b.charge("length", cost(&value))?;
        filters::length(&value)
    });
    let b = Arc::clone(budget);
    env.add_filter("first", move |value: Value| {
        b.charge("first", cost(&value))?;
        filters::first(&value)
    });
    let b = Arc::clone(budget);
    env.add_filter("last", move |value: Value| {
        b.charge("last", cost(&value))?;
        filters::last(value)
    });
    env.add_test("defined", tests::is_defined);
    env.add_test("undefined", tests::is_undefined);
    env.add_test("none", tests::is_none);
    env.add_test("true", tests::is_true);
    env.add_test("false", tests::is_false);
    env.add_test("string", tests::is_string);
}

#[cfg(test)]
mod tests {
    use super::check_syntax;

    /// The subset over minijinja's own tree: prompts pass, builders are
    /// refused with what to change and the line.
    #[test]
    fn the_subset_admits_prompts_and_refuses_builders() {
        for ok in [
            "Hi {{ user }}. {% if app == \"x\" %}a{% elif app != 'y' %}b{% else %}c{% endif %}",
            "{% for c in user %}{{ loop.index }}{{ c|upper }}{% endfor %}",
            "{% for a, b in pairs if a %}{{ a }}{% else %}none{% endfor %}",
            "{% set x = user|default(\"anon\") %}{{ x }} {# a ~ comment * #}",
            "{% raw %}{{ a ~ b }}{% macro %}{% endraw %}{{ \"~*+[\" }}",
            "{%- include \"@shared/x.md\" ignore missing -%}",
            "{{ n - 1 }}{{ n / 2 }}{{ n // 2 }}{{ n % 2 }}{{ not a and b or c }}",
            "{{ a if b is defined else c|trim(\"-\") }}",
        ] {
            assert_eq!(check_syntax(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("{{ a ~ a }}", "`~` operator"),
            ("\n{{ \"x\" * 9 }}", "`*` operator"),
            ("{{ a + a }}", "`+` operator"),
            ("{{ 2 ** 9 }}", "`**` operator"),
            ("{% set l = [a, a] %}", "list and map literals"),
            ("{% set m = {\"a\": 1} %}", "list and map literals"),
            ("{% set t = (a, a) %}", "tuples"),
            ("{% if a in (b, c) %}{% endif %}", "tuples"),
            ("{% set l = a, a %}", "tuples"),
            (
                "{% set a, b = c %}",
                "tuples (`a, b`) are not supported outside `for`",
            ),
            ("{% set a.b = c %}", "only a name can be assigned"),
            ("{% macro m() %}{% endmacro %}", "`macro` tag"),
            ("{% call m() %}{% endcall %}", "`call` tag"),
            ("{% filter upper %}x{% endfilter %}", "`filter` tag"),
            ("{% with a = 1 %}{% endwith %}", "`with` tag"),
            ("{% block b %}{% endblock %}", "`block` tag"),
            ("{% extends \"@shared/x\" %}", "`extends` tag"),
            ("{% import \"@shared/x\" as x %}", "`import` tag"),
            ("{% from \"@shared/x\" import y %}", "`from` tag"),
            (
                "{% autoescape true %}{% endautoescape %}",
                "`autoescape` tag",
            ),
            ("{% set x %}y{% endset %}", "block `{% set %}`"),
            ("{% for x in y recursive %}{% endfor %}", "recursive"),
            ("{{ x[0] }}", "subscripts"),
            ("{{ x[1:] }}", "slices"),
            ("{{ range(9) }}", "calls"),
            ("{{ loop.cycle(1) }}", "calls"),
            ("{{ x|replace(\"a\", \"b\") }}", "the `replace` filter"),
            ("{{ x is even }}", "the `even` test"),
            ("{{ x|default(*y) }}", "argument splats"),
            ("{{ a ", "unexpected end of input"),
        ] {
            let error = check_syntax(bad).unwrap_err();
            assert!(error.1.contains(why), "{bad}: {error:?}");
        }
        assert_eq!(check_syntax("\n{{ \"x\" * 9 }}").unwrap_err().0, 2);
        assert_eq!(
            check_syntax("a\nb\n{% if x %}\n{{ [1] }}{% endif %}")
                .unwrap_err()
                .0,
            4
        );
        // Found by fuzzing the old scanner: a multi-byte character inside a tag.
        assert!(check_syntax("{{ workspace\u{682}\u{7c2}repo.\n").is_err());
        assert_eq!(check_syntax("{{ \"\u{682}\" }}"), Ok(()));
    }
}
