//! The four channels: each folds its own base, then calls [`assemble`].

use std::path::{Path, PathBuf};

use prompt_core::{AssembledPrompt, AssemblyPath};
use prompt_layers::ToolSpec;
use prompt_layers::sources::{
    CappedText, Root, SkillIndex, SkillLimits, SourceError, fence, one_line,
};
use serde::Deserialize;

use super::{BaseFold, RecursiveConfig, assemble};

/// The largest `--system-prompt-file` read, in bytes.
pub const SYSTEM_PROMPT_FILE_CAP: usize = 64 * 1024;
/// The most skill text `cli_run` appends, in bytes.
pub const RUN_SKILLS_CAP: usize = 8 * 1024;

/// The system-prompt flags of the `recursive` CLI (`run` and `loop` share them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CliFlags {
    /// `--system-prompt TEXT`: replaces the base; wins over the file.
    pub system_prompt: Option<String>,
    /// `--system-prompt-file PATH`: replaces the base with the file's text.
    pub system_prompt_file: Option<PathBuf>,
    /// `--append-system-prompt TEXT`: appended to the (possibly replaced) base.
    pub append_system_prompt: Option<String>,
}

impl CliFlags {
    /// The base these flags fold: the text replaces, the file replaces when
    /// there is no text, and the append applies either way.
    ///
    /// # Errors
    /// [`ChannelError::SystemPromptFile`] naming a file that cannot be read or
    /// is over [`SYSTEM_PROMPT_FILE_CAP`].
    ///
    /// A file inside `workspace` is read through it (a symlink of the
    /// repository cannot lead it out); a file outside is the caller's own,
    /// read in its folder.
    pub fn fold(&self, workspace: &Root) -> Result<BaseFold, ChannelError> {
        let replacement = match (&self.system_prompt, &self.system_prompt_file) {
            (Some(text), _) => Some(text.clone()),
            (None, Some(path)) => Some(read_system_prompt_file(path, workspace)?),
            (None, None) => None,
        };
        Ok(BaseFold {
            replacement,
            append: self.append_system_prompt.clone(),
        })
    }
}

fn read_system_prompt_file(path: &Path, workspace: &Root) -> Result<String, ChannelError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let root = Root::named(workspace, dir, "").map_err(ChannelError::SystemPromptFile)?;
    let text = CappedText::read(
        &dir.join(path.file_name().unwrap_or_default()),
        &root,
        SYSTEM_PROMPT_FILE_CAP,
    )
    .map_err(ChannelError::SystemPromptFile)?;
    if text.is_truncated() {
        return Err(ChannelError::SystemPromptFile(SourceError::Malformed {
            path: PathBuf::from(&text.name),
            reason: format!(
                "larger than the {SYSTEM_PROMPT_FILE_CAP}-byte limit for --system-prompt-file; shorten it"
            ),
            source: None,
        }));
    }
    Ok(text.text)
}

/// The body of `POST /run` and `POST /sessions`, as far as the prompt goes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct RunRequest {
    /// Replaces the server's base; `append_system_prompt` is then ignored.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// Appended to the server's base.
    #[serde(default)]
    pub append_system_prompt: Option<String>,
}

impl RunRequest {
    /// The base this request folds.
    pub fn fold(&self) -> BaseFold {
        match &self.system_prompt {
            Some(text) => BaseFold {
                replacement: Some(text.clone()),
                append: None,
            },
            None => BaseFold {
                replacement: None,
                append: self.append_system_prompt.clone(),
            },
        }
    }
}

/// What a channel sends: the assembled prompt, its tools, and any
/// channel-specific suffix added after assembly.
#[derive(Debug, Clone)]
pub struct ChannelPrompt {
    /// The assembled prompt: the same for every channel given the same fold.
    pub prompt: AssembledPrompt,
    /// The tools registered with it.
    pub tools: Vec<ToolSpec>,
    /// `cli_run` only: the auto-loaded skill bodies.
    pub suffix: Option<String>,
}

