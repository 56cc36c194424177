//! Skills: one `SKILL.md` per skill directory, indexed from its YAML frontmatter.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::SourceError;
use super::capped::{Size, read_capped};
use super::fs::Root;
use super::text::one_line;
use super::yaml::{YamlLimits, parse_bounded};

/// The most of a SKILL.md that is read to find its frontmatter: the
/// frontmatter cap and 1 KiB for the `---` lines (the body is never used).
pub const SKILL_READ_CAP: usize = FRONTMATTER_CAP + 1024;

/// The largest frontmatter parsed, in bytes.
pub const FRONTMATTER_CAP: usize = 16 * 1024;

/// How deeply `[` / `{` may nest in a frontmatter before it is refused unparsed.
pub const FRONTMATTER_DEPTH: usize = 16;

/// How many entries of one skills folder are looked at.
const MAX_ENTRIES: usize = 4096;

/// How much of the skills index goes into the prompt.
///
/// Start from [`SkillLimits::DEFAULT`] (or `default()`) and change what you
/// need with the `const` `with_` setters:
///
/// ```
/// use std::time::Duration;
/// use prompt_layers::sources::SkillLimits;
///
/// const LIMITS: SkillLimits = SkillLimits::DEFAULT
///     .max_skills(16)
///     .max_load_time(Duration::from_secs(1));
/// assert_eq!(LIMITS.max_skills, 16);
/// assert_eq!(LIMITS.max_bytes, SkillLimits::default().max_bytes);
///
/// let limits = SkillLimits::default().max_bytes(4 * 1024);
/// assert_eq!(limits.max_bytes, 4096);
/// ```
// Grows with every bound: build it with the `with_` setters, so a new limit
// is not a breaking change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillLimits {
    /// At most this many skills. Default 64.
    pub max_skills: usize,
    /// At most this many bytes of index lines (`- name: description (location)`). Default 8 KiB.
    pub max_bytes: usize,
    /// A longer name is cut, with `…`. Default 64 characters.
    pub max_name_chars: usize,
    /// A longer description is cut, with `…`. Default 1024 characters.
    pub max_description_chars: usize,
    /// At most this many bytes are read of all SKILL.md files together
    /// (each file at most its frontmatter cap, 16 KiB, and 1 KiB more); the file that reaches it is
    /// the last read. Default 4 MiB.
    pub max_total_read: usize,
    /// At most this many bytes of frontmatter are parsed, all skills
    /// together; reading stops at the first frontmatter that does not fit.
    /// Default 256 KiB.
    pub max_total_frontmatter: usize,
    /// Reading stops once loading the index has taken this long: a backstop
    /// for slow disks, the byte budgets bind first. Default 5 s.
    pub max_load_time: Duration,
}

// `load_session` puts these into the session context.
impl prompt_core::SessionValue for SkillLimits {}

impl SkillLimits {
    /// The defaults: 64 skills in 8 KiB of index lines, names of 64 and
    /// descriptions of 1024 characters, 4 MiB read, 256 KiB of frontmatter
    /// parsed and 5 s of loading.
    pub const DEFAULT: Self = Self {
        max_skills: 64,
        max_bytes: 8 * 1024,
        max_name_chars: 64,
        max_description_chars: 1024,
        max_total_read: 4 * 1024 * 1024,
        max_total_frontmatter: 256 * 1024,
        max_load_time: Duration::from_secs(5),
    };

    /// The same limits, keeping at most [`max_skills`](Self::max_skills) skills.
    #[must_use]
    pub const fn max_skills(mut self, max_skills: usize) -> Self {
        self.max_skills = max_skills;
        self
    }

    /// The same limits, with at most [`max_bytes`](Self::max_bytes) bytes of index lines.
    #[must_use]
    pub const fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// The same limits, cutting a name after
    /// [`max_name_chars`](Self::max_name_chars) characters.
    #[must_use]
    pub const fn max_name_chars(mut self, max_name_chars: usize) -> Self {
        self.max_name_chars = max_name_chars;
        self
    }

    /// The same limits, cutting a description after
    /// [`max_description_chars`](Self::max_description_chars) characters.
    #[must_use]
    pub const fn max_description_chars(mut self, max_description_chars: usize) -> Self {
        self.max_description_chars = max_description_chars;
        self
    }

