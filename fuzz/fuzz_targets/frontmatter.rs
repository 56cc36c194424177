//! SKILL.md frontmatter: any text parses or is refused, in bounded time, without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use prompt_layers::sources::__private::{SKILL_READ_CAP, parse_frontmatter, parse_skill};
use prompt_layers::sources::SkillLimits;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // What the source would see: at most the read cap.
    let text = prompt_layers::sources::__private::cut(text, SKILL_READ_CAP);
    let _ = parse_frontmatter(text);
    let limits = SkillLimits::default();
    if let Ok(skill) = parse_skill("x/SKILL.md".as_ref(), text, "x/SKILL.md".into(), &limits) {
        assert!(!skill.name.contains('\n') && !skill.description.contains('\n'));
        assert!(skill.name.chars().count() <= limits.max_name_chars);
        assert!(skill.description.chars().count() <= limits.max_description_chars);
        assert!(!skill.name.chars().any(|c| c.is_control()));
    }
});
