//! What to look for: the pattern [`plan::Plan`] compiled once per run
//! (by grep-regex, or PCRE2 for `-P`: [`spec`]), the [`line::LineMatcher`]
//! and [`pcre2::SearchMatcher`] CPU searches use, and the
//! [`offsets::OffsetMatcher`] that turns an engine's offsets into ripgrep's
//! candidate lines.

pub mod behind;
pub mod fed;
pub mod line;
pub mod lines;
pub mod offsets;
pub mod pcre2;
pub mod pcre2_lines;
pub mod plan;
pub mod regex;
pub mod regex_opts;
pub mod rules;
#[cfg(test)]
mod rules_props;
pub mod searcher;
pub mod spec;
#[cfg(test)]
pub(crate) mod testing;
pub mod wrap;