    /// The same limits, reading at most [`max_total_read`](Self::max_total_read)
    /// bytes of all SKILL.md files together.
    #[must_use]
    pub const fn max_total_read(mut self, max_total_read: usize) -> Self {
        self.max_total_read = max_total_read;
        self
    }

    /// The same limits, parsing at most
    /// [`max_total_frontmatter`](Self::max_total_frontmatter) bytes of
    /// frontmatter, all skills together.
    #[must_use]
    pub const fn max_total_frontmatter(mut self, max_total_frontmatter: usize) -> Self {
        self.max_total_frontmatter = max_total_frontmatter;
        self
    }

    /// The same limits, stopping once loading has taken
    /// [`max_load_time`](Self::max_load_time).
    #[must_use]
    pub const fn max_load_time(mut self, max_load_time: Duration) -> Self {
        self.max_load_time = max_load_time;
        self
    }
}

impl Default for SkillLimits {
    /// [`SkillLimits::DEFAULT`].
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// One skill, from its frontmatter.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Skill {
    /// `name`: how the agent refers to the skill, on one line.
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

impl Skill {
    /// The skill's line in the index: `- name: description (location)`.
    pub fn index_line(&self) -> String {
        format!("- {}: {} ({})", self.name, self.description, self.location)
    }
}

/// Every skill of a session, sorted by name, within [`SkillLimits`].
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct SkillIndex {
    /// The skills, sorted by name.
    pub skills: Vec<Skill>,
    /// Skills reported and skipped: broken frontmatter, unreadable files, repeated names.
    pub problems: Vec<SourceError>,
    /// Names of valid skills left out because the index's count or byte limit was reached.
    pub over_budget: Vec<String>,
    /// Notes on the limits themselves (a folder listed only in part, reading
    /// stopped by a total budget).
    pub limit_notes: Vec<String>,
    /// SKILL.md files found but not indexed because a total budget
    /// ([`SkillLimits::max_total_read`], [`SkillLimits::max_total_frontmatter`],
    /// [`SkillLimits::max_load_time`]) was reached first.
    pub not_indexed: usize,
}

impl prompt_core::SessionValue for SkillIndex {}

impl SkillIndex {
    /// Indexes `<dir>/<skill>/SKILL.md` for every `(dir, root)` (absent
    /// folders are skipped; one that exists but cannot be listed is reported).
    /// Each file must lie inside its root. A name found in an earlier folder
    /// wins over a later one. Skills are then kept by name while they fit `limits`:
    /// one that does not fit is left out and the rest are still considered.
    ///
    /// All folders together are read within one budget of bytes read,
    /// frontmatter parsed and time ([`SkillLimits::max_total_read`],
    /// [`SkillLimits::max_total_frontmatter`], [`SkillLimits::max_load_time`]):
    /// when one is reached, that file and the rest are skipped, counted in
    /// [`not_indexed`](Self::not_indexed), and a note names the limit.
    pub fn load(dirs: &[(PathBuf, Root)], limits: &SkillLimits) -> Self {
        let started = Instant::now();
        let mut index = SkillIndex::default();
        let mut by_name: BTreeMap<String, Skill> = BTreeMap::new();
        let files: Vec<(PathBuf, &Root)> = dirs
            .iter()
            .flat_map(|(dir, root)| index.list(dir, root).into_iter().map(move |p| (p, root)))
            .collect();
        let (mut read, mut parsed) = (0usize, 0usize);
        for (done, (path, root)) in files.iter().enumerate() {
            let stop = if read >= limits.max_total_read {
                Some(format!(
                    "the {} read budget for all SKILL.md files",
                    Size(limits.max_total_read as u64)
                ))
            } else if started.elapsed() >= limits.max_load_time {
                Some(format!(
                    "the {} ms time budget for loading skills",
                    limits.max_load_time.as_millis()
                ))
            } else {
                None
            };
            let skill = match stop {
                Some(limit) => Err(limit),
                None => match read_capped(path, root, SKILL_READ_CAP) {
                    Err(error) => Ok(Err(error)),
                    Ok(text) => {
                        read += text.text.len();
                        let file = Path::new(&text.name);
                        match frontmatter(&text.text, text.is_truncated()) {
                            Ok((yaml, _)) if parsed + yaml.len() > limits.max_total_frontmatter => {
                                Err(format!(
                                    "the {} budget of frontmatter for all skills",
                                    Size(limits.max_total_frontmatter as u64)
                                ))
                            }
                            found => {
                                parsed += found.as_ref().map_or(0, |(yaml, _)| yaml.len());
                                Ok(skill_from(file, found, text.name.clone(), limits))
                            }
                        }
                    }
                },
            };
            let skill = match skill {
                Ok(skill) => skill,
                Err(limit) => {
                    index.not_indexed = files.len() - done;
                    index.limit_notes.push(format!(
                        "stopped at {}: {limit} is reached; {} of {} SKILL.md file(s) not \
                         indexed (remove unused skills, or raise the limit)",
                        root.show(path),
                        index.not_indexed,
                        files.len(),
                    ));
                    break;
                }
            };
            match skill {
                Ok(mut skill) => {
                    skill.path = path.clone();
                    if let Some(first) = by_name.get(&skill.name) {
                        index.problems.push(SourceError::Frontmatter {
                            path: PathBuf::from(&skill.location),
                            message: format!(
                                "skill name `{}` is already taken by {}; this one is skipped",
                                skill.name, first.location
                            ),
                        });
                    } else {
                        by_name.insert(skill.name.clone(), skill);
                    }
                }
                Err(error) => index.problems.push(error),
            }
        }
        let mut spent = 0;
        for skill in by_name.into_values() {
            let cost = skill.index_line().len() + 1;
            if index.skills.len() < limits.max_skills && spent + cost <= limits.max_bytes {
                spent += cost;
                index.skills.push(skill);
            } else {
                index.over_budget.push(skill.name);
            }
        }
        index
    }

