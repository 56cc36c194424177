//! Loading every standard source for a session into a [`Context`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use prompt_core::Context;

use crate::sources::{
    BasePromptConfig, DatedConfig, DatedEntries, EntryLimits, Episodes, Facts, MemoryFile,
    MemoryLimits, ProjectDocs, ProjectDocsConfig, ProjectMemory, Root, Scratchpad, SkillIndex,
    SkillLimits, SourceError, TemplateLimits, Templates, UserPreferences,
};

/// Where a session's sources are and how much of each goes into the prompt.
///
/// Paths, for app name `<app>`:
///
/// | source | path | limit (default) |
/// |---|---|---|
/// | base prompt | `.<app>/system-prompt.md` found upward from `cwd` (up to the repository root or the workspace, whichever is nearer), else `system-prompt.md` on `prompt_search_path`, else built in | template limits: `templates` (100,000 fuel, 64 KiB output, includes 16 deep); file 256 KiB |
/// | user preferences | `<home>/.<app>/memory/user.md` | `memory` (8 KiB) |
/// | project memory | `<workspace>/.<app>/memory/project.md` | `memory` (8 KiB) |
/// | project docs | `<workspace>/AGENTS.md` (or `AGENTS.override.md`), `<workspace>/CLAUDE.md`, and with `project_docs.nested` the same in each directory down to `cwd` | `project_docs` (16 KiB a file; nested: 16 KiB together, headings included) |
/// | skills | `<workspace>/.<app>/skills/*/SKILL.md`, then `<home>/.<app>/skills/*/SKILL.md` | `skills` (64 skills, 8 KiB of index; names 64, descriptions 1024 characters; all skills together 256 KiB of frontmatter, 4 MiB read, 5 s); frontmatter 16 KiB, 16 deep, anchors counted as expanded |
/// | facts | `<home>/.<app>/memory/facts.jsonl` and `<workspace>/.<app>/memory/facts.jsonl` | `facts` (4 KiB of text, 50 facts; the last 256 KiB of each file) |
/// | episodes | `<workspace>/.<app>/memory/episodes.jsonl` | `episodes` (4 KiB of text, 5 episodes; the last 256 KiB) |
/// | scratchpad (per turn) | `<workspace>/.<app>/scratchpad.json` | 64 KiB |
///
/// `facts.jsonl` holds one JSON object a line, `{"text": "...", "created_at":
/// "2026-11-02T09:30:00Z"}`; `episodes.jsonl` one `{"summary": "...",
/// "ended_at": "..."}` a line. Both times are RFC 3339 with an offset; other
/// keys are ignored, and a line without both keys (or with a time in the
/// future) is skipped and counted in the layer's notes. See
/// [`Facts`](crate::sources::Facts) and [`Episodes`](crate::sources::Episodes).
///
/// Workspace files must stay inside the workspace, user files inside
/// `<home>/.<app>` (symlinks are followed only that far), and a shared folder
/// inside the workspace may not lead out of it ([`SessionConfig::shared_root`]).
///
/// Every source's limits are one field named after the source, holding that
/// source's `…Limits` (or, for project docs, its `…Config`, which also says
/// where to look).
// Grows with every source: construct it with [`SessionConfig::new`] and set
// fields, so a new field is not a breaking change.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SessionConfig {
    /// The app name: its files live in `.<app>` folders. A plain folder name
    /// (no `/`, not `.` or `..`); [`load_session`] refuses anything else.
    pub app: String,
    /// The workspace (repository) root. Nothing above it is read by walking.
    pub workspace: PathBuf,
    /// The working directory, at or below the workspace.
    pub cwd: PathBuf,
    /// The user's home directory; `None` skips user-level sources.
    pub home: Option<PathBuf>,
    /// The folder `{% include "@shared/.." %}` reads from.
    pub shared_dir: Option<PathBuf>,
    /// Directories searched for `system-prompt.md` when there is no override.
    /// Each is chosen as [`shared_dir`](Self::shared_dir) is: one inside the
    /// workspace may not lead out of it ([`SessionConfig::prompt_roots`]).
    pub prompt_search_path: Vec<PathBuf>,
    /// Variables for prompt templates. `app` and `workspace` (the folder's name) are set by default.
    pub template_vars: BTreeMap<String, String>,
    /// What a prompt template may spend.
    pub templates: TemplateLimits,
    /// How project docs are read.
    pub project_docs: ProjectDocsConfig,
    /// How much of each memory file is read. Default 8 KiB.
    pub memory: MemoryLimits,
    /// How many skills, and how much of each, go into the index.
    pub skills: SkillLimits,
    /// How much of the facts list is read and kept. Default: 4 KiB of text,
    /// 50 facts, the last 256 KiB of each file ([`EntryLimits::DEFAULT`]).
    pub facts: EntryLimits,
    /// How much of episodic recall is read and kept. Default: 4 KiB of
    /// text, 5 episodes, the last 256 KiB of the file.
    pub episodes: EntryLimits,
    /// Facts and episodes dated after this are skipped. Default: when the config was made.
    pub now: jiff::Timestamp,
}

