//! `driftlab rules`, `driftlab mutations` and `driftlab clients`: what the registries hold.

use driftlab_report::report::listing::{self, ListFormat};

/// The format flags every listing takes.
#[derive(clap::Args)]
pub struct ListOptions {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    format: ListFormat,
    /// Same as --format markdown (kept for scripts that use it).
    #[arg(long, conflicts_with = "format")]
    markdown: bool,
}

impl ListOptions {
    fn format(&self) -> ListFormat {
        if self.markdown {
            ListFormat::Markdown
        } else {
            self.format
        }
    }
}

/// List every checker rule: id, kind (payload, diff, study), the part of the contract it looks at
/// (tools, prompts, resources, server), severity, the rule set it was added in (`since`: a study
/// spec's `rule_set` pins `@payload`/`@diff` to the rules up to it), the protocol versions it
/// applies to (`era`), its source (JSON and sections only) and what it reports.
#[derive(clap::Args)]
#[command(
    after_help = "A diff rule about what a schema accepts (parameter-removed, type-narrowed, \
constraint-tightened, the output-* rules, ...) reports `breaking` only with a witness: a value \
valid under the approved input schema and invalid under the candidate's (outputs: the mirror), \
found by a seeded search, checked with a JSON Schema validator and carried in the finding's JSON \
as `witness`. Without one the finding is `unknown` and says why. See docs/rules.md."
)]
pub struct RulesArgs {
    #[command(flatten)]
    options: ListOptions,
}

/// List every mutation class: id, expected label and what it changes.
#[derive(clap::Args)]
pub struct MutationsArgs {
    #[command(flatten)]
    options: ListOptions,
}

/// List every MCP client whose config driftlab reads (`lock --config`, `configs`, `lock
/// --discover`, `guard install`): its name, its `--client` value, where it keeps its config
/// for the user (`~/` the home folder; `@/` the OS's settings folder: `~/Library/Application
/// Support` on macOS, `~/.config` elsewhere) and for a project, the file names that say a file
/// is its, where its servers are in the file and which variables are expanded.
#[derive(clap::Args)]
pub struct ClientsArgs {
    #[command(flatten)]
    options: ListOptions,
}

pub fn rules(args: RulesArgs) -> anyhow::Result<u8> {
    out!("{}", listing::rules(args.options.format()));
    Ok(super::exit::PASS)
}

pub fn mutations(args: MutationsArgs) -> anyhow::Result<u8> {
    let rows = driftlab_mutate::mutate::listing_rows();
    let columns = driftlab_mutate::mutate::LISTING_COLUMNS;
    out!(
        "{}",
        listing::listing(columns, &rows, args.options.format())
    );
    Ok(super::exit::PASS)
}

pub fn clients(args: ClientsArgs) -> anyhow::Result<u8> {
    let rows = driftlab_lock::config::listing_rows();
    let rows: Vec<[&str; 7]> = rows
        .iter()
        .map(|row| row.each_ref().map(String::as_str))
        .collect();
    let columns = driftlab_lock::config::LISTING_COLUMNS;
    out!(
        "{}",
        listing::listing(columns, &rows, args.options.format())
    );
    Ok(super::exit::PASS)
}
