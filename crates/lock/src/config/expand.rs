//! The variables MCP clients expand in a server's command, arguments, environment, folder, URL
//! and headers, each client's own set. What only a person can fill (`${input:ID}`), an unset
//! variable without a default, and a form driftlab does not know make the server skipped with
//! that reason: a server started with a guessed value would fail in a way that hides why.

use std::path::Path;

use super::Unstartable;

/// Which forms a client expands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Syntax {
    /// Claude Code: `${VAR}`, `${VAR:-default}`.
    Shell,
    /// Gemini CLI: `${VAR}` and `$VAR`.
    ShellBare,
    /// VS Code, Cursor, Windsurf: `${env:VAR}`, `${workspaceFolder}`, `${userHome}`,
    /// `${input:ID}`, ...
    Editor,
    /// A file whose client is unknown: both families.
    Any,
    /// Codex: none.
    Literal,
}

/// What expansion reads: the environment and the workspace.
pub(super) struct Context<'a> {
    pub syntax: Syntax,
    pub workspace: &'a Path,
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

/// `text` with its variables expanded, or why the server cannot be started as written.
pub(super) fn expand(text: &str, cx: &Context<'_>) -> Result<String, Unstartable> {
    if cx.syntax == Syntax::Literal {
        return Ok(text.to_string());
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(body) = tail.strip_prefix("${") {
            let Some(close) = body.find('}') else {
                out.push_str(tail);
                return Ok(out);
            };
            out.push_str(&braced(&body[..close], cx)?);
            rest = &body[close + 1..];
        } else if cx.syntax == Syntax::ShellBare && name_len(&tail[1..]) > 0 {
            let len = name_len(&tail[1..]);
            out.push_str(&variable(
                &tail[1..=len],
                &format!("${}", &tail[1..=len]),
                cx,
            )?);
            rest = &tail[1 + len..];
        } else {
            out.push('$');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// The value of `${inner}`.
fn braced(inner: &str, cx: &Context<'_>) -> Result<String, Unstartable> {
    let shown = format!("${{{inner}}}");
    let editor = matches!(cx.syntax, Syntax::Editor | Syntax::Any);
    let shell = matches!(cx.syntax, Syntax::Shell | Syntax::ShellBare | Syntax::Any);
    if editor {
        if let Some(id) = inner.strip_prefix("input:") {
            return Err(Unstartable::NeedsInput(id.to_string()));
        }
        if let Some(name) = inner.strip_prefix("env:") {
            return variable(name, &shown, cx);
        }
        let workspace = cx.workspace.display().to_string();
        match inner {
            "workspaceFolder" | "workspaceRoot" => return Ok(workspace),
            "workspaceFolderBasename" => {
                return Ok(cx
                    .workspace
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default())
            }
            "userHome" => return variable("HOME", &shown, cx),
            "pathSeparator" | "/" => return Ok("/".into()),
            _ => {}
        }
    }
    if shell {
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        if name_len(name) == name.len() && !name.is_empty() {
            return match (env_value(name, cx), default) {
                (Some(value), _) => Ok(value),
                (None, Some(default)) => Ok(default.to_string()),
                (None, None) => Err(Unstartable::Unset(shown)),
            };
        }
    }
    Err(Unstartable::NotExpanded(shown))
}

fn variable(name: &str, shown: &str, cx: &Context<'_>) -> Result<String, Unstartable> {
    env_value(name, cx).ok_or_else(|| Unstartable::Unset(shown.to_string()))
}

/// A set, non-empty variable (an empty one counts as unset, as `${VAR:-default}` does).
pub(super) fn env_value(name: &str, cx: &Context<'_>) -> Option<String> {
    (cx.env)(name).filter(|v| !v.is_empty())
}

/// The length of the variable name `text` starts with: `[A-Za-z_][A-Za-z0-9_]*`.
fn name_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    if !bytes
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
    {
        return 0;
    }
    bytes
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(syntax: Syntax, text: &str) -> Result<String, Unstartable> {
        let env = |name: &str| match name {
            "TOKEN" => Some("t0k".to_string()),
            "HOME" => Some("/home/u".to_string()),
            "EMPTY" => Some(String::new()),
            _ => None,
        };
        let cx = Context {
            syntax,
            workspace: Path::new("/work/proj"),
            env: &env,
        };
        expand(text, &cx)
    }

    #[test]
    fn claude_code_forms() {
        assert_eq!(with(Syntax::Shell, "a${TOKEN}b").unwrap(), "at0kb");
        assert_eq!(with(Syntax::Shell, "${MISSING:-x/y}").unwrap(), "x/y");
        assert_eq!(with(Syntax::Shell, "${EMPTY:-d}").unwrap(), "d");
        assert_eq!(with(Syntax::Shell, "${TOKEN:-d}").unwrap(), "t0k");
        assert_eq!(
            with(Syntax::Shell, "--key=${MISSING}").unwrap_err(),
            Unstartable::Unset("${MISSING}".into())
        );
        // `$VAR` is Gemini's; Claude Code leaves it (and a lone `$`) alone.
        assert_eq!(with(Syntax::Shell, "$TOKEN $ 5$").unwrap(), "$TOKEN $ 5$");
        assert!(with(Syntax::Shell, "${env:TOKEN}").is_err());
    }

    #[test]
    fn gemini_expands_bare_names() {
        assert_eq!(
            with(Syntax::ShellBare, "$TOKEN/${HOME}").unwrap(),
            "t0k//home/u"
        );
        assert_eq!(with(Syntax::ShellBare, "$1 and $").unwrap(), "$1 and $");
        assert!(with(Syntax::ShellBare, "$MISSING").is_err());
    }

    #[test]
    fn editor_forms() {
        assert_eq!(
            with(Syntax::Editor, "${workspaceFolder}/data ${env:TOKEN}").unwrap(),
            "/work/proj/data t0k"
        );
        assert_eq!(
            with(
                Syntax::Editor,
                "${userHome}${/}x ${workspaceFolderBasename}"
            )
            .unwrap(),
            "/home/u/x proj"
        );
        let why = with(Syntax::Editor, "Bearer ${input:gh-token}")
            .unwrap_err()
            .to_string();
        assert!(
            why.contains("${input:gh-token}") && why.contains("person"),
            "{why}"
        );
        assert_eq!(
            with(Syntax::Editor, "${TOKEN}").unwrap_err().to_string(),
            "`${TOKEN}` is not a variable driftlab expands"
        );
        assert!(with(Syntax::Editor, "${command:pick}").is_err());
    }

    #[test]
    fn codex_expands_nothing_and_unclosed_braces_stay() {
        assert_eq!(with(Syntax::Literal, "${TOKEN}").unwrap(), "${TOKEN}");
        assert_eq!(with(Syntax::Any, "a${TOKEN").unwrap(), "a${TOKEN");
        assert_eq!(with(Syntax::Any, "${env:TOKEN}${TOKEN}").unwrap(), "t0kt0k");
    }
}
