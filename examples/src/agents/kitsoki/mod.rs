//! stub
#![allow(missing_docs)]
use std::path::Path;
use super::{AgentError, Paradigm, RenderRequest};
pub const PIPELINE: &str = "kitsoki";
pub const PATHS: &[prompt_core::AssemblyPath] = &[];
pub const MODES: &[prompt_core::PromptMode] = &[];
#[derive(Debug, thiserror::Error)] #[error("x")] pub struct KitsokiError;
pub fn paradigms(_: &Path) -> Result<Vec<Paradigm>, KitsokiError> { Ok(vec![]) }
pub(crate) fn render(_: &RenderRequest) -> Result<super::Rendered, AgentError> { Err(AgentError::Unsupported(String::new())) }
