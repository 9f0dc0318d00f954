use std::process::ExitCode;

// The study allocates and frees many small JSON values per candidate; mimalloc halves that cost
// compared with the system allocator (see docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    driftlab::cli::main()
}