    /// Every note for the trace: problems, then skills left out and why.
    pub fn notes(&self, limits: &SkillLimits) -> Vec<String> {
        let mut notes: Vec<String> = self
            .problems
            .iter()
            .map(|p| format!("skipped: {}", super::report(p)))
            .collect();
        notes.extend(self.limit_notes.iter().cloned());
        if !self.over_budget.is_empty() {
            const SHOWN: usize = 10;
            let mut names = self.over_budget[..self.over_budget.len().min(SHOWN)].join(", ");
            if self.over_budget.len() > SHOWN {
                names.push_str(&format!(" and {} more", self.over_budget.len() - SHOWN));
            }
            notes.push(format!(
                "left out {} skill(s) over the index limits ({} skills, {}): {names}",
                self.over_budget.len(),
                limits.max_skills,
                Size(limits.max_bytes as u64),
            ));
        }
        notes
    }

    /// The `SKILL.md` paths of `dir`'s sub-folders, sorted.
    fn list(&mut self, dir: &Path, root: &Root) -> Vec<PathBuf> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(error) => {
                self.problems.push(SourceError::io(root.show(dir), error));
                return Vec::new();
            }
        };
        let mut paths = Vec::new();
        for (seen, entry) in entries.filter_map(Result::ok).enumerate() {
            if seen == MAX_ENTRIES {
                self.limit_notes.push(format!(
                    "{}: looked at the first {MAX_ENTRIES} entries only",
                    root.show(dir)
                ));
                break;
            }
            // Plain files are not skills; folders and links to them may be.
            if entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let path = entry.path().join("SKILL.md");
            let link = entry.file_type().is_ok_and(|t| t.is_symlink());
            // A folder without SKILL.md is not a skill; a link that leads nowhere is reported.
            if link || std::fs::symlink_metadata(&path).is_ok() {
                paths.push(path);
            }
        }
        paths.sort();
        paths
    }
}

/// Parses a SKILL.md's frontmatter: a `---` line, YAML with string `name` and
/// `description`, and a closing `---` line. The YAML is refused unparsed when
/// it is larger than 16 KiB or nests `[`/`{` deeper than 16, and refused
/// while parsing when anchors and aliases expand it past
/// [`YamlLimits::FRONTMATTER`], so parsing takes bounded time and memory
/// whatever its shape; a key given twice is an error.
///
/// Called only by the hooks under `--cfg prompt_unstable` (tests, fuzzing):
/// a user's build keeps it (the hooks test what the sources run) unwarned.
#[cfg_attr(not(prompt_unstable), allow(dead_code))]
pub fn parse_skill(
    path: &Path,
    text: &str,
    location: String,
    limits: &SkillLimits,
) -> Result<Skill, SourceError> {
    skill_from(path, frontmatter(text, false), location, limits)
}

