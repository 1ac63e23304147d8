//! The configuration file: `GSEARCH_CONFIG_PATH` (or, when it is unset,
//! ripgrep's own `RIPGREP_CONFIG_PATH`, so a ripgrep user's settings carry
//! over) names a file of arguments, one per line, read as ripgrep reads it.
//! Surrounding whitespace is trimmed, blank lines and lines starting with
//! `#` are skipped. A file that cannot be read is reported and the run
//! goes on without it.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;

use bstr::ByteSlice;

/// The environment variables naming the configuration file, the first
/// set (and not empty) one wins.
pub const CONFIG_ENVS: [&str; 2] = ["GSEARCH_CONFIG_PATH", "RIPGREP_CONFIG_PATH"];

/// The variable that names the configuration file, and the path.
fn named() -> Option<(&'static str, OsString)> {
    CONFIG_ENVS.iter().find_map(|&name| {
        let path = std::env::var_os(name).filter(|p| !p.is_empty())?;
        Some((name, path))
    })
}

/// The arguments of the configuration file, if one is named.
pub fn args() -> Vec<OsString> {
    let Some((env, path)) = named() else {
        log::debug!(
            "neither GSEARCH_CONFIG_PATH nor RIPGREP_CONFIG_PATH is set, therefore not reading \
             any config file"
        );
        return Vec::new();
    };
    match read(Path::new(&path)) {
        Ok(bytes) => {
            let args = parse(&bytes);
            log::debug!(
                "{}: arguments loaded from config file: {args:?}",
                Path::new(&path).display()
            );
            args
        }
        Err(msg) => {
            crate::message!("failed to read the file specified in {env}: {msg}");
            Vec::new()
        }
    }
}

/// The file's bytes; an error opening it names the path, as ripgrep's does,
/// an error reading it (a directory) does not.
fn read(path: &Path) -> Result<Vec<u8>, String> {
    let mut file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// One argument per non-blank, non-comment line.
fn parse(bytes: &[u8]) -> Vec<OsString> {
    bytes
        .lines()
        .map(|line| line.trim())
        .filter(|line| !line.is_empty() && line[0] != b'#')
        .map(|line| OsString::from_vec(line.to_vec()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn comments_blanks_and_whitespace() {
        let got = parse(b"# c\n  --context=0\r\n\n   # x\n-u\n\t--foo  \n");
        assert_eq!(got, ["--context=0", "-u", "--foo"]);
    }
}
