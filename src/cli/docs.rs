//! `driftlab completions SHELL` and `driftlab man`: shell completions and man pages generated
//! from the command line's own definition, so they cannot drift from it.

use std::path::PathBuf;

use super::exit;
use anyhow::{Context, Result};

/// Print a shell completion script to stdout.
///
/// bash: `driftlab completions bash > ~/.local/share/bash-completion/completions/driftlab`;
/// zsh: `driftlab completions zsh > "${fpath[1]}/_driftlab"`;
/// fish: `driftlab completions fish > ~/.config/fish/completions/driftlab.fish`.
#[derive(clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Write man pages: driftlab.1, and driftlab-COMMAND.1 for each command.
///
/// Read one without installing: `man -l man/driftlab-check.1`. Install: copy the folder's
/// files to a `man1` folder on your MANPATH (e.g. ~/.local/share/man/man1).
#[derive(clap::Args)]
pub struct ManArgs {
    /// Folder to write the pages into (created when missing).
    #[arg(short, long, default_value = "man")]
    out: PathBuf,
}

/// `command` is driftlab's whole command line, as the dispatcher defines it.
pub fn completions(args: CompletionsArgs, mut command: clap::Command) -> Result<u8> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "driftlab", &mut script);
    out!("{}", String::from_utf8_lossy(&script));
    Ok(exit::PASS)
}

/// `command` is driftlab's whole command line, as the dispatcher defines it.
pub fn man(args: ManArgs, command: clap::Command) -> Result<u8> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("{}: cannot create the folder", args.out.display()))?;
    let mut pages = vec![("driftlab".to_string(), command.clone())];
    for sub in command
        .get_subcommands()
        .filter(|s| s.get_name() != "help" && !s.is_hide_set())
    {
        let name = format!("driftlab-{}", sub.get_name());
        let page = sub
            .clone()
            .display_name(name.clone())
            .bin_name(format!("driftlab {}", sub.get_name()));
        pages.push((name, page));
    }
    for (name, page) in &pages {
        let mut roff = Vec::new();
        clap_mangen::Man::new(page.clone()).render(&mut roff)?;
        let path = args.out.join(format!("{name}.1"));
        driftlab_contract::fs::write_atomic(&path, &roff)
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    eprintln!(
        "driftlab man: wrote {} pages to {}",
        pages.len(),
        args.out.display()
    );
    Ok(exit::PASS)
}
