//! `driftlab configs`: which MCP client configs this machine has, and their servers.

use std::path::PathBuf;

use anyhow::{anyhow, Result};

use driftlab_lock::config::discover::{self, Found};

/// List the MCP client configs found where clients keep them: the user's below the home folder,
/// in the folders this OS uses, and a project's (every client `driftlab clients` lists, with
/// where it keeps them). Each found file is read as
/// `lock --config` reads it, with its servers named; a file that cannot be read is listed as
/// skipped, with why. Nothing is started.
///
/// Exit codes: 0 listed, 2 no home folder.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    driftlab configs\n  \
    driftlab configs --project ~/src/app --all")]
pub struct Args {
    /// The home folder to look in [default: $HOME].
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// The project folder to look in [default: the current folder].
    #[arg(long, value_name = "DIR", default_value = ".")]
    project: PathBuf,
    /// Also list the places where no config was found.
    #[arg(long)]
    all: bool,
}

/// `--home`, else `$HOME`: where user configs are looked for.
pub(super) fn home_folder(flag: Option<PathBuf>) -> Result<PathBuf> {
    match flag {
        Some(home) => Ok(home),
        None => std::env::var_os("HOME")
            .map(PathBuf::from)
            .ok_or_else(|| anyhow!("no home folder: give --home DIR")),
    }
}

pub fn run(args: Args) -> Result<u8> {
    let home = home_folder(args.home)?;
    let env = |name: &str| std::env::var(name).ok();
    let mut found = 0;
    for place in discover::places(&home, &args.project) {
        let head = format!(
            "{:<15} {:<8} {}",
            place.client.as_str(),
            place.scope.as_str(),
            place.path.display()
        );
        match discover::look(&place, &args.project, &env) {
            Found::Missing if args.all => outln!("{head}: not found"),
            Found::Missing => {}
            Found::Skipped(why) => {
                found += 1;
                outln!(
                    "{}",
                    driftlab_contract::text::terminal_safe(&format!("{head}: skipped: {why}"))
                );
            }
            Found::Read(config) => {
                found += 1;
                let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
                let mut line = format!("{head}: {} server(s)", names.len());
                if !names.is_empty() {
                    line.push_str(&format!(": {}", names.join(", ")));
                }
                let others = discover::other_project_servers(&config, &args.project);
                if others > 0 {
                    line.push_str(&format!(
                        "; {others} other project(s) under `projects` have servers of their own \
                         (--project PATH reads them)"
                    ));
                }
                // Names come from a file anyone may have written: no byte of theirs redraws the line.
                outln!("{}", driftlab_contract::text::terminal_safe(&line));
            }
        }
    }
    eprintln!("driftlab: {found} config(s) found");
    Ok(super::exit::PASS)
}
