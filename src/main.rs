use std::process::ExitCode;

fn main() -> ExitCode {
    driftlab::cli::main()
}