impl SessionConfig {
    /// Defaults for app `app` working in `workspace` (also the working directory).
    pub fn new(app: impl Into<String>, workspace: impl Into<PathBuf>) -> Self {
        let app = app.into();
        let workspace = workspace.into();
        let mut template_vars = BTreeMap::new();
        template_vars.insert("app".to_owned(), app.clone());
        let name = workspace
            .canonicalize()
            .unwrap_or_else(|_| workspace.clone())
            .file_name()
            .map(|n| crate::sources::one_line(&n.to_string_lossy()))
            .unwrap_or_default();
        template_vars.insert("workspace".to_owned(), name);
        Self {
            app,
            cwd: workspace.clone(),
            workspace,
            home: None,
            shared_dir: None,
            prompt_search_path: Vec::new(),
            template_vars,
            templates: TemplateLimits::default(),
            project_docs: ProjectDocsConfig::default(),
            memory: MemoryLimits::DEFAULT,
            skills: SkillLimits::default(),
            facts: EntryLimits::DEFAULT,
            episodes: EntryLimits::DEFAULT.max_entries(5),
            now: jiff::Timestamp::now(),
        }
    }

    /// Checks what came from outside: the app name is a plain folder name,
    /// the workspace is a directory, the working directory is a directory
    /// at or below it, and a shared folder inside the workspace does not lead
    /// out of it ([`SessionConfig::shared_root`]).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !crate::sources::is_plain_name(&self.app) {
            return Err(ConfigError::App {
                app: crate::sources::visible(&self.app),
            });
        }
        let workspace = match self.workspace.canonicalize() {
            Ok(dir) if dir.is_dir() => dir,
            _ => {
                return Err(ConfigError::Workspace {
                    workspace: self.workspace.clone(),
                });
            }
        };
        let cwd = self
            .cwd
            .canonicalize()
            .map_err(|_| ConfigError::CwdMissing {
                cwd: self.cwd.clone(),
            })?;
        if !cwd.is_dir() {
            return Err(ConfigError::CwdNotDirectory {
                cwd: self.cwd.clone(),
            });
        }
        if !cwd.starts_with(&workspace) {
            return Err(ConfigError::CwdOutside {
                cwd: self.cwd.clone(),
                workspace: self.workspace.clone(),
            });
        }
        let workspace = self.workspace_root();
        self.shared_root(&workspace)?;
        self.prompt_roots(&workspace)?;
        Ok(())
    }

    /// The `prompt_search_path` folders as roots, chosen as the shared
    /// folder is ([`Root::named`]): inside the workspace a repository's
    /// symlink may not lead one out of it; outside it, the folder is the
    /// user's own choice.
    ///
    /// # Errors
    /// [`ConfigError::PromptPath`] naming the first folder inside the
    /// workspace that leads out of it.
    pub fn prompt_roots(&self, workspace: &Root) -> Result<Vec<Root>, ConfigError> {
        self.prompt_search_path
            .iter()
            .map(|dir| {
                chosen_root(workspace, dir, &dir.to_string_lossy()).map_err(|source| {
                    ConfigError::PromptPath {
                        folder: source.path().to_string_lossy().into_owned(),
                        source,
                    }
                })
            })
            .collect()
    }

    /// The shared template folder as a root, labelled `@shared`.
    ///
    /// A folder inside the workspace (as written, `..` and `.` resolved by
    /// name) is repository content: it is derived from the workspace root
    /// ([`Root::within`]), so a symlink in the repository (the folder itself,
    /// or one on its way) may not lead it out of the workspace. A folder
    /// outside the workspace is the user's own choice and is taken as named.
    ///
    /// # Errors
    /// [`ConfigError::Shared`] when the folder inside the workspace leads out
    /// of it, naming the folder as the workspace shows it.
    pub fn shared_root(&self, workspace: &Root) -> Result<Option<Root>, ConfigError> {
        const LABEL: &str = "@shared";
        let Some(shared) = &self.shared_dir else {
            return Ok(None);
        };
        chosen_root(workspace, shared, LABEL)
            .map(Some)
            .map_err(|source| ConfigError::Shared {
                shared: source.path().to_string_lossy().into_owned(),
                source,
            })
    }

    /// `<workspace>/.<app>`.
    pub fn project_dir(&self) -> PathBuf {
        self.workspace.join(self.app_dir())
    }

    /// `<home>/.<app>`, when there is a home.
    pub fn user_dir(&self) -> Option<PathBuf> {
        self.home.as_ref().map(|home| home.join(self.app_dir()))
    }

    /// `<workspace>/.<app>/scratchpad.json`: load it per turn with
    /// [`SessionConfig::load_scratchpad`].
    pub fn scratchpad_path(&self) -> PathBuf {
        self.project_dir().join("scratchpad.json")
    }

    /// Loads this turn's scratchpad (absent: empty).
    pub fn load_scratchpad(&self) -> Result<Scratchpad, SourceError> {
        Scratchpad::load(&self.scratchpad_path(), &self.workspace_root())
    }

    fn app_dir(&self) -> String {
        format!(".{}", self.app)
    }

    fn workspace_root(&self) -> Root {
        Root::new(&self.workspace, "")
    }

    /// `~/.<app>`: the user's own folder, so a hard link there is read.
    fn user_root(&self) -> Option<Root> {
        self.user_dir()
            .map(|dir| Root::new(dir, format!("~/{}", self.app_dir())).allow_hard_links())
    }
}

