//! driftlab's integration tests, one module per subject, in one test binary (one link of the
//! crate instead of one per file: the test build is shorter). Each module's own header says what
//! it covers; `cargo test --release --test it MODULE::` runs one of them.

mod common;

mod architecture;
mod big_schemas;
mod bounds;
mod census;
mod census_as_published;
mod census_hostile;
mod census_pypi;
mod ci_surfaces;
mod cli_docs;
mod contract;
mod corpus;
mod digests;
mod external_checkers;
mod fast_paths;
mod figures;
mod fuzz_seeds;
mod gate_cli;
mod gate_correctness;
mod guard;
mod guard_answers;
mod guard_http;
mod guard_http_bridge;
mod guard_strict;
mod guard_unchanged;
mod held_out_cases;
mod hostile_sizes;
mod live_capture;
mod live_servers;
mod lock;
mod lock_closure;
mod lock_discover;
mod pattern_orders;
mod protocol_era;
mod proxy_flow;
mod public_surface;
mod rename_calibration;
mod results_folder;
mod rule_fixtures;
mod scale;
mod scan;
mod schema_equivalence;
mod stacks;
mod strict_differential;
mod study;
mod sweep;
mod taxonomy;
mod tool_schema;
mod trust_profile;
mod witness_shapes;
mod witnesses;
mod wrap;
