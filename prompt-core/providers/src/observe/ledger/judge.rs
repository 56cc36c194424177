//! From what moved and what the response read, the verdict.
//!
//! What a hit reads ([`CacheVerdict::expected`]): what the previous
//! response read and wrote, through its last breakpoint, when the provider
//! reports writes (Anthropic; OpenAI's explicit caching). Otherwise an
//! estimate of the previous prefix's tokens through its last breakpoint,
//! met within a tolerance (128 tokens, OpenAI's cache granularity, or an
//! eighth), since it is counted from bytes; nothing, when the previous
//! prompt was below the minimum of a provider that caches whole prompts
//! (OpenAI keeps nothing under 1,024 tokens). Short of it, the cause is the
//! first of: the model, the TTL, the tools, a Stable layer, the messages,
//! and else the provider. A prefix below the model's minimum that the
//! provider neither read nor wrote is below the minimum, whatever moved.

use std::sync::Arc;
use std::time::Duration;

use super::prefix::{Changes, Prefix};
use super::{Moved, Pending, Received, Record};
use crate::observe::{CacheUsage, CacheVerdict, MissCause, Pricing, Sent, SentId};

/// What moved from `previous` to this request, idle since `clock` (the
/// previous request's time, or a keep-alive ping's after it).
pub(super) fn moved(
    previous: &Record,
    clock: jiff::Timestamp,
    prefix: &Prefix,
    sent: &Sent<'_>,
    model: &Arc<str>,
    changes: &mut Changes,
) -> Moved {
    let idle = sent.at.duration_since(clock);
    let idle = if idle.is_negative() {
        Duration::ZERO
    } else {
        idle.unsigned_abs()
    };
    Moved {
        previous_seq: previous.seq,
        held_estimate: previous.held_estimate,
        idle,
        // The model's name is shared with the previous request's when the same.
        model: (!Arc::ptr_eq(&previous.model, model))
            .then(|| (Arc::clone(&previous.model), Arc::clone(model))),
        tools: matches!((previous.tools, sent.tools), (Some(a), Some(b)) if a != b),
        tool_change: match (&previous.tool_prints, &sent.tool_prints) {
            (Some(before), Some(now)) => {
                super::super::ToolChange::between(before, now).map(Box::new)
            }
            _ => None,
        },
        layer: (!previous.prefix.same(prefix))
            .then(|| changes.layer_change(&previous.prefix, prefix, &previous.breakpoints)),
        messages: match (&previous.messages, &sent.messages) {
            (Some(before), Some(now)) => now
                .rewritten_since(before)
                .map(|parting| (parting, before.len(), now.len())),
            _ => None,
        },
    }
}