/// The root of a folder a command-line option names (`--shared`,
/// `--prompt-path`): the one way every such folder is chosen. Inside the
/// workspace (as written) it is derived from the workspace and may not lead
/// out of it through a symlink; outside it, it is the user's own choice and
/// is read as given ([`Root::named`]). The error names the folder as the
/// workspace shows it ([`SourceError::path`]).
fn chosen_root(workspace: &Root, dir: &Path, label: &str) -> Result<Root, SourceError> {
    Root::named(workspace, dir, label)
}

/// Why a folder an option names is refused, in the option's words: what the
/// user does about `source` (which says what is wrong with the folder).
fn refusal(source: &SourceError, what: &str) -> String {
    match source {
        SourceError::OutsideRoot { .. } => format!(
            "a repository may not choose where {what} points (name the real folder instead)"
        ),
        _ => format!("{what} cannot be walked"),
    }
}

/// A [`SessionConfig`] that cannot be used. Each says what to change.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The app name is not a plain folder name.
    #[error(
        "app name `{app}` is not a plain folder name: use letters, digits, `-`, `_` or `.`, without `/` (e.g. `agent`)"
    )]
    App {
        /// The name, control characters escaped.
        app: String,
    },
    /// The workspace is missing or not a directory.
    #[error("workspace `{}` is not a directory", workspace.display())]
    Workspace {
        /// The workspace.
        workspace: PathBuf,
    },
    /// The working directory does not exist.
    #[error("working directory `{}` does not exist", cwd.display())]
    CwdMissing {
        /// The working directory.
        cwd: PathBuf,
    },
    /// The working directory is a file.
    #[error("working directory `{}` is not a directory", cwd.display())]
    CwdNotDirectory {
        /// The working directory.
        cwd: PathBuf,
    },
    /// The shared template folder lies in the workspace but leads out of it
    /// (through a symlink of the repository), or cannot be walked.
    #[error(
        "shared folder `{shared}` is refused: {}",
        refusal(source, "the shared folder")
    )]
    Shared {
        /// The folder, as the workspace names it.
        shared: String,
        /// What is wrong with it (e.g. [`SourceError::OutsideRoot`], naming
        /// the symlink that leads out).
        #[source]
        source: SourceError,
    },
    /// A `prompt_search_path` folder lies in the workspace but leads out of
    /// it (through a symlink of the repository), or cannot be walked.
    #[error(
        "prompt path `{folder}` is refused: {}",
        refusal(source, "a prompt path folder")
    )]
    PromptPath {
        /// The folder, as the workspace names it.
        folder: String,
        /// What is wrong with it.
        #[source]
        source: SourceError,
    },
    /// The working directory is outside the workspace.
    #[error("working directory `{}` is outside the workspace `{}`: give a directory at or below it", cwd.display(), workspace.display())]
    CwdOutside {
        /// The working directory.
        cwd: PathBuf,
        /// The workspace.
        workspace: PathBuf,
    },
}

