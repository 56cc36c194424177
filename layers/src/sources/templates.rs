//! Prompt templates: a small, bounded subset of minijinja, with includes
//! confined to one shared folder.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use minijinja::{Environment, ErrorKind, UndefinedBehavior};

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
}

impl Default for TemplateLimits {
    fn default() -> Self {
        Self {
            fuel: 100_000,
            max_output: 64 * 1024,
            max_include_depth: 16,
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
/// `lower`, `title`, `capitalize`, `trim`, `default`, `length`, `first`,
/// `last`; the tags `if`/`elif`/`else`, `for`, `set x = ...`, `include` and
/// `raw`. Operators that build strings or collections (`~`, `+`, `*`,
/// list, tuple and map literals) and tags that capture output (`macro`,
/// `call`, `filter`, block `set`) are refused before rendering. With
/// [`TemplateLimits`] that bounds time, memory and output whatever the template.
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
}

impl Templates {
    /// Templates whose `@shared/` includes resolve in `shared` (none allowed when `None`).
    pub fn new(shared: Option<PathBuf>) -> Self {
        Self {
            shared: shared.map(|dir| Root::new(dir, "@shared")),
            limits: TemplateLimits::default(),
        }
    }

    /// The same templates under other limits.
    pub fn with_limits(mut self, limits: TemplateLimits) -> Self {
        self.limits = limits;
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
        let root = path.to_string_lossy().into_owned();
        check_syntax(source).map_err(|(line, message)| SourceError::Template {
            path: path.to_owned(),
            line,
            message,
        })?;
        self.check_includes(path, source, &mut vec![root.clone()], &mut BTreeSet::new())?;

        let mut env = Environment::empty();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_keep_trailing_newline(true);
        env.set_fuel(Some(self.limits.fuel));
        add_filters(&mut env);
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
            check_syntax(&source).map_err(|(line, message)| {
                minijinja::Error::new(ErrorKind::SyntaxError, format!("line {line}: {message}"))
            })?;
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

    /// Follows the literal includes of `source` depth first, rejecting any
    /// that leave the shared folder, any cycle and any chain deeper than the
    /// limit. Each file is checked once (`checked`), so a template that
    /// includes one file many times costs one read.
    fn check_includes(
        &self,
        path: &Path,
        source: &str,
        stack: &mut Vec<String>,
        checked: &mut BTreeSet<String>,
    ) -> Result<(), SourceError> {
        for (include, ignore_missing) in literal_includes(source) {
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
            check_syntax(&text).map_err(|(line, message)| SourceError::Template {
                path: shown.clone(),
                line,
                message,
            })?;
            stack.push(include.clone());
            self.check_includes(&shown, &text, stack, checked)?;
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

fn add_filters(env: &mut Environment<'_>) {
    use minijinja::{filters, tests};
    env.add_filter("upper", filters::upper);
    env.add_filter("lower", filters::lower);
    env.add_filter("title", filters::title);
    env.add_filter("capitalize", filters::capitalize);
    env.add_filter("trim", filters::trim);
    env.add_filter("default", filters::default);
    env.add_filter("d", filters::default);
    env.add_filter("length", filters::length);
    env.add_filter("first", filters::first);
    env.add_filter("last", filters::last);
    env.add_test("defined", tests::is_defined);
    env.add_test("undefined", tests::is_undefined);
    env.add_test("none", tests::is_none);
    env.add_test("true", tests::is_true);
    env.add_test("false", tests::is_false);
    env.add_test("string", tests::is_string);
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

/// The string-literal targets of `{% include ".." %}` tags, in order, each
/// with whether it says `ignore missing`.
fn literal_includes(source: &str) -> Vec<(String, bool)> {
    let mut includes = Vec::new();
    let mut rest = source;
    while let Some((_, open)) = rest.split_once("{%") {
        let Some((tag, after)) = open.split_once("%}") else {
            break;
        };
        rest = after;
        let tag = tag.trim_matches(|c: char| c == '-' || c == '+' || c.is_whitespace());
        let Some(arg) = tag.strip_prefix("include") else {
            continue;
        };
        let arg = arg.trim_start();
        let Some(quote) = arg.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue;
        };
        if let Some((name, after)) = arg[quote.len_utf8()..].split_once(quote) {
            let after = after.split_whitespace().collect::<Vec<_>>();
            let ignore_missing = after.windows(2).any(|w| w == ["ignore", "missing"]);
            includes.push((name.to_owned(), ignore_missing));
        }
    }
    includes
}

/// The tags a template may use.
const TAGS: [&str; 10] = [
    "if", "elif", "else", "endif", "for", "endfor", "include", "set", "raw", "endraw",
];

/// Refuses what the bounded subset leaves out (see [`Templates`]): returns the
/// 1-based line and what to change.
pub fn check_syntax(source: &str) -> Result<(), (usize, String)> {
    let line_at = |offset: usize| source[..offset].matches('\n').count() + 1;
    let mut at = 0;
    while let Some(found) = source[at..].find('{') {
        let open = at + found;
        let kind = source[open + 1..].chars().next();
        let close = match kind {
            Some('{') => "}}",
            Some('%') => "%}",
            Some('#') => {
                at = source[open + 2..]
                    .find("#}")
                    .map_or(source.len(), |end| open + 2 + end + 2);
                continue;
            }
            _ => {
                at = open + 1;
                continue;
            }
        };
        let body_start = open + 2;
        let (body, end) = scan_body(&source[body_start..], close)
            .map(|(len, end)| (&source[body_start..body_start + len], body_start + end))
            .ok_or_else(|| {
                (
                    line_at(open),
                    format!("`{}` is never closed", &source[open..open + 2]),
                )
            })?;
        let body = body
            .strip_prefix(['-', '+'])
            .unwrap_or(body)
            .trim_end()
            .strip_suffix(['-', '+'])
            .unwrap_or(body.trim_end())
            .trim();
        let is_for = kind == Some('%') && body.starts_with("for");
        check_expression(body, is_for).map_err(|message| (line_at(open), message))?;
        at = end;
        if kind == Some('%') {
            let name = body
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .next()
                .unwrap_or("");
            if !TAGS.contains(&name) {
                return Err((
                    line_at(open),
                    format!(
                        "the `{name}` tag is not supported in prompt templates (use {})",
                        TAGS.join(", ")
                    ),
                ));
            }
            let words: Vec<&str> = body.split_whitespace().collect();
            if name == "set" && !has_assignment(body) {
                return Err((
                    line_at(open),
                    "block `{% set %}` is not supported; write `{% set name = value %}`".into(),
                ));
            }
            if name == "for" && words.contains(&"recursive") {
                return Err((line_at(open), "recursive loops are not supported".into()));
            }
            if name == "raw" {
                // Skip to the matching `endraw`: what is inside is text.
                let mut search = at;
                loop {
                    let Some(next) = source[search..].find("{%") else {
                        return Err((line_at(open), "`{% raw %}` is never closed".into()));
                    };
                    let tag_start = search + next + 2;
                    let Some(tag_end) = source[tag_start..].find("%}") else {
                        return Err((line_at(open), "`{% raw %}` is never closed".into()));
                    };
                    let tag = source[tag_start..tag_start + tag_end]
                        .trim_matches(|c: char| c == '-' || c == '+' || c.is_whitespace());
                    search = tag_start + tag_end + 2;
                    if tag == "endraw" {
                        break;
                    }
                }
                at = search;
            }
        }
    }
    Ok(())
}

/// The length of a tag's body up to `close`, outside string literals, and
/// the offset just past `close`.
fn scan_body(text: &str, close: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut quote = None;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == b'\\' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if bytes[i..].starts_with(close.as_bytes()) => return Some((i, i + close.len())),
            None => {}
        }
        i += 1;
    }
    None
}

/// Refuses operators and literals that build strings or collections, outside
/// string literals. Commas outside call parentheses (tuples) are only allowed
/// in a `for` tag, whose loop body cannot keep what it builds.
fn check_expression(body: &str, allow_tuples: bool) -> Result<(), String> {
    let mut depth = 0usize;
    let mut quote = None;
    let mut escaped = false;
    let mut previous_word = String::new();
    let mut word = String::new();
    for c in body.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            previous_word = std::mem::take(&mut word);
        }
        match c {
            '"' | '\'' => {
                quote = Some(c);
                previous_word.clear();
            }
            '~' | '+' | '*' => {
                return Err(format!(
                    "the `{c}` operator is not supported in prompt templates"
                ));
            }
            '[' | ']' | '{' | '}' => {
                return Err(format!(
                    "list and map literals (`{c}`) are not supported in prompt templates"
                ));
            }
            '(' => {
                let call = !previous_word.is_empty()
                    && !previous_word
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_digit())
                    && !KEYWORDS.contains(&previous_word.as_str());
                if !call {
                    return Err(
                        "parentheses are only for filter arguments in prompt templates".into(),
                    );
                }
                previous_word.clear();
                depth += 1;
            }
            ')' => {
                depth = depth.saturating_sub(1);
                previous_word.clear();
            }
            ',' if depth == 0 && !allow_tuples => {
                return Err(
                    "tuples (`a, b`) are not supported outside `for` in prompt templates".into(),
                );
            }
            c if c.is_whitespace() => {}
            _ => previous_word.clear(),
        }
    }
    Ok(())
}

const KEYWORDS: [&str; 9] = [
    "in",
    "not",
    "and",
    "or",
    "if",
    "else",
    "is",
    "elif",
    "recursive",
];

fn has_assignment(body: &str) -> bool {
    let bytes = body.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b'='
            && bytes.get(i + 1) != Some(&b'=')
            && !matches!(
                i.checked_sub(1).map(|j| bytes[j]),
                Some(b'=' | b'!' | b'<' | b'>')
            )
    })
}

