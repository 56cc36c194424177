//! Checks on the free-text arguments that reach the prompt and the terminal
//! (`--app`, `--model`, `--date`), made while the command line is parsed.
//!
//! Each value is bounded in length and may not hold a control character or
//! an invisible formatting character (bidi overrides, zero-width spaces), so
//! nothing echoed from it (in `--trace`, `prompt cache`, a warning or the
//! prompt's own facts) can drive a terminal or hide text. A refused value is
//! never echoed raw: the error shows its first characters, escaped, and its
//! length.

use std::ffi::OsStr;

use clap::builder::TypedValueParser;
use clap::error::ErrorKind;

/// The longest `--app`: a folder name, not a path.
pub(crate) const MAX_APP: usize = 64;
/// The longest `--model`: provider model ids are under 64 characters.
pub(crate) const MAX_MODEL: usize = 128;
/// The longest `--date`: a date, or a short free-text stand-in for one.
pub(crate) const MAX_DATE: usize = 64;

/// How many characters of a refused value an error shows.
const SHOWN: usize = 32;

/// A clap value parser running `check` on the argument's text, whose error
/// (unlike clap's own) does not repeat the raw value.
#[derive(Clone, Copy)]
pub(crate) struct Checked(fn(&str) -> Result<(), String>);

/// `--app`: a plain folder name (see [`check_app`]).
pub(crate) const APP: Checked = Checked(check_app);
/// `--model`: one line of visible text (see [`check_model`]).
pub(crate) const MODEL: Checked = Checked(check_model);
/// `--date`: one line of visible text (see [`check_date`]).
pub(crate) const DATE: Checked = Checked(check_date);

impl TypedValueParser for Checked {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        let name = arg
            .and_then(clap::Arg::get_long)
            .map_or_else(|| "the value".to_owned(), |long| format!("--{long}"));
        let fail = |message: String| {
            clap::Error::raw(ErrorKind::ValueValidation, format!("{name}: {message}\n"))
                .with_cmd(cmd)
        };
        let text = value
            .to_str()
            .ok_or_else(|| fail("is not valid UTF-8".to_owned()))?;
        (self.0)(text).map_err(fail)?;
        Ok(text.to_owned())
    }
}

/// A plain folder name: 1 to [`MAX_APP`] ASCII letters, digits, `-`, `_` or
/// `.`, starting with a letter or digit (the folder is `.<app>`, so a
/// leading dot would make it `..<app>`).
pub(crate) fn check_app(app: &str) -> Result<(), String> {
    let valid = app.chars().count() <= MAX_APP
        && app
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && app
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if valid {
        return Ok(());
    }
    if let Some(bare) = app.strip_prefix('.').filter(|bare| check_app(bare).is_ok()) {
        return Err(format!(
            "got {}: the folders are `.<app>`, so this would read `..{bare}`; pass the name \
             without its dot: `--app {bare}` (reads `.{bare}/` and `~/.{bare}/`)",
            shown(app)
        ));
    }
    Err(format!(
        "got {}; an app name is a plain folder name of 1 to {MAX_APP} characters: a letter or \
         digit, then letters, digits, `-`, `_` or `.`, with no leading dot and no `/` or `\\` \
         (e.g. `agent`, whose folders are `.agent`)",
        shown(app)
    ))
}

/// A model id: 1 to [`MAX_MODEL`] visible characters.
pub(crate) fn check_model(model: &str) -> Result<(), String> {
    check_line(model, MAX_MODEL, "a model id such as `claude-sonnet-4-5`")
}

/// A date: 1 to [`MAX_DATE`] visible characters.
pub(crate) fn check_date(date: &str) -> Result<(), String> {
    check_line(date, MAX_DATE, "a date such as `2026-11-29`")
}

pub(crate) fn check_line(value: &str, max: usize, example: &str) -> Result<(), String> {
    let length = value.chars().count();
    let problem = if value.trim().is_empty() {
        Some("it is empty".to_owned())
    } else if length > max {
        Some(format!("it is {length} characters, over the {max} allowed"))
    } else {
        value
            .chars()
            .find(|&c| prompt_core::text::must_escape(c))
            .map(|c| {
                format!(
                    "it holds the control or invisible character U+{:04X}",
                    c as u32
                )
            })
    };
    match problem {
        None => Ok(()),
        Some(problem) => Err(format!(
            "got {}: {problem}; give {example}: one line of at most {max} visible characters",
            shown(value)
        )),
    }
}

/// A refused value as an error shows it: its first [`SHOWN`] characters,
/// escaped, in backticks, and its length when it is longer.
fn shown(value: &str) -> String {
    let length = value.chars().count();
    let head: String = value.chars().take(SHOWN).collect();
    let head = crate::cli::escape(&head);
    if length > SHOWN {
        format!("`{head}`... ({length} characters)")
    } else {
        format!("`{head}`")
    }
}

/// The checked values `prompt exec` records for `prompt turn`, read back
/// through the checks the command line runs (a field names its reader with
/// `#[serde(deserialize_with = "...")]` beside its `value_parser`).
pub(crate) mod recorded {
    use serde::de::{Deserialize, Deserializer, Error};

    /// `value` when `check` takes it; else an error naming `option`.
    fn checked<E: Error>(
        option: &str,
        value: Option<String>,
        check: fn(&str) -> Result<(), String>,
    ) -> Result<Option<String>, E> {
        if let Some(text) = &value {
            check(text).map_err(|e| E::custom(format!("{option}: {e}")))?;
        }
        Ok(value)
    }

    /// `--app`, checked by [`check_app`](super::check_app).
    pub(crate) fn app<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        let app = checked("--app", Some(String::deserialize(d)?), super::check_app)?;
        Ok(app.unwrap_or_default())
    }

    /// `--date`, checked by [`check_date`](super::check_date).
    pub(crate) fn date<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        checked("--date", Option::deserialize(d)?, super::check_date)
    }

    /// `--model`, checked by [`check_model`](super::check_model).
    pub(crate) fn model<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        checked("--model", Option::deserialize(d)?, super::check_model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_names() {
        for ok in ["agent", "my-app", "a.b_c", "9", &"a".repeat(MAX_APP)] {
            assert_eq!(check_app(ok), Ok(()), "{ok}");
        }
        let long = "a".repeat(MAX_APP + 1);
        for bad in [
            "", ".ferris", "a/b", "a\\b", "..", "é", "a b", "a\x1b", &long,
        ] {
            assert!(check_app(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn lines_refuse_controls_invisibles_emptiness_and_length() {
        assert_eq!(check_model("claude-sonnet-4-5"), Ok(()));
        assert_eq!(check_date("the day after"), Ok(()));
        assert_eq!(check_date(&"d".repeat(MAX_DATE)), Ok(()));
        for bad in [
            "",
            "  ",
            "a\x1b]52;c;x\x07",
            "a\u{202e}b",
            "a\u{200b}b",
            "a\nb",
        ] {
            assert!(check_model(bad).is_err(), "{bad:?}");
        }
        let error = check_date(&"d".repeat(MAX_DATE + 1)).unwrap_err();
        assert!(
            error.contains("65 characters, over the 64 allowed"),
            "{error}"
        );
        assert!(error.contains("... (65 characters)"), "{error}");
    }

    #[test]
    fn a_refused_value_is_shown_escaped_and_cut() {
        let error = check_model("m\x1b]52;c;eA==\x07").unwrap_err();
        assert!(
            !error.contains('\x1b') && !error.contains('\x07'),
            "{error}"
        );
        assert!(error.contains(r"`m\u{1b}]52;c;eA==\u{7}`"), "{error}");
    }
}
