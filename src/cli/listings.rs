//! `driftlab rules` and `driftlab mutations`: what the registries hold.

use crate::check::rules::registry;
use crate::mutate::REGISTRY as MUTATIONS;

/// List every checker rule: id, kind (payload, diff, study), severity, what it reports.
#[derive(clap::Args)]
pub struct RulesArgs {
    /// Print a Markdown table (as in the README) instead of plain text.
    #[arg(long)]
    markdown: bool,
}

/// List every mutation class: id, expected label and what it changes.
#[derive(clap::Args)]
pub struct MutationsArgs {
    /// Print a Markdown table (as in the README) instead of plain text.
    #[arg(long)]
    markdown: bool,
}

pub fn rules(args: RulesArgs) -> anyhow::Result<u8> {
    out!("{}", rules_table(args.markdown));
    Ok(super::exit::PASS)
}

pub fn mutations(args: MutationsArgs) -> anyhow::Result<u8> {
    out!("{}", mutations_table(args.markdown));
    Ok(super::exit::PASS)
}

pub fn rules_table(markdown: bool) -> String {
    let rows: Vec<[&str; 4]> = registry()
        .iter()
        .map(|r| {
            [
                r.id(),
                r.kind().as_str(),
                r.severity().as_str(),
                r.summary(),
            ]
        })
        .collect();
    table(["rule", "kind", "severity", "reports"], &rows, markdown)
}

pub fn mutations_table(markdown: bool) -> String {
    let rows: Vec<[&str; 3]> = MUTATIONS
        .iter()
        .map(|m| [m.id(), m.label().as_str(), m.summary()])
        .collect();
    table(["mutation", "label", "changes"], &rows, markdown)
}

fn table<const N: usize>(header: [&str; N], rows: &[[&str; N]], markdown: bool) -> String {
    let mut out = String::new();
    if markdown {
        out.push_str(&format!("| {} |\n", header.join(" | ")));
        out.push_str(&format!("|{}\n", "---|".repeat(N)));
        for row in rows {
            let cells: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
            let first = format!("`{}`", cells[0]);
            let rest = &cells[1..];
            out.push_str(&format!("| {first} | {} |\n", rest.join(" | ")));
        }
        return out;
    }
    let widths: Vec<usize> = (0..N - 1)
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .chain([header[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in std::iter::once(&header).chain(rows) {
        for (c, cell) in row.iter().enumerate() {
            if c + 1 < N {
                out.push_str(&format!("{cell:<w$}  ", w = widths[c]));
            } else {
                out.push_str(cell);
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's tables are exactly what `driftlab rules/mutations --markdown` print.
    #[test]
    fn readme_tables_match_the_registries() {
        let readme = include_str!("../../README.md");
        for (marker, table) in [
            ("<!-- driftlab rules --markdown -->\n", rules_table(true)),
            (
                "<!-- driftlab mutations --markdown -->\n",
                mutations_table(true),
            ),
        ] {
            let start = readme.find(marker).expect("marker in README") + marker.len();
            let end = start + readme[start..].find("<!-- end -->").expect("end marker");
            assert_eq!(
                &readme[start..end],
                table,
                "README section after {marker:?} is stale: run scripts/update-readme-tables.sh"
            );
        }
    }
}
