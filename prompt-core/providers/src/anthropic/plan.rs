//! The Messages request through its [cache plan](crate::providers::plan):
//! the history as sent, and every breakpoint placed in one pass.

use serde_json::Value;

use super::takes_system_messages;
use super::{
    CacheControl, CacheTtl, MAX_BREAKPOINTS, MessagesRequest, REMINDER_OPEN, RequestError,
};
use crate::providers::plan::{CachePlan, Candidate, CutAt};
use crate::providers::{History, Role};
use crate::tokens::{ApproxCounter, TokenCounter};

// What this crate's builders can ask for (the tools' cut, the system
// prompt's breakpoints, the frontier) fits the API's limit: the plan never
// has to drop one of them for a request built here (the tools' cut and the
// frontier: 2).
const _: () = assert!(2 + super::SYSTEM_BREAKPOINTS <= MAX_BREAKPOINTS);

impl MessagesRequest {
    /// This request with `history` as its messages, exactly as sent, and its
    /// breakpoints placed by its [cache plan](Self::cache_plan), one at the
    /// conversation's frontier included.
    ///
    /// The history carries each turn's per-turn block (the prompt's dynamic
    /// suffix and reminder, placed by [`History::user_turn`]), so the system
    /// prompt keeps only its stable blocks and the request adds no reminder
    /// of its own. Messages already added are replaced.
    ///
    /// # Errors
    /// [`RequestError::SystemMessagesUnsupported`] when the history holds a
    /// mid-conversation system message and the model is not known to take
    /// one ([`takes_system_messages`]).
    pub fn history(mut self, history: &History) -> Result<Self, RequestError> {
        if history.has_system_messages() && !takes_system_messages(&self.model) {
            return Err(RequestError::SystemMessagesUnsupported {
                model: self.model.clone(),
            });
        }
        if std::mem::take(&mut self.dynamic_block) {
            self.system.pop();
        }
        self.reminder = self.reminder.carried();
        self.messages.clear();
        for message in history.messages() {
            self.push(message);
        }
        self.plan_breakpoints();
        Ok(self)
    }

    /// The request's cache plan (see [`plan`](crate::providers::plan)) within
    /// [`MAX_BREAKPOINTS`]: a cut after the last tool (one cacheable unit),
    /// at each breakpoint of the system prompt (its scope cuts, then its
    /// stable end), and at the conversation's frontier (the last block of the
    /// newest user or assistant message, before any reminder; or automatic
    /// caching, which the API puts there). Each asks the TTL it has now; a
    /// tool or frontier without one asks the system prompt's (tools) or 5
    /// minutes (frontier). Tokens are counted with [`ApproxCounter`].
    pub fn cache_plan(&self) -> CachePlan {
        CachePlan::new(
            self.candidates().into_iter().map(|(c, _)| c),
            MAX_BREAKPOINTS,
        )
    }

    /// Places exactly the breakpoints of [`cache_plan`](Self::cache_plan),
    /// removing every other: the request then never has more than
    /// [`MAX_BREAKPOINTS`] nor a 1-hour breakpoint after a 5-minute one, so
    /// [`check_breakpoints`](Self::check_breakpoints) passes.
    pub fn plan_breakpoints(&mut self) -> CachePlan {
        let candidates = self.candidates();
        let plan = CachePlan::new(candidates.iter().map(|(c, _)| *c), MAX_BREAKPOINTS);
        for tool in &mut self.tools {
            if let Value::Object(tool) = tool {
                tool.remove("cache_control");
            }
        }
        for block in &mut self.system {
            block.cache_control = None;
        }
        for message in &mut self.messages {
            for block in &mut message.content {
                block.cache_control = None;
            }
        }
        let automatic = self.cache_control.take().is_some();
        let mut kept = plan.cuts().iter();
        let mut next = kept.next();
        for (candidate, place) in candidates {
            let Some(cut) = next.filter(|cut| {
                cut.at == candidate.at && cut.prefix_tokens == candidate.prefix_tokens
            }) else {
                continue;
            };
            let control = CacheControl::new(cut.ttl);
            match place {
                Place::Tool(index) => {
                    if let Some(Value::Object(tool)) = self.tools.get_mut(index) {
                        tool.insert("cache_control".to_owned(), control.to_value());
                    }
                }
                Place::System(index) => self.system[index].cache_control = Some(control),
                Place::Message(message, block) => {
                    self.messages[message].content[block].cache_control = Some(control);
                }
                Place::Automatic => {
                    if automatic {
                        self.cache_control = Some(control);
                    }
                }
            }
            next = kept.next();
        }
        plan
    }

    /// Every candidate cut in request order, with where it would go.
    fn candidates(&self) -> Vec<(Candidate, Place)> {
        let counter = ApproxCounter;
        let mut tokens = 0;
        let mut out = Vec::new();
        let system_ttl = self
            .system
            .iter()
            .find_map(|b| b.cache_control)
            .map(|c| c.ttl);
        for tool in &self.tools {
            tokens += counter.count(&serde_json::to_string(tool).unwrap_or_default());
        }
        if let Some(index) = self
            .tools
            .len()
            .checked_sub(1)
            .filter(|&i| self.tools[i].is_object())
        {
            let ttl = super::breakpoints::tool_ttl(&self.tools[index])
                .or(system_ttl)
                .unwrap_or_default();
            out.push((
                Candidate::new(CutAt::Tools, tokens, ttl),
                Place::Tool(index),
            ));
        }
        let marked: Vec<usize> = (0..self.system.len())
            .filter(|&i| self.system[i].cache_control.is_some())
            .collect();
        for (index, block) in self.system.iter().enumerate() {
            tokens += counter.count(&block.text);
            if let Some(control) = block.cache_control {
                let at = if Some(&index) == marked.last() {
                    CutAt::StableEnd
                } else {
                    CutAt::Scope
                };
                out.push((
                    Candidate::new(at, tokens, control.ttl),
                    Place::System(index),
                ));
            }
        }
        let mut frontier = None;
        for (m, message) in self.messages.iter().enumerate() {
            for (b, block) in message.content.iter().enumerate() {
                tokens += counter.count(&block.text);
                if message.role != Role::System
                    && (b == 0 || !block.text.starts_with(REMINDER_OPEN))
                {
                    frontier = Some((m, b, tokens, block.cache_control.map(|c| c.ttl)));
                }
            }
        }
        if let Some(control) = self.cache_control {
            out.push((
                Candidate::new(CutAt::Frontier, tokens, control.ttl),
                Place::Automatic,
            ));
        } else if let Some((message, block, tokens, ttl)) = frontier {
            out.push((
                Candidate::new(
                    CutAt::Frontier,
                    tokens,
                    ttl.unwrap_or(CacheTtl::FiveMinutes),
                ),
                Place::Message(message, block),
            ));
        }
        out
    }
}

/// Where a candidate's `cache_control` goes.
#[derive(Debug, Clone, Copy)]
enum Place {
    Tool(usize),
    System(usize),
    Message(usize, usize),
    Automatic,
}
