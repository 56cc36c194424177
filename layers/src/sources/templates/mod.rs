//! Loads prompt templates: reads a template and its `@shared/` includes,
//! has each checked ([`check`]) and renders it under [`TemplateLimits`] with
//! the filters [`filters`] charges for.
//!
//! A template is a small, bounded subset of minijinja, with includes
//! confined to one shared folder. The check uses minijinja's public API
//! only (its parser reports syntax errors; nothing of its internals, which
//! carry no semver promise): the subset is read by a scanner of its own
//! ([`lex`]) that follows minijinja's lexer rule for rule, so a tag, a
//! comment or a `raw` block ends where the engine ends it. minijinja's
//! features change what it parses (a user's graph may turn on `macros` or
//! `loop_controls`), so the check allows the statements it names and refuses
//! any other.

mod check;
mod filters;
mod lex;

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use minijinja::{Environment, ErrorKind, UndefinedBehavior};

pub use self::check::check_syntax;
use self::check::check_template;
use self::filters::{FilterBudget, add_filters};
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
///
/// Start from [`TemplateLimits::DEFAULT`] (or `default()`) and change what
/// you need with the `with_` setters; they are `const`, so the limits can be
/// a constant:
///
/// ```
/// use std::collections::BTreeMap;
/// use prompt_layers::sources::{SourceError, TemplateLimits, Templates};
///
/// const LIMITS: TemplateLimits = TemplateLimits::DEFAULT.fuel(20_000).max_output(10);
/// assert_eq!(LIMITS.max_include_depth, TemplateLimits::default().max_include_depth);
///
/// let templates = Templates::new(None).limits(LIMITS);
/// let error = templates
///     .render_str("base.md".as_ref(), "0123456789A", &BTreeMap::new())
///     .unwrap_err();
/// assert!(matches!(error, SourceError::TemplateLimit { .. }), "{error}");
/// ```
// Grows with every bound: build it with the `with_` setters, so a new limit
// is not a breaking change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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

impl TemplateLimits {
    /// The defaults: 100,000 instructions of fuel, 64 KiB of output,
    /// includes 16 deep, variables of at most 16 KiB.
    pub const DEFAULT: Self = Self {
        fuel: 100_000,
        max_output: 64 * 1024,
        max_include_depth: 16,
        max_variable: 16 * 1024,
    };

    /// The same limits, with [`fuel`](Self::fuel) instructions.
    #[must_use]
    pub const fn fuel(mut self, fuel: u64) -> Self {
        self.fuel = fuel;
        self
    }

    /// The same limits, with at most [`max_output`](Self::max_output) bytes of output.
    #[must_use]
    pub const fn max_output(mut self, max_output: usize) -> Self {
        self.max_output = max_output;
        self
    }

    /// The same limits, with includes nesting at most
    /// [`max_include_depth`](Self::max_include_depth) deep.
    #[must_use]
    pub const fn max_include_depth(mut self, max_include_depth: usize) -> Self {
        self.max_include_depth = max_include_depth;
        self
    }

    /// The same limits, with a caller's variable at most
    /// [`max_variable`](Self::max_variable) bytes long.
    #[must_use]
    pub const fn max_variable(mut self, max_variable: usize) -> Self {
        self.max_variable = max_variable;
        self
    }
}

impl Default for TemplateLimits {
    /// [`TemplateLimits::DEFAULT`].
    fn default() -> Self {
        Self::DEFAULT
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
/// before rendering, with the file and line. The check finds tags, comments
/// and `raw` blocks by minijinja's own rules, so text in a comment or a `raw`
/// block is text to it exactly as to the engine: a commented-out
/// `{% include %}` is not an include.
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
    pub fn limits(mut self, limits: TemplateLimits) -> Self {
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
    /// let templates = Templates::new(None).lenient_undefined();
    /// let text = templates
    ///     .render_str("p.md".as_ref(), "A{{ nothing }}B{{ args.day }}C", &BTreeMap::new())
    ///     .unwrap();
    /// assert_eq!(text, "ABC");
    /// ```
    pub fn lenient_undefined(mut self) -> Self {
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
        // As the check's own parse (`check::parse`).
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
    /// (string constants its check found), depth first, rejecting any
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
