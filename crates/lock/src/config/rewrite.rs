//! Rewriting one server's command and arguments in a client config, in place: only the bytes of
//! the `command` and `args` values change (an `args` is added after `command` when there is
//! none), so comments, key order, spacing and every other server stay as they were, byte for
//! byte. JSON (with comments) is located by offset; Codex TOML through its parser's spans.
//! A URL entry (JSON only) becomes a command entry: its own value is rewritten whole, every
//! other byte of the file kept.

use std::ops::Range;

use super::{ClientConfig, ConfigError, Layout};

/// One replacement of the config's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The bytes replaced.
    pub range: Range<usize>,
    /// What replaces them.
    pub text: String,
}

/// The edits that make server `name` start `argv` (its first word the command).
pub fn set_argv(
    config: &ClientConfig,
    name: &str,
    argv: &[String],
) -> Result<Vec<Edit>, ConfigError> {
    let (command, args) = argv
        .split_first()
        .ok_or_else(|| ConfigError("no command to write".into()))?;
    let quoted = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let array = format!(
        "[{}]",
        args.iter()
            .map(|a| quoted(a))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let spans = match config.layout {
        Layout::McpServers | Layout::VscodeServers => json_spans(config, name)?,
        Layout::CodexToml => toml_spans(config, name)?,
    };
    let mut edits = vec![Edit {
        range: spans.command,
        text: quoted(command),
    }];
    match spans.args {
        Some(range) => edits.push(Edit { range, text: array }),
        None => {
            let at = edits[0].range.end;
            let prefix = &spans.key_prefix;
            let text = match (config.layout, spans.inline) {
                (Layout::CodexToml, false) => format!("\n{prefix}args = {array}"),
                (Layout::CodexToml, true) => format!(", {prefix}args = {array}"),
                _ => format!(", \"args\": {array}"),
            };
            edits.push(Edit {
                range: at..at,
                text,
            });
        }
    }
    Ok(edits)
}

/// The edit that makes URL server `name` start `argv` followed by `--url URL` and a `--header
/// "Name: value"` per header, URL and values as the config writes them (a client expands its
/// variable references in arguments as it does in a URL and headers, so no secret is written
/// into the file). Its other keys stay; `type` becomes `stdio` (VS Code needs it) or goes.
/// Returns the edit and the whole argv.
pub(crate) fn set_url_argv(
    config: &ClientConfig,
    name: &str,
    argv: &[String],
) -> Result<(Edit, Vec<String>), ConfigError> {
    if config.layout == Layout::CodexToml {
        return Err(ConfigError(format!(
            "{}: server {name:?}: a Codex URL entry is not rewritten (its headers come from \
             variables Codex expands only for HTTP)",
            config.path.display()
        )));
    }
    let blanked = super::jsonc::blank(&config.text);
    let mut locator = driftlab_report::report::region::Locator::new(&blanked);
    let not_url = || {
        ConfigError(format!(
            "{}: server {name:?} has no URL entry to rewrite",
            config.path.display()
        ))
    };
    let pointer = config
        .server(name)
        .map(|s| s.pointer.clone())
        .ok_or_else(not_url)?;
    let range = locator.value_span(&pointer).ok_or_else(not_url)?;
    let entry: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&blanked[range.clone()]).map_err(|_| not_url())?;
    let url_key = ["url", "serverUrl", "httpUrl"]
        .into_iter()
        .find(|k| entry.get(*k).is_some_and(serde_json::Value::is_string))
        .ok_or_else(not_url)?;
    let mut argv = argv.to_vec();
    argv.push("--url".into());
    argv.push(entry[url_key].as_str().unwrap_or_default().to_string());
    if let Some(headers) = entry.get("headers").and_then(|h| h.as_object()) {
        for (header, value) in headers {
            let value = match value {
                serde_json::Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            argv.push("--header".into());
            argv.push(format!("{header}: {value}"));
        }
    }
    let mut rewritten = serde_json::Map::new();
    if config.layout == Layout::VscodeServers {
        rewritten.insert("type".into(), "stdio".into());
    }
    rewritten.insert("command".into(), argv[0].clone().into());
    rewritten.insert("args".into(), argv[1..].to_vec().into());
    for (key, value) in entry {
        let replaced = ["type", "url", "serverUrl", "httpUrl", "headers"].contains(&key.as_str());
        if !replaced {
            rewritten.insert(key, value);
        }
    }
    let text = serde_json::to_string(&rewritten).map_err(|e| ConfigError(e.to_string()))?;
    Ok((Edit { range, text }, argv))
}

/// `text` with `edits` (non-overlapping) applied.
pub fn apply(text: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut out = text.to_string();
    for edit in edits {
        out.replace_range(edit.range, &edit.text);
    }
    out
}

/// Where a server's `command` and `args` values are.
struct Spans {
    command: Range<usize>,
    args: Option<Range<usize>>,
    /// Whether the server's table is inline (`name = { … }`, TOML only).
    inline: bool,
    /// What the `command` key is written after, so `args` lands in the same table: `memory.`
    /// for `memory.command = …` (TOML dotted keys), else empty.
    key_prefix: String,
}

fn json_spans(config: &ClientConfig, name: &str) -> Result<Spans, ConfigError> {
    let blanked = super::jsonc::blank(&config.text);
    let mut locator = driftlab_report::report::region::Locator::new(&blanked);
    let server = config
        .server(name)
        .map(|s| s.pointer.clone())
        .ok_or_else(|| no_command(config, name))?;
    let command = locator
        .value_span(&format!("{server}/command"))
        .filter(|r| blanked.as_bytes().get(r.start) == Some(&b'"'))
        .ok_or_else(|| no_command(config, name))?;
    let args = locator
        .value_span(&format!("{server}/args"))
        .filter(|r| blanked.as_bytes().get(r.start) == Some(&b'['));
    Ok(Spans {
        command,
        args,
        inline: false,
        key_prefix: String::new(),
    })
}

fn toml_spans(config: &ClientConfig, name: &str) -> Result<Spans, ConfigError> {
    use toml::de::{DeTable, DeValue};
    let root = DeTable::parse(&config.text)
        .map_err(|e| ConfigError(format!("{}: {}", config.path.display(), e.message())))?;
    let table = root
        .get_ref()
        .get("mcp_servers")
        .and_then(|v| match v.get_ref() {
            DeValue::Table(t) => t.get(name),
            _ => None,
        })
        .ok_or_else(|| no_command(config, name))?;
    let inline = config.text.as_bytes().get(table.span().start) == Some(&b'{');
    let DeValue::Table(entry) = table.get_ref() else {
        return Err(no_command(config, name));
    };
    let span_of = |key: &str, string: bool| {
        entry.get(key).and_then(|v| {
            let fits = match v.get_ref() {
                DeValue::String(_) => string,
                DeValue::Array(_) => !string,
                _ => false,
            };
            fits.then(|| v.span())
        })
    };
    let command = span_of("command", true).ok_or_else(|| no_command(config, name))?;
    Ok(Spans {
        key_prefix: dotted_prefix(&config.text, command.start),
        command,
        args: span_of("args", false),
        inline,
    })
}

/// The dotted-key prefix of the `command` key whose value starts at `value`: the key text
/// before `=` with its last part (`command`, bare or quoted) taken off, trimmed.
fn dotted_prefix(text: &str, value: usize) -> String {
    let before = &text[..value];
    let start = before.rfind(['\n', '{', ',']).map_or(0, |i| i + 1);
    let key = before[start..]
        .trim_end()
        .strip_suffix('=')
        .unwrap_or("")
        .trim();
    let prefix = key
        .strip_suffix("\"command\"")
        .or_else(|| key.strip_suffix("'command'"))
        .or_else(|| key.strip_suffix("command"))
        .unwrap_or("");
    prefix.trim_end().to_string()
}

fn no_command(config: &ClientConfig, name: &str) -> ConfigError {
    ConfigError(format!(
        "{}: server {name:?} has no `command` string to rewrite",
        config.path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn config(name: &str, text: &str) -> ClientConfig {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        super::super::read(&path, None, None, &|_| None).unwrap()
    }

    fn rewritten(name: &str, text: &str, server: &str) -> String {
        let config = config(name, text);
        let argv: Vec<String> = ["/bin/driftlab", "guard", "--", "npx", "-y", "x"]
            .map(String::from)
            .to_vec();
        apply(&config.text, set_argv(&config, server, &argv).unwrap())
    }

    #[test]
    fn json_keeps_comments_and_other_servers_and_adds_args() {
        let text = "{\n  // mine\n  \"mcpServers\": {\n    \"a\": {\"command\": \"npx\", \"args\": [\"-y\", \"x\"]},\n    \"b\": { \"command\": \"b-server\" }\n  }\n}\n";
        let once = rewritten(".cursor-mcp.json", text, "a");
        assert_eq!(
            once,
            text.replace(
                "\"command\": \"npx\", \"args\": [\"-y\", \"x\"]",
                "\"command\": \"/bin/driftlab\", \"args\": [\"guard\", \"--\", \"npx\", \"-y\", \"x\"]"
            )
        );
        let b = rewritten("m.json", text, "b");
        assert!(b.contains("{ \"command\": \"/bin/driftlab\", \"args\": [\"guard\", \"--\", \"npx\", \"-y\", \"x\"] }"), "{b}");
        assert!(b.contains("// mine"));
    }

    #[test]
    fn a_url_entry_becomes_a_guard_command_with_its_headers_as_written() {
        let text = "{\"mcpServers\": {\n  \"w\": {\"serverUrl\": \"https://x/mcp\", \"headers\": {\"A\": \"${env:T}\"}, \"disabled\": false},\n  \"s\": {\"command\": \"s\"}\n}}\n";
        let windsurf = config("mcp_config.json", text);
        let guard = ["/bin/driftlab", "guard"].map(String::from);
        let (edit, argv) = set_url_argv(&windsurf, "w", &guard).unwrap();
        assert_eq!(
            argv,
            [
                "/bin/driftlab",
                "guard",
                "--url",
                "https://x/mcp",
                "--header",
                "A: ${env:T}"
            ]
        );
        assert_eq!(
            apply(text, vec![edit]),
            text.replace(
                "{\"serverUrl\": \"https://x/mcp\", \"headers\": {\"A\": \"${env:T}\"}, \"disabled\": false}",
                "{\"command\":\"/bin/driftlab\",\"args\":[\"guard\",\"--url\",\"https://x/mcp\",\"--header\",\"A: ${env:T}\"],\"disabled\":false}"
            )
        );
        assert!(
            set_url_argv(&windsurf, "s", &guard).is_err(),
            "a command entry has no URL"
        );
        let codex = config("config.toml", "[mcp_servers.r]\nurl = \"https://x/mcp\"\n");
        let why = set_url_argv(&codex, "r", &guard).unwrap_err().0;
        assert!(why.contains("Codex URL entry"), "{why}");
    }

    #[test]
    fn toml_tables_and_inline_tables() {
        let text = "model = \"x\"\n\n[mcp_servers.a]\ncommand = \"npx\" # runner\nargs = [\"-y\", \"x\"]\n\n[mcp_servers.b]\ncommand = \"b\"\nenv = { K = \"v\" }\n";
        let a = rewritten("config.toml", text, "a");
        assert!(a.contains("command = \"/bin/driftlab\" # runner\nargs = [\"guard\", \"--\", \"npx\", \"-y\", \"x\"]\n"), "{a}");
        let b = rewritten("config.toml", text, "b");
        assert!(b.contains("command = \"/bin/driftlab\"\nargs = [\"guard\", \"--\", \"npx\", \"-y\", \"x\"]\nenv = { K = \"v\" }"), "{b}");
        let inline = "[mcp_servers]\nc = { command = \"c\" }\n";
        let c = rewritten("config.toml", inline, "c");
        assert_eq!(c, "[mcp_servers]\nc = { command = \"/bin/driftlab\", args = [\"guard\", \"--\", \"npx\", \"-y\", \"x\"] }\n");
        // Each result still reads as a config naming the new argv.
        for out in [a, b, c] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("config.toml");
            std::fs::write(&path, &out).unwrap();
            assert!(
                super::super::read(Path::new(&path), None, None, &|_| None).is_ok(),
                "{out}"
            );
        }
    }

    #[test]
    fn dotted_keys_get_their_args_in_the_same_table() {
        let text = "[mcp_servers]\nm.command = \"npx\"\nm.env = { K = \"v\" }\n";
        let out = rewritten("config.toml", text, "m");
        assert!(
            out.contains("m.command = \"/bin/driftlab\"\nm.args = [\"guard\""),
            "{out}"
        );
        let config = config("config.toml", &out);
        assert_eq!(
            config.server("m").unwrap().written,
            super::super::Written::Command(
                ["/bin/driftlab", "guard", "--", "npx", "-y", "x"]
                    .map(String::from)
                    .to_vec()
            )
        );
    }

    #[test]
    fn a_server_without_a_command_is_refused() {
        let config = config(
            "m.json",
            "{\"mcpServers\": {\"u\": {\"url\": \"http://x\"}}}",
        );
        let argv = vec!["d".to_string()];
        assert!(set_argv(&config, "u", &argv)
            .unwrap_err()
            .to_string()
            .contains("no `command`"));
    }
}
