//! The command line: one file per subcommand. `main` maps outcomes to exit codes.

#[macro_use]
mod output;

mod anchor;
mod capture;
mod census;
mod check_lock;
mod configs;
mod consent;
mod derived;
mod digest;
mod docs;
mod figures;
mod gate;
mod generate;
mod guard;
mod guard_install;
mod guard_study;
mod listings;
mod live;
mod lock;
mod merge;
mod scan;
mod servers;
mod shard;
mod snapshot;
mod stack_study;
mod study;
mod study_folder;
mod sweep;
mod verify;
mod watch;
mod wrap;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

pub mod exit;

#[derive(Parser)]
#[command(
    name = "driftlab",
    version = env!("DRIFTLAB_LONG_VERSION"),
    about = "Research harness and CI gate for MCP tool-schema drift",
    long_about = "Research harness and CI gate for MCP tool-schema drift.\n\n\
        `driftlab check --approved approved.json candidate.json` gates a real tools/list \
        payload against an approved snapshot (`-- CMD…` instead of the file gates a live server; \
        `driftlab capture` records one); `driftlab study` reruns the published MCP \
        contract-drift study (240 surfaces x 5 mutations) and writes results/<study-id>/.",
    after_help = "Exit codes: 0 pass, 1 drift, 2 usage or unreadable input, 70 internal error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Capture(capture::Args),
    Check(gate::CheckArgs),
    Diff(gate::DiffArgs),
    Snapshot(snapshot::Args),
    Scan(scan::Args),
    Study(study::Args),
    Sweep(sweep::Args),
    Generate(generate::Args),
    Figures(figures::Args),
    Merge(merge::Args),
    Digest(digest::Args),
    Lock(lock::Args),
    Configs(configs::Args),
    Wrap(wrap::Args),
    Guard(guard::Args),
    GuardStudy(guard_study::Args),
    StackStudy(stack_study::Args),
    Census(census::Args),
    Watch(watch::Args),
    Verify(verify::Args),
    Rules(listings::RulesArgs),
    Mutations(listings::MutationsArgs),
    Clients(listings::ClientsArgs),
    /// Rewrite (or --check) the documentation's derived regions: tables and counts from the
    /// registries and the committed results (what scripts/regenerate runs after the studies)
    #[command(hide = true)]
    Derived(derived::Args),
    Completions(docs::CompletionsArgs),
    Man(docs::ManArgs),
}

/// Parses the command line, runs the command and returns its exit code.
pub fn main() -> ExitCode {
    ExitCode::from(run_from(std::env::args_os()))
}

