//! What the proxy talks to: a command it runs (stdio) or a Streamable HTTP endpoint. Either way
//! the proxy writes lines and reads lines; only starting and ending differ.

use std::io;
use std::process::Stdio;
use std::time::Duration;

use super::http_upstream::{self, Bridge, HttpUpstream};
use driftlab_live::live::stdio::{describe_status, ServerProcess};
use driftlab_live::live::LiveError;

/// The server behind the proxy.
#[derive(Debug, Clone)]
pub enum Upstream {
    /// Run this argv and speak to it on its stdin and stdout.
    Command(Vec<String>),
    /// POST to this endpoint.
    Http(HttpUpstream),
}

impl Upstream {
    /// The server as error messages name it: `live:ARGV` or `live:URL`.
    pub fn label(&self) -> String {
        match self {
            Upstream::Command(argv) => format!("live:{}", argv.join(" ")),
            Upstream::Http(http) => {
                format!("live:{}", driftlab_live::live::redact::shown_url(&http.url))
            }
        }
    }
}

/// A started upstream.
pub(super) enum Server {
    Process(ServerProcess),
    Http(Bridge),
}

/// The lines to the server and from it.
pub(super) type Pipes = (Box<dyn io::Read + Send>, Box<dyn io::Write + Send>);

/// Starts the upstream: the server's output to read, its input to write.
pub(super) fn start(upstream: &Upstream, max_line: usize) -> Result<(Server, Pipes), LiveError> {
    match upstream {
        Upstream::Command(argv) => {
            let (mut server, out, _) = ServerProcess::spawn(argv, Stdio::inherit())?;
            let input = server
                .take_stdin()
                .ok_or_else(|| LiveError::Protocol("the server's stdin is not a pipe".into()))?;
            Ok((Server::Process(server), (Box::new(out), Box::new(input))))
        }
        Upstream::Http(http) => {
            let (bridge, out, input) = http_upstream::spawn(http.clone(), max_line);
            Ok((Server::Http(bridge), (Box::new(out), Box::new(input))))
        }
    }
}

impl Server {
    /// Ends the server now (a crash fault); over HTTP the bridge stops instead.
    pub(super) fn kill(&mut self) {
        match self {
            Server::Process(process) => process.kill(),
            Server::Http(bridge) => bridge.stop(),
        }
    }

    /// Notes the processes below a command, before it sees end of input.
    pub(super) fn remember_descendants(&mut self) {
        if let Server::Process(process) = self {
            process.remember_descendants();
        }
    }

    /// Ends the server once its input is closed, and says how it ended.
    pub(super) fn close(&mut self) -> String {
        match self {
            Server::Process(process) => {
                process.close();
                process
                    .exit_status(Duration::ZERO)
                    .map_or("exited".to_string(), describe_status)
            }
            Server::Http(bridge) => bridge.describe_end(),
        }
    }
}
