//! `driftlab derived`: the parts of the documentation that are derived from the code and from
//! the committed results, rewritten (`--write`, what `scripts/regenerate` runs) or checked
//! (`--check`, what a test runs). A derived region opens with a comment naming its source and
//! closes at the next `<!-- end -->`:
//!
//! - `<!-- driftlab ARGS -->`: what `driftlab ARGS` prints (the rule and class tables);
//! - `<!-- derived example ARGS -->`: a fenced block of `$ driftlab ARGS` and what it prints, a
//!   verdict of DRIFT (exit 1) included: an example in the docs that cannot go stale;
//! - `<!-- derived count mutations|rules [KEY=VALUE]… -->`: how many registered classes (the
//!   control left out) or rules match, by `part` and `label`, or `kind` and `part`;
//! - `<!-- derived metrics FILE -->`: a study's `metrics.csv` as a table;
//! - `<!-- derived table FILE "HEADING" -->`: the first table under that heading line of FILE;
//! - `<!-- derived clients -->`: every client whose config is read, by name ("A, B and C");
//! - `<!-- derived json FILE POINTER -->`: the number or string at a JSON pointer of a results
//!   file (a census's `summary.json` `/pairs_breaking`). Point at named members only: an index
//!   would name another entry, silently, once the entries move.
//!
//! A region whose opening comment ends its line is a block (its text ends with a newline);
//! otherwise it is inline, inside a sentence.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use driftlab_check::check::rules;
use driftlab_mutate::mutate;

/// Rewrite (or check) every derived region of the documentation.
#[derive(clap::Args)]
pub struct Args {
    /// Change nothing: exit 1 naming the first stale region and its first differing line.
    #[arg(long)]
    check: bool,
    /// The checkout whose documents to read.
    #[arg(long, default_value = ".")]
    root: PathBuf,
}

/// The documents that hold derived regions: the README, CONTRIBUTING, `docs/` and every
/// study's METHOD and LIMITS.
fn documents(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    for folder in ["docs", "research"] {
        let mut pages = Vec::new();
        collect_markdown(&root.join(folder), &mut pages)?;
        pages.sort();
        found.extend(pages);
    }
    Ok(found)
}

fn collect_markdown(folder: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries =
        std::fs::read_dir(folder).with_context(|| format!("{}: cannot list", folder.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            collect_markdown(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let mut regions = 0;
    for page in documents(&args.root)? {
        let text = std::fs::read_to_string(&page)
            .with_context(|| format!("{}: cannot read", page.display()))?;
        let (derived, count) =
            derive(&text, &args.root).with_context(|| format!("{}", page.display()))?;
        regions += count;
        if derived == text {
            continue;
        }
        if args.check {
            let (line, was, now) = first_difference(&text, &derived);
            outln!(
                "{}:{line}: stale (run scripts/regenerate)\n  in the file: {was}\n  derived:     {now}",
                page.display()
            );
            return Ok(super::exit::DRIFT);
        }
        driftlab_contract::fs::write_atomic(&page, derived.as_bytes())
            .with_context(|| format!("{}: cannot write", page.display()))?;
        outln!("{}: rewritten", page.display());
    }
    outln!(
        "{regions} derived regions {}",
        if args.check { "up to date" } else { "written" }
    );
    Ok(super::exit::PASS)
}

/// `text` with every derived region rewritten, and how many there are.
fn derive(text: &str, root: &Path) -> anyhow::Result<(String, usize)> {
    const OPENERS: [&str; 2] = ["<!-- driftlab ", "<!-- derived "];
    const CLOSER: &str = "<!-- end -->";
    let (mut out, mut rest, mut count) = (String::new(), text, 0);
    while let Some(start) = next_opener(rest, &OPENERS) {
        let open_end = start
            + rest[start..]
                .find(" -->")
                .context("a derived region's opening comment has no end")?
            + " -->".len();
        let opener = &rest[start + "<!-- ".len()..open_end - " -->".len()];
        let block = rest[open_end..].starts_with('\n');
        let body_start = open_end + usize::from(block);
        let body_end = body_start
            + rest[body_start..]
                .find(CLOSER)
                .with_context(|| format!("`{opener}`: no {CLOSER} after it"))?;
        let line = text[..text.len() - rest.len() + start].lines().count() + 1;
        let mut body = source(opener, root).with_context(|| format!("line {line}: `{opener}`"))?;
        if block && !body.ends_with('\n') {
            body.push('\n');
        }
        if !block {
            body = body.trim().to_string();
        }
        out.push_str(&rest[..body_start]);
        out.push_str(&body);
        out.push_str(CLOSER);
        rest = &rest[body_end + CLOSER.len()..];
        count += 1;
    }
    out.push_str(rest);
    Ok((out, count))
}

/// Where the next region opens in `text`: an opener not quoted in a code span (one right
/// after a backtick is the syntax being described, as in CONTRIBUTING).
fn next_opener(text: &str, openers: &[&str]) -> Option<usize> {
    openers
        .iter()
        .filter_map(|opener| {
            text.match_indices(opener)
                .map(|(at, _)| at)
                .find(|&at| !text[..at].ends_with('`'))
        })
        .min()
}

/// What the region opened by `opener` (`driftlab …` or `derived …`) holds now.
fn source(opener: &str, root: &Path) -> anyhow::Result<String> {
    let words = split_words(opener)?;
    match words
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["driftlab", args @ ..] => driftlab_output(args, root, false),
        ["derived", "example", args @ ..] => Ok(format!(
            "```\n$ driftlab {}\n{}```",
            args.join(" "),
            driftlab_output(args, root, true)?
        )),
        ["derived", "count", what, filters @ ..] => count(what, filters).map(|n| n.to_string()),
        ["derived", "metrics", file] => metrics_table(&root.join(file)),
        ["derived", "table", file, heading] => table_under(&root.join(file), heading),
        ["derived", "clients"] => Ok(driftlab_lock::config::names_in_prose()),
        ["derived", "json", file, pointer] => json_value(&root.join(file), pointer),
        _ => bail!("unknown derived source (see `driftlab derived --help`)"),
    }
}

/// Words split at spaces, a `"quoted phrase"` being one word.
fn split_words(text: &str) -> anyhow::Result<Vec<String>> {
    let mut words = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted.find('"').context("an unclosed quote")?;
            words.push(quoted[..end].to_string());
            rest = quoted[end + 1..].trim_start();
        } else {
            let end = rest.find(' ').unwrap_or(rest.len());
            words.push(rest[..end].to_string());
            rest = rest[end..].trim_start();
        }
    }
    Ok(words)
}

