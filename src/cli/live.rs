//! Options naming a live server (`-- CMD…` or `--url`), shared by capture, snapshot and check.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};

use driftlab_contract::payload::Limits;
use driftlab_contract::surface::Surface;
use driftlab_live::live::http::HttpTransport;
use driftlab_live::live::stdio::StdioTransport;
use driftlab_live::live::ProtocolMode;
use driftlab_live::live::{
    self, Capture, CaptureOptions, Target, Transport, DEFAULT_PROTOCOL_VERSION,
};

/// Which part of a server's contract a command records or compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Scope {
    /// everything recorded: tools, prompts, resources, resource templates, instructions and
    /// capabilities (an approved file that records tools only still gates tools only)
    #[default]
    All,
    /// tools only
    Tools,
}

#[derive(clap::Args, Debug)]
#[command(next_help_heading = "Live server")]
pub struct ServerArgs {
    /// Capture from this Streamable HTTP endpoint instead of a command after `--`.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// A header sent with every request to --url, as `Name: value` (repeatable).
    #[arg(long = "header", value_name = "NAME:VALUE", requires = "url")]
    pub headers: Vec<String>,
    /// Seconds the server may take for each phase: start and initialize, then each tools/list
    /// page.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,
    /// Which protocol era to speak: `auto` probes 2026-07-28's `server/discover` and falls back
    /// to `initialize` when the server refuses it or does not list 2026-07-28; `legacy` sends
    /// `initialize` only; `2026-07-28` never does. The capture records what was spoken and why.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = ProtocolMode::Auto)]
    pub protocol: ProtocolMode,
    /// The protocol version offered in `initialize` (the server may pick another; the capture
    /// records both).
    #[arg(long, value_name = "VERSION", default_value = DEFAULT_PROTOCOL_VERSION)]
    pub protocol_version: String,
    /// Client capabilities declared in `initialize`, as a JSON object. Servers may list other
    /// tools for other capabilities; the default declares none.
    #[arg(long, value_name = "JSON", default_value = "{}")]
    pub client_capabilities: String,
    /// Follow at most this many tools/list pages.
    #[arg(long, value_name = "N", default_value_t = driftlab_live::live::DEFAULT_MAX_PAGES)]
    pub max_pages: usize,
    /// Write the server's stderr to this file (by default only its end is kept, for errors).
    #[arg(long, value_name = "FILE")]
    pub server_stderr: Option<PathBuf>,
    /// The server command and its arguments, after `--`. It is run directly, never through a
    /// shell, in its own process group.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

impl ServerArgs {
    /// The live server these options name, if any.
    pub fn target(&self) -> Result<Option<Target>> {
        match (&self.url, self.command.is_empty()) {
            (Some(_), false) => bail!("give either --url or a command after `--`, not both"),
            (Some(url), true) => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    bail!("--url {url}: expected an http:// or https:// URL");
                }
                let headers = self
                    .headers
                    .iter()
                    .map(|h| parse_header(h))
                    .collect::<Result<_>>()?;
                Ok(Some(Target::Url {
                    url: url.clone(),
                    headers,
                }))
            }
            (None, false) => Ok(Some(Target::Command(self.command.clone()))),
            (None, true) => Ok(None),
        }
    }

    /// What to offer the server, and the limits, with `max_bytes` from the command's own flag.
    pub fn options(&self, max_bytes: usize) -> Result<CaptureOptions> {
        let timeout = timeout(self.timeout)?;
        let client_capabilities: serde_json::Value =
            serde_json::from_str(&self.client_capabilities)
                .ok()
                .filter(serde_json::Value::is_object)
                .ok_or_else(|| {
                    anyhow!(
                "--client-capabilities {}: expected a JSON object such as '{{\"roots\":{{}}}}'",
                self.client_capabilities
            )
                })?;
        if self.max_pages == 0 {
            bail!("--max-pages 0: at least one page must be allowed");
        }
        Ok(CaptureOptions {
            protocol_version: self.protocol_version.clone(),
            client_capabilities,
            timeout,
            max_pages: self.max_pages,
            max_bytes,
            whole_contract: false,
            protocol: self.protocol,
        })
    }

    /// Starts the server (or prepares the HTTP connection to it).
    pub fn connect(&self, target: &Target, options: &CaptureOptions) -> Result<Box<dyn Transport>> {
        Ok(match target {
            Target::Command(argv) => Box::new(
                StdioTransport::spawn(argv, options.max_bytes, self.server_stderr.as_deref())
                    .with_context(|| target.label())?,
            ),
            Target::Url { url, headers } => Box::new(HttpTransport::new(
                url,
                headers.clone(),
                options.timeout,
                options.max_bytes,
            )),
        })
    }

    /// Starts (or connects to) the server and captures its tools, once.
    pub fn capture(&self, target: &Target, options: &CaptureOptions) -> Result<Capture> {
        let transport = self.connect(target, options)?;
        live::capture(transport, options).with_context(|| target.label())
    }
}

