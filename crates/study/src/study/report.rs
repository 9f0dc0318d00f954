//! `report.md`: an article-ready account of one study run, built from its summary.

use driftlab_check::check::rules;
use driftlab_mutate::mutate;
use driftlab_plot::plot::count;
use driftlab_plot::plot::{DETECTION_CHART, DETECTION_MATRIX};
use driftlab_record::Summary;

mod metrics_table;
mod summary_table;
use metrics_table::metrics_table;
use summary_table::summary_table;

/// What the report needs besides the summary.
pub struct ReportContext<'a> {
    /// The command that reproduces the run (from the manifest).
    pub command: &'a str,
    /// sha256 of `rows.csv` (from the manifest); `None` when no rows were written.
    pub rows_sha256: Option<&'a str>,
    /// Where the study's METHOD.md and LIMITS.md live, if known.
    pub research_dir: Option<&'a str>,
    /// The text of LIMITS.md, if found.
    pub limits: Option<&'a str>,
    /// The rule set `@payload` and `@diff` stood for (from the manifest; empty: this build's
    /// newest).
    pub rule_set: &'a str,
}

/// A study's `report.md`, from its summary.
pub fn markdown(summary: &Summary, context: &ReportContext<'_>) -> String {
    let mut out = String::new();
    let title = summary.display_title();
    out.push_str(&format!("# {title}\n\nStudy `{}`.\n\n", summary.study));
    out.push_str(&format!("**Result.** {}\n\n", headline(summary)));

    out.push_str("## Detection by gate and mutation class\n\n");
    out.push_str(&summary_table(summary));
    out.push_str(&format!(
        "\n![Detection chart]({DETECTION_CHART}.svg)\n\n![Detection matrix]({DETECTION_MATRIX}.svg)\n\n\
         PNG versions: [`{DETECTION_CHART}.png`]({DETECTION_CHART}.png), \
         [`{DETECTION_MATRIX}.png`]({DETECTION_MATRIX}.png).\n\n{} `driftlab figures DIR --width 3.5in|7in --dpi N` redraws \
         them from summary.json.\n\n",
        driftlab_plot::plot::print_links_named(|print| {
            driftlab_plot::plot::study_file_names(summary, &[print])
        })
    ));

    if !summary.metrics.is_empty() {
        out.push_str(&metrics_table(summary));
    }
    if !summary.crashes.is_empty() {
        out.push_str("## Checker crashes\n\n");
        out.push_str(
            "Comparisons an external checker failed on (an error answer, an exit code outside its \
             mapping, or a signal). They count as not detected above; they are listed here so a \
             crash is never mistaken for a verdict.\n\n| gate | class | crashed |\n|---|---|---:|\n",
        );
        for c in &summary.crashes {
            out.push_str(&format!(
                "| `{}` | `{}` | {} |\n",
                c.gate, c.mutation, c.crashed
            ));
        }
        out.push('\n');
    }
    out.push_str("## Study\n\n");
    let changes = summary.totals.first().map_or(0, |t| t.total);
    let surfaces = if summary.bases.is_empty() {
        format!(
            "{} synthetic surfaces of {} tools",
            summary.surfaces, summary.tools
        )
    } else {
        format!(
            "{} surfaces drawn from {} real payloads ({})",
            summary.surfaces,
            summary.bases.len(),
            summary
                .bases
                .iter()
                .map(|b| format!("`{b}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    out.push_str(&format!(
        "- Seed `{}`; {surfaces}; {} mutation classes; {} injected changes (rows where the class \
         applied); an unchanged control per surface.\n",
        summary.seed,
        summary.mutations.len(),
        changes
    ));
    out.push_str("- Gates (a gate detects a candidate when any of its rules reports a finding):\n");
    for gate in &summary.gates {
        let what = match &gate.command {
            Some(command) => format!(
                "external checker `{}` (see docs/checker-protocol.md)",
                driftlab_report::report::escape::visible(&command.join(" "))
            ),
            None => grouped(&gate.rules, context.rule_set).join(" + "),
        };
        out.push_str(&format!("  - `{}` = {what}\n", gate.id));
    }
    out.push_str("- Rules:\n");
    let mut seen: Vec<String> = Vec::new();
    for rule in summary
        .gates
        .iter()
        .flat_map(|g| grouped(&g.rules, context.rule_set))
    {
        if seen.contains(&rule) {
            continue;
        }
        let text = match rule.as_str() {
            "`@payload`" => format!(
                "every payload rule of rule set {} ({}; see `driftlab rules`)",
                context.rule_set,
                group_ids(driftlab_check::check::RuleKind::Payload, context.rule_set).len()
            ),
            "`@diff`" => format!(
                "every diff rule of rule set {} ({}; see `driftlab rules`)",
                context.rule_set,
                group_ids(driftlab_check::check::RuleKind::Diff, context.rule_set).len()
            ),
            "`@tools`" => format!(
                "every payload and diff rule about tools alone, of rule set {} ({}; see `driftlab rules`, column part)",
                context.rule_set,
                driftlab_check::check::rules::sets::group("@tools", context.rule_set).map_or(0, |g| g.len())
            ),
            id => rules::by_id(id.trim_matches('`'))
                .map_or("(not in this build's registry)", |r| r.summary())
                .to_string(),
        };
        out.push_str(&format!("  - {rule}: {text}\n"));
        seen.push(rule);
    }
    out.push_str("- Mutation classes:\n");
    for class in &summary.mutations {
        match mutate::by_id(class) {
            Some(m) => out.push_str(&format!(
                "  - `{class}` ({}): {}. *Why {}:* {}\n",
                m.label().as_str(),
                m.summary(),
                m.label().as_str(),
                m.rationale()
            )),
            None => out.push_str(&format!("  - `{class}`: (not in this build's registry)\n")),
        }
    }

    out.push_str("\n## Method\n\n");
    let live = !summary.bases.is_empty() && summary.bases.iter().all(|b| b.starts_with("live:"));
    out.push_str(if live {
        "Each surface is the `tools/list` of a live server (surface i is server i mod n), captured \
         over stdio. Each mutation class, drawing the tool it touches from a stream of its own, is \
         applied on the wire by `driftlab wrap --drift CLASS` in front of the server, and the \
         candidate is what a client captures through it (checked to equal the mutation's bytes; \
         the control, captured through `wrap` without drift, to equal the server's own bytes). \
         Every candidate is read back through the same payload reader the CI gate uses, then \
         every gate's rules run on it. "
    } else if summary.bases.is_empty() {
        "Each surface is a `tools/list` result generated from its own ChaCha8 stream, derived from \
         the seed and the surface index. Each mutation class changes a copy of it, drawing the \
         tool it touches from a stream of its own. Every candidate is serialized to JSON bytes \
         and read back through the same payload reader the CI gate uses, then every gate's rules \
         run on it. "
    } else {
        "Each surface is a real `tools/list` payload, drawn from the bases with a ChaCha8 stream \
         derived from the seed and the surface index. Each mutation class changes a copy of it, \
         drawing the tool it touches from a stream of its own. Every candidate is serialized to \
         JSON bytes and read back through the same payload reader the CI gate uses, then every \
         gate's rules run on it. "
    });
    out.push_str(
        "One row per surface, class and gate goes to `rows.csv`, in surface order, identical at \
         any thread count.",
    );
    match context.research_dir {
        Some(dir) => out.push_str(&format!(" Every sampling step: `{dir}/METHOD.md`.\n\n")),
        None => out.push_str("\n\n"),
    }

    out.push_str("## Limits\n\n");
    // The command names the flags that overrode the spec; LIMITS.md was written for the spec.
    let overrides: Vec<&str> = ["--seed", "--surfaces", "--tools"]
        .into_iter()
        .filter(|flag| context.command.split(' ').any(|w| w == *flag))
        .collect();
    match context.limits {
        Some(_) if !overrides.is_empty() => out.push_str(&format!(
            "This run overrides the spec ({}: see Reproduce), so the study's LIMITS.md, written \
             for the spec as committed, is not copied here; read it beside the spec, minding the \
             overridden parameters.\n",
            overrides.join(", ")
        )),
        Some(text) => out.push_str(&strip_title(text)),
        None => out.push_str("No LIMITS.md was found for this study.\n"),
    }

    out.push_str("\n## Reproduce\n\n");
    out.push_str(&format!("```sh\n{}\n```\n\n", context.command));
    match context.rows_sha256 {
        Some(sha) => out.push_str(&format!(
            "`rows.csv` sha256: `{sha}` (from `manifest.json`, which also pins every other file \
             but `run.json`).\n"
        )),
        None => out.push_str(
            "`rows.csv` was not written (`--rows none`); `manifest.json` pins every other file \
             but `run.json`.\n",
        ),
    }
    out.push_str(
        "`run.json` records the code that wrote this folder (git commit, source hash) and when, \
         where and on how many threads it ran: it differs between reruns, so nothing pins it.\n",
    );
    out
}

/// One sentence: each gate's total, the classes it missed entirely, and the controls.
pub fn headline(summary: &Summary) -> String {
    if summary.has_harmless_classes() {
        return labelled_headline(summary);
    }
    let changes = summary.totals.first().map_or(0, |t| t.total);
    let per_gate: Vec<String> = summary
        .totals
        .iter()
        .map(|t| {
            format!(
                "`{}` detected {} ({})",
                t.gate,
                count(t.detected, t.total),
                driftlab_plot::plot::percent(t.rate)
            )
        })
        .collect();
    let mut sentence = format!(
        "Of {changes} injected contract changes, {}",
        join_and(&per_gate)
    );
    let mut missed = Vec::new();
    for gate in &summary.gates {
        let classes: Vec<String> = summary
            .cells
            .iter()
            .filter(|c| c.gate == gate.id && c.total > 0 && c.detected == 0)
            .map(|c| format!("`{}`", c.mutation))
            .collect();
        if !classes.is_empty() {
            missed.push(format!(
                "`{}` missed every {} change",
                gate.id,
                join_and(&classes)
            ));
        }
    }
    if !missed.is_empty() {
        sentence.push_str(&format!("; {}", join_and(&missed)));
    }
    let flagged: Vec<String> = summary
        .controls
        .iter()
        .filter(|c| c.false_positives > 0)
        .map(|c| format!("`{}` flagged {}", c.gate, count(c.false_positives, c.total)))
        .collect();
    let controls = summary.controls.first().map_or(0, |c| c.total);
    if flagged.is_empty() {
        sentence.push_str(&format!(
            "; no gate flagged any of the {controls} unchanged controls."
        ));
    } else {
        sentence.push_str(&format!(
            "; of the {controls} unchanged controls, {}.",
            join_and(&flagged)
        ));
    }
    sentence
}

/// The ids `@payload` or `@diff` stood for in rule set `set` (an unknown or empty set: this
/// build's).
fn group_ids(kind: driftlab_check::check::RuleKind, set: &str) -> Vec<&'static str> {
    rules::sets::of_kind_as_of(kind, set)
        .unwrap_or_else(|| rules::of_kind(kind))
        .iter()
        .map(|r| r.id())
        .collect()
}

/// A gate's rules as code spans, every payload rule written as `@payload` and every diff rule
/// as `@diff` when the gate has all of them (42 ids say less than two group names), and the
/// tool rules of both as `@tools`.
fn grouped(ids: &[String], set: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest: Vec<&str> = ids.iter().map(String::as_str).collect();
    for (name, kind) in [
        ("@payload", driftlab_check::check::RuleKind::Payload),
        ("@diff", driftlab_check::check::RuleKind::Diff),
    ] {
        let group = group_ids(kind, set);
        if !group.is_empty() && group.iter().all(|g| rest.contains(g)) {
            rest.retain(|r| !group.contains(r));
            out.push(format!("`{name}`"));
        }
    }
    // What is left may be the tool rules of both kinds (a gate that knows only tools/list).
    let tools: Vec<&str> = driftlab_check::check::rules::sets::group("@tools", set)
        .unwrap_or_default()
        .iter()
        .map(|r| r.id())
        .collect();
    if !tools.is_empty() && tools.iter().all(|g| rest.contains(g)) {
        rest.retain(|r| !tools.contains(r));
        out.push("`@tools`".into());
    }
    out.extend(rest.iter().map(|r| format!("`{r}`")));
    out
}

/// For a study with harmless classes: a few sentences that lead with recall on the changes a
/// gate should flag and the false-positive rate on the harmless ones (adding the two, as "all
/// classes" does, would let a gate that flags everything look good).
fn labelled_headline(summary: &Summary) -> String {
    let m = &summary.metrics;
    let positives = m
        .first()
        .map_or(0, |m| m.true_positives + m.false_negatives);
    let negatives = m
        .first()
        .map_or(0, |m| m.false_positives + m.true_negatives);
    let pct = |v: Option<f64>| driftlab_plot::plot::percent(v);
    let recall = |x: &driftlab_record::GateMetrics| x.recall.unwrap_or(0.0);
    let fpr = |x: &driftlab_record::GateMetrics| x.false_positive_rate.unwrap_or(1.0);
    let gates = |pick: &dyn Fn(&&driftlab_record::GateMetrics) -> bool| -> String {
        join_and(
            &m.iter()
                .filter(|x| pick(x))
                .map(|x| format!("`{}`", x.gate))
                .collect::<Vec<_>>(),
        )
    };
    let best_recall = m.iter().map(recall).fold(0.0, f64::max);
    let mut out = format!(
        "The study injected {positives} changes a gate should flag (breaking and dangerous) and \
         {negatives} harmless ones (compatible and benign). Highest recall: {} ({}).",
        gates(&|x| recall(x) == best_recall),
        pct(Some(best_recall))
    );
    let clean = gates(&|x| x.false_positives == 0);
    if clean.is_empty() {
        out.push_str(" Every gate flagged some harmless change.");
    } else {
        out.push_str(&format!(" No false positive on harmless changes: {clean}."));
    }
    // The gates that catch the most without crying wolf, and those that cry wolf most.
    let perfect = gates(&|x| recall(x) == 1.0 && x.false_positives == 0);
    if !perfect.is_empty() {
        out.push_str(&format!(
            " Both at once (every should-flag change, no harmless one): {perfect}."
        ));
    }
    let worst_fpr = m.iter().map(fpr).fold(0.0, f64::max);
    if worst_fpr > 0.0 {
        out.push_str(&format!(
            " Most false positives: {} (flags {} of harmless changes).",
            gates(&|x| fpr(x) == worst_fpr),
            pct(Some(worst_fpr))
        ));
    }
    let never: Vec<String> = summary
        .mutations
        .iter()
        .filter(|class| {
            let should = summary.labels.iter().any(|l| {
                &l.mutation == *class
                    && matches!(
                        l.label,
                        driftlab_mutate::mutate::Label::Breaking
                            | driftlab_mutate::mutate::Label::Dangerous
                    )
            });
            should
                && summary
                    .cells
                    .iter()
                    .filter(|c| &c.mutation == *class && c.total > 0)
                    .all(|c| c.detected == 0)
        })
        .map(|c| format!("`{c}`"))
        .collect();
    if !never.is_empty() {
        out.push_str(&format!(" No gate detects {}.", join_and(&never)));
    }
    out
}

fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Drops a leading `# Title` line so the text nests under the report's own heading.
fn strip_title(text: &str) -> String {
    let body = match text.strip_prefix('#') {
        Some(rest) if !rest.starts_with('#') => rest.split_once('\n').map_or("", |(_, b)| b),
        _ => text,
    };
    let mut body = body.trim().to_string();
    body.push('\n');
    body
}

#[cfg(test)]
mod tests;
