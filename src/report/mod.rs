//! Output formats. Each function returns text or bytes and does no I/O.

pub mod study_report;
pub mod table;
