//! `driftlab watch`: endpoints followed over time. Each poll appends what a server served to a
//! record of plain files ([`record`]), judging a change by direction on the spot ([`judge`]);
//! another watcher's history can be read in ([`import`]); a record is re-derived offline
//! ([`verify`]) and read back as history with flaps folded and families counted once
//! ([`history`]), for a report ([`report`]). docs/watch.md describes it.

pub mod history;
pub mod import;
pub mod judge;
pub mod poll;
pub mod record;
pub mod report;
pub mod time;
pub mod verify;
