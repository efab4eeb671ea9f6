//! Kanju's tsume solver: df-pn (Nagai 2002) with TCA and SNDA (Kishimoto 2010), proof and
//! disproof pieces, GHI-safe exact and dominated repetition, lazily expanded interpositions,
//! and a fixed-size table shared by all threads.
#![deny(missing_docs)]

mod api;
mod brinkmate;
mod busy;
mod churn;
mod delayed;
mod dfpn;
mod entry;
mod gc;
mod initial;
mod leaf_cache;
mod mainline;
mod memory;
mod node;
mod path;
mod presence;
mod proof_hand;
mod pv;
mod solve;
mod table;
mod threads;

pub use api::{
    Config, Cook, FutileRule, Limits, Outcome, Progress, RootMode, Solution, Solver, SpareRule,
    UnknownReason,
};
pub use brinkmate::{BrinkmateLimits, BrinkmateOutcome, BrinkmateSolution, ReplyMate};
