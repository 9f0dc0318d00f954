//! The census's sandbox: every step of a release (venv creation, `pip install`, `npm install`,
//! the server) runs in bubblewrap, in a folder of that release's own, so nothing a release does
//! reaches another release or the host. Inside: a cleared environment, new pid, ipc and uts
//! namespaces (no `/proc` of driftlab), a tmpfs `HOME` and `/tmp`, no host socket (neither `/run`
//! nor the host's `/tmp` is there), read-only binds of `/usr` and the interpreters only, the
//! release's folder at `/release` (writable for installs, read-only for the server), no network
//! for the server, and limits on processes, file size and memory (`prlimit`). Run as root, the
//! step drops to a user of the release's own inside (`setpriv`; a random uid no account has):
//! root is exempt from the process limit, and a uid per release keeps one release's processes
//! from counting against, or signalling, another's (shards on one machine).
//!
//! A census refuses to run where this sandbox does not work ([`Sandbox::probe`]); only
//! `--no-sandbox` runs releases without it, and then every row says so.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use driftlab_contract::fs::on_path;

/// The program a sandboxed run starts with: a capture whose recorded command begins with it
/// was sandboxed.
pub(crate) const PROGRAM: &str = "bwrap";

/// The name a capture records for this sandbox's policy (docs/census.md spells it out).
pub(crate) const POLICY: &str = "driftlab-census-sandbox/2";

/// Where a release's folder is, as its steps see it.
pub(crate) const RELEASE: &str = "/release";

/// `HOME` inside the sandbox (a tmpfs).
pub const HOME: &str = "/home/sandbox";

/// An install's `TMPDIR`: in the release's folder, on disk, because an installer unpacks
/// wheels there (uv with `--no-cache`): mcp-server-qdrant 0.8.1's 71 packages (onnxruntime,
/// numpy, sympy, …) outgrew the 256 MiB tmpfs.
const INSTALL_TMP: &str = "/release/.tmp";

/// A release's user, when driftlab runs as root, is drawn from here: above the ids accounts
/// and the usual subordinate-id ranges take.
const RELEASE_UIDS: std::ops::Range<u32> = 1_000_000..2_000_000_000;

/// What one step may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Processes of the step's user at once (a fork bomb stops here).
    pub processes: u64,
    /// The largest file a step may write.
    pub file_bytes: u64,
    /// Writable private memory per process (`RLIMIT_DATA`): a memory hog stops here, while
    /// address space only reserved is not counted. An address-space limit (`RLIMIT_AS`) would
    /// refuse every WebAssembly instance, for which V8 reserves 10 GiB.
    pub memory_bytes: u64,
    /// The size of each tmpfs (`HOME`, `/tmp`): a disk fill stops here.
    pub tmpfs_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        const MIB: u64 = 1024 * 1024;
        Limits {
            processes: 512,
            file_bytes: 2048 * MIB,
            memory_bytes: 8192 * MIB,
            tmpfs_bytes: 256 * MIB,
        }
    }
}

/// Which step of a release runs: installs get the network and a writable folder, the server
/// neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Creating a venv, `pip install`, `npm install`.
    Install,
    /// The release's server.
    Server,
}

/// A working sandbox: the programs that make it and the read-only roots beyond `/usr`.
#[derive(Debug, Clone)]
pub struct Sandbox {
    bwrap: PathBuf,
    prlimit: PathBuf,
    /// `setpriv`, when driftlab runs as root (each release's steps then run as its own uid).
    setpriv: Option<PathBuf>,
    /// Folders outside `/usr` that interpreters live in (a pyenv Python, an nvm node).
    roots: Vec<PathBuf>,
    limits: Limits,
}

/// What the refusal says, after why the sandbox does not work.
pub const HOW_TO_INSTALL: &str = "a census runs other people's code only in bubblewrap: install \
it (`apt-get install bubblewrap`, `dnf install bubblewrap`, `apk add bubblewrap`), and where it is \
installed but refused, allow unprivileged user namespaces; or give --no-sandbox to run every \
release on this machine unconfined (each row then says `unsandboxed`)";