/// Runs driftlab with `args` (the first is the program name) and returns the exit code; a usage
/// error prints clap's message and exits as clap does. The fuzz targets call this in-process.
pub fn run_from<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = Cli::parse_from(args);
    let result = std::panic::catch_unwind(|| match cli.command {
        Command::Capture(args) => capture::run(args),
        Command::Check(args) => match &args.lock {
            Some(lock) => check_lock::run(
                lock,
                args.config.as_deref(),
                &args.select,
                &args.server,
                &args.options,
            ),
            None => gate::check(args),
        },
        Command::Diff(args) => gate::diff(args),
        Command::Snapshot(args) => snapshot::run(args),
        Command::Scan(args) => scan::run(args),
        Command::Study(args) => study::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Figures(args) => figures::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Wrap(args) => wrap::run(args),
        Command::Guard(args) => guard::run(args),
        Command::GuardStudy(args) => guard_study::run(args),
        Command::StackStudy(args) => stack_study::run(args),
        Command::Census(args) => census::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Rules(args) => listings::rules(args),
        Command::Mutations(args) => listings::mutations(args),
        Command::Clients(args) => listings::clients(args),
        Command::Derived(args) => derived::run(args),
        Command::Completions(args) => docs::completions(args, Cli::command()),
        Command::Man(args) => docs::man(args, Cli::command()),
        Command::Digest(args) => digest::run(args),
        Command::Lock(args) => lock::run(args),
        Command::Configs(args) => configs::run(args),
    });
    match result {
        Ok(Ok(code)) => code,
        Ok(Err(_)) if driftlab_contract::cleanup::interrupted().is_some() => {
            // A signal ended the run (and its servers): that, not what followed, is the cause.
            let signal = driftlab_contract::cleanup::interrupted().unwrap_or(0);
            driftlab_contract::cleanup::report_interruption(signal) as u8
        }
        Ok(Err(error)) => {
            eprintln!(
                "driftlab: {}",
                driftlab_contract::text::with_causes(error.as_ref())
            );
            let internal = error.chain().any(|cause| {
                cause.is::<exit::Internal>()
                    || cause
                        .downcast_ref::<driftlab_study::study::runner::RunError>()
                        .is_some_and(driftlab_study::study::runner::RunError::is_defect)
            });
            if internal {
                exit::INTERNAL
            } else {
                exit::USAGE
            }
        }
        // The panic message has already been printed by the default hook.
        Err(_) => exit::INTERNAL,
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    /// Shell words of one example line: whitespace-separated, quotes kept together.
    fn words(line: &str) -> Vec<String> {
        let (mut out, mut word, mut quote) = (Vec::new(), String::new(), None);
        for c in line.chars() {
            match c {
                '\'' | '"' if quote.is_none() => quote = Some(c),
                c if quote == Some(c) => quote = None,
                c if c.is_whitespace() && quote.is_none() => {
                    if !word.is_empty() {
                        out.push(std::mem::take(&mut word));
                    }
                }
                c => word.push(c),
            }
        }
        out.extend((!word.is_empty()).then_some(word));
        out
    }

    #[test]
    fn every_help_example_is_a_line_of_its_own_that_parses() {
        let mut cli = super::Cli::command();
        let names: Vec<String> = cli
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        let mut commands_with_examples = 0;
        for name in names {
            let Some(sub) = cli.find_subcommand_mut(&name) else {
                continue;
            };
            let help = sub.render_long_help().to_string();
            let Some((_, examples)) = help.split_once("Examples:") else {
                continue;
            };
            commands_with_examples += 1;
            // The block: the lines after the heading, up to the first blank one.
            let lines: Vec<&str> = examples
                .lines()
                .skip(1)
                .map(str::trim)
                .take_while(|l| !l.is_empty())
                .collect();
            assert!(lines.len() >= 2, "{name}: examples run together: {lines:?}");
            for line in lines {
                assert!(
                    line.starts_with("driftlab ") && !line.contains("\\n"),
                    "{name}: {line:?}"
                );
                if let Err(e) = super::Cli::try_parse_from(words(line)) {
                    panic!("{name}: the example {line:?} does not parse: {e}");
                }
            }
        }
        assert!(commands_with_examples >= 6, "{commands_with_examples}");
    }

    /// The `driftlab …` command lines of a Markdown text's code blocks: continuation lines
    /// joined, a leading `$ ` dropped, cut before a pipe, a redirection, `&&` or a comment.
    fn documented_commands(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut in_code = false;
        let mut pending = String::new();
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
                continue;
            }
            if !in_code {
                continue;
            }
            let line = line.trim();
            let line = line.strip_prefix("$ ").unwrap_or(line);
            if pending.is_empty() && !line.starts_with("driftlab ") {
                continue;
            }
            match line.strip_suffix('\\') {
                Some(start) => pending.push_str(start),
                None => {
                    pending.push_str(line);
                    let mut command = std::mem::take(&mut pending);
                    for cut in [" | ", " > ", " 2>", " >>", " && ", " # ", "; "] {
                        if let Some(at) = command.find(cut) {
                            command.truncate(at);
                        }
                    }
                    out.push(shell_values(&command));
                }
            }
        }
        out
    }

    /// `${VAR}` and `$((…))` stand for a value the shell fills in: 1 here.
    fn shell_values(command: &str) -> String {
        let mut out = String::new();
        let mut rest = command;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let tail = &rest[at..];
            let end = if tail.starts_with("$((") {
                tail.find("))").map(|e| e + 2)
            } else if tail.starts_with("${") {
                tail.find('}').map(|e| e + 1)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.push('1');
                    rest = &tail[end..];
                }
                None => {
                    out.push('$');
                    rest = &tail[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn every_driftlab_command_in_the_readme_and_docs_parses() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut pages = vec![root.join("README.md")];
        let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        docs.sort();
        pages.extend(docs);
        let mut checked = 0;
        let mut failures = Vec::new();
        for page in &pages {
            let text = std::fs::read_to_string(page).unwrap();
            for command in documented_commands(&text) {
                checked += 1;
                if let Err(e) = super::Cli::try_parse_from(words(&command)) {
                    let first = e.to_string().lines().next().unwrap_or_default().to_string();
                    failures.push(format!("{}: {command}\n    {first}", page.display()));
                }
            }
        }
        assert!(checked > 40, "only {checked} documented commands found");
        assert!(
            failures.is_empty(),
            "documented commands that do not parse:\n{}",
            failures.join("\n")
        );
    }
}
