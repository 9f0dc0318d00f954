//! Shell completions and man pages are generated from the command line itself: every command
//! and flag appears in them.

mod common;

use common::*;

#[test]
fn completions_name_every_command_and_their_flags() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = run(&["completions", shell]);
        assert!(output.status.success(), "{shell}: {}", stderr(&output));
        let script = stdout(&output);
        for word in [
            "check",
            "study",
            "guard-study",
            "approved",
            "rows",
            "completions",
        ] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
    let output = run(&["completions", "tcsh"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("invalid value 'tcsh'"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn man_writes_a_page_per_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man");
    let output = run(&["man", "-o", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let page = |name: &str| std::fs::read_to_string(out.join(format!("{name}.1"))).unwrap();
    assert!(
        page("driftlab").contains("driftlab\\-check"),
        "{}",
        page("driftlab")
    );
    let check = page("driftlab-check");
    assert!(check.starts_with(".ie") || check.contains(".TH"), "{check}");
    assert!(check.contains("approved"), "{check}");
    let pages = std::fs::read_dir(&out).unwrap().count();
    // driftlab.1 and one page per command (every command the listing in `--help` shows).
    let help = stdout(&run(&["--help"]));
    let commands = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.trim_start().starts_with("help "))
        .count();
    assert_eq!(pages, 1 + commands, "{help}");
}
