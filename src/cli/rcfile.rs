//! The configuration file: `GSEARCH_CONFIG_PATH` names a file of
//! arguments, one per line, read as ripgrep reads `RIPGREP_CONFIG_PATH`.
//! Surrounding whitespace is trimmed, blank lines and lines starting with
//! `#` are skipped. A file that cannot be read is reported and the run
//! goes on without it.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;

use bstr::ByteSlice;

/// The environment variable naming the configuration file.
pub const CONFIG_ENV: &str = "GSEARCH_CONFIG_PATH";

/// The arguments of the configuration file, if one is named.
pub fn args() -> Vec<OsString> {
    let Some(path) = std::env::var_os(CONFIG_ENV).filter(|p| !p.is_empty()) else {
        log::debug!(
            "{CONFIG_ENV} environment variable is not set, therefore not reading any config file"
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
            crate::ignore_message!("failed to read the file specified in {CONFIG_ENV}: {msg}");
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
