//! Df-pn over the brinkmate tree.
//!
//! An attacker node with `left` moves left is proven when the side to move mates by checks
//! (the tsume search, its order-0 child), or when `left` ≥ 1 and one of its checks or
//! threatmates leads to a proven defender node with `left - 1`. A defender node is proven
//! when every legal reply leads to a proven attacker node with the same `left`, and
//! disproven at once when, after a quiet attacker move, the defender himself mates by
//! checks: the inversion dual-λ search watches for. The numbers are the paper's with the
//! defender's threat folded into that test: an attacker node's proof number is the least
//! of its children's, a defender node's the sum.
//!
//! The tsume child's numbers come from the nodes its search has spent: an open search
//! looks dearer the longer it has run, and is given four times its nodes each time df-pn
//! comes back to it.

use super::alternatives::{self, Alternatives};
use super::line;
use super::nodes::{NodeMap, Numbers, INF};
use super::oracle::{Oracle, Verdict};
use super::{BrinkmateLimits, BrinkmateOutcome, BrinkmateSolution};
use crate::threads::STACK_BYTES;
use crate::{Config, UnknownReason};
use kanju_engine::{Color, GenMode, Move, MoveList, Position};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Nodes of the first tsume search at an attacker node. Most of these searches are
/// never decided (the replies a brinkmate leaves are mated quickly; the rest seldom
/// disproven in a few thousand nodes), and df-pn gives the open ones more when it comes
/// back. The 15 hisshi positions at 3 and 5 plies took 1.97 M and 4.45 M nodes with
/// 500, against 2.75 M and 5.35 M with 2 000 (1.72 M and 4.13 M with 200, in the same
/// time as 500).
const MATE_NODES: u64 = 500;
/// Nodes of a threatmate test (the tsume search after the defender's pass).
pub(super) const THREAT_NODES: u64 = 1_000;
/// Nodes of the defender's counter-mate test after a quiet attacker move.
const COUNTER_NODES: u64 = 2_000;
/// How much an open tsume search's budget grows each time it is searched again.
const GROWTH: u64 = 4;

/// A child in the tree.
struct Kid {
    what: KidKind,
    pos: Position,
    /// Extra proof number: a move left unpromoted where it could promote is tried after
    /// its promotion, so that the line shows the promotion where both win.
    penalty: u32,
}

enum KidKind {
    /// The node's own tsume search (order 0).
    Tsume,
    /// An attacker's check, or a defender's reply.
    Move,
    /// An attacker's quiet move, with the position after it and the defender's pass:
    /// a child only while its threatmate test has not disproven the threat.
    Quiet(Box<Position>),
}

/// What a tsume search is asked for, for the search's statistics.
#[derive(Clone, Copy)]
enum Ask {
    /// An attacker node's own mate.
    Mate,
    /// A quiet move's threat, after the defender's pass.
    Threat,
    /// The defender's mate after a quiet attacker move.
    CounterMate,
}

/// Tsume searches asked and the nodes they took, by [`Ask`] (debug log).
#[derive(Default)]
struct Asked {
    calls: [u64; 3],
    nodes: [u64; 3],
}

/// One brinkmate search.
pub(super) struct Search<'a> {
    pub oracle: Oracle<'a>,
    pub nodes: NodeMap,
    pub attacker: Color,
    /// Tree nodes expanded.
    pub expansions: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    stop: &'a AtomicBool,
    /// Why the search was cut, if it was.
    pub cut: Option<UnknownReason>,
    /// Where [`Search::settle`] stops, in nodes spent.
    soft_limit: u64,
    asked: Asked,
}

/// What the root's search found.
struct Root {
    outcome: BrinkmateOutcome,
    replies: Vec<super::ReplyMate>,
    /// The attacker moves of the brinkmate found (0 without one).
    moves: u32,
}

