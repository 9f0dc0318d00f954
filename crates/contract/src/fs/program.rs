//! Where a program is, as the system would find it to run it.

use std::path::{Path, PathBuf};

/// `program` as `execvp` finds it: a name with a `/` as given, else the first executable file
/// of that name on `PATH`.
pub fn on_path(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_taken_as_given_and_a_name_is_found_only_as_an_executable() {
        assert_eq!(on_path("./x/server"), Some(PathBuf::from("./x/server")));
        let found = on_path("sh").expect("sh is on PATH");
        assert!(found.ends_with("sh") && is_executable(&found));
        assert_eq!(on_path("driftlab-no-such-program"), None);
    }
}
