//! Criterion benches: the generator, every mutation class and every rule (driven from the
//! registries, so a new class or rule is benched without new code), the JSON round trip, the
//! study's hot path stage by stage, and a whole study. Run: `cargo bench`; CI runs each once
//! with `cargo bench -- --test`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use driftlab_check::check::{rules, Comparison};
use driftlab_contract::payload::{self, Limits};
use driftlab_mutate::{generate, mutate};
use driftlab_study::study::{self, Study};
// The hand-written rules join the registry when the crate is linked: naming it links it.
use driftlab_rules as _;
use serde_json::Value;

/// A real 14-tool payload with input and output schemas, from the test data.
const LARGE: &[u8] =
    include_bytes!("../tests/data/corpus/@modelcontextprotocol__server-filesystem@2026.8.31.json");

fn generator(c: &mut Criterion) {
    c.bench_function("generate/3-tools", |b| {
        let mut i = 0;
        b.iter(|| {
            i += 1;
            black_box(generate::surface(20260822, i, 3))
        })
    });
    // As the study runner generates a base: drawn, then written straight to bytes.
    c.bench_function("generate/3-tools-written", |b| {
        let mut i = 0;
        b.iter(|| {
            i += 1;
            let plan = generate::plan(20260822, i, 3);
            black_box(driftlab_study::study::splice::Base::generated(plan))
        })
    });
    c.bench_function("generate/100-tools", |b| {
        b.iter(|| black_box(generate::surface(20260822, 7, 100)))
    });
}

fn mutations(c: &mut Criterion) {
    let base = generate::surface(20260822, 3, 3);
    for class in mutate::REGISTRY {
        c.bench_function(&format!("mutate/{}", class.id()), |b| {
            b.iter_batched(
                || base.clone(),
                |mut surface| {
                    let mut rng = mutate::stream(20260822, *class, 3);
                    black_box(class.apply(&mut surface, &mut rng)).ok();
                    surface
                },
                BatchSize::SmallInput,
            )
        });
    }
}

fn round_trip(c: &mut Criterion) {
    let small = generate::surface(20260822, 3, 3);
    c.bench_function("json/serialize+parse/3-tools", |b| {
        b.iter(|| {
            let bytes = serde_json::to_vec(black_box(&small)).unwrap();
            black_box(payload::read(&bytes, "bench", Limits::default()).unwrap())
        })
    });
    c.bench_function("json/parse/filesystem-14-tools", |b| {
        b.iter(|| black_box(payload::read(black_box(LARGE), "bench", Limits::default()).unwrap()))
    });
}

fn checks(c: &mut Criterion) {
    let small_old = surface(&generate::surface(20260822, 3, 3));
    let mut changed = generate::surface(20260822, 3, 3);
    let name_space = mutate::by_id("name-space").unwrap();
    name_space
        .apply(&mut changed, &mut mutate::stream(1, name_space, 0))
        .ok();
    let small_new = surface(&changed);
    let large_old = payload::read(LARGE, "large", Limits::default()).unwrap();
    let large_new = payload::read(
        include_bytes!("../tests/data/corpus/@modelcontextprotocol__server-filesystem@2025.8.21+pinned-zod.json"),
        "large",
        Limits::default(),
    )
    .unwrap();
    for rule in rules::registry() {
        for (size, old, new) in [
            ("small", &small_old, &small_new),
            ("large", &large_new, &large_old),
        ] {
            c.bench_function(&format!("rule/{}/{size}", rule.id()), |b| {
                b.iter(|| {
                    // A fresh comparison per iteration: diff rules include the engine's walk.
                    let comparison = Comparison::new(old, new);
                    let mut out = Vec::new();
                    rule.check(&comparison, &mut out);
                    black_box(out)
                })
            });
        }
    }
}