impl Sandbox {
    /// The sandbox, checked by running a step under its exact server policy in a throwaway
    /// folder, with `roots` (interpreter folders outside `/usr`) bound read-only; or why it
    /// does not work here.
    pub fn probe(roots: Vec<PathBuf>) -> Result<Sandbox, String> {
        let find = |name: &str| on_path(name).ok_or_else(|| format!("{name} is not on PATH"));
        let root = running_as_root();
        let sandbox = Sandbox {
            bwrap: find(PROGRAM)?,
            prlimit: find("prlimit")?,
            setpriv: match root {
                true => Some(find("setpriv")?),
                false => None,
            },
            roots,
            limits: Limits::default(),
        };
        let scratch = tempfile::Builder::new()
            .prefix("driftlab-census-probe-")
            .tempdir()
            .map_err(|e| format!("cannot make a folder to try it in: {e}"))?;
        let folder = scratch.path().join("probe");
        let user = sandbox
            .prepare(&folder)
            .map_err(|e| format!("{}: {e}", folder.display()))?;
        let argv = sandbox.argv(Step::Server, &folder, user, &[], &["true".to_string()]);
        let output = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", argv[0]))?;
        match output.status.success() {
            true => Ok(sandbox),
            false => Err(format!(
                "bwrap is installed but fails here ({}): {}",
                output.status,
                driftlab_contract::text::excerpt(output.stderr.trim_ascii(), 200)
            )),
        }
    }

    /// Makes `folder` a release's own: new (never reused), mode 0700, owned by the user its
    /// steps run as, which it returns (`None`: the caller's own, in a user namespace).
    pub fn prepare(&self, folder: &Path) -> std::io::Result<Option<u32>> {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new().mode(0o700).create(folder)?;
        if self.setpriv.is_none() {
            return Ok(None);
        }
        let uid = release_uid()?;
        std::os::unix::fs::chown(folder, Some(uid), Some(uid))?;
        Ok(Some(uid))
    }

    /// The words that run `program` as `step` of the release whose folder is `folder` (as the
    /// user [`Sandbox::prepare`] gave it), with only `env` in its environment (beside `HOME`,
    /// `TMPDIR` and `PATH`).
    pub fn argv(
        &self,
        step: Step,
        folder: &Path,
        user: Option<u32>,
        env: &[(String, String)],
        program: &[String],
    ) -> Vec<String> {
        let mut words: Vec<String> = Vec::new();
        let mut add = |list: &[&str]| words.extend(list.iter().map(|w| w.to_string()));
        let limits = self.limits;
        add(&[&self.prlimit.to_string_lossy()]);
        add(&[
            &format!("--nproc={}", limits.processes),
            &format!("--fsize={}", limits.file_bytes),
            &format!("--data={}", limits.memory_bytes),
            "--core=0",
            "--",
        ]);
        add(&[&self.bwrap.to_string_lossy()]);
        add(&[
            "--die-with-parent",
            "--new-session",
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-uts",
            "--unshare-cgroup-try",
        ]);
        if self.setpriv.is_none() {
            add(&["--unshare-user"]);
        }
        if step == Step::Server {
            add(&["--unshare-net"]);
        }
        add(&["--ro-bind", "/usr", "/usr"]);
        for top in ["bin", "sbin", "lib", "lib32", "lib64"] {
            let host = Path::new("/").join(top);
            match std::fs::read_link(&host) {
                Ok(target) => add(&[
                    "--symlink",
                    &target.to_string_lossy(),
                    &host.to_string_lossy(),
                ]),
                Err(_) if host.is_dir() => add(&[
                    "--ro-bind",
                    &host.to_string_lossy(),
                    &host.to_string_lossy(),
                ]),
                Err(_) => {}
            }
        }
        // The fresh /tmp and HOME before the interpreters' folders: one that lives under /tmp (a
        // checkout there) is bound over the tmpfs, not hidden by it.
        let tmpfs = limits.tmpfs_bytes.to_string();
        add(&["--proc", "/proc", "--dev", "/dev"]);
        add(&["--size", &tmpfs, "--perms", "01777", "--tmpfs", "/tmp"]);
        add(&["--size", &tmpfs, "--perms", "0777", "--tmpfs", HOME]);
        for root in &self.roots {
            // Each folder above a root is made traversable: the host's may not be (`/root`).
            let mut above: Vec<&Path> = root.ancestors().skip(1).collect();
            above.reverse();
            for dir in above.into_iter().filter(|d| d.parent().is_some()) {
                add(&["--perms", "0755", "--dir", &dir.to_string_lossy()]);
            }
            add(&[
                "--ro-bind",
                &root.to_string_lossy(),
                &root.to_string_lossy(),
            ]);
        }
        if step == Step::Install {
            // Name resolution and the registry's certificates.
            add(&["--ro-bind", "/etc", "/etc"]);
        }
        let bind = match step {
            Step::Install => "--bind",
            Step::Server => "--ro-bind",
        };
        add(&[bind, &folder.to_string_lossy(), RELEASE]);
        if step == Step::Install {
            add(&["--perms", "01777", "--dir", INSTALL_TMP]);
        }
        add(&[
            "--chdir",
            match step {
                Step::Install => RELEASE,
                Step::Server => HOME,
            },
        ]);
        add(&[
            "--clearenv",
            "--setenv",
            "HOME",
            HOME,
            "--setenv",
            "TMPDIR",
            match step {
                Step::Install => INSTALL_TMP,
                Step::Server => "/tmp",
            },
        ]);
        add(&["--setenv", "PATH", &self.path()]);
        for (name, value) in env {
            add(&["--setenv", name, value]);
        }
        add(&["--"]);
        if let Some(setpriv) = &self.setpriv {
            let id = user.unwrap_or(RELEASE_UIDS.start).to_string();
            add(&[&setpriv.to_string_lossy()]);
            add(&[
                &format!("--reuid={id}"),
                &format!("--regid={id}"),
                "--clear-groups",
                "--no-new-privs",
                "--",
            ]);
        }
        words.extend(program.iter().cloned());
        words
    }

