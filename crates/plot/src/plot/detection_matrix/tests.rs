//! Unit tests of `detection_matrix`.

use super::*;

#[test]
fn labels_fit_their_areas_at_15_by_25() {
    style::register_fonts().unwrap();
    let summary = super::super::sample_summary(15, 25);
    let layout = layout(&summary);
    let mut pixels = vec![0u8; 3 * 64 * 64];
    let area = BitMapBackend::with_buffer(&mut pixels, (64, 64)).into_drawing_area();
    let font = (FONT, LABEL_FONT).into_font().color(&BLACK);
    // Rotated column labels: each is one text line tall, narrower than a column.
    assert!(CELL_W as f64 >= LABEL_FONT * 1.5);
    for class in &summary.mutations {
        let (w, _) = area.estimate_text_size(class, &font).unwrap();
        assert!(
            w + 8 + 60 < layout.top,
            "{class}: {w}px does not fit above the grid"
        );
    }
    for gate in summary.gates.iter().map(|g| &g.id) {
        let (w, h) = area.estimate_text_size(gate, &font).unwrap();
        assert!(
            w + 10 < layout.left,
            "{gate}: {w}px does not fit left of the grid"
        );
        assert!(h < CELL_H, "{gate}: {h}px taller than a row");
    }
    let cell_font = (FONT, RATE_SIZE).into_font().color(&BLACK);
    let (w, _) = area.estimate_text_size("66.7%", &cell_font).unwrap();
    assert!(w < CELL_W - 6);
    assert!(style::text_width("240/240", COUNT_SIZE, false) + 6 <= CELL_W);
    assert!(RATE_SIZE + COUNT_SIZE + 8.0 < f64::from(CELL_H));
}

#[test]
fn a_one_column_band_names_its_label_in_full_within_the_column() {
    use driftlab_mutate::mutate::Label;
    use driftlab_record::ClassLabel;
    let mut summary = super::super::sample_summary(2, 5);
    for (c, class) in summary.mutations.iter().enumerate() {
        let label = if c == 4 {
            Label::Dangerous
        } else {
            Label::Breaking
        };
        summary.labels.push(ClassLabel {
            mutation: class.clone(),
            label,
        });
    }
    let svg = render(&summary, Medium::Screen).unwrap().remove(0).svg;
    assert!(
        svg.contains("\ndangerous\n"),
        "the one-column band is not named in full"
    );
    // The column is 76 px wide; its band leaves 4 px each side and 8 px for the text.
    let room = CELL_W - 4 - 8;
    for word in ["breaking", "dangerous", "compatible", "benign"] {
        let size = band_font_size(word, room);
        assert!(size >= 10.0, "{word}");
        assert!(
            style::text_width(word, size, false) <= room,
            "{word} at {size}px"
        );
    }
}

#[test]
fn labelled_columns_get_bands_and_the_canvas_fits_the_grid() {
    use driftlab_mutate::mutate::Label;
    use driftlab_record::ClassLabel;
    let mut summary = super::super::sample_summary(9, 24);
    let labels = [
        (14, Label::Breaking),
        (3, Label::Dangerous),
        (5, Label::Compatible),
        (2, Label::Benign),
    ];
    let mut classes = summary.mutations.iter();
    for (n, label) in labels {
        for class in classes.by_ref().take(n) {
            summary.labels.push(ClassLabel {
                mutation: class.clone(),
                label,
            });
        }
    }
    let bands = label_bands(&summary);
    assert_eq!(
        bands,
        [
            (Label::Breaking, 0, 14),
            (Label::Dangerous, 14, 17),
            (Label::Compatible, 17, 22),
            (Label::Benign, 22, 24)
        ]
    );
    let figure = render(&summary, Medium::Screen).unwrap().remove(0);
    for label in ["breaking", "dangerous", "compatible", "benign"] {
        assert!(
            figure.svg.contains(&format!("\n{label}\n")),
            "band {label} drawn"
        );
    }
    // No empty canvas: as wide as the grid, its labels and the colour bar, and no taller
    // than the header the labels need; the study's title wraps instead of widening it.
    summary.title = "a study title much longer than the grid is wide ".repeat(8);
    let layout = layout(&summary);
    let longest = style::text_width(&summary.mutations[0], LABEL_FONT, false);
    assert_eq!(
        layout.width,
        layout.left + 24 * CELL_W + 30 + COLOUR_BAR_STEP as u32 + COLOUR_BAR_W,
        "two colour bars: detection and false alarm"
    );
    assert!(layout.subtitle.len() >= 2, "{:?}", layout.subtitle);
    for line in &layout.subtitle {
        assert!(style::text_width(line, SUBTITLE_SIZE, false) <= layout.width - 80);
    }
    assert_eq!(
        layout.top,
        layout.band_top + BAND_H + 8 + longest + 16,
        "the band sits right over the column labels"
    );
    for line in &layout.note {
        assert!(style::text_width(line, NOTE_SIZE, false) <= layout.width - layout.left - 20);
    }
    // A two-gate, five-class study (the published one's shape): the note wraps to the
    // canvas rather than running off it.
    let small = super::super::sample_summary(2, 5);
    let layout = super::layout(&small);
    assert!(layout.note.len() >= 2, "{:?}", layout.note);
    assert!(layout.height >= layout.top + layout.grid_height + 30 + 2 * NOTE_LINE);
    // Without labels there are no bands.
    summary.labels.clear();
    assert!(label_bands(&summary).is_empty());
}

/// A labelled study: a flag of a class that should be flagged is drawn on the detection scale,
/// one of a harmless class on the false-alarm scale, so the two never look alike; each cell
/// gives its count, and the note says only what the figure shows.
#[test]
fn a_false_alarm_never_looks_like_a_detection() {
    use driftlab_mutate::mutate::Label;
    use driftlab_record::{ClassLabel, GateInfo};
    let mut summary = super::super::sample_summary(2, 2);
    for cell in &mut summary.cells {
        (cell.detected, cell.total, cell.rate) = (240, 240, Some(1.0));
    }
    let [breaking, compatible] = [&summary.mutations[0], &summary.mutations[1]].map(String::clone);
    for (class, label) in [
        (&breaking, Label::Breaking),
        (&compatible, Label::Compatible),
    ] {
        summary.labels.push(ClassLabel {
            mutation: class.clone(),
            label,
        });
    }
    summary.gates[1] = GateInfo {
        id: "names".into(),
        rules: vec!["name-set".into()],
        command: None,
    };
    for cell in summary.cells.iter_mut().skip(2) {
        cell.gate = "names".into();
    }
    let detected = cell_colour(&summary, &breaking, Some(1.0));
    let alarm = cell_colour(&summary, &compatible, Some(1.0));
    assert_ne!(detected, alarm);
    assert_eq!(detected, style::viridis(1.0));
    assert_eq!(alarm, style::reds(1.0));
    let hex = |c: RGBColor| format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
    let svg = render(&summary, Medium::Screen).unwrap().remove(0).svg;
    assert!(svg.contains(&hex(detected)) && svg.contains(&hex(alarm)));
    assert!(svg.contains("\n240/240\n"), "cells give their counts");
    assert!(svg.contains("names (emulated)"), "an emulation is marked");
    assert!(svg.contains("false alarm"));
    let note = note(&summary, &["names (emulated)".into()]);
    assert!(note.contains("false alarm") && note.contains("(emulated)"));
    assert!(
        !note.contains("Grey"),
        "no cell is grey, so the note names none: {note}"
    );
    summary.cells[0].total = 0;
    assert!(super::note(&summary, &[]).contains("Grey"));
}
