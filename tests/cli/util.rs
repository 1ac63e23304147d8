//! The harness: a fresh temporary directory per test, a command that runs
//! the `gsearch` binary inside it, and assertions that show a readable diff.
//!
//! Every case is declared with [`gstest!`](crate::gstest), which generates
//! two `#[test]` functions, `<name>::cpu` and `<name>::opencl`: the same body
//! run with `GSEARCH_ENGINE=cpu` and with `GSEARCH_ENGINE=opencl`.
//!
//! The expected outputs were derived by running ripgrep 15 with the same
//! arguments. To re-check them against ripgrep itself, point the harness at
//! another binary: `GSEARCH_TEST_BIN=$(which rg) cargo test --test cli -- ::cpu`
//! (tests of gsearch-only flags then fail, as they should).

use std::ffi::OsStr;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{self, Command, Stdio};

/// Declares one test case, generated once per engine.
///
/// ```ignore
/// gstest!(name, |dir: Dir, mut cmd: TestCommand| {
///     dir.create("a.txt", "foo\n");
///     eqnice!("foo\n", cmd.args(["foo", "a.txt"]).stdout());
/// });
/// ```
#[macro_export]
macro_rules! gstest {
    ($name:ident, |$dir:ident: $dir_ty:ty, $cmd:ident: $cmd_ty:ty| $body:block) => {
        #[allow(non_snake_case)]
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            fn run(engine: $crate::util::Engine) {
                let $dir: $dir_ty = $crate::util::Dir::new(stringify!($name), engine);
                #[allow(unused_mut, unused_variables)]
                let mut $cmd: $cmd_ty = $dir.command();
                $body
            }

            #[test]
            fn cpu() {
                run($crate::util::Engine::Cpu);
            }

            #[test]
            fn opencl() {
                if $crate::util::opencl_ready() {
                    run($crate::util::Engine::OpenCl);
                }
            }
        }
    };
}

/// Asserts that two strings (or byte strings) are equal, printing both with
/// a line diff when they are not.
#[macro_export]
macro_rules! eqnice {
    ($expected:expr, $got:expr) => {{
        let expected = $expected;
        let got = $got;
        $crate::util::assert_eq_nice(
            AsRef::<[u8]>::as_ref(&expected),
            AsRef::<[u8]>::as_ref(&got),
            "",
        );
    }};
    ($expected:expr, $got:expr, $($ctx:tt)+) => {{
        let expected = $expected;
        let got = $got;
        $crate::util::assert_eq_nice(
            AsRef::<[u8]>::as_ref(&expected),
            AsRef::<[u8]>::as_ref(&got),
            &format!($($ctx)+),
        );
    }};
}

/// Which matcher back end a generated test runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Cpu,
    OpenCl,
}

impl Engine {
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Cpu => "cpu",
            Engine::OpenCl => "opencl",
        }
    }
}

/// Decides whether an `opencl` variant runs: with no device it is skipped,
/// unless `GSEARCH_REQUIRE_OPENCL=1`, in which case it fails.
pub fn opencl_ready() -> bool {
    crate::common::have_device()
}

/// The binary under test: `GSEARCH_TEST_BIN` if set, else this crate's.
pub fn bin() -> PathBuf {
    match std::env::var_os("GSEARCH_TEST_BIN") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_BIN_EXE_gsearch")),
    }
}

/// The program name that prefixes error messages (`gsearch`, or `rg` when
/// the harness is pointed at ripgrep).
pub fn prog() -> String {
    bin().file_stem().unwrap().to_string_lossy().into_owned()
}

/// A temporary directory that a test populates and searches.
pub struct Dir {
    _tmp: tempfile::TempDir,
    /// An empty directory used as `XDG_CONFIG_HOME`, so that a user's
    /// global git excludes cannot leak into the results.
    _config: tempfile::TempDir,
    root: PathBuf,
    engine: Engine,
}

