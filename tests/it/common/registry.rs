//! Local package registries the census tests start on 127.0.0.1 (`scripts/install-registries.sh`
//! installs them): finding an installed one (a skip where it is missing, a failure under
//! DRIFTLAB_REQUIRE_LIVE_SERVERS), a free port, waiting until one serves, and the process,
//! killed when dropped.

use std::path::PathBuf;
use std::process::Child;

/// `path` if it is installed; else says so (a skip, or a failure where CI requires it).
pub fn installed_or_skip(path: PathBuf, what: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("DRIFTLAB_REQUIRE_LIVE_SERVERS").is_none(),
        "{} is missing but DRIFTLAB_REQUIRE_LIVE_SERVERS is set: run scripts/install-registries.sh",
        path.display()
    );
    super::skip(&format!(
        "{what} is not installed (scripts/install-registries.sh)"
    ));
    None
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits (up to a minute) until `url` answers a GET; `what` names the server in the failure.
pub fn wait_until_serving(url: &str, what: &str) {
    let agent = ureq::Agent::new_with_defaults();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while agent.get(url).call().is_err() {
        assert!(std::time::Instant::now() < deadline, "{what} did not start");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// A registry process, killed and reaped when dropped.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
