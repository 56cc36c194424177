//! The Converse request through its [cache plan](crate::providers::plan):
//! the candidates the Anthropic body has, a cache point block after each
//! kept one, and the checks the service makes.

use std::fmt;

use serde::Serialize;

use super::{
    CachePoint, ContentBlock, ConverseRequest, MAX_CACHE_POINTS, RequestError, SystemBlock,
    ToolEntry, takes_one_hour_ttl,
};
use crate::providers::Role;
use crate::providers::anthropic::{CacheTtl, REMINDER_OPEN};
use crate::providers::plan::{CachePlan, Candidate, CutAt};
use crate::tokens::{ApproxCounter, TokenCounter};

/// Where a cache point sits, in the order Bedrock reads the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case", tag = "in")]
#[non_exhaustive]
pub enum CachePointLocation {
    /// Entry `index` of `toolConfig.tools`.
    Tools {
        /// Its index.
        index: usize,
    },
    /// Block `index` of `system`.
    System {
        /// Its index.
        index: usize,
    },
    /// Block `block` of message `message`.
    Message {
        /// The message's index in `messages`.
        message: usize,
        /// The block's index in its content.
        block: usize,
    },
}

impl fmt::Display for CachePointLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Tools { index } => write!(f, "toolConfig.tools[{index}]"),
            Self::System { index } => write!(f, "system[{index}]"),
            Self::Message { message, block } => {
                write!(f, "messages[{message}].content[{block}]")
            }
        }
    }
}

/// Where a kept cut's cache point goes: after the element at this index
/// (counted without cache points).
#[derive(Debug, Clone, Copy)]
enum Place {
    Tools(usize),
    System(usize),
    Message(usize, usize),
}

/// A list's elements without its cache points, each with the TTL of the
/// cache point that followed it, if one did.
fn unmarked<T>(
    items: Vec<T>,
    point: impl Fn(&T) -> Option<CacheTtl>,
) -> (Vec<T>, Vec<Option<CacheTtl>>) {
    let mut kept: Vec<T> = Vec::with_capacity(items.len());
    let mut marks: Vec<Option<CacheTtl>> = Vec::with_capacity(items.len());
    for item in items {
        match (point(&item), marks.last_mut()) {
            (Some(ttl), Some(mark)) => *mark = Some(mark.map_or(ttl, |m| longer(m, ttl))),
            (Some(_), None) => {}
            (None, _) => {
                kept.push(item);
                marks.push(None);
            }
        }
    }
    (kept, marks)
}

fn longer(a: CacheTtl, b: CacheTtl) -> CacheTtl {
    if a == CacheTtl::OneHour || b == CacheTtl::OneHour {
        CacheTtl::OneHour
    } else {
        CacheTtl::FiveMinutes
    }
}

impl ConverseRequest {
    /// The request's cache plan (see [`plan`](crate::providers::plan)) within
    /// [`MAX_CACHE_POINTS`]: the candidates of the Anthropic body, a cut
    /// after the last tool, at each cache point of the system prompt (its
    /// scope cuts, then its stable end) and at the conversation's frontier
    /// (the last block of the newest user or assistant message, before any
    /// reminder). Each asks the TTL its cache point has now; the tools
    /// without one ask the system prompt's ([`ttl`](Self::ttl)), the
    /// frontier 5 minutes. Tokens are counted with [`ApproxCounter`].
    pub fn cache_plan(&self) -> CachePlan {
        let mut copy = self.clone();
        copy.plan_cache_points()
    }

