//! The engine's panics caught at the command line: a problem that trips a bug costs its
//! own result only, never the rest of a batch.

use crate::notation;
use crate::panics::panic_text;
use kanju_engine::{Move, Position};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// How every message about a caught panic starts, so that a batch knows to drop the
/// solver that panicked rather than reuse a table left half-written.
const INTERNAL: &str = "internal error";

/// Runs `f`; a panic becomes `Err("internal error <doing>: <message>")`.
pub fn catching<T>(doing: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f))
        .map_err(|p| format!("{INTERNAL} {doing}: {}", panic_text(&*p)))
}

/// True if `error` came from [`catching`].
pub fn is_internal(error: &str) -> bool {
    error.starts_with(INTERNAL)
}

/// `moves` from `pos` in Japanese notation (▲２四銀 △同玉 …); in USI should the
/// notation code fail, since the line itself is still worth printing.
pub fn kifu_or_usi(pos: &Position, moves: &[Move]) -> Vec<String> {
    catching("writing the kifu", || notation::kifu_line(pos, moves))
        .unwrap_or_else(|_| moves.iter().map(|m| m.to_usi()).collect())
}
