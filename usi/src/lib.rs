//! Kanju's front ends: the USI engine protocol for GUIs and scripts, and the `kanju`
//! command line (`solve`, `brinkmate`, `perft`).
//!
//! The USI side is three kinds of thread: a front end that always reads the GUI's
//! input ([`frontend`]), a searcher that owns the solver ([`searcher`]), and whoever
//! answers a search first ([`session`]), all writing through one [`output::Output`].
#![deny(missing_docs)]

pub mod cli;
pub mod command;
pub mod frontend;
pub mod notation;
pub mod options;
pub mod output;
pub mod panics;
pub mod report;
pub mod searcher;
pub mod session;
pub mod sysmem;
