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
        // The contract before this line, and its bytes (or why they cannot be read), so that
        // each contract is read once.
        let mut last: Option<(String, Result<Vec<u8>, String>)> = None;
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
            let read = record.contract(contract);
            let bytes = match &read {
                Ok(bytes) => bytes,
                Err(e) => {
                    verified.problems.push(format!("{place}: {e}"));
                    last = Some((contract.clone(), read));
                    continue;
                }
            };
            let before = last.as_ref().filter(|(before, _)| before != contract);
            let rejudged = match before {
                Some((_, old)) => {
                    verified.changes += 1;
                    Some(judge(old.as_ref().map_err(Clone::clone)?, bytes, rules))
                }
                None => None,
            };
            let expected = Seen::Contract {
                contract: contract.clone(),
                value: value_digest(bytes),
                previous: before.map(|(digest, _)| digest.clone()),
                change: rejudged,
            };
            let rederived = Observation {
                at: observation.at.clone(),
                seen: expected,
            };
            if line(&rederived) != line(&observation) {
                let why = match (previous, change) {
                    (Some(p), _) if Some(p) != last.as_ref().map(|(digest, _)| digest) => {
                        "its `previous` is not the contract before it".to_string()
                    }
                    _ => "judging its contracts again gives another line".to_string(),
                };
                verified.problems.push(format!("{place}: {why}"));
            }
            last = Some((contract.clone(), read));
        }
    }
    Ok(verified)
}
