//! Files searched through another program, as ripgrep does it: a
//! preprocessor (`--pre`, limited by `--pre-glob`) run with the file's
//! path as its argument and the file as its standard input, or a
//! decompressor found on PATH (`-z`, grep-cli's `DecompressionReader`,
//! which reads the file as it is when no decompressor is found). Their
//! output is what the searcher reads; the path is only printed.

use std::io;
use std::path::Path;
use std::process::{Command, Stdio};

use grep_cli::{CommandReader, DecompressionReader};

use crate::cli::config::Config;
use crate::output::printer::SearchResult;

/// The output of a preprocessor or a decompressor.
pub enum Converted {
    Pre {
        reader: CommandReader,
        /// The command as ripgrep quotes it in its messages.
        command: String,
    },
    Zip(DecompressionReader),
}

/// The reader that stands for `path` when a preprocessor or decompression
/// applies to it; `None`: the file is read as it is.
pub fn open(cfg: &Config, path: &Path) -> Option<io::Result<Converted>> {
    let input = &cfg.input;
    if let Some(bin) = input.pre.as_deref() {
        let globs = &input.pre_globs;
        if globs.is_empty() || !globs.matched(path, false).is_ignore() {
            return Some(preprocess(bin, path));
        }
    }
    let zip = input.decompress.as_ref()?;
    zip.get_matcher()
        .has_command(path)
        .then(|| zip.build(path).map(Converted::Zip).map_err(io::Error::from))
}

fn preprocess(bin: &Path, path: &Path) -> io::Result<Converted> {
    let mut cmd = Command::new(bin);
    cmd.arg(path).stdin(Stdio::from(std::fs::File::open(path)?));
    let command = format!("{cmd:?}");
    let reader = grep_cli::CommandReaderBuilder::new()
        .async_stderr(true)
        .build(&mut cmd)
        .map_err(|e| {
            io::Error::other(format!(
                "preprocessor command could not start: '{command}': {e}"
            ))
        })?;
    Ok(Converted::Pre { reader, command })
}

impl io::Read for Converted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Converted::Pre { reader, .. } => reader.read(buf),
            Converted::Zip(reader) => reader.read(buf),
        }
    }
}

impl Converted {
    /// Ends the program, after the search's `result`: a search error
    /// first, then the program's own failure (its standard error).
    pub fn finish(self, result: io::Result<SearchResult>) -> io::Result<SearchResult> {
        let (result, closed) = match self {
            Converted::Pre {
                mut reader,
                command,
            } => {
                let result = result.map_err(|e| {
                    io::Error::other(format!("preprocessor command failed: '{command}': {e}"))
                });
                (result, reader.close())
            }
            Converted::Zip(mut reader) => (result, reader.close()),
        };
        let result = result?;
        closed?;
        Ok(result)
    }
}
