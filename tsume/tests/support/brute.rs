//! Brute force over rsshogi's legal moves: the shortest mate, every reply counted (futile
//! interpositions too), within a budget of positions. It shares no code with Kanju, so
//! the tests that include it (`#[path]`, beside `common`) use it as an oracle. Each test
//! binary uses a part of it.
#![allow(dead_code)]

use crate::common::rs;
use std::collections::HashMap;

/// The deepest brute-force search (plies), and its budget in positions per verdict.
pub const BRUTE_PLIES: u32 = 9;
pub const BRUTE_BUDGET: u64 = 1_000_000;

/// Brute force: the shortest mate counting every legal reply, within a position budget.
pub struct Brute {
    visited: u64,
    /// (key, plies left) → mated within them; only complete answers are kept.
    memo: HashMap<(u64, u32), bool>,
}

/// The search ran out of budget.
pub struct OutOfBudget;

impl Brute {
    pub fn new() -> Brute {
        Brute {
            visited: 0,
            memo: HashMap::new(),
        }
    }

    fn tick(&mut self) -> Result<(), OutOfBudget> {
        self.visited += 1;
        if self.visited > BRUTE_BUDGET {
            Err(OutOfBudget)
        } else {
            Ok(())
        }
    }

    /// The attacker to move mates within `plies` (odd).
    pub fn attacker_mates(&mut self, p: &mut rs::RPos, plies: u32) -> Result<bool, OutOfBudget> {
        let key = (p.key().low_u64(), plies);
        if let Some(&v) = self.memo.get(&key) {
            return Ok(v);
        }
        self.tick()?;
        let mut found = false;
        for m in rs::legal(p, true) {
            if !rs::gives_check(p, m) {
                continue;
            }
            let m32 = p.move32_from_move(m);
            p.apply_move32(m32);
            let r = self.defender_mated(p, plies - 1);
            p.undo_move32(m32).expect("undo");
            if r? {
                found = true;
                break;
            }
        }
        self.memo.insert(key, found);
        Ok(found)
    }

    /// The defender to move, in check, is mated within `plies` (even) whatever it plays.
    pub fn defender_mated(&mut self, p: &mut rs::RPos, plies: u32) -> Result<bool, OutOfBudget> {
        let key = (p.key().low_u64(), plies);
        if let Some(&v) = self.memo.get(&key) {
            return Ok(v);
        }
        self.tick()?;
        let replies = rs::legal(p, true);
        let mut mated = true;
        if !replies.is_empty() {
            if plies == 0 {
                mated = false;
            } else {
                for m in replies {
                    let m32 = p.move32_from_move(m);
                    p.apply_move32(m32);
                    let r = self.attacker_mates(p, plies - 1);
                    p.undo_move32(m32).expect("undo");
                    if !r? {
                        mated = false;
                        break;
                    }
                }
            }
        }
        self.memo.insert(key, mated);
        Ok(mated)
    }
}

/// What brute force knows about a root.
#[derive(Debug, Clone, Copy)]
pub struct Verdict {
    /// The shortest mate, counting every reply, if one was found.
    pub mate: Option<u32>,
    /// No mate within this many plies (complete searches only).
    pub none_within: u32,
}

/// Searches deeper and deeper until a mate is found, the depth limit, or the budget.
pub fn brute_force(sfen: &str, defender_root: bool) -> Verdict {
    let mut p = rs::parse(sfen).expect("rsshogi parses what Kanju accepted");
    let mut brute = Brute::new();
    let mut verdict = Verdict {
        mate: None,
        none_within: 0,
    };
    let first = if defender_root { 2 } else { 1 };
    let mut plies = first;
    while plies <= BRUTE_PLIES + u32::from(defender_root) {
        let r = if defender_root {
            brute.defender_mated(&mut p, plies)
        } else {
            brute.attacker_mates(&mut p, plies)
        };
        match r {
            Ok(true) => {
                verdict.mate = Some(plies);
                break;
            }
            Ok(false) => verdict.none_within = plies,
            Err(OutOfBudget) => break,
        }
        plies += 2;
    }
    verdict
}
