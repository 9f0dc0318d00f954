//! Fuzzes the client-config reader (JSON with comments, Codex TOML, variable expansion) and the
//! installer's rewrite: nothing may panic, errors name the file, and every server with a command
//! can be rewritten into a config that reads back with the new argv.

use std::path::Path;

use driftlab_lock::config::{self, rewrite, Client, Written};

/// One fuzz input (`fuzz/fuzz_targets/client_config.rs` runs it; `tests/it/fuzz_seeds.rs` runs it on the
/// committed seeds).
pub fn client_config(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest).into_owned();
    let (path, client) = match which % 4 {
        0 => ("claude_desktop_config.json", None),
        1 => (".vscode/mcp.json", Some(Client::Vscode)),
        2 => ("config.toml", Some(Client::Codex)),
        _ => ("settings.json", Some(Client::Gemini)),
    };
    let env = |name: &str| (name == "SET").then(|| "value".to_string());
    let path = Path::new(path);
    let parsed = match config::parse(path, text, client, Some(Path::new("/w")), &env) {
        Ok(parsed) => parsed,
        Err(e) => {
            assert!(e.to_string().contains(path.to_str().unwrap()), "{e}");
            return;
        }
    };
    let argv: Vec<String> = ["/bin/driftlab", "guard", "--", "x y"]
        .map(String::from)
        .to_vec();
    for server in &parsed.servers {
        if !matches!(server.written, Written::Command(_)) {
            continue;
        }
        let Ok(edits) = rewrite::set_argv(&parsed, &server.name, &argv) else {
            continue;
        };
        let rewritten = rewrite::apply(&parsed.text, edits);
        let again = config::parse(path, rewritten, client, Some(Path::new("/w")), &env)
            .expect("a rewritten config reads");
        let written = again.server(&server.name).map(|s| s.written.clone());
        assert_eq!(written, Some(Written::Command(argv.clone())));
    }
}
