//! The verdict against the provider's own diagnosis.

use super::{Agreement, DiagnosisOutcome, MissCause, Provider, ProviderDiagnosis};
use crate::spec::Scope;

/// How `cause` (ours; `None` a hit) compares with `diagnosis`, for a request
/// that asked `provider` for one (`requested`). `None` when none was asked
/// for and none came.
pub(crate) fn compare(
    provider: Provider,
    requested: bool,
    cause: Option<&MissCause>,
    diagnosis: Option<&ProviderDiagnosis>,
) -> Option<Agreement> {
    let ours = cause.map(|c| c.name().to_owned());
    let differs = |theirs: &str, note: String| Agreement::Differs {
        ours: ours.clone(),
        theirs: theirs.to_owned(),
        note,
    };
    let Some(diagnosis) = diagnosis else {
        // Anthropic writes no `diagnostics` when it found no divergence.
        if !(requested && provider == Provider::Anthropic) {
            return None;
        }
        return Some(match cause {
            None | Some(MissCause::TtlExpired { .. }) | Some(MissCause::ProviderSide { .. }) => {
                Agreement::Agrees {}
            }
            Some(MissCause::ColdStart { .. })
            | Some(MissCause::NeverWritten { .. })
            | Some(MissCause::BelowMinimum { .. }) => Agreement::Agrees {},
            Some(MissCause::PreviousUnknown { .. }) => Agreement::NotComparable {
                why: "the ledger did not know the previous request (its shared store did not \
                      answer)"
                    .to_owned(),
            },
            Some(cause) => differs(
                "no divergence",
                format!(
                    "the provider found the request's structure unchanged, but the ledger saw \
                     {cause}: the ledger compared with the request it was told came before, \
                     the provider with the id it was given"
                ),
            ),
        });
    };
    Some(match diagnosis.outcome {
        DiagnosisOutcome::Pending => Agreement::NotComparable {
            why: "the provider's comparison was still running when it answered: look at the \
                  next response's"
                .to_owned(),
        },
        DiagnosisOutcome::Unavailable => Agreement::NotComparable {
            why: "the provider could not diagnose this request".to_owned(),
        },
        DiagnosisOutcome::PreviousNotFound => match cause {
            Some(MissCause::ColdStart { .. }) => Agreement::Agrees {},
            _ => Agreement::NotComparable {
                why: "the provider keeps no record of the response it was asked to compare \
                      with (expired, or another workspace's)"
                    .to_owned(),
            },
        },
        DiagnosisOutcome::Hit => match cause {
            None => Agreement::Agrees {},
            Some(MissCause::TtlExpired { .. }) | Some(MissCause::ProviderSide { .. }) => differs(
                "cache_hit",
                "the provider says the prefix was reusable, yet the cache read less than \
                     expected: the entry was gone (evicted or expired), not changed"
                    .to_owned(),
            ),
            Some(cause) => differs(
                "cache_hit",
                format!("the provider says the prefix was reusable, but the ledger saw {cause}"),
            ),
        },
        DiagnosisOutcome::Miss => {
            let reason = diagnosis.reason.as_deref().unwrap_or("");
            let theirs = match diagnosis.missed_tokens {
                Some(tokens) => format!("{reason} ({tokens} tokens)"),
                None => reason.to_owned(),
            };
            match (cause, matches(reason, cause)) {
                (_, Match::Yes) => Agreement::Agrees {},
                (Some(cause), Match::Unseen(means)) if cause.is_ours() => differs(
                    &theirs,
                    format!(
                        "{means}, which the ledger is not told; the ledger saw {cause} as well, \
                         which alone would also have missed: the provider names the first \
                         divergence it found"
                    ),
                ),
                // A cause the ledger cannot see, and nothing it can see moved.
                (_, Match::Unseen(means)) => Agreement::OutsideLedger {
                    theirs,
                    note: format!(
                        "{means}; nothing the ledger tracks (prompt, tools, model, messages) \
                         moved, so this is the cause: the ledger is not told of it and names none"
                    ),
                },
                (None, Match::No) => differs(
                    &theirs,
                    "the provider reports a divergence, but the cache read what the ledger \
                     expected: the change lies after the last cached breakpoint"
                        .to_owned(),
                ),
                (Some(MissCause::ProviderSide { .. }), Match::No) => differs(
                    &theirs,
                    format!(
                        "the provider says {} changed, but nothing the ledger was told about \
                         moved: something outside the assembled prompt changed it (a block the \
                         client adds, history the ledger was not given)",
                        what(reason)
                    ),
                ),
                (Some(cause), Match::No) => differs(
                    &theirs,
                    match reason {
                        "prompt_cache_key_changed" => format!(
                            "the provider says the prompt_cache_key changed; the ledger saw \
                             {cause}, which does not move the key the request builder derives \
                             (from the widest scope's layers: Global, else Project, else the \
                             whole stable prefix) unless the prompt has no Global or Project \
                             layer: otherwise the key was set beside the prompt"
                        ),
                        _ => format!(
                            "the provider says {} changed; the ledger saw {cause}",
                            what(reason)
                        ),
                    },
                ),
            }
        }
    })
}

