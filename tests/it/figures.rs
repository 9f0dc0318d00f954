//! Figures and report: produced by `driftlab study`, re-rendered by `driftlab figures`.

use crate::common;

use std::fs;

use common::*;

fn run_default_study(dir: &std::path::Path) -> std::path::PathBuf {
    let output = run_in(dir, &["study", "--quiet", "--out", "out"], None);
    assert!(output.status.success(), "{}", stderr(&output));
    dir.join("out")
}

#[test]
fn the_default_study_writes_figures_and_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_default_study(dir.path());
    let chart = fs::read_to_string(out.join("detection-chart.svg")).unwrap();
    for text in [
        "structural+ordered-snapshot",
        "960/1200",
        "1200/1200",
        "240/240",
        "0/240",
        "tools-reordered",
        // The spec's title, under the chart's own.
        "MCP contract drift: structural check vs. structural check + ordered tool-name snapshot",
    ] {
        assert!(chart.contains(text), "detection chart lacks {text:?}");
    }
    let matrix = fs::read_to_string(out.join("detection-matrix.svg")).unwrap();
    for text in [
        "structural+ordered-snapshot",
        "tools-reordered",
        "100%",
        "0%",
    ] {
        assert!(matrix.contains(text), "matrix lacks {text:?}");
    }
    // The chart has a fixed canvas; the matrix is cropped to its grid, labels and colour bar
    // (unit tests in crates/plot/src/plot/detection_matrix.rs), which for two gates is still a full figure.
    let (width, height) = png_size(&out.join("detection-chart.png"));
    assert!(width >= 1600 && height >= 400, "chart {width} x {height}");
    let (width, height) = png_size(&out.join("detection-matrix.png"));
    assert!(width >= 600 && height >= 400, "matrix {width} x {height}");
    let report = fs::read_to_string(out.join("report.md")).unwrap();
    let manifest = read_json(&out.join("manifest.json"));
    let rows_sha = manifest["files"]["rows.csv"].as_str().unwrap();
    for text in [
        "Of 1200 injected contract changes, `structural` detected 960/1200 (80%) and `structural+ordered-snapshot` detected 1200/1200 (100%); `structural` missed every `tools-reordered` change; no gate flagged any of the 240 unchanged controls.",
        "![Detection chart](detection-chart.svg)",
        "Seed `20260822`",
        "```sh\ndriftlab study\n```",
        rows_sha,
        "## Limits",
        "Detection is by construction",
    ] {
        assert!(report.contains(text), "report lacks {text:?}");
    }
    for name in [
        "detection-chart.svg",
        "detection-chart.png",
        "detection-matrix.svg",
        "detection-matrix.png",
        "report.md",
    ] {
        assert!(manifest["files"][name].is_string(), "manifest lacks {name}");
    }
}

#[test]
fn figures_re_renders_identical_bytes_from_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_default_study(dir.path());
    let names = [
        "detection-chart.svg",
        "detection-matrix.svg",
        "detection-chart.png",
        "detection-matrix-7in.svg",
        "detection-chart-3.5in.png",
        "report.md",
        "manifest.json",
    ];
    let before: Vec<Vec<u8>> = names
        .iter()
        .map(|n| fs::read(out.join(n)).unwrap())
        .collect();
    for name in &names[..6] {
        fs::remove_file(out.join(name)).unwrap();
    }
    // rows.csv is not needed: figures come from summary.json alone.
    fs::remove_file(out.join("rows.csv")).unwrap();
    let output = run(&["figures", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let after: Vec<Vec<u8>> = names
        .iter()
        .map(|n| fs::read(out.join(n)).unwrap())
        .collect();
    for (name, (a, b)) in names.iter().zip(before.iter().zip(&after)) {
        assert!(a == b, "{name} changed on re-render");
    }
}

#[test]
fn no_figures_skips_figures_and_report() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_in(
        dir.path(),
        &["study", "-q", "--no-figures", "--out", "out"],
        None,
    );
    assert!(output.status.success());
    assert!(dir.path().join("out/summary.json").exists());
    assert!(!dir.path().join("out/detection-chart.svg").exists());
    assert!(!dir.path().join("out/report.md").exists());
}