impl Dir {
    pub fn new(name: &str, engine: Engine) -> Dir {
        let tmp = tempfile::Builder::new()
            .prefix(&format!("gsearch-cli-{name}-{}-", engine.as_str()))
            .tempdir()
            .expect("create temp dir");
        let config = tempfile::Builder::new()
            .prefix("gsearch-cli-config-")
            .tempdir()
            .expect("create config dir");
        // Canonical, so that paths printed by the binary (e.g. with -L)
        // compare equal to paths we build.
        let root = tmp.path().canonicalize().unwrap();
        Dir {
            _tmp: tmp,
            _config: config,
            root,
            engine,
        }
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Creates a file (and its parent directories) holding `contents`.
    pub fn create(&self, name: impl AsRef<Path>, contents: &str) {
        self.create_bytes(name, contents.as_bytes());
    }

    pub fn create_bytes(&self, name: impl AsRef<Path>, contents: &[u8]) {
        let path = self.root.join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(&path, contents).unwrap();
    }

    pub fn create_dir(&self, name: impl AsRef<Path>) {
        fs::create_dir_all(self.root.join(name)).unwrap();
    }

    /// Makes the directory (root when `""`) a git repository as far as
    /// ignore rules are concerned: ripgrep honours `.gitignore` only inside
    /// one (unless `--no-require-git`).
    pub fn git_init(&self, name: impl AsRef<Path>) {
        self.create_dir(name.as_ref().join(".git"));
    }

    #[cfg(unix)]
    pub fn symlink(&self, target: impl AsRef<Path>, link: impl AsRef<Path>) {
        std::os::unix::fs::symlink(target.as_ref(), self.root.join(link)).unwrap();
    }

    /// A command running the binary under test in this directory, with
    /// this directory's engine selected and stdin null.
    pub fn command(&self) -> TestCommand {
        let mut cmd = Command::new(bin());
        cmd.current_dir(&self.root)
            .env("GSEARCH_ENGINE", self.engine.as_str())
            .env("XDG_CONFIG_HOME", self._config.path())
            .env_remove("RIPGREP_CONFIG_PATH")
            .env_remove("GSEARCH_CONFIG_PATH")
            .env_remove("GSEARCH_BATCH_BYTES")
            .env_remove("GSEARCH_REQUIRE_OPENCL")
            .env_remove("NO_COLOR")
            .env_remove("TERM")
            .stdin(Stdio::null());
        TestCommand {
            cmd,
            stdin: None,
            engine: self.engine,
        }
    }
}

/// A command under test; the methods mirror ripgrep's test harness.
pub struct TestCommand {
    cmd: Command,
    stdin: Option<Vec<u8>>,
    engine: Engine,
}

impl TestCommand {
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut TestCommand {
        self.cmd.arg(arg);
        self
    }

    pub fn args<I, A>(&mut self, args: I) -> &mut TestCommand
    where
        I: IntoIterator<Item = A>,
        A: AsRef<OsStr>,
    {
        self.cmd.args(args);
        self
    }

    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut TestCommand {
        self.cmd.current_dir(dir);
        self
    }

    /// Sends `input` on a pipe as the command's stdin.
    pub fn pipe(&mut self, input: impl AsRef<[u8]>) -> &mut TestCommand {
        self.stdin = Some(input.as_ref().to_vec());
        self.cmd.stdin(Stdio::piped());
        self
    }

    /// Opens `path` as the command's stdin (a regular file, not a pipe).
    pub fn stdin_file(&mut self, path: impl AsRef<Path>) -> &mut TestCommand {
        self.cmd.stdin(fs::File::open(path).unwrap());
        self
    }

    /// On the OpenCL engine, makes batches tiny (4 KiB) so that inputs
    /// cross batch boundaries; a no-op on the CPU engine.
    pub fn small_batches(&mut self) -> &mut TestCommand {
        if self.engine == Engine::OpenCl {
            self.cmd.env("GSEARCH_BATCH_BYTES", "4096");
        }
        self
    }

    pub fn raw(&mut self) -> &mut Command {
        &mut self.cmd
    }