enum Match {
    Yes,
    No,
    /// A reason the ledger cannot see, with what it means.
    Unseen(String),
}

/// Whether the provider's `reason` names our `cause`.
fn matches(reason: &str, cause: Option<&MissCause>) -> Match {
    let yes = |ok: bool| if ok { Match::Yes } else { Match::No };
    match reason {
        "model_changed" => yes(matches!(cause, Some(MissCause::ModelChanged { .. }))),
        "system_changed" => yes(matches!(cause, Some(MissCause::LayerChanged { .. }))),
        "tools_changed" => yes(matches!(cause, Some(MissCause::ToolsChanged { .. }))),
        "messages_changed" | "context_compacted" => {
            yes(matches!(cause, Some(MissCause::MessagesRewritten { .. })))
        }
        // OpenAI's input holds the instructions and the messages.
        "input_changed" => yes(matches!(
            cause,
            Some(MissCause::LayerChanged { .. }) | Some(MissCause::MessagesRewritten { .. })
        )),
        // The request builder derives the key from the Global and Project
        // layers; a key set or sharded by the caller the ledger never sees.
        "prompt_cache_key_changed" => match cause {
            Some(MissCause::LayerChanged {
                scope: Some(Scope::Global) | Some(Scope::Project),
                ..
            }) => Match::Yes,
            Some(cause) if cause.is_ours() => Match::No,
            _ => Match::Unseen(
                "the request's prompt_cache_key differs from the compared response's: a key \
                 set, sharded or changed beside the prompt routes to another cache"
                    .to_owned(),
            ),
        },
        "service_tier_changed" => Match::Unseen(
            "the request's service_tier differs from the compared response's (default, flex, \
             priority keep caches apart)"
                .to_owned(),
        ),
        "text_format_changed" | "reasoning_effort_changed" | "verbosity_changed" => {
            Match::Unseen(format!(
                "the request's {} differs from the compared response's",
                what(reason)
            ))
        }
        _ => Match::Unseen(format!(
            "the provider names a change the ledger does not track ({reason}): a request \
             parameter outside the prompt, tools and model"
        )),
    }
}

/// The part of the request a provider's reason names.
fn what(reason: &str) -> &'static str {
    match reason {
        "model_changed" => "the model",
        "system_changed" => "the system prompt",
        "tools_changed" => "the tools",
        "messages_changed" => "the messages",
        "context_compacted" => "the context (compacted)",
        "input_changed" => "the input",
        "prompt_cache_key_changed" => "the prompt_cache_key",
        "service_tier_changed" => "the service_tier",
        "text_format_changed" => "text.format",
        "reasoning_effort_changed" => "reasoning.effort",
        "verbosity_changed" => "text.verbosity",
        _ => "a request parameter",
    }
}