    /// Places exactly the cache points of [`cache_plan`](Self::cache_plan),
    /// removing every other, and returns the plan: the request then passes
    /// [`check_cache_points`](Self::check_cache_points). On a model not known
    /// to take the one-hour TTL every cache point is the 5-minute default.
    pub fn plan_cache_points(&mut self) -> CachePlan {
        let tool_point = |t: &ToolEntry| match t {
            ToolEntry::CachePoint(p) => Some(p.ttl),
            _ => None,
        };
        let system_point = |b: &SystemBlock| match b {
            SystemBlock::CachePoint(p) => Some(p.ttl),
            _ => None,
        };
        let content_point = |b: &ContentBlock| match b {
            ContentBlock::CachePoint(p) => Some(p.ttl),
            _ => None,
        };
        let (tools, tool_marks) = unmarked(std::mem::take(&mut self.tools), tool_point);
        let (system, system_marks) = unmarked(std::mem::take(&mut self.system), system_point);
        self.tools = tools;
        self.system = system;
        let mut message_marks = Vec::with_capacity(self.messages.len());
        for message in &mut self.messages {
            let (content, marks) = unmarked(std::mem::take(&mut message.content), content_point);
            message.content = content;
            message_marks.push(marks);
        }

        // The candidates, in request order.
        let counter = ApproxCounter;
        let mut tokens = 0;
        let mut candidates: Vec<(Candidate, Place)> = Vec::new();
        let system_ttl = system_marks.iter().flatten().copied().next();
        for tool in &self.tools {
            tokens += counter.count(&serde_json::to_string(tool).unwrap_or_default());
        }
        if let Some(index) = self.tools.len().checked_sub(1) {
            let ttl = tool_marks
                .iter()
                .flatten()
                .copied()
                .last()
                .or(system_ttl)
                .unwrap_or(self.ttl);
            candidates.push((
                Candidate::new(CutAt::Tools, tokens, ttl),
                Place::Tools(index),
            ));
        }
        let last_marked = system_marks.iter().rposition(Option::is_some);
        for (index, block) in self.system.iter().enumerate() {
            if let SystemBlock::Text(text) = block {
                tokens += counter.count(text);
            }
            if let Some(ttl) = system_marks[index] {
                let at = if Some(index) == last_marked {
                    CutAt::StableEnd
                } else {
                    CutAt::Scope
                };
                candidates.push((Candidate::new(at, tokens, ttl), Place::System(index)));
            }
        }
        let mut frontier = None;
        for (m, message) in self.messages.iter().enumerate() {
            for (b, block) in message.content.iter().enumerate() {
                let text = block.counted_text();
                tokens += counter.count(&text);
                if message.role != Role::System && (b == 0 || !text.starts_with(REMINDER_OPEN)) {
                    frontier = Some((m, b, tokens, message_marks[m][b]));
                }
            }
        }
        if let Some((message, block, tokens, ttl)) = frontier {
            candidates.push((
                Candidate::new(
                    CutAt::Frontier,
                    tokens,
                    ttl.unwrap_or(CacheTtl::FiveMinutes),
                ),
                Place::Message(message, block),
            ));
        }

        let mut plan = CachePlan::new(candidates.iter().map(|(c, _)| *c), MAX_CACHE_POINTS);
        let one_hour = takes_one_hour_ttl(&self.model_id);
        let mut kept = plan.cuts().iter();
        let mut next = kept.next();
        let mut places = Vec::new();
        for (candidate, place) in candidates {
            let Some(cut) = next.filter(|cut| {
                cut.at == candidate.at && cut.prefix_tokens == candidate.prefix_tokens
            }) else {
                continue;
            };
            let ttl = if one_hour {
                cut.ttl
            } else {
                CacheTtl::FiveMinutes
            };
            places.push((place, CachePoint::new(ttl)));
            next = kept.next();
        }
        // Inserted last first, so each index still points where it did.
        for (place, point) in places.into_iter().rev() {
            match place {
                Place::Tools(index) => self.tools.insert(index + 1, ToolEntry::CachePoint(point)),
                Place::System(index) => {
                    self.system
                        .insert(index + 1, SystemBlock::CachePoint(point));
                }
                Place::Message(message, block) => self.messages[message]
                    .content
                    .insert(block + 1, ContentBlock::CachePoint(point)),
            }
        }
        if !one_hour {
            plan = CachePlan::new(
                plan.cuts()
                    .iter()
                    .map(|c| Candidate::new(c.at, c.prefix_tokens, CacheTtl::FiveMinutes)),
                MAX_CACHE_POINTS,
            );
        }
        plan
    }

