//! A kitsoki story on disk: `app.yaml`, its prompts, and the framework layer
//! found upward from it. Everything is read and rendered here, before assembly.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use prompt_layers::sources::clean;
use prompt_layers::sources::{
    CappedText, PromptOrigin, Root, SourceError, TemplateLimits, Templates, parsed, yaml,
};
use serde::Deserialize;

use super::{DEFAULT_FRAMEWORK, KitsokiError};

/// The largest `app.yaml` or persona file read, in bytes.
pub const STORY_FILE_CAP: usize = 256 * 1024;

/// The project layer's cap, in bytes: a longer rendered text is cut on a
/// character boundary and ends with the standard marker (kitsoki has none).
pub const PROJECT_CAP: usize = 64 * 1024;

/// The most a framework or project template may render, in bytes, before
/// the render stops (and the layer is left out, with a note): room for a
/// text over [`PROJECT_CAP`] to be cut visibly instead.
pub const PROJECT_RENDER_LIMIT: usize = 1024 * 1024;

/// The framework file kitsoki looks up on the story's prompt search path.
pub const FRAMEWORK_FILE: &str = "sysprompt/kitsoki.md";

/// The project file kitsoki reads when `app.yaml` names no project context.
pub const PROJECT_CONVENTION: &str = "prompts/_project.md";

/// The keys of `app.yaml` whose values may span lines: the project layer
/// and a persona, inline. Every other value (the id, paths) is one line.
const APP_LINES: parsed::Multiline = parsed::Multiline(&["context", "system_prompt"]);

/// `app:` of `app.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct AppMeta {
    /// The story's id.
    pub id: String,
    /// The project layer, inline. Exclusive with `context_path`.
    #[serde(default)]
    pub context: Option<String>,
    /// The project layer's file, relative to the story root. Exclusive with `context`.
    #[serde(default)]
    pub context_path: Option<String>,
}

/// `agents.<name>` of `app.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct AgentDecl {
    /// The persona, inline.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// The persona's file, relative to the story root.
    #[serde(default)]
    pub system_prompt_path: Option<String>,
    /// Keep Claude Code's own prompt and append the persona (no kitsoki grounding).
    #[serde(default)]
    pub inherit_claude_default: bool,
}

/// The parts of `app.yaml` that shape the system prompt; other keys are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct AppFile {
    /// `app:`.
    pub app: AppMeta,
    /// `agents:`, by name.
    #[serde(default)]
    pub agents: BTreeMap<String, AgentDecl>,
}

/// An agent with its persona resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoryAgent {
    /// The persona, trimmed (may be empty).
    pub persona: String,
    /// Whether the legacy `--append-system-prompt` form is used.
    pub inherit_claude_default: bool,
}

/// A loaded story: the rendered framework and project layers and the agents.
#[derive(Debug, Clone)]
pub struct Story {
    /// The story root: the folder holding `app.yaml`, as named.
    pub root: PathBuf,
    /// The story root as the root every story file is read through,
    /// derived from the workspace; its files are named relative to the
    /// workspace (`stories/trail/app.yaml`).
    folder: Root,
    /// The story's id.
    pub id: String,
    /// The framework layer, rendered and trimmed.
    pub framework: String,
    /// Where the framework layer came from.
    pub framework_origin: PromptOrigin,
    /// The project layer, rendered and trimmed; `None` when there is none.
    pub project: Option<String>,
    /// The router's project layer: `app.context`, else the file
    /// `app.context_path`, as written (not rendered), trimmed; kitsoki's
    /// router reads no `prompts/_project.md`. `None` when there is none.
    pub router_project: Option<String>,
    /// The agents, by name.
    pub agents: BTreeMap<String, StoryAgent>,
    /// What was worked around while loading (a framework file that failed to
    /// render, a missing `context_path` file, a project text cut or left
    /// out): [`framework_notes`](Self::framework_notes) then
    /// [`project_notes`](Self::project_notes).
    pub notes: Vec<String>,
    /// The notes on the framework layer; its trace shows them.
    pub framework_notes: Vec<String>,
    /// The notes on the project layers; the project layer's trace shows them.
    pub project_notes: Vec<String>,
}

