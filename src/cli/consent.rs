//! Consent before driftlab runs commands someone else wrote (a client config's servers, a
//! study spec's harnesses and servers): each is printed first, and a terminal is asked;
//! `--yes` consents up front; with neither (CI without `--yes`), nothing runs.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{bail, Result};

/// Prints `heading` and each line of what will run, then asks on a terminal (unless `yes`).
/// Without a terminal to ask, the error is `no_terminal` followed by "nothing was run".
pub fn ask(heading: &str, lines: &[String], yes: bool, no_terminal: &str) -> Result<()> {
    eprintln!("driftlab: {heading}:");
    for line in lines {
        eprintln!("  {line}");
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