    /// Runs the command to completion.
    pub fn output(&mut self) -> process::Output {
        let mut child = self
            .cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", bin().display()));
        let writer = self.stdin.take().map(|input| {
            let mut stdin = child.stdin.take().unwrap();
            std::thread::spawn(move || {
                // The command may exit before reading everything (e.g. -q).
                let _ = stdin.write_all(&input);
            })
        });
        let out = child.wait_with_output().unwrap();
        if let Some(w) = writer {
            w.join().unwrap();
        }
        out
    }

    /// Runs the command, asserts exit status 0 and returns stdout.
    pub fn stdout(&mut self) -> String {
        let out = self.expect_code(0);
        String::from_utf8(out.stdout).expect("stdout is not UTF-8")
    }

    /// Runs the command, asserts it exits with `code`, returns the output.
    pub fn expect_code(&mut self, code: i32) -> process::Output {
        let out = self.output();
        if out.status.code() != Some(code) {
            panic!(
                "\n\nexpected exit status {code}, got {:?}\n\ncommand: {:?}\n\n\
                 stdout:\n{}\n\nstderr:\n{}\n",
                out.status.code(),
                self.cmd,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
            );
        }
        out
    }

    /// Runs the command and asserts the exit status and exact stdout.
    pub fn expect(&mut self, code: i32, stdout: impl AsRef<[u8]>) -> process::Output {
        let out = self.expect_code(code);
        assert_eq_nice(stdout.as_ref(), &out.stdout, &format!("{:?}", self.cmd));
        out
    }

    /// Asserts exit status 1 (no match) with empty stdout and stderr.
    pub fn assert_no_match(&mut self) {
        let out = self.expect(1, "");
        eqnice!("", out.stderr, "stderr");
    }

    /// Asserts exit status 2 and a stderr holding every one of `needles`.
    pub fn assert_error(&mut self, needles: &[&str]) -> process::Output {
        let out = self.expect_code(2);
        let err = String::from_utf8_lossy(&out.stderr);
        for needle in needles {
            assert!(err.contains(needle), "stderr lacks {needle:?}:\n{err}");
        }
        out
    }
}

/// Sorts the lines of `s` (keeping a trailing newline), for outputs whose
/// order depends on parallel traversal.
pub fn sort_lines(s: &str) -> String {
    let mut lines: Vec<&str> = s.lines().collect();
    lines.sort_unstable();
    let mut out = lines.join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// Reads `s` from the reader to the first `\n` inclusive.
pub fn read_line(r: &mut impl Read) -> Vec<u8> {
    let mut line = vec![];
    let mut b = [0u8];
    while r.read(&mut b).unwrap() == 1 {
        line.push(b[0]);
        if b[0] == b'\n' {
            break;
        }
    }
    line
}

/// Shows bytes as text, escaping what a terminal would not show.
fn show(bytes: &[u8]) -> String {
    let mut s = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' | '\t' => s.push(c),
                c if c.is_control() => s.push_str(&c.escape_default().to_string()),
                c => s.push(c),
            }
        }
        for b in chunk.invalid() {
            s.push_str(&format!("\\x{b:02X}"));
        }
    }
    s
}

/// Panics with a line diff (`-` expected, `+` got) when the two differ.
pub fn assert_eq_nice(expected: &[u8], got: &[u8], context: &str) {
    if expected == got {
        return;
    }
    let exp = show(expected);
    let got_s = show(got);
    let e: Vec<&str> = exp.split_inclusive('\n').collect();
    let g: Vec<&str> = got_s.split_inclusive('\n').collect();
    let mut diff = String::new();
    for line in line_diff(&e, &g) {
        diff.push_str(&line);
        if !line.ends_with('\n') {
            diff.push_str("⏎ (no newline)\n");
        }
    }
    panic!(
        "\n\noutputs differ {context}\n\n\
         ==== expected ====\n{exp}\n==== got ====\n{got_s}\n\
         ==== diff (-expected +got) ====\n{diff}\n"
    );
}

/// A longest-common-subsequence line diff; inputs here are small.
fn line_diff(a: &[&str], b: &[&str]) -> Vec<String> {
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, vec![]);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out.push(format!(" {}", a[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push(format!("+{}", b[j]));
            j += 1;
        } else {
            out.push(format!("-{}", a[i]));
            i += 1;
        }
    }
    out
}