/// Loads every standard source for a session: the returned context holds
/// [`BasePromptText`](crate::sources::BasePromptText), [`UserPreferences`],
/// [`ProjectMemory`], [`ProjectDocs`], [`SkillIndex`] (with its
/// [`SkillLimits`]), [`Facts`] and [`Episodes`].
///
/// Fails only on a config [`SessionConfig::validate`] refuses. Past that,
/// nothing fails: each value carries its own problems, and the layer that
/// shows it notes them in the trace.
///
/// Add what is not read from files (e.g. [`SubAgents`](crate::SubAgents)) to
/// the returned context.
pub fn load_session(config: &SessionConfig) -> Result<Context, ConfigError> {
    config.validate()?;
    // Each root is opened once, here, before any file in it is read.
    let workspace = config.workspace_root();
    let shared = config.shared_root(&workspace)?;
    let templates = match shared {
        Some(root) => Templates::with_shared_root(root),
        None => Templates::new(None),
    }
    .limits(config.templates);
    let mut base = BasePromptConfig::for_app(&config.app);
    base.search_path = config.prompt_search_path.clone();
    let base_prompt = base.resolve(&workspace, &config.cwd, &templates, &config.template_vars);

    let project_dir = config.project_dir();
    let user = config.user_dir().zip(config.user_root());
    let memory_file = |dir: &Path, file: &str| dir.join("memory").join(file);

    let user_preferences = match &user {
        Some((dir, root)) => MemoryFile::load(&memory_file(dir, "user.md"), root, &config.memory),
        None => MemoryFile {
            path: PathBuf::from(format!("~/{}/memory/user.md", config.app_dir())),
            text: None,
            problem: None,
        },
    };
    let project_memory = MemoryFile::load(
        &memory_file(&project_dir, "project.md"),
        &workspace,
        &config.memory,
    );

    let docs = ProjectDocs::load(&workspace, &config.cwd, &config.project_docs);

    let mut skill_dirs = vec![(project_dir.join("skills"), workspace.clone())];
    skill_dirs.extend(
        user.iter()
            .map(|(dir, root)| (dir.join("skills"), root.clone())),
    );
    let skills = SkillIndex::load(&skill_dirs, &config.skills);

    let mut fact_files = Vec::new();
    fact_files.extend(
        user.iter()
            .map(|(dir, root)| (memory_file(dir, "facts.jsonl"), root.clone())),
    );
    fact_files.push((memory_file(&project_dir, "facts.jsonl"), workspace.clone()));
    let facts = DatedEntries::load(
        &fact_files,
        &DatedConfig::new("text", "created_at", config.now).limits(config.facts),
    );

    let episodes = DatedEntries::load(
        &[(memory_file(&project_dir, "episodes.jsonl"), workspace)],
        &DatedConfig::new("summary", "ended_at", config.now).limits(config.episodes),
    );

    Ok(Context::new()
        .with(base_prompt)
        .with(UserPreferences(user_preferences))
        .with(ProjectMemory(project_memory))
        .with(docs)
        .with(skills)
        .with(config.skills)
        .with(Facts(facts))
        .with(Episodes(episodes)))
}