/// A skill from its frontmatter as [`frontmatter`] found it.
fn skill_from(
    path: &Path,
    found: Result<(&str, usize), String>,
    location: String,
    limits: &SkillLimits,
) -> Result<Skill, SourceError> {
    let error = |message: String| SourceError::Frontmatter {
        path: path.to_owned(),
        message,
    };
    let map = found
        .and_then(|(yaml, first)| parse_yaml(yaml, first))
        .map_err(error)?;
    let mut extra = BTreeMap::new();
    let (mut name, mut description) = (None, None);
    for (key, value) in map {
        let Some(key) = key.as_str().map(str::to_owned) else {
            return Err(error("every key must be a string".into()));
        };
        match key.as_str() {
            "name" | "description" => {
                let Some(text) = value.as_str().map(one_line).filter(|t| !t.is_empty()) else {
                    return Err(error(format!("`{key}` must be a non-empty string")));
                };
                if key == "name" {
                    name = Some(shorten(&text, limits.max_name_chars));
                } else {
                    description = Some(shorten(&text, limits.max_description_chars));
                }
            }
            _ => {
                let json = serde_json::to_value(&value)
                    .map_err(|e| error(format!("`{}`: {e}", one_line(&key))))?;
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

/// The YAML mapping between the `---` lines, or what is wrong (with the file's line).
#[cfg_attr(not(prompt_unstable), allow(dead_code))]
pub fn parse_frontmatter(text: &str) -> Result<serde_yaml_ng::Mapping, String> {
    frontmatter(text, false).and_then(|(yaml, first)| parse_yaml(yaml, first))
}

/// The YAML between the `---` lines and how many lines of the file come
/// before it, or what is wrong. Nothing is parsed. When `text` is the head
/// of a longer file, its last line may be cut: it is never the closing line
/// (a cut `---x` is not `---`).
fn frontmatter(text: &str, truncated: bool) -> Result<(&str, usize), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("line 1: expected `---` to open the frontmatter".into());
    }
    let start = text.find('\n').map_or(text.len(), |n| n + 1);
    let mut end = None;
    let mut offset = start;
    for line in lines {
        let whole = !truncated || line.ends_with('\n');
        if whole && line.trim_end() == "---" {
            end = Some(offset);
            break;
        }
        offset += line.len();
        if offset - start > FRONTMATTER_CAP {
            return Err(format!(
                "the frontmatter is larger than {}; keep it to name, description and a few keys",
                Size(FRONTMATTER_CAP as u64)
            ));
        }
    }
    let Some(end) = end else {
        return Err("no closing `---` line after the frontmatter".into());
    };
    Ok((&text[start..end], 1))
}

/// The frontmatter's YAML as a mapping, within [`YamlLimits::FRONTMATTER`].
fn parse_yaml(yaml: &str, first: usize) -> Result<serde_yaml_ng::Mapping, String> {
    const LIMITS: YamlLimits = YamlLimits::FRONTMATTER
        .max_depth(FRONTMATTER_DEPTH)
        .max_bytes(FRONTMATTER_CAP);
    let mut value = parse_bounded(yaml, &LIMITS).map_err(|e| e.offset_lines(first).to_string())?;
    // Every value one line, cleaned after the parser decoded its escapes.
    super::parsed::clean_yaml(&mut value, super::parsed::Multiline::NONE);
    match value {
        serde_yaml_ng::Value::Mapping(map) => Ok(map),
        serde_yaml_ng::Value::Null => Ok(serde_yaml_ng::Mapping::new()),
        _ => Err(format!(
            "line {}: the frontmatter must be `key: value` lines (a mapping)",
            first + 1
        )),
    }
}

/// At most `max` characters of `text`, ending in `…` when cut.
fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some(_) => {
            let keep: String = text.chars().take(max.saturating_sub(1)).collect();
            format!("{keep}…")
        }
    }
}
