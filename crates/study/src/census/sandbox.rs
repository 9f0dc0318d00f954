//! Servers run without network where bubblewrap (`bwrap`) works: a new network namespace (only
//! loopback), the file system read-only but for the census's scratch folder, a fresh `/dev` and
//! `/proc`, and the server dies with the census. Installs are not sandboxed (they need the
//! registry), and where `bwrap` is missing or refused (no user namespaces) servers run as before
//! and each release's row says so.

use std::path::Path;
use std::process::{Command, Stdio};

/// The program a sandboxed run starts with: a capture whose recorded command begins with it
/// was sandboxed.
pub(crate) const PROGRAM: &str = "bwrap";

/// A working `bwrap` and the words that put a command inside it.
pub struct Sandbox {
    prefix: Vec<String>,
}

impl Sandbox {
    /// The sandbox for a census whose scratch folder is `root`, if `bwrap` runs here.
    pub fn probe(root: &Path) -> Option<Sandbox> {
        let root = root.to_string_lossy().into_owned();
        let prefix: Vec<String> = [
            PROGRAM,
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--bind",
            &root,
            &root,
            "--unshare-net",
            "--die-with-parent",
            "--",
        ]
        .map(String::from)
        .to_vec();
        let works = Command::new(&prefix[0])
            .args(&prefix[1..])
            .arg("true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        works.then_some(Sandbox { prefix })
    }

    /// The words to put before a command.
    pub fn prefix(&self) -> &[String] {
        &self.prefix
    }
}

/// What a failed sandboxed run's reason adds when the server wanted the network.
pub(crate) fn network_hint(reason: &str) -> Option<&'static str> {
    const SIGNS: [&str; 7] = [
        "Network is unreachable",
        "ENETUNREACH",
        "EAI_AGAIN",
        "ENOTFOUND",
        "getaddrinfo",
        "Temporary failure in name resolution",
        "Name or service not known",
    ];
    SIGNS.iter().any(|s| reason.contains(s)).then_some(
        " (needs the network: the server ran in a sandbox without one; --no-sandbox lets it reach out)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_network_error_gets_the_hint_and_others_do_not() {
        assert!(network_hint("OSError: [Errno 101] Network is unreachable").is_some());
        assert!(network_hint("getaddrinfo EAI_AGAIN api.example.com").is_some());
        assert!(network_hint("no answer to initialize within 3 s").is_none());
    }
}
