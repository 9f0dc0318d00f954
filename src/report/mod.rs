//! Output formats. Each function returns text or bytes and does no I/O.

pub mod table;
