//! `--generate`: man page and shell completions, and the committed copies
//! under man/ and completions/ must equal what the binary generates.

use std::path::Path;

use crate::util::{Dir, TestCommand};

/// Each `--generate` kind, with the committed file that must match it.
const KINDS: &[(&str, &str)] = &[
    ("man", "man/gsearch.1"),
    ("complete-bash", "completions/gsearch.bash"),
    ("complete-zsh", "completions/_gsearch"),
    ("complete-fish", "completions/gsearch.fish"),
    ("complete-powershell", "completions/_gsearch.ps1"),
];

fn generate(dir: &Dir, kind: &str) -> Vec<u8> {
    let out = dir.command().args(["--generate", kind]).expect_code(0);
    assert!(!out.stdout.is_empty(), "--generate {kind} printed nothing");
    eqnice!("", out.stderr, "stderr of --generate {kind}");
    out.stdout
}

gstest!(generate_man, |dir: Dir, cmd: TestCommand| {
    let man = String::from_utf8(generate(&dir, "man")).unwrap();
    assert!(man.contains(".TH"), "not a man page:\n{man}");
    assert!(man.contains("gsearch"), "man page does not name gsearch");
});

gstest!(generate_completions, |dir: Dir, cmd: TestCommand| {
    for kind in [
        "complete-bash",
        "complete-zsh",
        "complete-fish",
        "complete-powershell",
    ] {
        let out = String::from_utf8(generate(&dir, kind)).unwrap();
        assert!(out.contains("gsearch"), "{kind} does not name gsearch");
        // Every completion script offers the long flags.
        assert!(out.contains("ignore-case"), "{kind} lacks --ignore-case");
    }
});

// --generate answers before anything else: no pattern, nothing searched.
gstest!(generate_needs_no_pattern, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    let out = cmd.args(["--generate", "complete-bash"]).expect_code(0);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("a.txt:fox"));
});

gstest!(generate_bogus, |dir: Dir, cmd: TestCommand| {
    let out = cmd.args(["--generate", "complete-tcsh"]).expect_code(2);
    eqnice!("", out.stdout);
    assert!(String::from_utf8_lossy(&out.stderr).contains("complete-tcsh"));
});

// The shipped copies are up to date.
gstest!(generated_files_not_stale, |dir: Dir, cmd: TestCommand| {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stale = vec![];
    for (kind, file) in KINDS {
        let generated = generate(&dir, kind);
        let committed = std::fs::read(root.join(file)).unwrap_or_default();
        if generated != committed {
            stale.push(*file);
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files: {stale:?}; regenerate them with `scripts/generate` \
         (it runs `gsearch --generate KIND` for each) and commit the result"
    );
});
