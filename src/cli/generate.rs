//! `--generate`: the man page and shell completions, from the clap
//! definition in `cli/args.rs` (the committed copies in `man/` and
//! `completions/` are checked against this output by a test).

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::{Cli, GenerateArg};

/// The text `--generate KIND` prints.
pub fn generate(kind: GenerateArg) -> anyhow::Result<Vec<u8>> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    match kind {
        GenerateArg::Man => clap_mangen::Man::new(cmd).render(&mut out)?,
        GenerateArg::CompleteBash => complete(Shell::Bash, &mut cmd, &mut out),
        GenerateArg::CompleteZsh => complete(Shell::Zsh, &mut cmd, &mut out),
        GenerateArg::CompleteFish => complete(Shell::Fish, &mut cmd, &mut out),
        GenerateArg::CompletePowershell => complete(Shell::PowerShell, &mut cmd, &mut out),
    }
    Ok(out)
}

fn complete(shell: Shell, cmd: &mut clap::Command, out: &mut Vec<u8>) {
    clap_complete::generate(shell, cmd, "gsearch", out);
}
