//! Surfaces from live servers: surface `i` is server `i mod n` of the spec's `[[live]]` list.
//! The approved payload is a direct capture; each candidate is a capture through `driftlab wrap
//! --drift CLASS --seed SEED --drift-index i`, i.e. the mutation a client of the drifted server
//! would see, drawn from the same stream the synthetic runner uses for surface `i`.

use serde_json::Value;
use thiserror::Error;

use super::spec::{LiveServerSpec, Study};
use driftlab_contract::payload::DEFAULT_MAX_BYTES;
use driftlab_live::live::stdio::{Launch, StdioTransport};
use driftlab_live::live::{
    self, CaptureOptions, LiveError, DEFAULT_PROTOCOL_VERSION, DEFAULT_TIMEOUT,
};
use driftlab_mutate::mutate::MutationClass;

/// Why a live surface could not be captured or does not match its mutation. LiveErrors are
/// boxed: they are large and travel up through the runner's every `?`.
#[derive(Debug, Error)]
pub enum LiveStudyError {
    /// The server could not be started or opened.
    #[error("live server {server}: {error}")]
    Start {
        /// The server's name.
        server: String,
        /// What is wrong.
        error: Box<LiveError>,
    },
    /// Its tools could not be listed in one page.
    #[error(
        "live server {server}: {error} (a live study needs servers that list their tools in one \
         page)"
    )]
    Capture {
        /// The server's name.
        server: String,
        /// What is wrong.
        error: Box<LiveError>,
    },
    /// Its tools/list result is not JSON.
    #[error("live server {server}: {error}")]
    NotJson {
        /// The server's name.
        server: String,
        /// What is wrong.
        error: serde_json::Error,
    },
    /// The driftlab binary that runs `wrap` cannot be found.
    #[error("cannot find the driftlab binary: {0}")]
    NoBinary(std::io::Error),
    /// What came through `driftlab wrap` is not what the mutation made.
    #[error("the bytes through `driftlab wrap` differ from the mutation's bytes")]
    WrapDiffers,
}

/// A live server's approved surface: its name, its exact tools/list bytes, and their value.
pub struct LiveBase<'a> {
    /// The server's name.
    pub name: &'a str,
    /// Its tools/list result, exactly as sent.
    pub bytes: Vec<u8>,
    /// The same, parsed.
    pub value: Value,
}

fn server(study: &Study, index: u64) -> &LiveServerSpec {
    &study.spec.live[(index % study.spec.live.len() as u64) as usize]
}

/// argv with the program resolved against the spec's folder when it is a relative path.
fn resolve(study: &Study, argv: &[String]) -> Vec<String> {
    driftlab_live::live::stdio::resolve_argv(&study.live_dir, argv)
}

fn capture(
    study: &Study,
    server: &LiveServerSpec,
    argv: &[String],
) -> Result<Vec<u8>, LiveStudyError> {
    let launch = Launch {
        dir: Some(study.live_dir.clone()),
        env: server
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    };
    let options = CaptureOptions {
        protocol_version: DEFAULT_PROTOCOL_VERSION.into(),
        client_capabilities: serde_json::json!({}),
        timeout: DEFAULT_TIMEOUT,
        max_pages: 1,
        max_bytes: DEFAULT_MAX_BYTES,
        whole_contract: false,
        // The committed results were captured with the handshake; keep them reproducible.
        protocol: driftlab_live::live::ProtocolMode::Legacy,
    };
    let transport =
        StdioTransport::spawn_in(argv, DEFAULT_MAX_BYTES, None, &launch).map_err(|error| {
            LiveStudyError::Start {
                server: server.name.clone(),
                error: Box::new(error),
            }
        })?;
    let capture = live::capture(transport, &options).map_err(|error| LiveStudyError::Capture {
        server: server.name.clone(),
        error: Box::new(error),
    })?;
    Ok(capture.tools_list_bytes())
}

/// The approved surface of surface `index`: a direct capture of its server.
pub fn approved(study: &Study, index: u64) -> Result<LiveBase<'_>, LiveStudyError> {
    let server = server(study, index);
    let bytes = capture(study, server, &resolve(study, &server.command))?;
    let value = serde_json::from_slice(&bytes).map_err(|error| LiveStudyError::NotJson {
        server: server.name.clone(),
        error,
    })?;
    Ok(LiveBase {
        name: &server.name,
        bytes,
        value,
    })
}

/// The bytes a client of surface `index`'s server sees through `driftlab wrap`: drifted by
/// `class`, or passed through untouched for `None` (the control).
pub(crate) fn through_wrap(
    study: &Study,
    index: u64,
    class: Option<&dyn MutationClass>,
) -> Result<Vec<u8>, LiveStudyError> {
    let server = server(study, index);
    let driftlab = std::env::current_exe().map_err(LiveStudyError::NoBinary)?;
    let mut argv = vec![
        driftlab.display().to_string(),
        "wrap".into(),
        "--seed".into(),
        study.spec.seed.to_string(),
        "--drift-index".into(),
        index.to_string(),
    ];
    if let Some(class) = class {
        argv.extend(["--drift".to_string(), class.id().to_string()]);
    }
    argv.push("--".into());
    argv.extend(resolve(study, &server.command));
    capture(study, server, &argv)
}