#[cfg(test)]
mod tests {
    use super::{check_syntax, literal_includes};

    #[test]
    fn finds_literal_includes_in_every_tag_form() {
        let source = "a {% include \"@shared/x.md\" %} b {%- include '@shared/y.md' ignore missing -%} {% if x %}{% include name %}{% endif %}";
        assert_eq!(
            literal_includes(source),
            [
                ("@shared/x.md".to_owned(), false),
                ("@shared/y.md".to_owned(), true)
            ]
        );
    }

    #[test]
    fn the_subset_admits_prompts_and_refuses_builders() {
        for ok in [
            "Hi {{ user }}. {% if app == \"x\" %}a{% elif app != 'y' %}b{% else %}c{% endif %}",
            "{% for c in user %}{{ loop.index }}{{ c|upper }}{% endfor %}",
            "{% set x = user|default(\"anon\") %}{{ x }} {# a ~ comment * #}",
            "{% raw %}{{ a ~ b }}{% macro %}{% endraw %}{{ \"~*+[\" }}",
            "{%- include \"@shared/x.md\" ignore missing -%}",
        ] {
            assert_eq!(check_syntax(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("{{ a ~ a }}", "`~` operator"),
            ("\n{{ \"x\" * 9 }}", "`*` operator"),
            ("{% set l = [a, a] %}", "list and map literals"),
            ("{% set t = (a, a) %}", "parentheses"),
            ("{% if a in (b, c) %}{% endif %}", "parentheses"),
            ("{% macro m() %}{% endmacro %}", "`macro` tag"),
            ("{% set x %}y{% endset %}", "block `{% set %}`"),
            ("{% for x in y recursive %}{% endfor %}", "recursive"),
            ("{% set l = a, a %}", "tuples"),
            ("{{ a ", "never closed"),
        ] {
            let error = check_syntax(bad).unwrap_err();
            assert!(error.1.contains(why), "{bad}: {error:?}");
        }
        assert_eq!(check_syntax("\n{{ \"x\" * 9 }}").unwrap_err().0, 2);
        // Found by fuzzing: a multi-byte character inside a tag.
        assert!(check_syntax("{{ workspace\u{682}\u{7c2}repo.\n").is_err());
        assert_eq!(check_syntax("{{ \"ڂ\" }}"), Ok(()));
    }
}
