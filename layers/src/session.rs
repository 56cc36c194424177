//! Loading every standard source for a session into a [`Context`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use prompt_core::Context;

use crate::sources::{
    BasePromptConfig, Budget, DatedEntries, Episodes, Facts, MemoryFile, ProjectDocs,
    ProjectDocsConfig, ProjectMemory, SkillIndex, Templates, UserPreferences,
};

/// Where a session's sources are and how much of each goes into the prompt.
///
/// Paths, for app name `<app>`:
///
/// | source | path |
/// |---|---|
/// | base prompt | `.<app>/system-prompt.md` found upward from `cwd`, else `system-prompt.md` on `prompt_search_path`, else built in |
/// | user preferences | `<home>/.<app>/memory/user.md` |
/// | project memory | `<workspace>/.<app>/memory/project.md` |
/// | project docs | `<workspace>/AGENTS.md` (or `AGENTS.override.md`), `<workspace>/CLAUDE.md`, and with `project_docs.nested` the same in each directory down to `cwd` |
/// | skills | `<workspace>/.<app>/skills/*/SKILL.md`, then `<home>/.<app>/skills/*/SKILL.md` |
/// | facts | `<home>/.<app>/memory/facts.jsonl` and `<workspace>/.<app>/memory/facts.jsonl` |
/// | episodes | `<workspace>/.<app>/memory/episodes.jsonl` |
/// | scratchpad (per turn) | `<workspace>/.<app>/scratchpad.json` |
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The app name: its files live in `.<app>` folders.
    pub app: String,
    /// The workspace (repository) root.
    pub workspace: PathBuf,
    /// The working directory, at or below the workspace.
    pub cwd: PathBuf,
    /// The user's home directory; `None` skips user-level sources.
    pub home: Option<PathBuf>,
    /// The folder `{% include "@shared/.." %}` reads from.
    pub shared_dir: Option<PathBuf>,
    /// Directories searched for `system-prompt.md` when there is no override.
    pub prompt_search_path: Vec<PathBuf>,
    /// Variables for prompt templates. `app` and `workspace` (the folder's name) are set by default.
    pub template_vars: BTreeMap<String, String>,
    /// How project docs are read.
    pub project_docs: ProjectDocsConfig,
    /// Cap of each memory file, in bytes. Default 8 KiB.
    pub memory_cap: usize,
    /// Budget of the facts list. Default 4 KiB.
    pub facts_budget: Budget,
    /// At most this many facts. Default 50.
    pub max_facts: usize,
    /// Budget of episodic recall. Default 4 KiB.
    pub episodes_budget: Budget,
    /// At most this many episodes. Default 5.
    pub max_episodes: usize,
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
            .map(|n| n.to_string_lossy().into_owned())
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
            project_docs: ProjectDocsConfig::default(),
            memory_cap: 8 * 1024,
            facts_budget: Budget::Bytes(4 * 1024),
            max_facts: 50,
            episodes_budget: Budget::Bytes(4 * 1024),
            max_episodes: 5,
        }
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
    /// [`Scratchpad::load`](crate::sources::Scratchpad::load).
    pub fn scratchpad_path(&self) -> PathBuf {
        self.project_dir().join("scratchpad.json")
    }

    fn app_dir(&self) -> String {
        format!(".{}", self.app)
    }

    /// A path as the prompt shows it: relative to the workspace, or `~/..`, or as is.
    fn display(&self, path: &Path) -> String {
        if let Ok(rel) = path.strip_prefix(&self.workspace) {
            return rel.to_string_lossy().replace('\\', "/");
        }
        if let Some(rel) = self.home.as_ref().and_then(|h| path.strip_prefix(h).ok()) {
            return format!("~/{}", rel.to_string_lossy().replace('\\', "/"));
        }
        path.display().to_string()
    }
}

/// Loads every standard source for a session: the returned context holds
/// [`BasePromptText`](crate::sources::BasePromptText), [`UserPreferences`],
/// [`ProjectMemory`], [`ProjectDocs`], [`SkillIndex`], [`Facts`] and
/// [`Episodes`]. Nothing here fails: each value carries its own problems, and
/// the layer that shows it notes them in the trace.
///
/// Add what is not read from files (e.g. [`SubAgents`](crate::SubAgents)) to
/// the returned context.
pub fn load_session(config: &SessionConfig) -> Context {
    let templates = Templates::new(config.shared_dir.clone());
    let mut base = BasePromptConfig::for_app(&config.app);
    base.search_path = config.prompt_search_path.clone();
    let base_prompt = base.resolve(&config.cwd, &templates, &config.template_vars);

    let project_dir = config.project_dir();
    let user_dir = config.user_dir();
    let memory_file = |dir: &Path, file: &str| dir.join("memory").join(file);

    let user_preferences = match &user_dir {
        Some(dir) => MemoryFile::load(&memory_file(dir, "user.md"), "user.md", config.memory_cap),
        None => MemoryFile {
            path: PathBuf::from("~/.".to_owned() + &config.app + "/memory/user.md"),
            text: None,
            problem: None,
        },
    };
    let project_memory = MemoryFile::load(
        &memory_file(&project_dir, "project.md"),
        "project.md",
        config.memory_cap,
    );

    let docs = ProjectDocs::load(&config.workspace, &config.cwd, &config.project_docs);

    let mut skill_roots = vec![project_dir.join("skills")];
    skill_roots.extend(user_dir.as_ref().map(|d| d.join("skills")));
    let skills = SkillIndex::load(&skill_roots, |p| config.display(p));

    let mut fact_files = Vec::new();
    fact_files.extend(user_dir.as_ref().map(|d| memory_file(d, "facts.jsonl")));
    fact_files.push(memory_file(&project_dir, "facts.jsonl"));
    let fact_paths: Vec<&Path> = fact_files.iter().map(PathBuf::as_path).collect();
    let facts = DatedEntries::load(
        &fact_paths,
        "text",
        "created_at",
        config.facts_budget,
        config.max_facts,
    );

    let episodes_file = memory_file(&project_dir, "episodes.jsonl");
    let episodes = DatedEntries::load(
        &[episodes_file.as_path()],
        "summary",
        "ended_at",
        config.episodes_budget,
        config.max_episodes,
    );

    Context::new()
        .with(base_prompt)
        .with(UserPreferences(user_preferences))
        .with(ProjectMemory(project_memory))
        .with(docs)
        .with(skills)
        .with(Facts(facts))
        .with(Episodes(episodes))
}