impl Story {
    /// The templates of a story: `@shared/x` is `shared/x` under the story
    /// root. `shared/` is derived from the story root: the story may not
    /// point it (or a folder on its way) outside itself.
    ///
    /// # Errors
    /// [`KitsokiError::AppYaml`] naming `shared` when it leads out of the story folder.
    pub fn templates(root: &Path) -> Result<Templates, KitsokiError> {
        Self::templates_in(&Root::new(root, ""))
    }

    /// [`templates`](Self::templates) of the story read through `story`.
    fn templates_in(story: &Root) -> Result<Templates, KitsokiError> {
        let shared = Root::within(story, "shared", "@shared").map_err(|e| {
            KitsokiError::folder(&story.show(&story.dir().join("shared")), "@shared", e)
        })?;
        Ok(Templates::with_shared_root(shared))
    }

    /// Loads the story at `root` (the folder holding `app.yaml`).
    ///
    /// As kitsoki composes a story's prompt: the framework layer is
    /// `sysprompt/kitsoki.md` on the story's prompt search path (each
    /// `search_path` folder, kitsoki's overlay, then the story root),
    /// rendered, else [`DEFAULT_FRAMEWORK`] (a file that fails to render or
    /// renders blank falls back too, with a note). The project layer is
    /// `app.context`, else the file `app.context_path`, else
    /// `prompts/_project.md` when present; a missing `context_path` file or
    /// a project text that fails to render drops the layer, with a note.
    /// Templates are rendered with no variables in scope (kitsoki gives
    /// these renders only its empty engine values) and an undefined name
    /// renders empty; a project text over [`PROJECT_CAP`] is cut with the
    /// standard marker.
    ///
    /// # Errors
    /// [`KitsokiError`] naming `app.yaml` (malformed, or both `context` and
    /// `context_path` set), or a persona file that cannot be read.
    pub fn load(root: &Path, search_path: &[PathBuf]) -> Result<Self, KitsokiError> {
        Self::load_in(root, root, search_path)
    }

