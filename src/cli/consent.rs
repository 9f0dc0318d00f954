//! Consent before driftlab runs commands someone else wrote (a client config's servers, a
//! study spec's harnesses and servers): each is printed first, and a terminal is asked;
//! `--yes` consents up front; with neither (CI without `--yes`), nothing runs.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use anyhow::{bail, Result};

use driftlab_contract::text::terminal_safe;

/// Prints `heading` and each line of what will run, then asks on a terminal (unless `yes`).
/// Control bytes are shown escaped (`\r`, `\x1b`), so an argument cannot redraw the line to
/// show a harmless command instead of the one that runs. Without a terminal to ask, the error
/// is `no_terminal` followed by "nothing was run".
pub fn ask(heading: &str, lines: &[String], yes: bool, no_terminal: &str) -> Result<()> {
    eprintln!("driftlab: {}:", terminal_safe(heading));
    for line in lines {
        eprintln!("  {}", terminal_safe(line));
    }
    if yes {
        return Ok(());
    }
    if !std::io::stdin().is_terminal() {
        bail!("{no_terminal}; nothing was run");
    }
    eprint!("Run them? [y/N] ");
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    match answer.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Ok(()),
        _ => bail!("not confirmed; nothing was run"),
    }
}

/// [`ask`] for a study spec's commands (run in `dir`): a spec from a cloned repository is as
/// untrusted as its `mcp.json`.
pub fn spec(spec: &Path, dir: &Path, commands: &[String], yes: bool) -> Result<()> {
    ask(
        &format!(
            "about to run the commands of {} (in {})",
            spec.display(),
            dir.display()
        ),
        commands,
        yes,
        "a spec's commands run other people's code: give --yes to allow it where no terminal \
         can ask (CI)",
    )
}