impl ChannelPrompt {
    /// The system prompt as sent: the prompt, then the suffix after a blank line.
    pub fn system(&self) -> String {
        let mut text = self.prompt.text();
        if let Some(suffix) = &self.suffix {
            text.push_str("\n\n");
            text.push_str(suffix);
        }
        text
    }
}

/// Why a channel could not build its prompt.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChannelError {
    /// `--system-prompt-file` could not be used.
    #[error("--system-prompt-file cannot be used")]
    SystemPromptFile(#[source] SourceError),
    /// A folder of a fixture (`workspace`, `home`, `home/.recursive`,
    /// `home/.claude`) leads out of the fixture, or cannot be read as a folder.
    #[error("{message}")]
    Fixture {
        /// The folder, relative to the fixture.
        folder: String,
        /// The folder, why it is refused, and what to do.
        message: String,
    },
    /// The recursive pipeline is invalid (a bug in its declarations).
    #[error(transparent)]
    Pipeline(#[from] prompt_core::PipelineError),
    /// Assembly failed (a layer panicked: a bug).
    #[error(transparent)]
    Assembly(#[from] prompt_core::AssemblyError),
    /// The tools could not be chosen for the prompt (a bug in their declarations).
    #[error(transparent)]
    Tools(#[from] prompt_core::tools::ToolError),
}

impl ChannelError {
    /// The fixture's `folder`, which [`Root::within`] refused: named
    /// relative to the fixture, with the symlink it leaves through, never
    /// where that leads.
    pub(crate) fn fixture(folder: &str, error: SourceError) -> Self {
        let folder = folder.to_owned();
        let message = match error {
            SourceError::OutsideRoot { target, .. } => format!(
                "{folder}: leads outside the fixture{}; a folder read with --fixture may not \
                 choose where its folders point (make it a folder inside the fixture)",
                if target.is_empty() {
                    String::new()
                } else {
                    format!(" through the symlink {target}")
                }
            ),
            // Named as the fixture names it (the fixture's root has no label).
            other => other.to_string(),
        };
        ChannelError::Fixture { folder, message }
    }
}

fn channel(config: &RecursiveConfig, fold: &BaseFold) -> Result<ChannelPrompt, ChannelError> {
    let assembled = assemble(config, fold, AssemblyPath::Basic)?;
    Ok(ChannelPrompt {
        prompt: assembled.prompt,
        tools: assembled.tools,
        suffix: None,
    })
}

/// `recursive run GOAL`: the CLI's fold, plus the auto-loaded skills
/// ([`auto_loaded_skills`]: always-on bodies, hints of the skills the goal
/// triggers), appended after assembly.
///
/// # Errors
/// As [`CliFlags::fold`] and [`assemble`].
pub fn cli_run(
    config: &RecursiveConfig,
    flags: &CliFlags,
    goal: &str,
) -> Result<ChannelPrompt, ChannelError> {
    let mut prompt = channel(config, &flags.fold(&config.workspace_root())?)?;
    let roots = config.skill_roots();
    let skills = SkillIndex::load(&roots, &SkillLimits::default());
    prompt.suffix = auto_loaded_skills(&skills, &roots, goal);
    Ok(prompt)
}

/// `recursive loop`: the CLI's fold, no suffix (there is no goal at build time).
///
/// # Errors
/// As [`CliFlags::fold`] and [`assemble`].
pub fn cli_loop(config: &RecursiveConfig, flags: &CliFlags) -> Result<ChannelPrompt, ChannelError> {
    channel(config, &flags.fold(&config.workspace_root())?)
}

/// The HTTP API: the request's fold.
///
/// # Errors
/// As [`assemble`].
pub fn http(config: &RecursiveConfig, request: &RunRequest) -> Result<ChannelPrompt, ChannelError> {
    channel(config, &request.fold())
}

/// The TUI: the default base, unchanged.
///
/// # Errors
/// As [`assemble`].
pub fn tui(config: &RecursiveConfig) -> Result<ChannelPrompt, ChannelError> {
    channel(config, &BaseFold::default())
}

/// recursive's `skills_for_injection` and the block `cli_run` builds from
/// it: for each skill in the index's order, a `mode: always` skill's body
/// (fenced, `<file path="LOCATION">…</file>`), and for a `mode: trigger`
/// skill with a trigger that occurs in `goal` (ignoring case) its `hint`
/// (or `name: description` when it has none), each as
/// `=== Skill: NAME (auto-loaded) ===\n{text}\n\n`, together capped at
/// [`RUN_SKILLS_CAP`]: a body cut by the cap ends its fence and then carries
/// the standard marker, and skills past the cap are named in a last line.
/// `None` when no skill is always-on or triggered.
///
/// `triggers` is recursive's comma-separated list (`triggers: release,
/// changelog`) or a YAML list. `roots` are the skill folders the index was
/// loaded from, each with its root: a skill's file is read again through the
/// root of the folder it is in, and a skill in none of them is skipped.
pub fn auto_loaded_skills(
    skills: &SkillIndex,
    roots: &[(PathBuf, Root)],
    goal: &str,
) -> Option<String> {
    let goal = goal.to_lowercase();
    let mut block = String::new();
    let mut left = RUN_SKILLS_CAP;
    let mut left_out = Vec::new();
    for skill in &skills.skills {
        let mode = skill
            .extra
            .get("mode")
            .and_then(|m| m.as_str())
            .map(|m| m.trim().to_lowercase());
        let header = format!("=== Skill: {} (auto-loaded) ===\n", skill.name);
        let piece = match mode.as_deref() {
            Some("always") => {
                let Some((_, root)) = roots.iter().find(|(dir, _)| skill.path.starts_with(dir))
                else {
                    continue;
                };
                let Ok(text) = CappedText::read(&skill.path, root, RUN_SKILLS_CAP) else {
                    continue;
                };
                let overhead = header.len() + fence(&skill.location, "").len() + 2;
                if left <= overhead {
                    left_out.push(skill.name.as_str());
                    continue;
                }
                let body =
                    CappedText::from_text(&skill.location, body(&text.text), left - overhead);
                header + &body.fenced() + "\n\n"
            }
            Some("trigger") if triggers(skill).any(|t| goal.contains(&t.to_lowercase())) => {
                let hint = skill
                    .extra
                    .get("hint")
                    .and_then(|h| h.as_str())
                    .map(str::trim)
                    .filter(|h| !h.is_empty())
                    .map_or_else(
                        || format!("{}: {}", skill.name, skill.description),
                        one_line,
                    );
                let piece = header + &hint + "\n\n";
                if piece.len() > left {
                    left_out.push(skill.name.as_str());
                    continue;
                }
                piece
            }
            _ => continue,
        };
        left = left.saturating_sub(piece.len());
        block.push_str(&piece);
    }
    if !left_out.is_empty() {
        block.push_str(&format!(
            "[…left out: {}; the {RUN_SKILLS_CAP}-byte cap for auto-loaded skills is spent]",
            left_out.join(", ")
        ));
    }
    (!block.is_empty()).then_some(block)
}

/// A skill's triggers: recursive's comma-separated string, or a YAML list;
/// blank entries dropped.
fn triggers(skill: &prompt_layers::sources::Skill) -> impl Iterator<Item = String> + '_ {
    let list: Vec<String> = match skill.extra.get("triggers") {
        Some(serde_json::Value::String(text)) => text.split(',').map(str::to_owned).collect(),
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(|t| t.as_str())
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    list.into_iter()
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
}

/// A SKILL.md's text after its frontmatter, trimmed.
fn body(text: &str) -> &str {
    let mut lines = text.split_inclusive('\n');
    let Some(first) = lines.next() else {
        return "";
    };
    if first.trim_end() != "---" {
        return text.trim();
    }
    let mut at = first.len();
    for line in lines {
        at += line.len();
        if line.trim_end() == "---" {
            return text[at..].trim();
        }
    }
    ""
}