    /// [`load`](Self::load) for a story inside `workspace`: the story folder
    /// may not lead out of it, nor may a `search_path` folder inside the
    /// workspace (one outside it is the user's choice, read as given). Files
    /// are named relative to `workspace` in errors and notes.
    ///
    /// # Errors
    /// As [`load`](Self::load); [`KitsokiError::AppYaml`] naming a
    /// `search_path` folder that leads out of the workspace.
    pub fn load_in(
        workspace: &Path,
        root: &Path,
        search_path: &[PathBuf],
    ) -> Result<Self, KitsokiError> {
        // The story folder is derived from the workspace, so a story under
        // `stories/` cannot be a symlink out of it; every file below is read
        // through it.
        let ws = Root::new(workspace, "");
        let story = Root::named(&ws, root, shown_folder(&ws, root))
            .map_err(|e| KitsokiError::folder(&ws.show(root), "story", e))?;
        // Every folder of the search path is chosen as the standard
        // loading chooses `--prompt-path`: inside the workspace it may not
        // lead out of it.
        let search_roots = search_path
            .iter()
            .map(|dir| {
                Root::named(&ws, dir, shown_folder(&ws, dir))
                    .map_err(|e| KitsokiError::folder(&ws.show(dir), "prompt path", e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let root = story.dir().to_owned();
        let root = root.as_path();
        let app_yaml = root.join("app.yaml");
        // Named in errors as the workspace shows it, never absolute.
        let app_yaml_shown = PathBuf::from(story.show(&app_yaml));
        let text = read_file(&story, &app_yaml)?;
        // Bounded: an alias bomb, a `%TAG` prefix repeated on every value or
        // deep `{`/`[` nesting is refused at its line instead of filling memory.
        let app: AppFile = yaml::from_str_bounded(&text, &yaml::YamlLimits::CONFIG_FILE, APP_LINES)
            .map_err(|e| KitsokiError::AppYaml {
                path: app_yaml_shown.clone(),
                message: e.to_string(),
            })?;
        let templates = Self::templates_in(&story)?
            .lenient_undefined()
            .limits(TemplateLimits::DEFAULT.max_output(PROJECT_RENDER_LIMIT));
        // kitsoki renders these with `args` unset and no story state: no
        // variable a template names has a value.
        let vars = BTreeMap::new();
        let mut framework_notes = Vec::new();
        let (framework, framework_origin) = framework_layer(
            &story,
            &search_roots,
            &templates,
            &vars,
            &mut framework_notes,
        );
        let mut notes = Vec::new();

        let project = match (&app.app.context, &app.app.context_path) {
            (Some(inline), Some(path)) if !inline.trim().is_empty() && !path.trim().is_empty() => {
                return Err(KitsokiError::ContextConflict {
                    path: app_yaml_shown,
                });
            }
            (Some(inline), _) if !inline.trim().is_empty() => rendered(
                templates.render_str(&app_yaml_shown, inline, &vars),
                "app.context",
                &mut notes,
            )
            .map(|text| no_separator(&text)),
            (_, Some(path)) if !path.trim().is_empty() => {
                let file = inside(root, path.trim(), &app_yaml_shown, "app.context_path")?;
                // Any kind of file is there: one that may not be read (a FIFO,
                // a link out) is named in a note, not taken for absent.
                if exists(&file) {
                    rendered(
                        templates.render_file(&file, &story, &vars),
                        "app.context_path",
                        &mut notes,
                    )
                } else {
                    notes.push(format!(
                        "app.context_path = \"{}\": no such file in the story; the project layer is left out, as kitsoki does",
                        prompt_layers::sources::visible(path.trim())
                    ));
                    None
                }
            }
            _ => {
                let convention = root.join(PROJECT_CONVENTION);
                if exists(&convention) {
                    rendered(
                        templates.render_file(&convention, &story, &vars),
                        PROJECT_CONVENTION,
                        &mut notes,
                    )
                } else {
                    None
                }
            }
        }
        .map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty())
        .map(|text| {
            let capped = CappedText::from_text("the project context", &text, PROJECT_CAP);
            notes.extend(capped.note());
            capped.render()
        });

        let router_project = match (&app.app.context, &app.app.context_path) {
            (Some(inline), _) if !inline.trim().is_empty() => Some(clean(inline).0),
            (_, Some(path)) if !path.trim().is_empty() => {
                let file = inside(root, path.trim(), &app_yaml_shown, "app.context_path")?;
                match CappedText::read(&file, &story, PROJECT_CAP) {
                    Ok(text) => Some(text.render()),
                    Err(error) => {
                        if !error.is_not_found() {
                            notes.push(format!("the router's project layer: {error}"));
                        }
                        None
                    }
                }
            }
            _ => None,
        }
        .map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty());

        let mut agents = BTreeMap::new();
        for (name, decl) in &app.agents {
            let persona = match (&decl.system_prompt, &decl.system_prompt_path) {
                (Some(_), Some(_)) => {
                    return Err(KitsokiError::AppYaml {
                        path: app_yaml_shown.clone(),
                        message: format!(
                            "agents.{name}: system_prompt and system_prompt_path are mutually exclusive; set only one"
                        ),
                    });
                }
                (Some(text), None) => no_separator(text),
                (None, Some(path)) => {
                    let key = format!("agents.{name}.system_prompt_path");
                    read_file(&story, &inside(root, path, &app_yaml_shown, &key)?)?
                }
                (None, None) => String::new(),
            };
            agents.insert(
                name.clone(),
                StoryAgent {
                    persona: persona.trim().to_owned(),
                    inherit_claude_default: decl.inherit_claude_default,
                },
            );
        }
        Ok(Self {
            root: root.to_owned(),
            folder: story,
            id: app.app.id,
            framework,
            framework_origin,
            project,
            router_project,
            agents,
            notes: framework_notes.iter().chain(&notes).cloned().collect(),
            framework_notes,
            project_notes: notes,
        })
    }

    /// Renders the prompt template `path` (relative to the story root) with
    /// `args`: the user message of a call.
    ///
    /// # Errors
    /// [`KitsokiError`] naming the template.
    pub fn user_message(
        &self,
        path: &str,
        args: &BTreeMap<String, String>,
    ) -> Result<String, KitsokiError> {
        let file = inside(&self.root, path, &self.app_yaml(), "prompt")?;
        Ok(Self::templates_in(&self.folder)?.render_file(&file, &self.folder, args)?)
    }

    /// The story's `app.yaml`, as errors name it: relative to the workspace.
    pub fn app_yaml(&self) -> PathBuf {
        PathBuf::from(self.folder.show(&self.root.join("app.yaml")))
    }
}

/// The framework layer: [`FRAMEWORK_FILE`] in the first `search_path`
/// folder (kitsoki's overlay) that has it, else in the story root, rendered
/// and trimmed; [`DEFAULT_FRAMEWORK`] when there is none or it fails to
/// render or renders blank (with a note), as kitsoki falls back.
fn framework_layer(
    story: &Root,
    search_path: &[Root],
    templates: &Templates,
    vars: &BTreeMap<String, String>,
    notes: &mut Vec<String>,
) -> (String, PromptOrigin) {
    let built_in = || (DEFAULT_FRAMEWORK.trim().to_owned(), PromptOrigin::BuiltIn);
    let found = search_path
        .iter()
        .chain(std::iter::once(story))
        .map(|folder| (folder.dir().join(FRAMEWORK_FILE), folder))
        .find(|(file, _)| exists(file));
    let Some((file, folder)) = found else {
        return built_in();
    };
    match templates.render_file(&file, folder, vars) {
        Ok(text) if !text.trim().is_empty() => (
            text.trim().to_owned(),
            PromptOrigin::SearchPath(PathBuf::from(folder.show(&file))),
        ),
        Ok(_) => {
            notes.push(format!(
                "{FRAMEWORK_FILE} rendered blank; using the built-in framework layer"
            ));
            built_in()
        }
        Err(problem) => {
            notes.push(format!("{problem}; using the built-in framework layer"));
            built_in()
        }
    }
}

/// A project text that rendered, or `None` with a note saying why it did
/// not: kitsoki leaves the layer out when its text fails to render.
fn rendered(
    text: Result<String, SourceError>,
    what: &str,
    notes: &mut Vec<String>,
) -> Option<String> {
    match text {
        Ok(text) => Some(text),
        Err(problem) => {
            notes.push(format!(
                "{what}: {problem}; the project layer is left out, as kitsoki does"
            ));
            None
        }
    }
}

/// An inline `app.yaml` value as it joins the prompt: a line of dashes
/// alone (`---`, `- - -`), which would read as kitsoki's own [`SEPARATOR`]
/// between layers (or underline the line above into a heading), is written
/// with a backslash first (`\---`), so a value cannot forge a layer boundary.
///
/// [`SEPARATOR`]: super::SEPARATOR
pub fn no_separator(text: &str) -> String {
    let forged = |line: &str| {
        let dashes = line.trim();
        dashes.len() >= 3
            && dashes.chars().filter(|&c| c == '-').count() >= 3
            && dashes.chars().all(|c| c == '-' || c == ' ' || c == '\t')
    };
    if !text.lines().any(forged) {
        return text.to_owned();
    }
    text.split('\n')
        .map(|line| {
            if forged(line) {
                format!("\\{}", line.trim_start())
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether something (of any kind: a FIFO, a link) is at `path`. Such a
/// file is then read through its root, which names what is wrong with it,
/// instead of being taken for absent.
fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// The label of a root at `dir`: the folder as the workspace shows it,
/// nothing for the workspace itself.
fn shown_folder(workspace: &Root, dir: &Path) -> String {
    match workspace.show(dir) {
        here if here == "." => String::new(),
        shown => shown,
    }
}

/// A story file, read the hardened way: it must lie in the story `root`.
fn read_file(root: &Root, path: &Path) -> Result<String, KitsokiError> {
    let text = CappedText::read(path, root, STORY_FILE_CAP)?;
    if text.is_truncated() {
        return Err(KitsokiError::AppYaml {
            path: PathBuf::from(&text.name),
            message: format!("larger than the {STORY_FILE_CAP}-byte limit"),
        });
    }
    Ok(text.text)
}

/// `root/relative`, refusing paths that leave the story root.
fn inside(root: &Path, relative: &str, file: &Path, key: &str) -> Result<PathBuf, KitsokiError> {
    let rel = Path::new(relative);
    if rel
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        Ok(root.join(rel))
    } else {
        Err(KitsokiError::AppYaml {
            path: file.to_owned(),
            message: format!(
                "{key} = \"{relative}\" leaves the story folder; name a file inside it"
            ),
        })
    }
}

impl From<SourceError> for KitsokiError {
    fn from(error: SourceError) -> Self {
        KitsokiError::Source(error)
    }
}
