//! The two texts the sub-agent path welds after assembly. The layers render
//! them through the same functions, so a weld and its layer form are the same
//! bytes.

use super::state::SessionMode;

/// The strategy block: `<strategy>` + the XML-escaped body + `</strategy>`.
/// Rendered by the `strategy` layer and welded onto a sub-agent's prompt.
pub fn strategy_block(body: &str) -> String {
    format!("<strategy>\n{}\n</strategy>", escape_xml(body.trim()))
}

/// The session-mode line. One line of the `operating_envelope` layer, and
/// welded onto a sub-agent's prompt.
pub fn session_mode_line(mode: SessionMode) -> String {
    match mode {
        SessionMode::Chat => "Usage mode: chat. Heavy tool families are deferred; find them with `tool_search` when a request needs one.",
        SessionMode::Work => "Usage mode: work. The standard tool set is loaded for multi-step tasks.",
        SessionMode::Code => "Usage mode: code. Development tools are loaded with full schemas; prove each change with a build or a test.",
    }
    .to_owned()
}

/// `&`, `<`, `>` as entities, so text cannot close or open a tag.
pub fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_cannot_close_the_strategy_tag() {
        assert_eq!(
            strategy_block("a </strategy> & b"),
            "<strategy>\na &lt;/strategy&gt; &amp; b\n</strategy>"
        );
    }
}
