//! Helpers shared by the CLI tests: run the real binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn driftlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_driftlab"))
}

pub fn run(args: &[&str]) -> Output {
    driftlab().args(args).output().expect("binary runs")
}

pub fn run_in(dir: &Path, args: &[&str], threads: Option<usize>) -> Output {
    let mut command = driftlab();
    command.current_dir(dir).args(args);
    if let Some(n) = threads {
        command.env("RAYON_NUM_THREADS", n.to_string());
    }
    command.output().expect("binary runs")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("file exists")).expect("valid JSON")
}

pub mod live;