/// What `driftlab ARGS` prints, run from `root` (this same binary), with none of the CI
/// variables that add to a gate's output; a gate's DRIFT (exit 1) is output too where
/// `verdict` says so.
fn driftlab_output(args: &[&str], root: &Path, verdict: bool) -> anyhow::Result<String> {
    let output = std::process::Command::new(std::env::current_exe()?)
        .args(args)
        .current_dir(root)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_OUTPUT")
        .env_remove("GITHUB_WORKSPACE")
        .output()?;
    let drift = verdict && output.status.code() == Some(super::exit::DRIFT.into());
    if !output.status.success() && !drift {
        bail!(
            "exit {:?}: {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8(output.stdout)?)
}

/// How many registered mutation classes (the control left out) or rules match every
/// `KEY=VALUE` filter.
fn count(what: &str, filters: &[&str]) -> anyhow::Result<usize> {
    let filters: Vec<(&str, &str)> = filters
        .iter()
        .map(|f| f.split_once('=').context("a filter is KEY=VALUE"))
        .collect::<anyhow::Result<_>>()?;
    let known: &[&str] = match what {
        "mutations" => &["part", "label"],
        "rules" => &["kind", "part"],
        _ => bail!("count mutations or rules, not {what}"),
    };
    if let Some((key, _)) = filters.iter().find(|(key, _)| !known.contains(key)) {
        bail!("{what} are counted by {}, not {key}", known.join(" or "));
    }
    let matches =
        |field: &dyn Fn(&str) -> String| filters.iter().all(|(key, value)| field(key) == *value);
    Ok(match what {
        "mutations" => mutate::REGISTRY
            .iter()
            .filter(|class| class.label() != mutate::Label::Control)
            .filter(|class| {
                matches(&|key| match key {
                    "part" => class.part().to_string(),
                    _ => class.label().as_str().to_string(),
                })
            })
            .count(),
        _ => rules::registry()
            .iter()
            .filter(|rule| {
                matches(&|key| match key {
                    "kind" => rule.kind().as_str().to_string(),
                    _ => rule.part().to_string(),
                })
            })
            .count(),
    })
}

/// A study's `metrics.csv` as the docs show it: gate, precision, recall, F1, FP rate and
/// mutation score, to three decimals.
fn metrics_table(file: &Path) -> anyhow::Result<String> {
    const COLUMNS: [(&str, &str); 5] = [
        ("precision", "precision"),
        ("recall", "recall"),
        ("f1", "F1"),
        ("false_positive_rate", "FP rate"),
        ("mutation_score", "mutation score"),
    ];
    let mut reader =
        csv::Reader::from_path(file).with_context(|| format!("{}: cannot read", file.display()))?;
    let headers = reader.headers()?.clone();
    let at = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .with_context(|| format!("{}: no column {name}", file.display()))
    };
    let gate = at("gate")?;
    let places: Vec<usize> = COLUMNS
        .iter()
        .map(|(c, _)| at(c))
        .collect::<Result<_, _>>()?;
    let mut table = String::from("| gate |");
    for (_, shown) in COLUMNS {
        table.push_str(&format!(" {shown} |"));
    }
    table.push_str("\n|---|");
    table.push_str(&"---:|".repeat(COLUMNS.len()));
    table.push('\n');
    for record in reader.records() {
        let record = record?;
        table.push_str(&format!("| `{}` |", &record[gate]));
        for &place in &places {
            let value: f64 = record[place].parse().with_context(|| {
                format!("{}: {:?} is not a number", file.display(), &record[place])
            })?;
            table.push_str(&format!(" {value:.3} |"));
        }
        table.push('\n');
    }
    Ok(table)
}

/// The first Markdown table after the line `heading` in `file`: its lines up to the first
/// line that is not a table row.
fn table_under(file: &Path, heading: &str) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("{}: cannot read", file.display()))?;
    let mut lines = text.lines().skip_while(|line| *line != heading);
    if lines.next().is_none() {
        bail!("{}: no line {heading:?}", file.display());
    }
    let table: Vec<&str> = lines
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .collect();
    if table.is_empty() {
        bail!("{}: no table under {heading:?}", file.display());
    }
    Ok(table.join("\n") + "\n")
}