/// Runs a brinkmate search of `pos`. See [`crate::Solver::brinkmate`].
pub(crate) fn run(
    config: &Config,
    table: &crate::table::Table,
    pos: &Position,
    limits: &BrinkmateLimits,
    stop: &AtomicBool,
) -> BrinkmateSolution {
    let start = Instant::now();
    let attacker = pos.side_to_move();
    // Attacker moves: an even count of plies is the odd one below it, since the last ply
    // is always the attacker's.
    let left = limits
        .max_plies
        .clamp(1, BrinkmateLimits::MAX_PLIES)
        .div_ceil(2);
    if pos.king_square(attacker.flip()).is_none() {
        return BrinkmateSolution {
            outcome: BrinkmateOutcome::Unknown(UnknownReason::NotApplicable),
            replies: Vec::new(),
            alternatives: Vec::new(),
            alternatives_undecided: Vec::new(),
            threatmates: Vec::new(),
            nodes: 0,
            elapsed: start.elapsed(),
        };
    }
    table.new_search();
    // The brinkmate tree and the verdicts take the main line's share of the memory, half
    // each, at about 100 bytes an entry with the maps' overhead.
    let entries = crate::mainline::mainline_bytes(config.hash_mb) / 2 / 100;
    let deadline = limits.time.map(|t| start + t);
    let node_limit = limits.nodes.unwrap_or(u64::MAX);
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("kanju-brinkmate".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || {
                let mut s = Search {
                    oracle: Oracle::new(table, stop, pos, deadline, node_limit, entries),
                    nodes: NodeMap::new(entries),
                    attacker,
                    expansions: 0,
                    node_limit,
                    deadline,
                    stop,
                    cut: None,
                    soft_limit: u64::MAX,
                    asked: Asked::default(),
                };
                let root = s.solve_root(pos, left);
                let others = match &root.outcome {
                    BrinkmateOutcome::Brinkmate(line) => {
                        alternatives::find(&mut s, pos, line[0], root.moves)
                    }
                    _ => Alternatives::default(),
                };
                let a = &s.asked;
                log::debug!(
                    "brinkmate: {} tree nodes; tsume searches (calls, nodes): own mate {} {}, \
                     threats {} {}, counter-mates {} {}",
                    s.expansions,
                    a.calls[0],
                    a.nodes[0],
                    a.calls[1],
                    a.nodes[1],
                    a.calls[2],
                    a.nodes[2]
                );
                let threatmates = line::threatmates(&mut s, pos);
                BrinkmateSolution {
                    outcome: root.outcome,
                    replies: root.replies,
                    alternatives: others.found,
                    alternatives_undecided: others.undecided,
                    threatmates,
                    nodes: s.spent(),
                    elapsed: start.elapsed(),
                }
            })
            .expect("spawn the brinkmate thread")
            .join()
            .expect("the brinkmate search does not panic")
    })
}

impl<'a> Search<'a> {
    /// Searches the root with one attacker move left, then two, up to `most`, until one
    /// is proven, the last is disproven, or a limit cuts the search. The fewest moves
    /// come first, as the paper's threat levels do: the shortest brinkmate is the one
    /// reported, and a deep search cannot wander off a one-move brinkmate (at 5 plies one
    /// OSL position that 1 ply proves in a quarter of a second was still open after a
    /// minute). The lower levels' nodes and verdicts serve the higher ones.
    fn solve_root(&mut self, pos: &Position, most: u32) -> Root {
        for left in 1..=most {
            let n = self.settle(pos, left, u64::MAX);
            if n.pn == 0 {
                let (outcome, replies) = line::proven(self, pos, left);
                return Root {
                    outcome,
                    replies,
                    moves: left,
                };
            }
            if n.dn != 0 {
                break;
            }
        }
        let outcome = match self.cut {
            Some(reason) => BrinkmateOutcome::Unknown(reason),
            None => BrinkmateOutcome::NoBrinkmate,
        };
        Root {
            outcome,
            replies: Vec::new(),
            moves: 0,
        }
    }

    /// Searches the node `pos` with `left` moves left until it is decided, a limit cuts
    /// the search, or it has taken `nodes`.
    pub fn settle(&mut self, pos: &Position, left: u32, nodes: u64) -> Numbers {
        self.soft_limit = self.spent().saturating_add(nodes);
        let mut n = self.numbers(pos, left);
        while !n.is_decided() && self.cut.is_none() && self.spent() < self.soft_limit {
            n = self.mid(pos, left, INF, INF);
        }
        self.soft_limit = u64::MAX;
        n
    }

    /// Nodes spent: the tree's and its tsume searches'.
    pub fn spent(&self) -> u64 {
        self.expansions + self.oracle.spent
    }

    /// Whether a quiet move's threat, the position after it and the defender's pass,
    /// is not disproven: the move may be a threatmate.
    pub fn may_threaten(&mut self, passed: &Position) -> bool {
        self.ask(Ask::Threat, passed, THREAT_NODES) != Verdict::NoMate
    }