#[test]
fn missing_or_malformed_summary_exits_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    // A missing folder: the operating system's reason is said once, not once per cause.
    let gone = dir.path().join("gone");
    let output = run(&["figures", gone.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert_eq!(message.matches("(os error 2)").count(), 1, "{message}");
    let output = run(&["figures", dir.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("summary.json: cannot read"), "{message}");
    assert_eq!(message.trim_end().lines().count(), 1, "{message}");

    fs::write(dir.path().join("summary.json"), "{\"study\": 3}").unwrap();
    let output = run(&["figures", dir.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("summary.json:1:"), "{message}");
    assert_eq!(message.trim_end().lines().count(), 1, "{message}");
}

#[test]
fn a_15_by_25_matrix_renders() {
    let summary = driftlab_plot::plot::sample_summary(15, 25);
    let figures = driftlab_plot::plot::all(&summary, driftlab_plot::plot::Medium::Screen).unwrap();
    let matrix = figures
        .iter()
        .find(|f| f.stem == "detection-matrix")
        .unwrap();
    assert!(matrix.width >= 1600 + 200, "{}", matrix.width);
    // Kept for a visual check: target/tmp/detection-matrix-15x25.png
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("detection-matrix-15x25.png");
    fs::write(&path, &matrix.png).unwrap();
    assert_eq!(png_size(&path), (matrix.width, matrix.height));
    let svg = &matrix.svg;
    assert_eq!(
        svg.matches("optional-parameter-became-required-").count(),
        25
    );
    assert_eq!(
        svg.matches("classifier-fail-on-warning+ordered-snapshot-")
            .count(),
        15
    );
    assert!(svg.contains("n/a"));
}

fn png_size(path: &std::path::Path) -> (u32, u32) {
    let decoder = png::Decoder::new(fs::File::open(path).unwrap());
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    (info.width, info.height)
}

#[test]
fn a_study_writes_print_versions_and_figures_redraws_one_width_at_a_dpi() {
    use driftlab_plot::plot::{study_file_names, Medium};
    let dir = tempfile::tempdir().unwrap();
    let out = run_default_study(dir.path());
    let summary: driftlab_record::Summary =
        serde_json::from_slice(&fs::read(out.join("summary.json")).unwrap()).unwrap();
    for name in study_file_names(&summary, &Medium::DEFAULTS) {
        assert!(out.join(&name).is_file(), "{name} not written");
    }
    assert_eq!(png_size(&out.join("detection-matrix-7in.png")).0, 2100);
    assert_eq!(png_size(&out.join("detection-chart-3.5in.png")).0, 1050);
    let svg = fs::read_to_string(out.join("detection-chart-3.5in.svg")).unwrap();
    assert!(svg.starts_with("<svg width=\"3.5in\""), "{}", &svg[..80]);
    let report = fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("[`detection-matrix-7in.svg`](detection-matrix-7in.svg)"));

    let untouched = ["detection-chart.png", "detection-matrix-3.5in.png"];
    let before: Vec<Vec<u8>> = untouched
        .iter()
        .map(|n| fs::read(out.join(n)).unwrap())
        .collect();
    let output = run(&[
        "figures",
        out.to_str().unwrap(),
        "--width",
        "7in",
        "--dpi",
        "150",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let path = out.join("detection-matrix-7in.png");
    assert_eq!(png_size(&path).0, 1050, "7 in at 150 dpi");
    let decoder = png::Decoder::new(fs::File::open(&path).unwrap());
    let dims = decoder.read_info().unwrap().info().pixel_dims.unwrap();
    assert_eq!(dims.xppu, 5906, "150 dpi in pixels per metre");
    for (name, bytes) in untouched.iter().zip(&before) {
        assert!(
            &fs::read(out.join(name)).unwrap() == bytes,
            "{name} was redrawn"
        );
    }
    // The manifest follows the redrawn files.
    let output = run(&["verify", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));

    for bad in [&["--width", "5in"][..], &["--dpi", "10"]] {
        let mut argv = vec!["figures", out.to_str().unwrap()];
        argv.extend_from_slice(bad);
        let output = run(&argv);
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
        let message = stderr(&output);
        assert!(message.contains(bad[1]), "{message}");
    }
}

#[test]
fn redrawn_figures_remove_the_parts_of_an_earlier_split_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_default_study(dir.path());
    // As if an earlier run had drawn the 7 in matrix in two parts.
    let stale = [
        "detection-matrix-7in-part1.svg",
        "detection-matrix-7in-part2.png",
    ];
    let kept = [
        "detection-matrix-7in-partial.svg",
        "detection-matrix-3.5in-part1.svg",
    ];
    for name in stale.iter().chain(&kept) {
        fs::write(out.join(name), "old").unwrap();
    }
    let output = run(&["figures", out.to_str().unwrap(), "--width", "7in"]);
    assert!(output.status.success(), "{}", stderr(&output));
    for name in stale {
        assert!(!out.join(name).exists(), "{name} left behind");
    }
    // Not a part's name, or not a width that was redrawn.
    for name in kept {
        assert!(out.join(name).exists(), "{name} removed");
    }
    assert!(out.join("detection-matrix-7in.svg").is_file());
}
