//! Cache breakpoints beyond the system prompt's: where they are, how many, in
//! which TTL order.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use super::{CacheControl, CacheTtl, MessagesRequest, REMINDER_OPEN, RequestError};
use crate::providers::Role;

/// The most `cache_control` breakpoints the API takes in one request.
pub const MAX_BREAKPOINTS: usize = 4;

/// Where a breakpoint sits, in the API's evaluation order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case", tag = "in")]
pub enum BreakpointLocation {
    /// On tool definition `index`.
    Tool {
        /// Index in `tools`.
        index: usize,
    },
    /// On system block `index`.
    System {
        /// Index in `system`.
        index: usize,
    },
    /// On block `block` of message `message`.
    Message {
        /// Index in `messages`.
        message: usize,
        /// Index in that message's content.
        block: usize,
    },
    /// The top-level `cache_control` of automatic caching: the API puts it
    /// on the last cacheable block, so it comes last.
    Automatic,
}

impl fmt::Display for BreakpointLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Tool { index } => write!(f, "tool {index}"),
            Self::System { index } => write!(f, "system block {index}"),
            Self::Message { message, block } => write!(f, "message {message} block {block}"),
            Self::Automatic => f.write_str("the request's last block (automatic caching)"),
        }
    }
}

/// A breakpoint found in a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Breakpoint {
    /// Where it is.
    pub location: BreakpointLocation,
    /// Its TTL.
    pub ttl: CacheTtl,
}

impl MessagesRequest {
    /// Every breakpoint in the request, in the API's order: tools, system,
    /// messages, then automatic caching's.
    pub fn breakpoints(&self) -> Vec<Breakpoint> {
        let tools = self.tools.iter().enumerate().filter_map(|(index, tool)| {
            tool_ttl(tool).map(|ttl| Breakpoint {
                location: BreakpointLocation::Tool { index },
                ttl,
            })
        });
        let system = self.system.iter().enumerate().filter_map(|(index, b)| {
            b.cache_control.map(|c| Breakpoint {
                location: BreakpointLocation::System { index },
                ttl: c.ttl,
            })
        });
        let messages = self.messages.iter().enumerate().flat_map(|(message, m)| {
            m.content.iter().enumerate().filter_map(move |(block, b)| {
                b.cache_control.map(|c| Breakpoint {
                    location: BreakpointLocation::Message { message, block },
                    ttl: c.ttl,
                })
            })
        });
        let automatic = self.cache_control.map(|c| Breakpoint {
            location: BreakpointLocation::Automatic,
            ttl: c.ttl,
        });
        tools
            .chain(system)
            .chain(messages)
            .chain(automatic)
            .collect()
    }

    /// Checks the breakpoints as the API would: at most [`MAX_BREAKPOINTS`],
    /// and no 1-hour breakpoint after a 5-minute one.
    ///
    /// # Errors
    /// [`RequestError::TooManyBreakpoints`] or [`RequestError::TtlOrder`],
    /// naming the first breakpoint at fault.
    pub fn check_breakpoints(&self) -> Result<(), RequestError> {
        let breakpoints = self.breakpoints();
        if let Some(extra) = breakpoints.get(MAX_BREAKPOINTS) {
            return Err(RequestError::TooManyBreakpoints {
                at: extra.location,
                count: breakpoints.len(),
            });
        }
        let mut first_short = None;
        for breakpoint in &breakpoints {
            match (breakpoint.ttl, first_short) {
                (CacheTtl::FiveMinutes, None) => first_short = Some(breakpoint.location),
                (CacheTtl::OneHour, Some(five_minutes)) => {
                    return Err(RequestError::TtlOrder {
                        five_minutes,
                        one_hour: breakpoint.location,
                    });
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Puts a breakpoint on the last tool definition, so the tools are cached
    /// with (and before) the system prompt.
    ///
    /// # Errors
    /// [`RequestError::NoTools`], [`RequestError::ToolNotObject`], or what
    /// [`check_breakpoints`](Self::check_breakpoints) refuses; on error the
    /// request is unchanged.
    pub fn cache_tools(&mut self, ttl: CacheTtl) -> Result<(), RequestError> {
        let index = self
            .tools
            .len()
            .checked_sub(1)
            .ok_or(RequestError::NoTools)?;
        let Value::Object(tool) = &mut self.tools[index] else {
            return Err(RequestError::ToolNotObject { index });
        };
        let previous = tool.insert(
            "cache_control".to_owned(),
            CacheControl::new(ttl).to_value(),
        );
        self.check_breakpoints().inspect_err(|_| {
            if let Value::Object(tool) = &mut self.tools[index] {
                match previous {
                    Some(previous) => tool.insert("cache_control".to_owned(), previous),
                    None => tool.remove("cache_control"),
                };
            }
        })
    }

    /// Puts a breakpoint on the last block of the last user message (before
    /// any reminder), so the conversation so far is cached for the next call.
    ///
    /// # Errors
    /// [`RequestError::NoUserTurn`], or what
    /// [`check_breakpoints`](Self::check_breakpoints) refuses; on error the
    /// request is unchanged.
    pub fn cache_last_user_turn(&mut self, ttl: CacheTtl) -> Result<(), RequestError> {
        let no_turn = RequestError::NoUserTurn {
            what: "a cache breakpoint",
        };
        let (message, turn) = self
            .messages
            .iter_mut()
            .enumerate()
            .rev()
            .find(|(_, m)| m.role == Role::User)
            .ok_or(no_turn.clone())?;
        let block = turn
            .content
            .iter()
            .enumerate()
            .rposition(|(i, b)| i == 0 || !b.text.starts_with(REMINDER_OPEN))
            .ok_or(no_turn)?;
        let previous = turn.content[block]
            .cache_control
            .replace(CacheControl::new(ttl));
        self.check_breakpoints().inspect_err(|_| {
            self.messages[message].content[block].cache_control = previous;
        })
    }

    /// Automatic caching: a top-level `cache_control` of `ttl`, which the API
    /// puts on the last cacheable block and moves forward as the conversation
    /// grows. The alternative to [`cache_last_user_turn`](Self::cache_last_user_turn);
    /// the system prompt keeps its own breakpoints, and this one counts
    /// among the [`MAX_BREAKPOINTS`], last in the TTL order.
    ///
    /// # Errors
    /// [`RequestError::AutomaticCachingWithReminder`] when the request
    /// carries a reminder (its last block would be cached), or what
    /// [`check_breakpoints`](Self::check_breakpoints) refuses; on error the
    /// request is unchanged.
    pub fn automatic_caching(&mut self, ttl: CacheTtl) -> Result<(), RequestError> {
        let carries_reminder = self.reminder.text().is_some()
            || self
                .messages
                .iter()
                .rev()
                .find(|m| m.role == Role::User)
                .and_then(|m| m.content.last())
                .is_some_and(|b| b.text.starts_with(REMINDER_OPEN));
        if carries_reminder {
            return Err(RequestError::AutomaticCachingWithReminder);
        }
        let previous = self.cache_control.replace(CacheControl::new(ttl));
        self.check_breakpoints().inspect_err(|_| {
            self.cache_control = previous;
        })
    }
}

/// The TTL of a tool's `cache_control`, if it has one.
pub(super) fn tool_ttl(tool: &Value) -> Option<CacheTtl> {
    let control = tool.get("cache_control").filter(|c| !c.is_null())?;
    Some(match control.get("ttl").and_then(Value::as_str) {
        Some("1h") => CacheTtl::OneHour,
        _ => CacheTtl::FiveMinutes,
    })
}
