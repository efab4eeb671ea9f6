//! Kanju's tsume solver.
#![deny(missing_docs)]

mod api;

pub use api::{Config, Cook, Limits, Outcome, Progress, RootMode, Solution, Solver, UnknownReason};
