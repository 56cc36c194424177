//! A client's request with what the ledger needs to know about it.

use prompt_providers::observe::{Provider, Sent};

/// A client's own request type, built from an assembled prompt, and where
/// its breakpoints are: send [`request`](Self::request) with the client,
/// and tell the [`CacheLedger`](prompt_providers::observe::CacheLedger) about it
/// with [`sent`](Self::sent) first.
#[derive(Debug, Clone)]
pub struct Placed<R> {
    /// The client's request, ready to send.
    pub request: R,
    provider: Provider,
    breakpoints: Vec<usize>,
}

impl<R> Placed<R> {
    /// `request`, to `provider`, with breakpoints at `breakpoints` (byte
    /// offsets in the stable prefix, as [`Placement::breakpoints`](crate::Placement::breakpoints)
    /// gives them): for an integration of a client of your own.
    pub fn new(request: R, provider: Provider, breakpoints: Vec<usize>) -> Self {
        Self {
            request,
            provider,
            breakpoints,
        }
    }

    /// The provider the request goes to.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// Byte offsets in the stable prefix where the request's breakpoints end
    /// a cached block (see [`Placement::breakpoints`](crate::Placement::breakpoints)).
    pub fn breakpoints(&self) -> &[usize] {
        &self.breakpoints
    }

    /// The request as the ledger records it: its provider, `model`, the time
    /// it is sent and its breakpoints. Add what else the ledger should know
    /// (`conversation`, `tools`, `messages`) to the [`Sent`] it returns.
    pub fn sent<'a>(&'a self, model: &'a str, at: jiff::Timestamp) -> Sent<'a> {
        let sent = Sent::new(self.provider, model, at);
        if self.breakpoints.is_empty() {
            sent
        } else {
            sent.breakpoints(&self.breakpoints)
        }
    }

    /// The request alone.
    pub fn into_request(self) -> R {
        self.request
    }
}
