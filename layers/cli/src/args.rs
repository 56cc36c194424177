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
pub(crate) fn shown(value: &str) -> String {
    let length = value.chars().count();
    let head: String = value.chars().take(SHOWN).collect();
    let head = crate::cli::escape(&head);
    if length > SHOWN {
        format!("`{head}`... ({length} characters)")
    } else {
        format!("`{head}`")
    }
}

/// `--gaps`: idle times between turns, comma-separated (see [`parse_gaps`]).
#[derive(Clone, Copy)]
pub(crate) struct GapsParser;

/// `--idle`: one idle time (see [`parse_idle`]).
#[derive(Clone, Copy)]
pub(crate) struct IdleParser;

/// The parsed `--gaps`: the idle time between each two turns, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Gaps(pub(crate) Vec<std::time::Duration>);

fn option_error(cmd: &clap::Command, arg: Option<&clap::Arg>, message: String) -> clap::Error {
    let name = arg
        .and_then(clap::Arg::get_long)
        .map_or_else(|| "the value".to_owned(), |long| format!("--{long}"));
    clap::Error::raw(ErrorKind::ValueValidation, format!("{name}: {message}\n")).with_cmd(cmd)
}

impl TypedValueParser for GapsParser {
    type Value = Gaps;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Gaps, clap::Error> {
        let text = value
            .to_str()
            .ok_or_else(|| option_error(cmd, arg, "is not valid UTF-8".to_owned()))?;
        parse_gaps(text)
            .map(Gaps)
            .map_err(|e| option_error(cmd, arg, e))
    }
}

impl TypedValueParser for IdleParser {
    type Value = std::time::Duration;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<std::time::Duration, clap::Error> {
        let text = value
            .to_str()
            .ok_or_else(|| option_error(cmd, arg, "is not valid UTF-8".to_owned()))?;
        parse_idle(text).map_err(|e| option_error(cmd, arg, e))
    }
}

/// The most gaps `--gaps` takes: one between each two of `--turns`' 10,000.
pub(crate) const MAX_GAPS: usize = 9_999;

/// `2m,6m,30s,6m`: idle times (see [`parse_idle`]) separated by commas.
pub(crate) fn parse_gaps(text: &str) -> Result<Vec<std::time::Duration>, String> {
    if text.trim().is_empty() {
        return Err(
            "is empty: give the idle time between each two turns, such as 2m,6m,30s".into(),
        );
    }
    let items: Vec<&str> = text.split(',').collect();
    if items.len() > MAX_GAPS {
        return Err(format!(
            "gives {} gaps, more than the {MAX_GAPS} between 10,000 turns",
            items.len()
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| parse_idle(item).map_err(|e| format!("gap {}: {e}", i + 1)))
        .collect()
}

/// An idle time: whole numbers each followed by `h`, `m` or `s`, in that
/// order (`30s`, `6m`, `1h30m`, `2m 30s`), at most 30 days
/// ([`MAX_GAP`](prompt_providers::simulation::MAX_GAP)).
pub(crate) fn parse_idle(text: &str) -> Result<std::time::Duration, String> {
    let max = prompt_providers::simulation::MAX_GAP;
    let invalid = || {
        format!(
            "{} is not an idle time: give whole numbers with a unit, h, m or s, such as 30s, 6m \
             or 1h30m",
            shown(text.trim())
        )
    };
    let compact: String = text.chars().filter(|c| *c != ' ').collect();
    if compact.is_empty() {
        return Err(invalid());
    }
    let mut seconds: u64 = 0;
    let mut digits = String::new();
    let mut last_unit = 0u8;
    for c in compact.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let (rank, unit) = match c {
            'h' => (1, 3_600),
            'm' => (2, 60),
            's' => (3, 1),
            _ => return Err(invalid()),
        };
        if digits.is_empty() || rank <= last_unit {
            return Err(invalid());
        }
        last_unit = rank;
        let too_long = || {
            format!(
                "{} is longer than {} days, the longest gap `prompt cache` simulates (no cache \
                 lives that long)",
                shown(text.trim()),
                max.as_secs() / 86_400
            )
        };
        // Digits past u64 are a gap past any cache too.
        let count: u64 = digits.parse().map_err(|_| too_long())?;
        seconds = count
            .checked_mul(unit)
            .and_then(|s| seconds.checked_add(s))
            .filter(|&s| s <= max.as_secs())
            .ok_or_else(too_long)?;
        digits.clear();
    }
    if !digits.is_empty() {
        return Err(invalid());
    }
    Ok(std::time::Duration::from_secs(seconds))
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
    fn idle_times_parse_and_hostile_ones_are_refused_by_name() {
        use std::time::Duration;
        let secs = Duration::from_secs;
        assert_eq!(parse_idle("30s"), Ok(secs(30)));
        assert_eq!(parse_idle("6m"), Ok(secs(360)));
        assert_eq!(parse_idle("1h30m"), Ok(secs(5_400)));
        assert_eq!(parse_idle("2m 30s"), Ok(secs(150)));
        assert_eq!(parse_idle("720h"), Ok(secs(30 * 86_400)));
        assert_eq!(
            parse_gaps("2m,6m,30s,6m"),
            Ok(vec![secs(120), secs(360), secs(30), secs(360)])
        );
        for long in [
            "99999999h",
            "721h",
            "99999999999999999999999s",
            "18446744073709551615h",
        ] {
            let error = parse_idle(long).unwrap_err();
            assert!(error.contains("is longer than 30 days"), "{long}: {error}");
        }
        for bad in [
            "",
            "-5m",
            "6",
            "m",
            "5x",
            "1m1h",
            "5mm",
            "1.5m",
            "6m\x1b[2J",
            "NaN",
        ] {
            let error = parse_idle(bad).unwrap_err();
            assert!(error.contains("is not an idle time"), "{bad:?}: {error}");
            assert!(!error.contains('\x1b'), "{error}");
        }
        let error = parse_gaps("2m,,6m").unwrap_err();
        assert!(
            error.starts_with("gap 2: `` is not an idle time"),
            "{error}"
        );
        assert!(
            parse_gaps(&"1s,".repeat(10_000))
                .unwrap_err()
                .contains("more than the 9999")
        );
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
