//! What to look for: the pattern [`plan::Plan`] compiled once per run,
//! the [`line::LineMatcher`] CPU searches use, and the
//! [`offsets::OffsetMatcher`] that turns an engine's offsets into ripgrep's
//! candidate lines.

pub mod behind;
pub mod line;
pub mod lines;
pub mod offsets;
pub mod plan;
pub mod regex;
pub mod regex_opts;
pub mod rules;
#[cfg(test)]
mod rules_props;
pub mod searcher;
#[cfg(test)]
pub(crate) mod testing;
pub mod wrap;