    /// Every cache point of the request, in the order Bedrock reads it
    /// (tools, system, messages), with its TTL.
    pub fn cache_points(&self) -> Vec<(CachePointLocation, CacheTtl)> {
        let tools = self
            .tools
            .iter()
            .enumerate()
            .filter_map(|(index, t)| match t {
                ToolEntry::CachePoint(p) => Some((CachePointLocation::Tools { index }, p.ttl)),
                _ => None,
            });
        let system = self
            .system
            .iter()
            .enumerate()
            .filter_map(|(index, b)| match b {
                SystemBlock::CachePoint(p) => Some((CachePointLocation::System { index }, p.ttl)),
                _ => None,
            });
        let messages = self.messages.iter().enumerate().flat_map(|(message, m)| {
            m.content
                .iter()
                .enumerate()
                .filter_map(move |(block, b)| match b {
                    ContentBlock::CachePoint(p) => {
                        Some((CachePointLocation::Message { message, block }, p.ttl))
                    }
                    _ => None,
                })
        });
        tools.chain(system).chain(messages).collect()
    }

    /// Checks the cache points as Bedrock would: at most
    /// [`MAX_CACHE_POINTS`], no 1-hour one after a 5-minute one, a 1-hour
    /// one only on a model that takes it ([`takes_one_hour_ttl`]), and each
    /// after content of its own (not first in its list, not right after
    /// another). Serializing the request runs it.
    ///
    /// # Errors
    /// The [`RequestError`] of the first cache point at fault.
    pub fn check_cache_points(&self) -> Result<(), RequestError> {
        let lists = [
            self.tools
                .iter()
                .map(|t| matches!(t, ToolEntry::CachePoint(_)))
                .enumerate()
                .map(|(index, p)| (CachePointLocation::Tools { index }, p))
                .collect::<Vec<_>>(),
            self.system
                .iter()
                .map(|b| matches!(b, SystemBlock::CachePoint(_)))
                .enumerate()
                .map(|(index, p)| (CachePointLocation::System { index }, p))
                .collect(),
        ];
        let messages = self.messages.iter().enumerate().map(|(message, m)| {
            m.content
                .iter()
                .enumerate()
                .map(|(block, b)| {
                    (
                        CachePointLocation::Message { message, block },
                        matches!(b, ContentBlock::CachePoint(_)),
                    )
                })
                .collect::<Vec<_>>()
        });
        for list in lists.into_iter().chain(messages) {
            let mut previous_point = true;
            for (at, point) in list {
                if point && previous_point {
                    return Err(RequestError::CachePointWithoutContent { at });
                }
                previous_point = point;
            }
        }
        let points = self.cache_points();
        if let Some(&(at, _)) = points.get(MAX_CACHE_POINTS) {
            return Err(RequestError::TooManyCachePoints {
                at,
                count: points.len(),
            });
        }
        let one_hour = takes_one_hour_ttl(&self.model_id);
        let mut first_short = None;
        for &(at, ttl) in &points {
            match (ttl, first_short) {
                (CacheTtl::OneHour, _) if !one_hour => {
                    return Err(RequestError::OneHourUnsupported {
                        model_id: self.model_id.clone(),
                        at,
                    });
                }
                (CacheTtl::FiveMinutes, None) => first_short = Some(at),
                (CacheTtl::OneHour, Some(five_minutes)) => {
                    return Err(RequestError::TtlOrder {
                        five_minutes,
                        one_hour: at,
                    });
                }
                _ => {}
            }
        }
        Ok(())
    }
}