/// The number or string at `pointer` in the JSON file `file`.
fn json_value(file: &Path, pointer: &str) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("{}: cannot read", file.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", file.display()))?;
    match value.pointer(pointer) {
        Some(serde_json::Value::String(text)) => Ok(text.clone()),
        Some(number @ serde_json::Value::Number(_)) => Ok(number.to_string()),
        Some(_) => bail!("{}: {pointer} is not a number or a string", file.display()),
        None => bail!("{}: nothing at {pointer}", file.display()),
    }
}

/// The first line where `was` and `now` differ: its number and both versions.
fn first_difference<'a>(was: &'a str, now: &'a str) -> (usize, &'a str, &'a str) {
    let at = driftlab_contract::text::first_differing_line(was, now).unwrap_or(was.lines().count());
    let line = |text: &'a str| text.lines().nth(at).unwrap_or("(end)");
    (at + 1, line(was), line(now))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn derived(text: &str) -> String {
        derive(text, Path::new(".")).unwrap().0
    }

    #[test]
    fn regions_are_rewritten_inline_and_as_blocks_and_the_rest_is_kept() {
        let tools = mutate::REGISTRY
            .iter()
            .filter(|c| c.part() == "tools" && c.label() != mutate::Label::Control)
            .count();
        let text =
            "We ask about <!-- derived count mutations part=tools -->7<!-- end --> classes.\n";
        assert_eq!(
            derived(text),
            format!("We ask about <!-- derived count mutations part=tools -->{tools}<!-- end --> classes.\n")
        );
        let breaking = "<!-- derived count mutations label=breaking part=tools -->";
        assert!(derived(&format!("{breaking}0<!-- end -->")).len() > breaking.len() + 12);
        // Text outside regions, and a document without any, are left as they are; so is the
        // syntax quoted in a code span.
        assert_eq!(derived("no regions here\n"), "no regions here\n");
        let quoted = "write `<!-- derived count rules -->` then `<!-- end -->`\n";
        assert_eq!(derived(quoted), quoted);
        let stale =
            derived("a\n<!-- derived count rules kind=study -->\nold\nlines\n<!-- end -->\nb\n");
        let studies = rules::registry()
            .iter()
            .filter(|r| r.kind() == driftlab_check::check::RuleKind::Study)
            .count();
        assert_eq!(
            stale,
            format!("a\n<!-- derived count rules kind=study -->\n{studies}\n<!-- end -->\nb\n")
        );
    }

    #[test]
    fn a_bad_region_is_an_error_that_names_it() {
        for (text, expected) in [
            (
                "<!-- derived count tables --><!-- end -->",
                "count mutations or rules",
            ),
            (
                "<!-- derived count rules label=x --><!-- end -->",
                "not label",
            ),
            ("<!-- derived count rules --> no end", "no <!-- end -->"),
            (
                "<!-- derived nonsense --><!-- end -->",
                "unknown derived source",
            ),
            (
                "<!-- derived table \"open --><!-- end -->",
                "unclosed quote",
            ),
        ] {
            let error = format!("{:#}", derive(text, Path::new(".")).unwrap_err());
            assert!(error.contains(expected), "{text}: {error}");
        }
    }

    #[test]
    fn the_first_difference_is_the_first_line_that_differs() {
        assert_eq!(first_difference("a\nb\nc", "a\nx\nc"), (2, "b", "x"));
        assert_eq!(first_difference("a", "a\nmore"), (2, "(end)", "more"));
    }

    #[test]
    fn a_json_region_reads_a_number_or_a_string_at_its_pointer_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("summary.json");
        std::fs::write(
            &file,
            r#"{"pairs": 109, "headline": "19 of 109", "by": {"a": 1}}"#,
        )
        .unwrap();
        assert_eq!(json_value(&file, "/pairs").unwrap(), "109");
        assert_eq!(json_value(&file, "/headline").unwrap(), "19 of 109");
        let object = json_value(&file, "/by").unwrap_err().to_string();
        assert!(object.contains("not a number or a string"), "{object}");
        let missing = json_value(&file, "/gone").unwrap_err().to_string();
        assert!(missing.contains("nothing at /gone"), "{missing}");
    }
}
