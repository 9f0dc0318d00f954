//! A record re-derived offline: every contract hashes to its name, and every log line is what
//! judging the stored contracts gives now, byte for byte.

use super::judge::judge;
use super::record::{line, value_digest, Observation, Record, Seen};
use driftlab_check::check::Rule;

/// What a verification found: lines checked, and each line that differs (`server:line: why`).
#[derive(Debug, Default)]
pub struct Verified {
    /// Log lines checked.
    pub lines: usize,
    /// Changes re-judged.
    pub changes: usize,
    /// What does not hold.
    pub problems: Vec<String>,
}

/// Re-derives every server's log in `record` with `rules` (the record's pinned rule set).
pub fn verify(record: &Record, rules: &[&'static dyn Rule]) -> Result<Verified, String> {
    let mut verified = Verified::default();
    for server in record.servers()? {
        let mut last: Option<String> = None;
        for (i, observation) in record.log(&server)?.into_iter().enumerate() {
            verified.lines += 1;
            let place = format!("servers/{server}.jsonl:{}", i + 1);
            let Seen::Contract {
                contract,
                previous,
                change,
                ..
            } = &observation.seen
            else {
                continue;
            };
            let bytes = match record.contract(contract) {
                Ok(bytes) => bytes,
                Err(e) => {
                    verified.problems.push(format!("{place}: {e}"));
                    last = Some(contract.clone());
                    continue;
                }
            };
            let before = last.clone().filter(|before| before != contract);
            let rejudged = match &before {
                Some(before) => {
                    verified.changes += 1;
                    Some(judge(&record.contract(before)?, &bytes, rules))
                }
                None => None,
            };
            let expected = Seen::Contract {
                contract: contract.clone(),
                value: value_digest(&bytes),
                previous: before,
                change: rejudged,
            };
            let rederived = Observation {
                at: observation.at.clone(),
                seen: expected,
            };
            if line(&rederived) != line(&observation) {
                let why = match (previous, change) {
                    (Some(p), _) if Some(p) != last.as_ref() => {
                        "its `previous` is not the contract before it".to_string()
                    }
                    _ => "judging its contracts again gives another line".to_string(),
                };
                verified.problems.push(format!("{place}: {why}"));
            }
            last = Some(contract.clone());
        }
    }
    Ok(verified)
}