/// The study's hot path for one candidate of the published study, stage by stage: the base's
/// bytes (serialized once per surface; `+copy` adds the working copy that only a class without
/// an edit needs), a class's candidate spliced from them, reading it, and each study rule on a
/// freshly read candidate. A candidate is read beside the approved surface (`hot/read+share`:
/// only the changed tool is scanned); `hot/read-full` reads all of it, and `hot/scan` is the
/// floor for that: serde_json visiting every token of the same bytes, allocating nothing.
fn hot_path(c: &mut Criterion) {
    use driftlab_study::study::splice::{Base, Workspace};
    let value = generate::surface(20260822, 3, 3);
    let base = Base::new(&value);
    c.bench_function("hot/base-bytes", |b| {
        b.iter(|| black_box(Base::new(black_box(&value))))
    });
    c.bench_function("hot/base-bytes+copy", |b| {
        b.iter(|| {
            let base = Base::new(black_box(&value));
            black_box((base.value().clone(), base));
        })
    });
    let approved = payload::read(base.bytes(), "approved", Limits::default()).unwrap();
    let mut out = Vec::new();
    let published = study::Study::default_study();
    // As the runner makes candidates (`splice`: each class edits the base's bytes) and, for
    // comparison, on a working copy of the base's value (`splice-value`; the copy is made once).
    for (name, read) in [("splice", Some(&approved)), ("splice-value", None)] {
        let mut workspace = Workspace::new(&base, read);
        for class in &published.mutations {
            c.bench_function(&format!("hot/{name}/{}", class.id()), |b| {
                b.iter(|| {
                    let stream = || mutate::stream(20260822, *class, 3);
                    black_box(workspace.candidate(&base, *class, stream, &mut out)).ok();
                })
            });
        }
    }
    let class = mutate::by_id("name-space").unwrap();
    Workspace::new(&base, Some(&approved))
        .candidate(
            &base,
            class,
            || mutate::stream(20260822, class, 3),
            &mut out,
        )
        .unwrap();
    let candidate_bytes = out.clone();
    // As the runner reads: from a buffer it owns (here a copy, which the runner does not make),
    // sharing the approved parse of each unchanged tool.
    let read = || {
        let bytes = candidate_bytes.clone();
        payload::read_candidate(bytes, "candidate", Limits::default(), &approved).unwrap()
    };
    c.bench_function("hot/read+share", |b| b.iter(|| black_box(read())));
    // The same bytes read in full, as any payload without an approved text beside it.
    c.bench_function("hot/read-full", |b| {
        b.iter(|| {
            let bytes = candidate_bytes.clone();
            black_box(payload::read_owned(bytes, "candidate", Limits::default()).unwrap())
        })
    });
    c.bench_function("hot/scan", |b| {
        b.iter(|| {
            let text = std::str::from_utf8(black_box(&candidate_bytes)).unwrap();
            black_box(serde_json::from_str::<serde::de::IgnoredAny>(text).unwrap())
        })
    });
    // Verdict-only as under `--rows none`, and with each finding's detail as under `--rows all`.
    for rule in &published.rules {
        for (suffix, detail) in [("", false), ("/detail", true)] {
            c.bench_function(&format!("hot/rule/{}{suffix}", rule.id()), |b| {
                b.iter_batched(
                    read,
                    |candidate| {
                        let comparison = if detail {
                            Comparison::new(&approved, &candidate)
                        } else {
                            Comparison::verdict_only(&approved, &candidate)
                        };
                        let mut findings = Vec::new();
                        rule.check(&comparison, &mut findings);
                        black_box(findings)
                    },
                    BatchSize::SmallInput,
                )
            });
        }
    }
}

fn whole_study(c: &mut Criterion) {
    let mut study = Study::default_study();
    study.spec.surfaces = 1000;
    let mut group = c.benchmark_group("study");
    group.sample_size(10);
    group.bench_function("default-spec/1000-surfaces", |b| {
        b.iter(|| black_box(run_without_rows(&study)))
    });
    // The drift taxonomy (every class that changes tools × 9 gates, rule set 2026-11-30), the
    // study issue 55's per-surface CPU target is about.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/research/2026-11-30-mcp-drift-taxonomy/study.toml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut taxonomy = study::spec::StudySpec::parse(&text, path)
        .unwrap()
        .resolve(path)
        .unwrap();
    taxonomy.spec.surfaces = 100;
    // On one thread, as `-j 1`: the time per iteration is the CPU of 100 surfaces.
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    // Each iteration draws new surfaces (the next seed): repeated surfaces would find their
    // schemas judged already (`schema-invalid` keeps a cache per thread).
    let mut seed = taxonomy.spec.seed;
    group.bench_function("taxonomy/100-surfaces-1-thread", |b| {
        b.iter_batched(
            || {
                seed += 1;
                let mut next = taxonomy.clone();
                next.spec.seed = seed;
                next
            },
            |taxonomy| black_box(one_thread.install(|| run_without_rows(&taxonomy))),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

/// A whole study run that keeps no rows: what the study benches time.
fn run_without_rows(study: &Study) -> driftlab_record::Summary {
    study::run(
        study,
        study::runner::RowsMode::None,
        |_rows| Ok::<(), study::runner::RunError>(()),
        &|_| {},
    )
    .unwrap()
}

fn surface(value: &Value) -> driftlab_contract::surface::Surface {
    payload::from_value(value.clone(), "bench").unwrap()
}

/// The guard's admission of one call on a real pinned schema (`read_text_file` of
/// server-filesystem): the cost it adds to every tools/call.
fn guard_admission(c: &mut Criterion) {
    use driftlab_proxy::guard::{Guard, GuardOptions, OnAuditFailure, OnDrift, OnOutput, Scope};
    let pinned = payload::read(LARGE, "filesystem", Limits::default()).expect("test data is valid");
    let options = GuardOptions {
        on_drift: OnDrift::Refuse,
        scope: Scope::Tool,
        max_retries: 3,
        window: std::time::Duration::from_secs(300),
        on_output: OnOutput::Warn,
        on_audit_failure: OnAuditFailure::Refuse,
        list_timeout: std::time::Duration::from_secs(30),
        fail_on: driftlab_check::check::FailOn::Breaking,
        server_words: driftlab_proxy::guard::ServerWords::Kinds,
        translate_renames: false,
    };
    let mut guard = Guard::new(pinned, options, None);
    let valid = serde_json::json!({"path": "/tmp/notes.txt", "head": 10});
    let invalid = serde_json::json!({"path": 7, "head": "ten"});
    let now = std::time::Instant::now();
    c.bench_function("guard/admit-valid-call", |b| {
        b.iter(|| black_box(guard.admit("read_text_file", black_box(&valid), now)))
    });
    // The rules alone: through `admit`, repeated refusals would open the circuit.
    c.bench_function("guard/refuse-invalid-call", |b| {
        b.iter(|| black_box(guard.decide("read_text_file", black_box(&invalid))))
    });
}

criterion_group! {
    name = benches;
    // The rule registry and the code version are handed down at start, as the binary does.
    config = {
        Criterion::default()
    };
    targets = guard_admission,
        generator,
        mutations,
        round_trip,
        checks,
        hot_path,
        whole_study
}
criterion_main!(benches);
