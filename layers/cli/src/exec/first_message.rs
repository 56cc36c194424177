//! First-message delivery, for clients with no per-turn hook `exec` can
//! install (Codex, Gemini CLI): the dynamic part and reminder ride at the head
//! of the user's first prompt, which is found among the client's arguments
//! with a table of its options, or on stdin.
//!
//! Joined to a prompt argument, the block is in the client's argv (any local
//! user reads it in `/proc/PID/cmdline`); given on stdin, it is not. A prompt
//! argument is not moved to stdin: an interactive session needs the terminal
//! there, and each client frames piped stdin its own way (docs/delivery.md).

use crate::cli::CliError;
use std::ffi::OsString;
use std::process::Command;

use super::Launch;
use crate::cli::outcome::Outcome;

/// Where the user's prompt is, in the client's arguments.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Delivery {
    /// The argument at this index.
    Argument(usize),
    /// Standard input.
    Stdin,
    /// Nowhere: an interactive session that starts without a prompt.
    Interactive,
}

/// The longest single argument Linux passes to a program (`MAX_ARG_STRLEN`).
const MAX_ARG_BYTES: usize = 131_072;

/// Runs `launch`'s client with `args` before the user's, `env` set, and
/// the context block `prefix` before the prompt `delivery` found.
pub(super) fn deliver(
    launch: &Launch,
    delivery: Delivery,
    args: &[String],
    prefix: &str,
    env: &[(&str, OsString)],
) -> Outcome {
    let strings: Vec<Option<&str>> = launch.client_args.iter().map(|a| a.to_str()).collect();
    let mut user_args = launch.client_args.to_vec();
    let stdin_prefix = match delivery {
        _ if prefix.is_empty() => None,
        Delivery::Argument(index) => {
            let text = strings[index].ok_or_else(|| {
                CliError::failed("the prompt argument is not valid UTF-8, so the context cannot be put before it")
            })?;
            let message = format!("{prefix}{text}");
            if message.len() >= MAX_ARG_BYTES {
                return Err(CliError::failed(format!(
                    "the prompt argument with the context block before it is {} bytes; the OS \
                     passes at most {} in one argument: give the prompt on stdin instead",
                    message.len(),
                    MAX_ARG_BYTES - 1
                )));
            }
            user_args[index] = message.into();
            None
        }
        Delivery::Stdin => Some(prefix),
        Delivery::Interactive => {
            return Err(CliError::failed(format!(
                "{} would start an interactive session with no prompt, so the prompt's context \
                 block ({} B: its dynamic part and reminder) has no message to travel in \
                 (this client has no per-turn hook prompt exec can add): give the first prompt \
                 as an argument (prompt exec ... -- {} \"...\") or on stdin",
                launch.program.to_string_lossy(),
                prefix.len(),
                launch.program.to_string_lossy()
            )));
        }
    };
    let mut command = Command::new(launch.program);
    command.args(args).args(&user_args);
    for (name, value) in env {
        command.env(name, value);
    }
    super::launch(command, launch.program, stdin_prefix)
}

// ---------------------------------------------------------------------------
// Reading a client's arguments
// ---------------------------------------------------------------------------

/// How an option takes values.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Takes {
    /// Nothing.
    Nothing,
    /// One value (`--opt V`, `--opt=V`, `-oV`).
    One,
    /// An optional value: the next argument when it does not start with `-`.
    Optional,
    /// Every following argument up to the next option.
    Many,
}

/// One option as given: its name (`--model`, `-c`) and its first value.
pub(super) struct Given<'a> {
    pub(super) name: String,
    pub(super) value: Option<&'a str>,
}

/// The options and positionals of `args`, read with `takes`.
pub(super) struct Parsed<'a> {
    pub(super) options: Vec<Given<'a>>,
    /// Indices of the positional arguments.
    pub(super) positionals: Vec<usize>,
}

/// Reads `args` as a commander/clap parser would. An unknown option directly
/// followed by a bare word that would otherwise be the first positional is an
/// error: the word may be its value.
pub(super) fn parse<'a>(
    args: &[Option<&'a str>],
    takes: impl Fn(&str) -> Option<Takes>,
    client: &str,
) -> Result<Parsed<'a>, CliError> {
    let mut parsed = Parsed {
        options: Vec::new(),
        positionals: Vec::new(),
    };
    let bare = |i: usize| {
        args.get(i)
            .is_some_and(|a| a.is_none_or(|a| !a.starts_with('-') || a == "-"))
    };
    let mut i = 0;
    let mut options_end = false;
    while i < args.len() {
        let Some(arg) = args[i] else {
            parsed.positionals.push(i);
            i += 1;
            continue;
        };
        if options_end || !arg.starts_with('-') || arg == "-" {
            parsed.positionals.push(i);
            i += 1;
            continue;
        }
        if arg == "--" {
            options_end = true;
            i += 1;
            continue;
        }
        let (name, inline) = if let Some(long) = arg.strip_prefix("--") {
            match long.split_once('=') {
                Some((name, value)) => (format!("--{name}"), Some(value)),
                None => (arg.to_owned(), None),
            }
        } else {
            let short: String = arg.chars().take(2).collect();
            let rest = &arg[short.len()..];
            (short, (!rest.is_empty()).then_some(rest))
        };
        let Some(kind) = takes(&name) else {
            if inline.is_none() && bare(i + 1) && parsed.positionals.is_empty() {
                return Err(CliError::failed(format!(
                    "prompt exec does not know whether {client}'s option `{name}` takes a value, \
                     so it cannot tell whether the next argument is its value or the prompt: \
                     write `{name}=VALUE` (or put the prompt before it)"
                )));
            }
            parsed.options.push(Given {
                name,
                value: inline,
            });
            i += 1;
            continue;
        };
        let next = args.get(i + 1).copied().flatten();
        i += 1;
        let value = match (kind, inline) {
            (Takes::Nothing, _) => None,
            (_, Some(value)) => Some(value),
            (Takes::One, None) => {
                i += 1;
                next
            }
            (Takes::Optional | Takes::Many, None) if bare(i) => {
                i += 1;
                next
            }
            (Takes::Optional | Takes::Many, None) => None,
        };
        if kind == Takes::Many {
            while bare(i) {
                i += 1;
            }
        }
        parsed.options.push(Given { name, value });
    }
    Ok(parsed)
}

/// For the clients' tests: where `find` places the prompt among `args`, every
/// argument valid UTF-8 (`Some`, as the launch's `to_str` gives it).
#[cfg(test)]
pub(super) fn delivery_of(
    find: fn(&[Option<&str>]) -> Result<Delivery, CliError>,
    args: &[&str],
) -> Result<Delivery, CliError> {
    let args: Vec<Option<&str>> = args.iter().map(|a| Some(*a)).collect();
    find(&args)
}
