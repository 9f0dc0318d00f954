//! Files in and out: the bounded readers every input goes through, atomic writes, and where a
//! file sits in its repository.

mod atomic;
pub mod csv_text;
mod program;
mod read;
pub mod repository;

pub use atomic::{
    hash_file, replace_if_unchanged, write_atomic, write_atomic_like, write_files_atomic,
    AtomicFile, TEMP_PREFIX,
};
pub use program::on_path;
pub use read::{
    json_files, read_json, read_limited, read_text, regular_file, ReadError, MAX_JSON_FILE,
    MAX_SMALL_FILE,
};
