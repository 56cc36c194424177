//! Skills: one `SKILL.md` per skill directory, indexed from its YAML frontmatter.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{SourceError, read_capped};

/// The most of a SKILL.md that is read to find its frontmatter.
pub const SKILL_READ_CAP: usize = 64 * 1024;

/// One skill, from its frontmatter.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    /// `name`: how the agent refers to the skill.
    pub name: String,
    /// `description`: when to use it, folded onto one line.
    pub description: String,
    /// Where the SKILL.md is, as the prompt shows it.
    pub location: String,
    /// The file.
    pub path: PathBuf,
    /// Every other frontmatter key (`license`, `allowed-tools`, ...), as JSON values.
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// Every skill of a session, sorted by name.
#[derive(Debug, Default)]
pub struct SkillIndex {
    /// The skills, sorted by name.
    pub skills: Vec<Skill>,
    /// Skills reported and skipped: broken frontmatter, unreadable files, repeated names.
    pub problems: Vec<SourceError>,
}

impl SkillIndex {
    /// Indexes `<root>/<skill>/SKILL.md` for every root (absent roots are
    /// skipped; a root that exists but cannot be listed is reported). A name found in an earlier root wins over a later one.
    /// `display` turns a file path into the location the prompt shows.
    pub fn load(roots: &[PathBuf], display: impl Fn(&Path) -> String) -> Self {
        let mut index = SkillIndex::default();
        let mut by_name: BTreeMap<String, Skill> = BTreeMap::new();
        for root in roots {
            let entries = match std::fs::read_dir(root) {
                Ok(entries) => entries,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
                Err(error) => {
                    index.problems.push(SourceError::io(root, error));
                    continue;
                }
            };
            let mut dirs: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.join("SKILL.md").is_file())
                .collect();
            dirs.sort();
            for dir in dirs {
                let path = dir.join("SKILL.md");
                let skill = read_capped(&path, "SKILL.md", SKILL_READ_CAP)
                    .and_then(|text| parse_skill(&path, &text.text, display(&path)));
                match skill {
                    Ok(skill) => {
                        if let Some(first) = by_name.get(&skill.name) {
                            index.problems.push(SourceError::Frontmatter {
                                path: skill.path.clone(),
                                message: format!(
                                    "skill name `{}` is already taken by {}; this one is skipped",
                                    skill.name,
                                    first.path.display()
                                ),
                            });
                        } else {
                            by_name.insert(skill.name.clone(), skill);
                        }
                    }
                    Err(error) => index.problems.push(error),
                }
            }
        }
        index.skills = by_name.into_values().collect();
        index
    }
}

/// Parses a SKILL.md's frontmatter: a `---` line, YAML with string `name` and
/// `description`, and a closing `---` line.
///
/// ```
/// let skill = prompt_layers::sources::parse_skill(
///     "deploy/SKILL.md".as_ref(),
///     "---\nname: deploy\ndescription: >\n  Ship it.\n  Carefully.\nlicense: MIT\n---\n# Deploy\n",
///     "deploy/SKILL.md".into(),
/// ).unwrap();
/// assert_eq!(skill.description, "Ship it. Carefully.");
/// assert_eq!(skill.extra["license"], "MIT");
/// ```
pub fn parse_skill(path: &Path, text: &str, location: String) -> Result<Skill, SourceError> {
    let error = |message: String| SourceError::Frontmatter {
        path: path.to_owned(),
        message,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return Err(error(
            "line 1: expected `---` to open the frontmatter".into(),
        ));
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Err(error("no closing `---` line after the frontmatter".into()));
    }
    let map: BTreeMap<String, serde_yaml_ng::Value> =
        serde_yaml_ng::from_str(&yaml).map_err(|e| {
            // The parser counts lines from the YAML's start, which is line 2 of
            // the file: report the file's line, and drop the parser's own positions.
            let message = e.to_string();
            let message = message
                .split(" at line ")
                .next()
                .unwrap_or(&message)
                .to_owned();
            match e.location() {
                Some(at) => error(format!("line {}: {message}", at.line() + 1)),
                None => error(message),
            }
        })?;
    let mut extra = BTreeMap::new();
    let (mut name, mut description) = (None, None);
    for (key, value) in map {
        match key.as_str() {
            "name" | "description" => {
                let Some(text) = value.as_str().map(one_line).filter(|t| !t.is_empty()) else {
                    return Err(error(format!("`{key}` must be a non-empty string")));
                };
                if key == "name" {
                    name = Some(text);
                } else {
                    description = Some(text);
                }
            }
            _ => {
                let json =
                    serde_json::to_value(&value).map_err(|e| error(format!("`{key}`: {e}")))?;
                extra.insert(key, json);
            }
        }
    }
    let name = name.ok_or_else(|| error("missing `name`".into()))?;
    let description = description.ok_or_else(|| error("missing `description`".into()))?;
    Ok(Skill {
        name,
        description,
        location,
        path: path.to_owned(),
        extra,
    })
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
