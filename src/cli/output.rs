//! Command output: every command prints through [`emit`], by the macros `out!` and `outln!`.

/// `print!` for command output: a reader that stopped early (`driftlab check … | head`) is normal
/// and ignored; any other failure (a full disk) is an error naming stdout, exit 2.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::output::emit(&format!($($arg)*))?
    };
}

/// `println!` for command output, as [`out!`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::output::emit(&format!("{}\n", format_args!($($arg)*)))?
    };
}

/// Writes command output to stdout (see [`out!`]).
pub(crate) fn emit(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(anyhow::anyhow!("cannot write to stdout: {e}"))
        }
        _ => Ok(()),
    }
}
