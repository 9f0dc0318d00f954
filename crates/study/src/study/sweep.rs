//! Sweeps: one study spec run at every combination of several seeds and surface counts, and the
//! spread of each gate × class detection rate across seeds.

use serde::Serialize;

use super::runner::{self, RowsMode, RunError};
use super::spec::Study;
use driftlab_record::Summary;

/// One configuration's result for one gate and class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepRow {
    /// The configuration's seed.
    pub seed: u64,
    /// Its surface count.
    pub surfaces: u64,
    /// The gate's id.
    pub gate: String,
    /// The class's id.
    pub mutation: String,
    /// Rows where the gate detected the change.
    pub detected: u64,
    /// Rows where the class applied.
    pub total: u64,
    /// `detected / total`; `None` when `total` is 0.
    pub rate: Option<f64>,
}

/// Across seeds, for one surface count, gate and class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spread {
    /// The surface count.
    pub surfaces: u64,
    /// The gate's id.
    pub gate: String,
    /// The class's id.
    pub mutation: String,
    /// Configurations with a defined rate (the class applied at least once).
    pub configurations: usize,
    /// The mean rate over them.
    pub mean_rate: Option<f64>,
    /// Sample standard deviation (n − 1); 0 for a single configuration.
    pub sd_rate: Option<f64>,
    /// The lowest rate.
    pub min_rate: Option<f64>,
    /// The highest rate.
    pub max_rate: Option<f64>,
}

/// The configurations of a sweep, in order: surface counts outer, seeds inner.
pub fn configurations(study: &Study) -> Vec<(u64, u64)> {
    let Some(sweep) = &study.spec.sweep else {
        return vec![(study.spec.seed, study.spec.surfaces)];
    };
    let mut out = Vec::new();
    for &surfaces in &sweep.surfaces {
        for &seed in &sweep.seeds {
            out.push((seed, surfaces));
        }
    }
    out
}

/// Runs every configuration (no rows kept) and returns its summary.
pub fn run(study: &Study, progress: &(dyn Fn(u64) + Sync)) -> Result<Vec<Summary>, RunError> {
    configurations(study)
        .into_iter()
        .map(|(seed, surfaces)| {
            let mut config = study.clone();
            config.spec.seed = seed;
            config.spec.surfaces = surfaces;
            config.spec.sweep = None;
            runner::run(
                &config,
                RowsMode::None,
                |_| Ok::<(), RunError>(()),
                progress,
            )
        })
        .collect()
}

/// One row per configuration × gate × class (the identity control as `identity`).
pub fn rows(summaries: &[Summary]) -> Vec<SweepRow> {
    let mut out = Vec::new();
    for s in summaries {
        for c in &s.cells {
            out.push(SweepRow {
                seed: s.seed,
                surfaces: s.surfaces,
                gate: c.gate.clone(),
                mutation: c.mutation.clone(),
                detected: c.detected,
                total: c.total,
                rate: c.rate,
            });
        }
        for c in &s.controls {
            out.push(SweepRow {
                seed: s.seed,
                surfaces: s.surfaces,
                gate: c.gate.clone(),
                mutation: driftlab_mutate::mutate::CONTROL.id().into(),
                detected: c.false_positives,
                total: c.total,
                rate: driftlab_record::rate(c.false_positives, c.total),
            });
        }
    }
    out
}

/// Mean, spread and range of each rate across seeds, per surface count, gate and class, in the
/// order the rows first name them.
pub fn spreads(rows: &[SweepRow]) -> Vec<Spread> {
    let mut keys: Vec<(u64, &str, &str)> = Vec::new();
    for r in rows {
        let key = (r.surfaces, r.gate.as_str(), r.mutation.as_str());
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys.into_iter()
        .map(|(surfaces, gate, mutation)| {
            let rates: Vec<f64> = rows
                .iter()
                .filter(|r| r.surfaces == surfaces && r.gate == gate && r.mutation == mutation)
                .filter_map(|r| r.rate)
                .collect();
            let n = rates.len();
            let mean = (n > 0).then(|| rates.iter().sum::<f64>() / n as f64);
            let sd = mean.map(|m| {
                if n < 2 {
                    0.0
                } else {
                    (rates.iter().map(|r| (r - m).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
                }
            });
            Spread {
                surfaces,
                gate: gate.into(),
                mutation: mutation.into(),
                configurations: n,
                mean_rate: mean,
                sd_rate: sd,
                min_rate: rates.iter().copied().reduce(f64::min),
                max_rate: rates.iter().copied().reduce(f64::max),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(seed: u64, rate: Option<f64>) -> SweepRow {
        SweepRow {
            seed,
            surfaces: 10,
            gate: "g".into(),
            mutation: "m".into(),
            detected: 0,
            total: 0,
            rate,
        }
    }

    #[test]
    fn spread_statistics() {
        let s = spreads(&[row(1, Some(0.5)), row(2, Some(1.0)), row(3, None)]);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].configurations, 2);
        assert_eq!(s[0].mean_rate, Some(0.75));
        assert!((s[0].sd_rate.unwrap() - 0.353_553_390_593_273_8).abs() < 1e-12);
        assert_eq!((s[0].min_rate, s[0].max_rate), (Some(0.5), Some(1.0)));
        let one = spreads(&[row(1, Some(0.2))]);
        assert_eq!(one[0].sd_rate, Some(0.0));
    }
}
