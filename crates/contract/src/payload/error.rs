//! Why a payload could not be read.

use thiserror::Error;

use super::MAX_DEPTH;

/// Why a payload could not be read. Every variant names the source (file path or `<stdin>`).
#[derive(Debug, Error, PartialEq)]
pub enum PayloadError {
    /// No bytes at all.
    #[error("{source_name}: empty payload")]
    Empty {
        /// The payload's name (its path, or `<stdin>`).
        source_name: String,
    },
    /// Over the size limit.
    #[error("{source_name}: payload is {size} bytes, over the {limit}-byte limit")]
    TooLarge {
        /// The payload's name (its path, or `<stdin>`).
        source_name: String,
        /// The payload's size in bytes.
        size: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// Not UTF-8.
    #[error("{source_name}: not UTF-8 (invalid byte at offset {offset})")]
    NotUtf8 {
        /// The payload's name (its path, or `<stdin>`).
        source_name: String,
        /// The byte offset of the first invalid byte.
        offset: usize,
    },
    /// Nested deeper than the reader goes.
    #[error("{source_name}:{line}:{column}: nested deeper than {MAX_DEPTH} levels")]
    TooDeep {
        /// The payload's name (its path, or `<stdin>`).
        source_name: String,
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
    },
    /// Not JSON.
    #[error("{source_name}:{line}:{column}: invalid JSON: {message}")]
    Syntax {
        /// The payload's name (its path, or `<stdin>`).
        source_name: String,
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// JSON, but not a tools/list payload of any shape driftlab reads.
    #[error("{source_name}: at {pointer}: {message}")]
    Shape {
        /// The payload's name (its path, or `<stdin>`).
        source_name: String,
        /// Where, as a JSON Pointer.
        pointer: String,
        /// What is wrong.
        message: String,
    },
}
