//! How input is read and decoded, decided from the flags of the input
//! group: multiline search (`-U`, `--multiline-dotall`), the text encoding
//! (`-E`, BOM sniffing), compressed files (`-z`) and preprocessors
//! (`--pre`, `--pre-glob`). Each reads files through grep-searcher's
//! decoding reader or grep-cli's command readers, as ripgrep does.

use std::path::PathBuf;

use anyhow::Context;
use grep_searcher::Encoding;
use ignore::overrides::{Override, OverrideBuilder};

use crate::cli::Cli;

/// The text encoding files are decoded from (`-E`).
#[derive(Clone, Debug)]
pub enum EncodingMode {
    /// Sniff a UTF-8 or UTF-16 byte-order mark (the default).
    Auto,
    /// Every file is transcoded from this encoding.
    Some(Encoding),
    /// `-E none`: raw bytes, a BOM included.
    Disabled,
}

/// The settings of the input group of flags.
#[derive(Clone, Debug)]
pub struct InputOptions {
    pub multiline: bool,
    pub multiline_dotall: bool,
    pub encoding: EncodingMode,
    /// `-z`: compressed files are read through their decompressors.
    pub decompress: Option<grep_cli::DecompressionReaderBuilder>,
    /// `--pre`: the command whose output is searched in place of a file.
    pub pre: Option<PathBuf>,
    /// `--pre-glob`: the files `pre` applies to (empty: all of them).
    pub pre_globs: Override,
}

impl InputOptions {
    /// Validates the input flags (an unknown encoding, a bad glob).
    pub fn from_cli(cli: &Cli) -> anyhow::Result<InputOptions> {
        let pre = cli.pre.clone().filter(|p| !p.is_empty());
        let pre = match pre {
            Some(p) => Some(grep_cli::resolve_binary(p)?),
            None => None,
        };
        let decompress = cli.search_zip.then(|| {
            let mut b = grep_cli::DecompressionReaderBuilder::new();
            b.async_stderr(true);
            b
        });
        Ok(InputOptions {
            multiline: cli.multiline,
            multiline_dotall: cli.multiline_dotall,
            encoding: encoding(cli)?,
            decompress,
            pre,
            pre_globs: pre_globs(&cli.pre_glob)?,
        })
    }

    /// Whether files must be read through the searcher's own readers
    /// (transcoded, decompressed, preprocessed or searched across lines):
    /// the device engine and the big-file paths, which read bytes
    /// themselves, leave such searches to the CPU engine.
    pub fn needs_searcher(&self) -> bool {
        self.multiline
            || !matches!(self.encoding, EncodingMode::Auto)
            || self.decompress.is_some()
            || self.pre.is_some()
    }
}

/// `-E LABEL`: `auto`, `none` or a label of the Encoding Standard.
fn encoding(cli: &Cli) -> anyhow::Result<EncodingMode> {
    let Some(label) = cli.encoding.as_deref() else {
        return Ok(EncodingMode::Auto);
    };
    Ok(match label {
        "auto" => EncodingMode::Auto,
        "none" => EncodingMode::Disabled,
        _ => EncodingMode::Some(
            Encoding::new(label)
                .with_context(|| format!("error parsing flag {}", encoding_spelling()))?,
        ),
    })
}

/// Whether `-E LABEL` names an encoding (as the parser checks each `-E`).
pub(crate) fn check_encoding(label: &str) -> Result<(), String> {
    match label {
        "auto" | "none" => Ok(()),
        _ => Encoding::new(label).map(drop).map_err(|e| e.to_string()),
    }
}

/// How `-E` was spelled last on the command line, for its error message.
fn encoding_spelling() -> &'static str {
    let long = std::env::args_os()
        .filter_map(|a| a.into_string().ok())
        .rfind(|a| {
            a.starts_with("--encoding")
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('E'))
        })
        .is_some_and(|a| a.starts_with("--"));
    if long { "--encoding" } else { "-E" }
}

/// The `--pre-glob` globs, matched as ripgrep matches them (from the
/// current directory, `!` negating).
pub(crate) fn pre_globs(globs: &[String]) -> anyhow::Result<Override> {
    if globs.is_empty() {
        return Ok(Override::empty());
    }
    let cwd = std::env::current_dir()?;
    let mut b = OverrideBuilder::new(cwd);
    for g in globs {
        b.add(g)?;
    }
    Ok(b.build()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(args: &[&str]) -> InputOptions {
        let argv = std::iter::once("gsearch").chain(args.iter().copied());
        InputOptions::from_cli(&<Cli as clap::Parser>::parse_from(argv)).unwrap()
    }

    #[test]
    fn pre_and_search_zip_override_each_other() {
        let o = options(&["--pre", "cat", "-z", "x"]);
        assert!(o.decompress.is_some() && o.pre.is_none());
        let o = options(&["-z", "--pre", "cat", "x"]);
        assert!(o.decompress.is_none() && o.pre.is_some());
        let o = options(&["-z", "--pre", "cat", "--no-pre", "x"]);
        assert!(o.decompress.is_none() && o.pre.is_none());
        let o = options(&["--pre", "", "x"]);
        assert!(o.pre.is_none() && !o.needs_searcher());
    }

    #[test]
    fn encodings_and_negations() {
        assert!(matches!(options(&["x"]).encoding, EncodingMode::Auto));
        assert!(matches!(
            options(&["-E", "none", "x"]).encoding,
            EncodingMode::Disabled
        ));
        assert!(matches!(
            options(&["-E", "sjis", "--no-encoding", "x"]).encoding,
            EncodingMode::Auto
        ));
        assert!(matches!(
            options(&["--encoding", "UTF-16BE", "x"]).encoding,
            EncodingMode::Some(_)
        ));
        // An unknown encoding is refused while parsing, as ripgrep does.
        assert!(<Cli as clap::Parser>::try_parse_from(["gsearch", "-E", "nope", "x"]).is_err());
    }

    #[test]
    fn multiline_last_flag_wins() {
        assert!(!options(&["-U", "--no-multiline", "x"]).multiline);
        assert!(options(&["--no-multiline", "-U", "x"]).multiline);
        assert!(!options(&["--multiline-dotall", "--no-multiline-dotall", "x"]).multiline_dotall);
    }
}
