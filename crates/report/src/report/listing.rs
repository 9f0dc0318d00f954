//! What the registries hold, as text: the rule listing of `driftlab rules` in every format, any
//! other registry's rows (`driftlab mutations`, `driftlab clients`) through [`listing`], and the
//! tables and sections of the docs.

use driftlab_check::check::rules::registry;

/// How a listing is printed.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    /// aligned columns
    Text,
    /// a Markdown table, as in docs/checkers.md and docs/study.md
    Markdown,
    /// a JSON array of objects, one per entry, keyed by the column names
    Json,
    /// a Markdown section per entry (its heading is the id, a stable link anchor), as in
    /// docs/rules.md
    Sections,
}

/// Every rule, one entry each.
pub fn rules(format: ListFormat) -> String {
    listing(RULE_COLUMNS, &rule_rows(), format)
}

pub(crate) const RULE_COLUMNS: [&str; 8] = [
    "rule", "kind", "part", "severity", "since", "era", "source", "reports",
];
/// Columns the tables leave out (too long for a row); JSON and sections keep them.
const NOT_IN_TABLES: &[&str] = &["source"];

fn rule_rows() -> Vec<[&'static str; 8]> {
    registry()
        .iter()
        .map(|r| {
            [
                r.id(),
                r.kind().as_str(),
                r.part(),
                r.severity().as_str(),
                driftlab_check::check::rules::sets::added_in(r.id()).unwrap_or("?"),
                r.era(),
                r.source(),
                r.summary(),
            ]
        })
        .collect()
}

/// Any registry's entries as a listing: `header` names the columns, each row one entry.
pub fn listing<const N: usize>(
    header: [&str; N],
    rows: &[[&str; N]],
    format: ListFormat,
) -> String {
    match format {
        ListFormat::Text => table(header, rows, false),
        ListFormat::Markdown => table(header, rows, true),
        ListFormat::Sections => sections(header, rows),
        ListFormat::Json => {
            let entries: Vec<serde_json::Map<String, serde_json::Value>> = rows
                .iter()
                .map(|row| {
                    header
                        .iter()
                        .zip(row)
                        .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
                        .collect()
                })
                .collect();
            let mut text = serde_json::to_string_pretty(&entries).unwrap_or_default();
            text.push('\n');
            text
        }
    }
}

/// `## id`, the last column as prose, the others as a list.
fn sections<const N: usize>(header: [&str; N], rows: &[[&str; N]]) -> String {
    let mut out = String::new();
    for row in rows {
        out.push_str(&format!("\n## {}\n\n{}\n\n", row[0], row[N - 1]));
        for (name, value) in header.iter().zip(row).take(N - 1).skip(1) {
            out.push_str(&format!("- {name}: `{value}`\n"));
        }
    }
    out
}

fn table<const N: usize>(header: [&str; N], rows: &[[&str; N]], markdown: bool) -> String {
    let shown: Vec<usize> = (0..N)
        .filter(|c| !NOT_IN_TABLES.contains(&header[*c]))
        .collect();
    let pick =
        |row: &[&str; N]| -> Vec<String> { shown.iter().map(|&c| row[c].to_string()).collect() };
    let header = pick(&header);
    let rows: Vec<Vec<String>> = rows.iter().map(pick).collect();
    let n = header.len();
    let mut out = String::new();
    if markdown {
        out.push_str(&format!("| {} |\n", header.join(" | ")));
        out.push_str(&format!("|{}\n", "---|".repeat(n)));
        for row in &rows {
            let cells: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
            let first = format!("`{}`", cells[0]);
            let rest = &cells[1..];
            out.push_str(&format!("| {first} | {} |\n", rest.join(" | ")));
        }
        return out;
    }
    let widths: Vec<usize> = (0..n - 1)
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .chain([header[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in std::iter::once(&header).chain(&rows) {
        for (c, cell) in row.iter().enumerate() {
            if c + 1 < n {
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

    /// docs/rules.md (where SARIF's `helpUri` points) is what `driftlab rules --format sections`
    /// prints, after its introduction.
    #[test]
    fn the_rules_page_matches_the_registry() {
        let page = include_str!("../../../../docs/rules.md");
        let listed = listing(RULE_COLUMNS, &rule_rows(), ListFormat::Sections);
        assert!(
            page.ends_with(&format!("{listed}<!-- end -->\n")),
            "docs/rules.md is stale: run scripts/regenerate"
        );
    }

    /// docs/checkers.md's table is exactly what `driftlab rules --markdown` prints
    /// (docs/study.md's mutation table is held by `tests/it/study.rs`).
    #[test]
    fn the_checkers_table_matches_the_registry() {
        let text = include_str!("../../../../docs/checkers.md");
        let marker = "<!-- driftlab rules --markdown -->\n";
        let start = text.find(marker).expect("marker in the page") + marker.len();
        let end = start + text[start..].find("<!-- end -->").expect("end marker");
        assert_eq!(
            &text[start..end],
            listing(RULE_COLUMNS, &rule_rows(), ListFormat::Markdown),
            "docs/checkers.md: the rules table is stale: run scripts/regenerate"
        );
    }

    #[test]
    fn json_listings_have_one_object_per_entry_keyed_by_column() {
        let json: serde_json::Value =
            serde_json::from_str(&listing(RULE_COLUMNS, &rule_rows(), ListFormat::Json)).unwrap();
        let entries = json.as_array().unwrap();
        assert_eq!(entries.len(), registry().len());
        assert_eq!(entries[0]["rule"], registry()[0].id());
        assert_eq!(entries[0]["since"], "2026-11-30");
    }
}
