//! The base prompt: an override file found upward, else a file on the search
//! path, else the built-in default. Files are templates.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::discover::find_upward;
use super::fs::Root;
use super::{SourceError, Templates};

/// The built-in base prompt, used when no file provides one.
pub const DEFAULT_BASE_PROMPT: &str = include_str!("../../prompts/base.md");

/// Where the base prompt came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptOrigin {
    /// An override file found upward from the working directory (up to the
    /// repository root or the workspace, whichever is nearer). After
    /// [`BasePromptConfig::resolve`], relative to the workspace.
    Override(PathBuf),
    /// A file on the configured search path.
    SearchPath(PathBuf),
    /// The default built into the binary.
    BuiltIn,
}

/// The base prompt for a session. Read by the `base_prompt` layer.
#[derive(Debug)]
#[non_exhaustive]
pub struct BasePromptText {
    /// The rendered text.
    pub text: String,
    /// Where it came from.
    pub origin: PromptOrigin,
    /// A file that was chosen but failed to render: the text is then the
    /// built-in default, and the layer notes this.
    pub problem: Option<SourceError>,
}

// `load_session` puts this into the session context.
impl prompt_core::SessionValue for BasePromptText {}

impl BasePromptText {
    /// A base prompt given directly, e.g. by an embedding application.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            origin: PromptOrigin::BuiltIn,
            problem: None,
        }
    }
}

/// Where base prompt files are looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BasePromptConfig {
    /// Looked for upward from the working directory, e.g. `.agent/system-prompt.md`.
    pub override_file: PathBuf,
    /// Looked for in each search-path directory, in order.
    pub file_name: String,
    /// Directories searched when there is no override.
    pub search_path: Vec<PathBuf>,
}

impl BasePromptConfig {
    /// Override `.<app>/system-prompt.md`, file `system-prompt.md`, no search path.
    pub fn for_app(app: &str) -> Self {
        Self {
            override_file: Path::new(&format!(".{app}")).join("system-prompt.md"),
            file_name: "system-prompt.md".to_owned(),
            search_path: Vec::new(),
        }
    }

    /// The file that provides the base prompt from `cwd` in `workspace`, and its origin.
    pub fn locate(&self, workspace: &Path, cwd: &Path) -> PromptOrigin {
        if let Some(path) = find_upward(workspace, cwd, &self.override_file) {
            return PromptOrigin::Override(path);
        }
        self.search_path
            .iter()
            .map(|dir| dir.join(&self.file_name))
            .find(|path| std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_dir()))
            .map_or(PromptOrigin::BuiltIn, PromptOrigin::SearchPath)
    }

    /// Locates and renders the base prompt. An override must lie in the
    /// workspace, a search-path file in its directory, whose root is chosen
    /// as every folder an option names is ([`Root::named`]): a search-path
    /// folder inside the workspace may not lead out of it through a symlink
    /// (it is then refused: the built-in default is used, with the error).
    /// A file that fails to render (or goes over a template limit) falls
    /// back to the built-in default, keeping the error.
    pub fn resolve(
        &self,
        workspace: &Root,
        cwd: &Path,
        templates: &Templates,
        vars: &BTreeMap<String, String>,
    ) -> BasePromptText {
        let origin = self.locate(workspace.dir(), cwd);
        let (path, root) = match &origin {
            PromptOrigin::Override(path) => (path, workspace.clone()),
            PromptOrigin::SearchPath(path) => {
                let dir = path.parent().unwrap_or(Path::new("."));
                match Root::named(workspace, dir, dir.to_string_lossy()) {
                    // The file by the root's own folder: a relative search
                    // path names a folder of the process's cwd, which the
                    // root has made absolute.
                    Ok(root) => (&root.dir().join(path.file_name().unwrap_or_default()), root),
                    Err(error) => {
                        return BasePromptText {
                            problem: Some(error),
                            ..BasePromptText::new(DEFAULT_BASE_PROMPT)
                        };
                    }
                }
            }
            PromptOrigin::BuiltIn => return BasePromptText::new(DEFAULT_BASE_PROMPT),
        };
        let origin = match &origin {
            PromptOrigin::Override(path) => PromptOrigin::Override(PathBuf::from(root.show(path))),
            other => other.clone(),
        };
        match templates.render_file(path, &root, vars) {
            Ok(text) => BasePromptText {
                text,
                origin,
                problem: None,
            },
            Err(error) => BasePromptText {
                problem: Some(error),
                ..BasePromptText::new(DEFAULT_BASE_PROMPT)
            },
        }
    }
}