/// `--timeout` in seconds as a duration, refused outside (0, 86400].
pub fn timeout(seconds: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|t| !t.is_zero() && t.as_secs() <= 86_400)
        .ok_or_else(|| anyhow!("--timeout {seconds}: expected seconds above 0 and at most 86400"))
}

/// `Name: value` → (name, value).
pub fn parse_header(text: &str) -> Result<(String, String)> {
    match text.split_once(':') {
        Some((name, value))
            if !name.trim().is_empty() && name.trim().bytes().all(|b| b.is_ascii_graphic()) =>
        {
            Ok((name.trim().to_string(), value.trim().to_string()))
        }
        _ => bail!("--header {text}: expected `Name: value`"),
    }
}

/// The surface a live server lists now, read exactly as a payload file would be; with
/// [`Scope::All`], the rest of its contract is captured and attached too.
pub fn live_surface(
    server: &ServerArgs,
    target: &Target,
    limits: Limits,
    scope: Scope,
) -> Result<Surface> {
    let mut options = server.options(limits.max_bytes)?;
    options.whole_contract = scope == Scope::All;
    let capture = server.capture(target, &options)?;
    Ok(live::capture_file::surface_of(
        &capture,
        target,
        limits,
        scope == Scope::All,
    )?)
}

/// A surface from a payload path or a live server: exactly one of them must be given. With
/// [`Scope::Tools`] it carries no contract beyond tools. A payload file is read beside
/// `approved` when given (see `read_surface_beside`).
pub fn surface_from(
    path: Option<&str>,
    server: &ServerArgs,
    limits: Limits,
    what: &str,
    scope: Scope,
    approved: Option<&Surface>,
) -> Result<(Surface, String)> {
    match (path, server.target()?) {
        (Some(_), Some(_)) => bail!(
            "give either a {what} payload file or a live server (`-- CMD…` or --url), not both"
        ),
        (Some(path), None) => {
            let surface =
                driftlab_contract::payload::input::read_surface_beside(path, limits, approved)?;
            Ok((scoped(surface, scope), path.to_string()))
        }
        (None, Some(target)) => Ok((
            live_surface(server, &target, limits, scope)?,
            target.label(),
        )),
        (None, None) => {
            bail!("no {what}: give a payload file (`-` for stdin) or a live server after `--`")
        }
    }
}

/// The surface as `scope` compares it.
pub fn scoped(surface: Surface, scope: Scope) -> Surface {
    match scope {
        Scope::All => surface,
        Scope::Tools => surface.with_contract(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_need_a_name_and_a_colon() {
        assert_eq!(
            parse_header("Authorization: Bearer x:y").unwrap(),
            ("Authorization".into(), "Bearer x:y".into())
        );
        assert!(parse_header("novalue").is_err());
        assert!(parse_header(": x").is_err());
        assert!(parse_header("a b: x").is_err());
    }
}
