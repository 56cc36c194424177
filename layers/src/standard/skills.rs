//! `# Available skills`: one line per skill.

use prompt_core::{LayerInput, LayerWriter, Render, Stable, prompt_layer};

use crate::priorities;
use crate::sources::{SkillIndex, SkillLimits};

/// `# Available skills`: `- name: description (location)`, one line per skill in
/// the session's [`SkillIndex`], sorted by name.
#[prompt_layer(
    priority = priorities::SKILLS_INDEX,
    stability = Stable,
    scope = Project,
    paths = [Basic, Cached],
    modes = [Full, Compact],
    silent = "the session has at least one skill with valid SKILL.md frontmatter",
    pipeline = []
)]
pub struct SkillsIndexLayer;

impl Render<Stable> for SkillsIndexLayer {
    fn render(&self, out: &mut LayerWriter<'_>, input: &LayerInput<'_, Stable>) {
        let Some(index) = input.get::<SkillIndex>() else {
            input.note("no skill index in the session context");
            return;
        };
        let limits = input.get::<SkillLimits>().copied().unwrap_or_default();
        for note in index.notes(&limits) {
            input.note(note);
        }
        if index.skills.is_empty() {
            input.note("no skills");
            return;
        }
        out.push_str("# Available skills\n\nRead a skill's SKILL.md before you use it.\n");
        for skill in &index.skills {
            out.push('\n');
            out.push_str(&skill.index_line());
        }
    }
}