    /// Asks the oracle whether the side to move mates in `pos`, within `nodes` in all.
    fn ask(&mut self, what: Ask, pos: &Position, nodes: u64) -> Verdict {
        let before = self.oracle.spent;
        let v = self.oracle.mate(pos, nodes);
        self.asked.calls[what as usize] += 1;
        self.asked.nodes[what as usize] += self.oracle.spent - before;
        v
    }

    /// Whether the caller has raised the stop flag.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Whether a limit has cut the search, or [`Search::settle`]'s own node budget ran out.
    fn poll(&mut self) -> bool {
        if self.cut.is_none() {
            self.cut = if let Some(reason) = self.oracle.cut {
                Some(reason)
            } else if self.stopped() {
                Some(UnknownReason::Stopped)
            } else if self.spent() >= self.node_limit {
                Some(UnknownReason::Nodes)
            } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
                Some(UnknownReason::Time)
            } else {
                None
            };
        }
        self.cut.is_some() || self.spent() >= self.soft_limit
    }

    /// The numbers of the node `pos` with `left` moves left as its parent sees it.
    pub fn numbers(&self, pos: &Position, left: u32) -> Numbers {
        if let Some(n) = self.nodes.get(pos, left) {
            return n;
        }
        if pos.side_to_move() == self.attacker {
            // With no move left the node is its tsume search; with moves left, only a
            // mate settles it before it is searched.
            let verdict = self.oracle.known(pos);
            if left == 0 || verdict == Some(Verdict::Mate) {
                return tsume_numbers(verdict);
            }
        }
        Numbers { pn: 1, dn: 1 }
    }

    /// The children of an attacker node: the tsume search first, then, with moves left,
    /// every legal move. A quiet move's threat is tested only when df-pn first picks it;
    /// one whose test ends in a disproof is not a threatmate and drops out.
    fn attacker_kids(pos: &Position, left: u32) -> Vec<Kid> {
        let mut kids = vec![Kid {
            what: KidKind::Tsume,
            pos: pos.clone(),
            penalty: 0,
        }];
        if left == 0 {
            return kids;
        }
        let mut moves = MoveList::new();
        pos.legal_moves_with(GenMode::All, &mut moves);
        for &m in moves.as_slice() {
            let child = pos.play(m);
            let unpromoted = m.from().is_some_and(|from| {
                !m.is_promotion() && moves.as_slice().contains(&Move::normal(from, m.to(), true))
            });
            // Not in check, the defender may pass.
            let what = match child.pass() {
                Some(passed) => KidKind::Quiet(Box::new(passed)),
                None => KidKind::Move,
            };
            kids.push(Kid {
                what,
                pos: child,
                penalty: u32::from(unpromoted),
            });
        }
        kids
    }

    /// The children of a defender node: every legal reply, the likeliest escapes first
    /// (counter-checks, king moves, captures, then the rest, drops last), since one reply
    /// that escapes disproves the node.
    fn defender_kids(pos: &Position) -> Vec<Kid> {
        let mut moves = MoveList::new();
        pos.legal_moves_with(GenMode::All, &mut moves);
        let king = pos.king_square(pos.side_to_move());
        let rank = |m: Move| match m.from() {
            _ if pos.gives_check(m) => 0,
            Some(from) if Some(from) == king => 1,
            Some(_) if pos.piece_on(m.to()).is_some() => 2,
            Some(_) => 3,
            None => 4,
        };
        let mut moves = moves.as_slice().to_vec();
        moves.sort_by_key(|&m| rank(m));
        moves
            .into_iter()
            .map(|m| Kid {
                what: KidKind::Move,
                pos: pos.play(m),
                penalty: 0,
            })
            .collect()
    }

    /// Df-pn at one node, until its proof number reaches `th_pn` or its disproof number
    /// `th_dn`, or a limit cuts the search.
    fn mid(&mut self, pos: &Position, left: u32, th_pn: u32, th_dn: u32) -> Numbers {
        self.expansions += 1;
        if self.poll() {
            return self.numbers(pos, left);
        }
        let or_node = pos.side_to_move() == self.attacker;
        let kids = if or_node {
            // Order 0 first: a mate by checks needs no threat.
            let verdict = match self.oracle.known(pos) {
                None => self.ask(Ask::Mate, pos, MATE_NODES),
                Some(v) => v,
            };
            if verdict == Verdict::Mate {
                return self.store(pos, left, Numbers::PROVEN);
            }
            Self::attacker_kids(pos, left)
        } else {
            // The inversion: after a quiet move the defender may mate first.
            if !pos.in_check() && self.ask(Ask::CounterMate, pos, COUNTER_NODES) == Verdict::Mate {
                return self.store(pos, left, Numbers::DISPROVEN);
            }
            Self::defender_kids(pos)
        };
        if kids.is_empty() {
            // A defender with no legal move has lost.
            return self.store(pos, left, Numbers::PROVEN);
        }
        loop {
            let mut best = 0;
            let (mut first, mut second) = (INF + 1, INF + 1);
            let mut total: u32 = 0;
            for (i, kid) in kids.iter().enumerate() {
                let n = self.kid_numbers(kid, left, or_node);
                // φ is what the node minimises over its children, δ what it sums.
                let (phi, delta) = if or_node { (n.pn, n.dn) } else { (n.dn, n.pn) };
                total = total.saturating_add(delta).min(INF);
                if phi < first {
                    second = first;
                    first = phi;
                    best = i;
                } else if phi < second {
                    second = phi;
                }
            }
            let first = first.min(INF);
            let here = if or_node {
                Numbers {
                    pn: first,
                    dn: total,
                }
            } else {
                Numbers {
                    pn: total,
                    dn: first,
                }
            };
            if here.is_decided() || here.pn >= th_pn || here.dn >= th_dn || self.poll() {
                return self.store(pos, left, here);
            }
            let kid = &kids[best];
            match &kid.what {
                KidKind::Tsume => {
                    // The node's own tsume search: give it more nodes.
                    let spent = match self.oracle.known(pos) {
                        Some(Verdict::Open { spent }) => spent,
                        _ => 0,
                    };
                    self.ask(Ask::Mate, pos, (spent * GROWTH).max(MATE_NODES));
                    continue;
                }
                KidKind::Quiet(passed) if self.oracle.known(passed).is_none() => {
                    self.ask(Ask::Threat, passed, THREAT_NODES);
                    continue;
                }
                _ => {}
            }
            let second = second.min(INF);
            let kid_left = if or_node { left - 1 } else { left };
            let n = self.kid_numbers(kid, left, or_node);
            if or_node {
                let th_pn = th_pn.min(second.saturating_add(second / 4).max(second + 1));
                let th_dn = (th_dn - here.dn).saturating_add(n.dn).min(INF);
                self.mid(&kid.pos, kid_left, th_pn, th_dn);
            } else {
                let th_dn = th_dn.min(second.saturating_add(second / 4).max(second + 1));
                let th_pn = (th_pn - here.pn).saturating_add(n.pn).min(INF);
                self.mid(&kid.pos, kid_left, th_pn, th_dn);
            }
        }
    }

    /// A child's numbers as the node at `left` sees them.
    fn kid_numbers(&self, kid: &Kid, left: u32, or_node: bool) -> Numbers {
        // What a quiet move's threat test adds to its proof number: an untested or open
        // threat makes the move a worse bet than a proven one.
        let threat = match &kid.what {
            KidKind::Tsume => return tsume_numbers(self.oracle.known(&kid.pos)),
            KidKind::Move => 0,
            KidKind::Quiet(passed) => match self.oracle.known(passed) {
                Some(Verdict::NoMate) => return Numbers::DISPROVEN,
                Some(Verdict::Mate) => 1,
                None => 2,
                Some(Verdict::Open { .. }) => 4,
            },
        };
        let kid_left = if or_node { left - 1 } else { left };
        let mut n = self.numbers(&kid.pos, kid_left);
        if n.pn != 0 && n.dn != 0 {
            n.pn = n.pn.saturating_add(kid.penalty + threat).min(INF - 1);
        }
        n
    }

    fn store(&mut self, pos: &Position, left: u32, n: Numbers) -> Numbers {
        if !self.nodes.put(pos, left, n) && self.cut.is_none() {
            self.cut = Some(UnknownReason::TableFull);
        }
        n
    }
}

/// The numbers of a node's tsume search, by its verdict so far. One still open looks
/// dearer the more nodes it has spent.
fn tsume_numbers(verdict: Option<Verdict>) -> Numbers {
    match verdict {
        Some(Verdict::Mate) => Numbers::PROVEN,
        Some(Verdict::NoMate) => Numbers::DISPROVEN,
        Some(Verdict::Open { spent }) => Numbers {
            pn: (2 + spent / 2_000).min(u64::from(INF - 1)) as u32,
            dn: 1,
        },
        None => Numbers { pn: 1, dn: 1 },
    }
}