    /// `PATH` inside: the interpreters' folders, then the system's.
    fn path(&self) -> String {
        let mut dirs: Vec<String> = self
            .roots
            .iter()
            .map(|r| r.join("bin").to_string_lossy().into_owned())
            .collect();
        dirs.extend(["/usr/local/bin", "/usr/bin", "/bin"].map(String::from));
        dirs.join(":")
    }

    /// The limits each step runs under.
    pub fn limits(&self) -> Limits {
        self.limits
    }
}

/// A random uid of [`RELEASE_UIDS`] for one release.
fn release_uid() -> std::io::Result<u32> {
    use std::io::Read;
    let mut bytes = [0u8; 4];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    let span = RELEASE_UIDS.end - RELEASE_UIDS.start;
    Ok(RELEASE_UIDS.start + u32::from_le_bytes(bytes) % span)
}

/// Whether this process runs as root (its `/proc/self` belongs to its effective user).
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
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

    fn sandbox(setpriv: bool) -> Sandbox {
        Sandbox {
            bwrap: "/usr/bin/bwrap".into(),
            prlimit: "/usr/bin/prlimit".into(),
            setpriv: setpriv.then(|| "/usr/bin/setpriv".into()),
            roots: vec!["/root/.pyenv/versions/3.11.7".into()],
            limits: Limits::default(),
        }
    }

    /// The words after `flag` in `argv`, each time it occurs.
    fn after<'a>(argv: &'a [String], flag: &str, n: usize) -> Vec<&'a [String]> {
        argv.iter()
            .enumerate()
            .filter(|(_, w)| *w == flag)
            .map(|(i, _)| &argv[i + 1..i + 1 + n])
            .collect()
    }

    #[test]
    fn a_server_runs_without_network_on_a_read_only_folder_and_installs_with_both() {
        let folder = Path::new("/scratch/r1");
        let program = ["node".to_string(), "/release/x.js".to_string()];
        let server = sandbox(true).argv(Step::Server, folder, Some(1_234_567), &[], &program);
        let install = sandbox(true).argv(Step::Install, folder, Some(1_234_567), &[], &program);
        assert!(server.contains(&"--unshare-net".to_string()));
        assert!(!install.contains(&"--unshare-net".to_string()));
        assert_eq!(
            after(&server, "--ro-bind", 2).last().unwrap()[0],
            "/scratch/r1"
        );
        assert_eq!(after(&install, "--bind", 2), [["/scratch/r1", RELEASE]]);
        // The host's /etc only for installs (name resolution, certificates).
        assert!(!after(&server, "--ro-bind", 1)
            .iter()
            .any(|w| w[0] == "/etc"));
        assert!(after(&install, "--ro-bind", 1)
            .iter()
            .any(|w| w[0] == "/etc"));
        for argv in [&server, &install] {
            for flag in [
                "--clearenv",
                "--unshare-pid",
                "--die-with-parent",
                "--new-session",
            ] {
                assert!(argv.contains(&flag.to_string()), "{flag} missing: {argv:?}");
            }
            assert_eq!(argv[0], "/usr/bin/prlimit");
            assert!(argv.ends_with(&program));
            // Nothing of the host's root but /usr, its links and the interpreter's folder.
            let bound: Vec<&str> = after(argv, "--ro-bind", 1)
                .iter()
                .map(|w| w[0].as_str())
                .collect();
            for source in bound {
                assert!(
                    [
                        "/usr",
                        "/etc",
                        "/root/.pyenv/versions/3.11.7",
                        "/scratch/r1"
                    ]
                    .contains(&source)
                        || source.starts_with("/lib")
                        || source.ends_with("bin"),
                    "{source} bound"
                );
            }
        }
    }

    #[test]
    fn as_root_a_step_drops_to_its_releases_user_and_otherwise_gets_a_user_namespace() {
        let true_ = ["true".to_string()];
        let root = sandbox(true).argv(Step::Server, Path::new("/s"), Some(1_234_567), &[], &true_);
        let user = sandbox(false).argv(Step::Server, Path::new("/s"), None, &[], &true_);
        let at = root.iter().position(|w| w == "/usr/bin/setpriv").unwrap();
        assert_eq!(root[at + 1..at + 3], ["--reuid=1234567", "--regid=1234567"]);
        assert!(!root.contains(&"--unshare-user".to_string()));
        assert!(user.contains(&"--unshare-user".to_string()));
        assert!(!user.iter().any(|w| w.contains("setpriv")));
    }

    #[test]
    fn release_users_are_drawn_apart_from_accounts() {
        let drawn: Vec<u32> = (0..64).map(|_| release_uid().unwrap()).collect();
        assert!(drawn.iter().all(|u| RELEASE_UIDS.contains(u)));
        let mut distinct = drawn.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() > 60, "{drawn:?}");
    }

    #[test]
    fn only_the_given_environment_is_set_inside() {
        let env = [("API_KEY".to_string(), "dummy".to_string())];
        let argv = sandbox(true).argv(
            Step::Server,
            Path::new("/s"),
            Some(1_234_567),
            &env,
            &["true".into()],
        );
        let set: Vec<&str> = after(&argv, "--setenv", 1)
            .iter()
            .map(|w| w[0].as_str())
            .collect();
        assert_eq!(set, ["HOME", "TMPDIR", "PATH", "API_KEY"]);
        assert_eq!(after(&argv, "TMPDIR", 1)[0][0], "/tmp");
        let path = &after(&argv, "PATH", 1)[0][0];
        assert!(
            path.starts_with("/root/.pyenv/versions/3.11.7/bin:"),
            "{path}"
        );
    }

    #[test]
    fn an_install_unpacks_on_disk_in_its_own_folder_not_in_the_small_tmpfs() {
        let argv = sandbox(true).argv(Step::Install, Path::new("/s"), None, &[], &["true".into()]);
        assert_eq!(after(&argv, "TMPDIR", 1)[0][0], INSTALL_TMP);
        assert!(INSTALL_TMP.starts_with(&format!("{RELEASE}/")));
        let made = argv.iter().position(|w| w == INSTALL_TMP).unwrap();
        let bound = argv.iter().position(|w| w == RELEASE).unwrap();
        assert!(
            bound < made,
            "the folder is made inside the bound release folder"
        );
    }
}