/// The verdict on `pending`'s response. `previous` is the previous
/// request's usage, when its response came back; `never_cached`, how many
/// of the conversation's responses came back before it, when none of them
/// read or wrote anything (0 once one did). When a shared store did not say
/// what the previous request was, nothing moved is known, and a response
/// that read nothing is [`MissCause::PreviousUnknown`], never a cold start.
pub(super) fn verdict(
    id: SentId,
    conversation: &Arc<str>,
    pending: &Pending,
    previous: Option<Received>,
    usage: &CacheUsage,
    pricing: Option<Pricing>,
    never_cached: u64,
) -> CacheVerdict {
    let unknown = pending.shared.as_ref().is_some_and(|s| s.unknown);
    let (read, written, uncached) = (usage.read, usage.written, usage.uncached_input);
    let below = pending.minimum.and_then(|minimum| {
        if read > 0 || written > 0 {
            return None;
        }
        // Anthropic and Bedrock cache at breakpoints: the prefix through the
        // last must reach the minimum. The others key on the whole prompt.
        let tokens = if pending.provider.caches_at_breakpoints() {
            pending.prefix_tokens
        } else {
            usage.input_tokens()
        };
        (tokens < minimum).then_some(MissCause::BelowMinimum { tokens, minimum })
    });
    let (expected, estimated) = match (&pending.moved, previous) {
        (None, _) => (0, false),
        // What it read and wrote is what the cache holds for this one.
        (Some(_), Some(p)) if pending.provider.caches_at_breakpoints() || p.written() > 0 => {
            (p.read().saturating_add(p.written()), false)
        }
        // A cache of the whole prompt (OpenAI's implicit one) kept nothing
        // of a previous prompt below the minimum: nothing to read.
        (Some(_), Some(p)) if pending.minimum.is_some_and(|minimum| p.input() < minimum) => {
            (0, false)
        }
        (Some(m), Some(p)) => (p.read().max(m.held_estimate), m.held_estimate > p.read()),
        (Some(m), None) => (m.held_estimate, true),
    };
    let tolerance = if estimated {
        (expected / 8).max(128)
    } else {
        0
    };
    // Nothing read is never a hit when something was held, however small.
    let short = read == 0 || read.saturating_add(tolerance) < expected;
    let cause = match (below, &pending.moved) {
        (Some(below), _) => Some(below),
        (None, None) if pending.prewarm => None,
        (None, None) if unknown => (read == 0).then(MissCause::previous_unknown),
        (None, None) => (read == 0).then(MissCause::cold_start),
        // Nothing held, and nothing ever was in this conversation: not the
        // cold start a conversation pays once.
        (None, Some(_))
            if expected == 0
                && read == 0
                && written == 0
                && never_cached > 0
                && !pending.prewarm =>
        {
            Some(MissCause::NeverWritten {
                requests: never_cached.saturating_add(1),
            })
        }
        (None, Some(_)) if expected == 0 => {
            (read == 0 && !pending.prewarm).then(MissCause::cold_start)
        }
        (None, Some(_)) if !short => None,
        // A prewarm writes what it was asked to: not a miss of the
        // conversation, whatever moved.
        (None, _) if pending.prewarm => None,
        (None, Some(moved)) => Some(first_cause(moved, pending.ttl)),
    };
    let lost = match &cause {
        None
        | Some(MissCause::ColdStart { .. })
        | Some(MissCause::NeverWritten { .. })
        | Some(MissCause::BelowMinimum { .. })
        | Some(MissCause::PreviousUnknown { .. }) => 0,
        Some(_) => expected
            .saturating_sub(read)
            .min(written.saturating_add(uncached)),
    };
    let lost_written = lost.min(written);
    let lost_usd = pricing.map(|p| p.lost_usd(lost_written, lost - lost_written));
    let agreement = crate::observe::agreement::compare(
        pending.provider,
        pending.requested_diagnosis,
        cause.as_ref(),
        usage.diagnosis.as_ref(),
    );
    CacheVerdict {
        id,
        seq: pending.seq,
        conversation: Arc::clone(conversation),
        at: pending.at,
        provider: pending.provider,
        model: Arc::clone(&pending.model),
        response_id: usage.response_id.clone(),
        prompt_name: pending.prompt_name.clone(),
        prompt_version: pending.prompt_version.clone(),
        stable_fingerprint: pending.stable_fingerprint,
        read,
        written,
        uncached,
        output: usage.output,
        expected,
        expected_estimated: estimated,
        lost_tokens: lost,
        lost_written,
        lost_usd,
        ttl: pending.ttl,
        keep_alive: pending.keep_alive,
        prewarm: pending.prewarm,
        cause,
        diagnosis: usage.diagnosis.clone().map(Box::new),
        agreement: agreement.map(Box::new),
        previous_unknown: unknown,
    }
}

/// The first thing that moved, in the order the cache reads a request:
/// the model, the entry's age, the tools, the system prompt, the messages.
fn first_cause(moved: &Moved, ttl: Duration) -> MissCause {
    if let Some((from, to)) = &moved.model {
        return MissCause::ModelChanged {
            from: from.to_string(),
            to: to.to_string(),
        };
    }
    if moved.idle > ttl {
        return MissCause::TtlExpired {
            idle: moved.idle,
            ttl,
        };
    }
    if moved.tools {
        return MissCause::tools_changed(moved.tool_change.as_deref().cloned());
    }
    if let Some(layer) = &moved.layer {
        return MissCause::clone(layer);
    }
    match &moved.messages {
        Some((parting, before, now)) => MissCause::MessagesRewritten {
            at: parting.at,
            role: parting.role.clone(),
            offset: parting.offset,
            before: *before,
            now: *now,
        },
        None => MissCause::provider_side(),
    }
}
