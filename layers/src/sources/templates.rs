//! Prompt templates: minijinja, with includes confined to one shared folder.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use minijinja::{Environment, ErrorKind, UndefinedBehavior};

use super::{SourceError, read_capped};

/// The largest template file read, in bytes. A larger one is an error, not a cut:
/// half a template is not a template.
pub const TEMPLATE_CAP: usize = 256 * 1024;

/// The prefix that names a file in the shared folder: `{% include "@shared/x.md" %}`.
pub const SHARED_PREFIX: &str = "@shared/";

/// How deep includes may nest.
const MAX_DEPTH: usize = 32;

/// Renders prompt templates.
///
/// `{% include "@shared/x.md" %}` reads `x.md` from the shared folder and
/// nowhere else: `..`, absolute paths, symlinks that lead out of the folder and
/// include cycles are errors naming the including file. Undefined variables are
/// errors too, with file and line.
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
    shared: Option<PathBuf>,
}

impl Templates {
    /// Templates whose `@shared/` includes resolve in `shared` (none allowed when `None`).
    pub fn new(shared: Option<PathBuf>) -> Self {
        Self { shared }
    }

    /// Reads and renders the template at `path`.
    pub fn render_file(
        &self,
        path: &Path,
        vars: &BTreeMap<String, String>,
    ) -> Result<String, SourceError> {
        let source = read_template(path)?;
        self.render_str(path, &source, vars)
    }

    /// Renders `source`, naming it `path` in errors.
    pub fn render_str(
        &self,
        path: &Path,
        source: &str,
        vars: &BTreeMap<String, String>,
    ) -> Result<String, SourceError> {
        let root = path.display().to_string();
        self.check_includes(path, source, &mut vec![root.clone()])?;

        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_keep_trailing_newline(true);
        let shared = self.shared.clone();
        env.set_loader(move |name| {
            let shared = shared.as_deref();
            let file = resolve_shared(shared, name, Path::new(name))
                .map_err(|e| minijinja::Error::new(ErrorKind::TemplateNotFound, e.to_string()))?;
            read_template(&file)
                .map(Some)
                .map_err(|e| minijinja::Error::new(ErrorKind::TemplateNotFound, e.to_string()))
        });
        let to_error = |e: minijinja::Error| self.template_error(path, &root, &e);
        env.add_template_owned(root.clone(), source.to_owned())
            .map_err(to_error)?;
        let template = env.get_template(&root).map_err(to_error)?;
        template.render(vars).map_err(to_error)
    }

    /// Follows the literal includes of `source` depth first, rejecting any
    /// that leave the shared folder and any cycle.
    fn check_includes(
        &self,
        path: &Path,
        source: &str,
        stack: &mut Vec<String>,
    ) -> Result<(), SourceError> {
        for include in literal_includes(source) {
            let file = resolve_shared(self.shared.as_deref(), &include, path)?;
            if stack.contains(&include) || stack.len() > MAX_DEPTH {
                let mut chain = stack.clone();
                chain.push(include);
                return Err(SourceError::IncludeCycle {
                    path: PathBuf::from(&stack[0]),
                    chain,
                });
            }
            let text = read_template(&file)?;
            stack.push(include);
            self.check_includes(&file, &text, stack)?;
            stack.pop();
        }
        Ok(())
    }

    fn template_error(&self, path: &Path, root: &str, error: &minijinja::Error) -> SourceError {
        let file = match error.name() {
            Some(name) if name != root => match (&self.shared, name.strip_prefix(SHARED_PREFIX)) {
                (Some(shared), Some(rest)) => shared.join(rest),
                _ => PathBuf::from(name),
            },
            _ => path.to_owned(),
        };
        SourceError::Template {
            path: file,
            line: error.line().unwrap_or(0),
            message: error.detail().map_or_else(
                || error.kind().to_string(),
                |d| format!("{}: {d}", error.kind()),
            ),
        }
    }
}

fn read_template(path: &Path) -> Result<String, SourceError> {
    let text = read_capped(path, path.display().to_string(), TEMPLATE_CAP)?;
    if text.is_truncated() {
        return Err(SourceError::Template {
            path: path.to_owned(),
            line: 0,
            message: format!("larger than the {TEMPLATE_CAP}-byte template limit"),
        });
    }
    Ok(text.text)
}

/// The file `include` names in `shared`, or why it may not be read.
/// `from` is the including file, for the error.
fn resolve_shared(
    shared: Option<&Path>,
    include: &str,
    from: &Path,
) -> Result<PathBuf, SourceError> {
    let reject = |reason: &str| SourceError::IncludeRejected {
        path: from.to_owned(),
        include: include.to_owned(),
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
    let Some(shared) = shared else {
        return Err(reject("no shared folder is configured"));
    };
    let candidate = shared.join(relative);
    let resolved = candidate
        .canonicalize()
        .map_err(|e| SourceError::io(&candidate, e))?;
    let root = shared
        .canonicalize()
        .map_err(|e| SourceError::io(shared, e))?;
    if !resolved.starts_with(&root) {
        return Err(reject(
            "it resolves outside the shared folder (through a symlink)",
        ));
    }
    Ok(resolved)
}

/// The string-literal targets of `{% include ".." %}` tags, in order.
fn literal_includes(source: &str) -> Vec<String> {
    let mut includes = Vec::new();
    let mut rest = source;
    while let Some(start) = rest.find("{%") {
        rest = &rest[start + 2..];
        let Some(end) = rest.find("%}") else { break };
        let tag = rest[..end].trim_matches(|c: char| c == '-' || c == '+' || c.is_whitespace());
        rest = &rest[end + 2..];
        let Some(arg) = tag.strip_prefix("include") else {
            continue;
        };
        let arg = arg.trim_start();
        let Some(quote) = arg.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue;
        };
        if let Some(close) = arg[1..].find(quote) {
            includes.push(arg[1..1 + close].to_owned());
        }
    }
    includes
}

#[cfg(test)]
mod tests {
    use super::literal_includes;

    #[test]
    fn finds_literal_includes_in_every_tag_form() {
        let source = "a {% include \"@shared/x.md\" %} b {%- include '@shared/y.md' -%} {% if x %}{% include name %}{% endif %}";
        assert_eq!(literal_includes(source), ["@shared/x.md", "@shared/y.md"]);
    }
}
