//! Fuzzes `driftlab merge` end to end, in-process: two real shards of a small study are written
//! once; each input replaces one file of shard 1 (the first byte picks manifest.json,
//! summary.json or rows.csv) and, for summary and rows, re-pins its sha256 in the manifest so the
//! bytes get past verification into parsing, matching and summing. Merge must answer 0 or 2
//! (never panic, never 70), and a merge that succeeds must leave a folder that verifies.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn run(args: &[&str]) -> u8 {
    let mut all = vec!["driftlab"];
    all.extend_from_slice(args);
    crate::cli::run_from(all)
}

/// A folder with shards s1 and s2 of a 30-surface study, written once per fuzzing process.
fn shards() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("driftlab-fuzz-merge-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for k in ["1", "2"] {
            let out = dir.join(format!("s{k}"));
            let code = run(&[
                "study",
                "--quiet",
                "--surfaces",
                "30",
                "--shard",
                &format!("{k}/2"),
                "--out",
                out.to_str().unwrap(),
            ]);
            assert_eq!(code, 0);
        }
        dir
    })
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// One fuzz input (`fuzz/fuzz_targets/merge.rs` runs it; `tests/it/fuzz_seeds.rs` runs it on the
/// committed seeds).
pub fn merge(data: &[u8]) {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let base = shards();
    let work = base.join("work");
    let shard = work.join("s1");
    copy_dir(&base.join("s1"), &shard);
    let name = ["manifest.json", "summary.json", "rows.csv"][usize::from(which) % 3];
    std::fs::write(shard.join(name), bytes).unwrap();
    if name != "manifest.json" {
        let manifest = shard.join("manifest.json");
        let mut value: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
        let hash = driftlab_contract::fs::hash_file(&shard.join(name)).unwrap();
        if let Some(files) = value.get_mut("files").and_then(|f| f.as_object_mut()) {
            files.insert(name.into(), hash.into());
        }
        std::fs::write(&manifest, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    }
    let out = work.join("merged");
    let code = run(&[
        "merge",
        "--quiet",
        "--no-figures",
        "--force",
        "--out",
        out.to_str().unwrap(),
        shard.to_str().unwrap(),
        base.join("s2").to_str().unwrap(),
    ]);
    assert!(code == 0 || code == 2, "merge exited {code}");
    if code == 0 {
        assert_eq!(run(&["verify", out.to_str().unwrap()]), 0);
    }
}
