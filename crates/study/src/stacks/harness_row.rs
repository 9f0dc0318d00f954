//! A harness row (`stacks/*.py`, `adapters/*.py`): every case's calls in one run of its command
//! per version, then the calls that got an error retried in one more run at version 2. An
//! adapter row behind a guard path runs the same with `driftlab guard` between the adapter and
//! the server: pinned to the server's version-1 tools/list of the case, in front of the
//! version the harness asks for (so version 1, the control, runs through the guard too).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::spec::{fill, GuardPath, StackRow, StackStudy, CASE_PLACEHOLDER, VERSION_PLACEHOLDER};
use super::{harness, judge_case, repairs, row_id, CallRow, StackStudyError, STRAIGHT};
use driftlab_proxy::guard::study::session::{fresh_dir, run_session, Call};

/// One harness row on one path.
pub(crate) struct Run<'a> {
    pub study: &'a StackStudy,
    pub row: &'a StackRow,
    /// The guard path, for an adapter row behind it.
    pub guard: Option<&'a GuardPath>,
    pub driftlab: &'a Path,
    pub work: &'a Path,
}

impl Run<'_> {
    /// The row's calls, judged; `old` is each case's version-1 inputSchema per tool.
    pub fn rows(
        &self,
        all_calls: &[(String, Vec<Call>)],
        old: &BTreeMap<String, BTreeMap<String, Value>>,
    ) -> Result<Vec<CallRow>, StackStudyError> {
        let row = self.row;
        let id = row_id(&row.id, self.guard.map_or(STRAIGHT, |g| &g.id));
        // The row's cases, each with its index among the spec's.
        let (indexes, calls): (Vec<usize>, Vec<(String, Vec<Call>)>) = all_calls
            .iter()
            .enumerate()
            .filter(|(_, (case, _))| row.runs(case))
            .map(|(c, calls)| (c, calls.clone()))
            .unzip();
        let pins = match self.guard {
            Some(_) => Some(self.pin_each_case(&id, &calls)?),
            None => None,
        };
        let answers = |name: &str, version: u8, calls: &[(String, Vec<Call>)]| {
            let scratch = self.work.join(format!("{id}-{name}"));
            let argv = match (self.guard, &pins) {
                (Some(guard), Some(pins)) => self.guarded(guard, pins, &scratch)?,
                _ => row.command.clone().unwrap_or_default(),
            };
            let run = harness::Run {
                dir: &self.study.dir,
                timeout: self.timeout(),
                scratch: &scratch,
                driftlab: self.driftlab,
            };
            harness::answers(&argv, &run, version, calls)
        };
        let control = answers("v1", 1, &calls)?;
        let drifted = answers("v2", 2, &calls)?;
        // Every case's retries in one more run at version 2.
        let retries: Vec<Vec<Option<Call>>> = calls
            .iter()
            .zip(&drifted)
            .map(|((case, case_calls), evidence)| {
                repairs::retries(case_calls, evidence, old.get(case))
            })
            .collect();
        let retry_calls: Vec<(String, Vec<Call>)> = calls
            .iter()
            .zip(&retries)
            .map(|((case, _), r)| (case.clone(), repairs::made(r)))
            .filter(|(_, made)| !made.is_empty())
            .collect();
        let mut retried_runs = if retry_calls.is_empty() {
            Vec::new()
        } else {
            answers("retry", 2, &retry_calls)?
        }
        .into_iter();
        let mut rows = Vec::new();
        for (i, ((_, case_calls), case_retries)) in calls.iter().zip(retries).enumerate() {
            let evidence = if case_retries.iter().any(Option::is_some) {
                retried_runs.next().unwrap_or_default()
            } else {
                Vec::new()
            };
            rows.extend(judge_case(
                self.study,
                id.clone(),
                indexes[i],
                case_calls,
                &control[i],
                &drifted[i],
                &repairs::aligned(case_retries, evidence),
            ));
        }
        Ok(rows)
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(self.study.spec.timeout_secs)
    }

    /// The server's version-1 tools/list of each case, as the guard's pin:
    /// `<work>/<row>-pins/<case>.json`, the folder returned.
    fn pin_each_case(
        &self,
        id: &str,
        calls: &[(String, Vec<Call>)],
    ) -> Result<PathBuf, StackStudyError> {
        let fail = |why: String| StackStudyError::Command(format!("{id}: pinning: {why}"));
        let (_, server) = self
            .row
            .adapter_and_server()
            .ok_or_else(|| fail("an adapter row behind the guard needs `-- SERVER ARGV`".into()))?;
        let pins = fresh_dir(self.work, &format!("{id}-pins")).map_err(|e| fail(e.to_string()))?;
        for (case, _) in calls {
            let argv = fill(server, case, "1");
            let env = vec![
                (
                    "STUDY_LOG".into(),
                    pins.join(format!("{case}.log")).display().to_string(),
                ),
                ("DRIFTLAB".into(), self.driftlab.display().to_string()),
            ];
            let listed = run_session(&argv, &self.study.dir, &env, &[], self.timeout())
                .map_err(|e| fail(format!("{case}: {argv:?}: {e}")))?;
            let pin = pins.join(format!("{case}.json"));
            std::fs::write(&pin, &listed.tools_list)
                .map_err(|e| fail(format!("{}: {e}", pin.display())))?;
        }
        Ok(pins)
    }

    /// The adapter's command with `driftlab guard` in front of its server: the harness fills
    /// `{case}` and `{version}` in the pin's and the audit log's paths as in the server's argv.
    fn guarded(
        &self,
        guard: &GuardPath,
        pins: &Path,
        scratch: &Path,
    ) -> Result<Vec<String>, StackStudyError> {
        let (adapter, server) = self.row.adapter_and_server().unwrap_or_default();
        let audits = scratch.with_extension("audit");
        std::fs::create_dir_all(&audits)
            .map_err(|e| StackStudyError::Command(format!("{}: {e}", audits.display())))?;
        let mut argv = adapter.to_vec();
        argv.push("--".into());
        argv.extend(
            guard.argv(
                self.driftlab,
                pins.join(format!("{CASE_PLACEHOLDER}.json"))
                    .display()
                    .to_string(),
                audits
                    .join(format!("{CASE_PLACEHOLDER}-v{VERSION_PLACEHOLDER}.jsonl"))
                    .display()
                    .to_string(),
                server,
            ),
        );
        Ok(argv)
    }
}
