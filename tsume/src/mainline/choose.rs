//! Walking the main line: the attacker's shortest mate, the defender's longest defence
//! that is not a futile drop, and among equally long defences the one that leaves the
//! attacker no pieces in hand at the end (駒余り).
//!
//! A defence whose mate ends with pieces left in the attacker's hand also ranks below a
//! shorter one whose mate ends with none, when it is at most `spare_gap` plies longer
//! ([`crate::SpareRule`]): two plies today, any number in the classical collections.

use super::bounded::Bounded;
use super::futile::{give_backs, interposition_line, is_interposing_drop};
use kanju_engine::{GenMode, Hand, Move, MoveList, Position};
use std::collections::HashMap;
use std::time::Instant;

/// What the walk decided at one node: the move (none at the end), the bound its child was
/// walked with, and the attacker's hand at the end of the line below.
#[derive(Clone, Copy)]
struct Choice {
    mv: Option<Move>,
    child_r: i32,
    spare: Hand,
    /// The 駒余り convention took a shorter defence somewhere below.
    shortened: bool,
    /// Plies from here to the end of the line below.
    len: i32,
    /// The line ends with spare pieces, or was shortened, and an attacker node on it left
    /// a comparison undecided: a check as short whose line ends with nothing spare may
    /// exist. A defence ranked below a shorter one on that ground is not shown to be.
    open: bool,
}

/// The futility bound at a defender node (see `docs/rules.md`): the length of the mate
/// against its real defences, those that are not interposing drops. Under `SameLength` a
/// drop is futile when its give-back position is mated within it, so the bound must be
/// the true length, not just a proven one: the tables' proofs are upper bounds, and a
/// drop futile against a bound too high may be the longest defence. On a sparse chase
/// (6s1k/9/9/3N5/4+r4/3B1+R3/9/9/9 b BLn) the walk took 1a1b's proof of 7 for its length,
/// called the knight dropped on 4d futile against 8, and printed 1a1b with a detour;
/// 1a1b is mated in 5, and against 6 the knight is effective and the main line.
struct FutilityBound {
    /// The bound is at most this: the longest proof of a real defence, plus one.
    upper: i32,
    /// A real defence is shown to last `upper - 1`, so `upper` is the bound itself.
    shown: bool,
    /// The real defences.
    real: Vec<Move>,
}

/// A test that a defence does not last longest ([`Chooser::mated_sooner`]) starts at a
/// quarter of the walk's node budget per test. Most such tests that settle settle early,
/// and those that do not spent the full budget: on Zuko 99's walk from a loose bound (121
/// for 117, one thread, 40 s), the settled tests took 4-8 k nodes on average and the
/// unsettled ones 26 k, 13 s of the walk's 22, and the walk was cut. At a quarter it
/// finished in 15-20 s.
const SOONER_SHIFT: u32 = 2;

/// Main-line walker over a bounded searcher's tables.
pub(crate) struct Chooser<'s, 'a> {
    pub b: &'s mut Bounded<'a>,
    memo: HashMap<(u64, i32), Choice>,
    /// After this, take the first acceptable move instead of comparing spare pieces.
    tie_break_until: Option<Instant>,
    /// False once some choice rested on an upper bound only.
    pub exact: bool,
    /// True if the last line took, somewhere, a defence without spare pieces over a
    /// longer one with: the line is then shorter than the bound it was walked with.
    pub spare_rule_used: bool,
    /// How many plies shorter a defence without spare pieces may be and still be preferred
    /// to the longest defence when that one ends with spare pieces.
    pub spare_gap: i32,
    /// Weigh the checks a reduced test left open against a first mate with spare pieces
    /// even where the spare pieces decide no length (the strict rule): only the line's
    /// end, not its length, changes with them, so the walk of a whole problem saves those
    /// nodes, and the walk of a line's end again ([`super::tail`]) spends them.
    pub weigh_open_checks: bool,
    /// Limits of each search the walk starts: the deadline, and nodes per search (a
    /// search that runs out counts as "not shown").
    deadline: Option<Instant>,
    test_nodes: Option<u64>,
    /// Tests in a row that ran out of nodes (see [`Self::mated_sooner`]).
    failed_tests: u32,
    /// The moves from the root to the node being walked. When the limits cut the walk,
    /// these are the choices it had made: each defence on it shown to last longest
    /// (or the best its bounds said), each check a mate within the bound.
    path: Vec<Move>,
    /// Futility tests done, by give-back position and bound, undecided ones included: the
    /// walk meets a node again at other bounds, and a test its budget could not settle
    /// would only spend that budget again (Muso 6: the same give-back positions four and
    /// five times over, 100 k nodes each).
    give_back_tests: HashMap<(u64, i32), Option<bool>>,
    /// How many futility tests searched rather than read their verdict off the memo.
    pub futility_searches: u32,
    /// The root's bound is its exact length: no mate within two plies fewer is proven.
    pub exact_bound: bool,
    /// Drops whose count as a defence the limits left undecided (see
    /// [`Self::counts_as_defence`]).
    undecided_drops: u32,
    /// Longest defences known without a test (see [`Self::defender_node`]).
    pub longest_inferred: u32,
    /// Tests each inference against the search it saved.
    #[cfg(test)]
    check_inferences: bool,
}

impl<'s, 'a> Chooser<'s, 'a> {
    pub fn new(
        b: &'s mut Bounded<'a>,
        tie_break_until: Option<Instant>,
        deadline: Option<Instant>,
        test_nodes: Option<u64>,
    ) -> Self {
        Chooser {
            b,
            memo: HashMap::new(),
            tie_break_until,
            exact: true,
            spare_rule_used: false,
            spare_gap: 0,
            weigh_open_checks: false,
            deadline,
            test_nodes,
            failed_tests: 0,
            path: Vec::new(),
            give_back_tests: HashMap::new(),
            futility_searches: 0,
            exact_bound: false,
            undecided_drops: 0,
            longest_inferred: 0,
            #[cfg(test)]
            check_inferences: false,
        }
    }

    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d) || self.b.stopped()
    }

    fn may_compare(&self) -> bool {
        self.tie_break_until.is_none_or(|t| Instant::now() < t)
    }

    /// The main line from `pos`, known to be mated within `r`. `None` if the limits ran out.
    pub fn line(&mut self, pos: &Position, r: i32) -> Option<Vec<Move>> {
        self.path.clear();
        self.spare_rule_used = self.walk(pos, r, self.exact_bound)?.shortened;
        let mut line = Vec::new();
        let mut p = pos.clone();
        let mut r = r;
        while let Some(c) = self.memo.get(&(p.key(), r)).copied() {
            let Some(m) = c.mv else { break };
            line.push(m);
            p = p.play(m);
            r = c.child_r;
        }
        Some(line)
    }

    /// Where the last [`Self::line`] stopped, if the limits cut it: the moves from its root
    /// to the node it was walking. Every one of them is proven to mate (a check) or to be
    /// mated (a defence), so the tables' line goes on from the end.
    pub fn reached(&self) -> &[Move] {
        &self.path
    }

    /// [`Self::walk`] of `child`, reached by `m`, with `m` on the path while it runs.
    fn walk_move(&mut self, child: &Position, m: Move, r: i32, sure: bool) -> Option<Choice> {
        self.path.push(m);
        let c = self.walk(child, r, sure)?;
        self.path.pop();
        Some(c)
    }

    /// The line below `pos`, mated within `r`. `sure`: mated in exactly `r`, as the
    /// bounds above it prove (see [`Self::defender_node`]).
    fn walk(&mut self, pos: &Position, r: i32, sure: bool) -> Option<Choice> {
        if let Some(c) = self.memo.get(&(pos.key(), r)) {
            return Some(*c);
        }
        let c = if pos.side_to_move() == self.b.attacker {
            self.attacker_node(pos, r, sure)?
        } else {
            self.defender_node(pos, r, sure)?
        };
        self.memo.insert((pos.key(), r), c);
        Some(c)
    }

    /// Proven within `n`, searching if the table does not say.
    fn mates_within(&mut self, pos: &Position, n: i32) -> Option<bool> {
        if let Some(known) = self.known_within(pos, n) {
            return Some(known);
        }
        if self.past_deadline() {
            return None;
        }
        self.b.set_limits(self.deadline, self.test_nodes);
        self.b.within(pos, n)
    }

    /// [`Self::mates_within`] with `nodes` for this test (`None`: until the deadline).
    fn mates_within_nodes(&mut self, pos: &Position, n: i32, nodes: Option<u64>) -> Option<bool> {
        let full = std::mem::replace(&mut self.test_nodes, nodes);
        let r = self.mates_within(pos, n);
        self.test_nodes = full;
        r
    }

    /// [`Self::mates_within`] with the node budget divided by `2^shift`.
    fn mates_within_reduced(&mut self, pos: &Position, n: i32, shift: u32) -> Option<bool> {
        let reduced = self.test_nodes.map(|t| (t >> shift).max(1));
        self.mates_within_nodes(pos, n, reduced)
    }

    /// Mate within `n` from `pos` as the tables already say, if they do.
    fn known_within(&self, pos: &Position, n: i32) -> Option<bool> {
        if self.b.proven_len(pos).is_some_and(|l| l <= n) {
            Some(true)
        } else if self.b.disproven_bound(pos) >= n {
            Some(false)
        } else {
            None
        }
    }

    /// [`Self::mates_within`] for a test that a defence does not last longest: a
    /// disproof. The walk meets these tests from the top bound down, where each one is
    /// nearly the whole length problem again. Each starts at [`SOONER_SHIFT`]'s share of
    /// the budget, and every failed test halves the next one's, down to a sixty-fourth,
    /// so that the walk reaches the bounds it can settle instead of spending its time
    /// above them. A test its search settles restores the starting share.
    fn mated_sooner(&mut self, pos: &Position, n: i32) -> Option<bool> {
        if let Some(known) = self.known_within(pos, n) {
            return Some(known);
        }
        let r = self.mates_within_reduced(pos, n, (self.failed_tests + SOONER_SHIFT).min(6));
        self.failed_tests = if r.is_some() {
            0
        } else {
            self.failed_tests + 1
        };
        r
    }

    fn attacker_node(&mut self, pos: &Position, r: i32, sure: bool) -> Option<Choice> {
        let (r, sure) = self.tightened(pos, r, sure);
        let mut list = MoveList::new();
        pos.checks(self.b.check_mode, &mut list);
        // Moves the table already proves first, the shortest proven first: cheap, and
        // usually the answer. The first check whose mate leaves no spare piece is taken
        // without comparing the others, so from a loose bound the order is what keeps
        // the attacker's detours out of the line.
        let mut moves: Vec<(Move, i32)> = list
            .as_slice()
            .iter()
            .map(|&m| {
                let proven = self.b.proven_len(&pos.play(m)).filter(|&l| l < r);
                (m, proven.unwrap_or(i32::MAX))
            })
            .collect();
        moves.sort_by_key(|&(_, proven)| proven);
        let mut checks: Vec<Move> = moves.into_iter().map(|(m, _)| m).collect();
        let mut first: Option<Choice> = None;
        // Checks whose comparison with the first mate in hand a reduced test left open.
        let mut unsure = Vec::new();
        // The node is proven within r, so some check mates within r - 1. Where every test
        // that could show one ran out of nodes, the tables lost the proof (a small
        // USI_Hash), and the walk cannot go on without a mate: a second pass searches
        // those checks again without a node limit, until one mates or the deadline
        // passes. Muso 89 at 16 MiB, whose root checks all ran out, used to print 19 plies
        // from the tables instead of its 69.
        for unlimited in [false, true] {
            let mut ran_out = Vec::new();
            for m in checks {
                let child = pos.play(m);
                // Once a mate is in hand, the others are only compared for spare pieces. In
                // a sound problem the attacker's mate is unique but near the end, so a check
                // the table does not already prove gets a small search: short mates still
                // show, and the walk does not spend a full test on every check of every
                // node.
                //
                // The attacker mates shortest, so a check is compared only if it mates no
                // later than the first mate in hand; from a loose bound, a longer one is a
                // detour, and walking it for its spare pieces walked the whole of each
                // detour's subtree (Zuko 99 from 121, whose mate is 117: its endings
                // hundreds of times).
                let bound = first.map_or(r - 1, |f| (Self::length(&f) - 1).min(r - 1));
                let known = self.b.proven_len(&child).is_some_and(|l| l <= bound);
                let found = if first.is_some() && !known {
                    self.mates_within_reduced(&child, bound, 6)
                } else if unlimited {
                    self.mates_within_nodes(&child, bound, None)
                } else {
                    self.mates_within(&child, bound)
                };
                match found {
                    Some(true) => {}
                    Some(false) => continue,
                    None if self.past_deadline() => return None,
                    None => {
                        if first.is_some() {
                            unsure.push(m);
                        } else if !unlimited {
                            // Only the first pass's are searched again.
                            ran_out.push(m);
                        }
                        continue;
                    }
                }
                if let Some(c) = self.weigh_check(pos, m, r, bound, sure, &mut first)? {
                    return Some(c);
                }
            }
            if first.is_some() || unlimited {
                break;
            }
            checks = ran_out;
        }
        // A mate in hand that ends with spare pieces, or that the convention shortened, may
        // have an equal whose line ends with nothing, among the checks a reduced test left
        // open: they share one full test's nodes. Under the classical convention the spare
        // pieces decide the defence above, and so the length: on a sparse chase
        // (9/3R1L2L/7k1/9/9/9/9/9/9 b RP, after 6b6c 2c3d) R*5d mates in 11 with a pawn to
        // spare, 6c6d+ in 11 with nothing, and its 1 500-node test ran out; 2c3d then
        // ranked below 2c2b, mated in 5, and the walk printed 6 plies, exact, for 12.
        // Under the strict rule they choose only among equally long defences, and the
        // length stands whichever is taken.
        if (self.spare_gap > 0 || self.weigh_open_checks)
            && first.is_some_and(|f| Self::rank(&f) > 0)
            && !unsure.is_empty()
            && self.may_compare()
        {
            // `weigh_check` returns any line with nothing spare at once, so `first` stays a
            // line with spare pieces or a shortened one throughout.
            let mut open = false;
            let each = self.test_nodes.map(|t| t / unsure.len() as u64);
            for m in unsure {
                let Some(f) = first else { break };
                let bound = (Self::length(&f) - 1).min(r - 1);
                match self.mates_within_nodes(&pos.play(m), bound, each) {
                    Some(true) => {}
                    Some(false) => continue,
                    None if self.past_deadline() => return None,
                    None => {
                        open = true;
                        continue;
                    }
                }
                if let Some(c) = self.weigh_check(pos, m, r, bound, sure, &mut first)? {
                    return Some(c);
                }
            }
            if let Some(f) = &mut first {
                f.open |= open;
            }
        }
        first
    }

    /// How long a check's mate is for the attacker's choice: the line's length, but for a
    /// line the convention shortened, the bound it was walked at. The attacker may not
    /// exploit the convention, so such a check is as long as its longest defence, which
    /// the bound covers. Compared by the shortened length, the attacker took a check
    /// whose defender had to settle for a short line over one as long without spare
    /// pieces: on a sparse chase (4sR2s/9/9/7k1/5+R3/9/9/9/9 b s, after 4a4d+ 2d2c), 4e2e
    /// and 4e3d both mate in 10, but after 4e2e the longest defence ends with a piece to
    /// spare and the convention leaves 8; a walk meeting 4e2e first printed 9 plies,
    /// exact, and one meeting 4e3d first 11.
    fn length(c: &Choice) -> i32 {
        if c.shortened {
            c.child_r + 1
        } else {
            c.len
        }
    }

    /// How a check's line ranks among equally long ones: best with nothing spare, then
    /// one the convention shortened (see [`Self::weigh_check`]), then one with spare pieces.
    fn rank(c: &Choice) -> u8 {
        (!c.spare.is_empty()) as u8 * 2 + c.shortened as u8
    }

    /// Walks the check `m` at `pos`, shown to mate within `bound`, and weighs it against
    /// the first mate in hand, `first`, which it replaces if shorter or, as long, better
    /// ranked. `Some(Some(c))`: `c` is the node's choice and nothing can beat it (a line
    /// with nothing spare that the convention left whole, or one taken with the
    /// comparisons out of time).
    fn weigh_check(
        &mut self,
        pos: &Position,
        m: Move,
        r: i32,
        bound: i32,
        sure: bool,
        first: &mut Option<Choice>,
    ) -> Option<Option<Choice>> {
        // Mated in exactly r here, the node is mated in no fewer than r - 1 after any
        // check.
        let sub = self.walk_move(&pos.play(m), m, bound, sure && bound == r - 1)?;
        let c = Choice {
            mv: Some(m),
            child_r: bound,
            spare: sub.spare,
            shortened: sub.shortened,
            len: sub.len + 1,
            open: sub.open,
        };
        // A check whose longest defence ends with no spare piece comes first; one whose
        // line the convention shortened only makes the problem shorter than the
        // composer's, so it ranks next.
        if (c.spare.is_empty() && !c.shortened) || !self.may_compare() {
            return Some(Some(c));
        }
        let key = |c: &Choice| (Self::length(c), Self::rank(c), c.len);
        if first.is_none_or(|f| key(&c) < key(&f)) {
            *first = Some(c);
        }
        Some(None)
    }

    /// The bound `r` at `pos` lowered to the length the tables prove, if shorter. A node
    /// said to be mated in exactly `r` that the tables mate sooner shows the bounds
    /// above it disagree with the tables, and nothing is inferred below it.
    fn tightened(&self, pos: &Position, r: i32, sure: bool) -> (i32, bool) {
        match self.b.proven_len(pos) {
            Some(l) if l < r => (l, false),
            _ => (r, sure),
        }
    }

    /// A defender node mated within `r`. Which defences last longest takes a test each
    /// that they are not mated within `r - 3`: a disproof, and the walk's dearest search
    /// (Zuko 100's walk at its exact 611: 23 such tests, 9.6 M nodes, 23 s). Where the
    /// node is mated in exactly `r` (`sure`), some defence that counts lasts `r - 1`, so
    /// once every other is shown mated sooner the last one needs no test.
    fn defender_node(&mut self, pos: &Position, r: i32, sure: bool) -> Option<Choice> {
        let (r, sure) = self.tightened(pos, r, sure);
        let undecided_before = self.undecided_drops;
        let end = Choice {
            mv: None,
            child_r: 0,
            spare: pos.hand(self.b.attacker),
            shortened: false,
            len: 0,
            open: false,
        };
        if r <= 0 {
            return Some(end);
        }
        let mut list = MoveList::new();
        pos.evasions(GenMode::All, &mut list);
        let line = interposition_line(pos);
        // The length against the real defences sets the futility bound, as in the search.
        let mut m_bound = 0;
        let mut drops = Vec::new();
        let mut real = Vec::new();
        for &m in list.as_slice() {
            let child = pos.play(m);
            if is_interposing_drop(m, line) {
                drops.push(m);
            } else {
                if !self.mates_within(&child, r - 1)? {
                    self.exact = false;
                    return None;
                }
                let l = self.b.proven_len(&child).unwrap_or(r - 1);
                m_bound = m_bound.max(l + 1);
                real.push(m);
            }
        }
        let mut m_bound = FutilityBound {
            upper: m_bound,
            // With no real defence the bound is 0, and nothing needs showing.
            shown: real.is_empty(),
            real: real.clone(),
        };
        // A drop the tables already mate sooner than the longest defence can last cannot be
        // one, so whether it is futile matters only to the 駒余り comparison, and its test
        // waits until then: futility tests are among the walk's dearest (Muso 6 with two
        // threads, its walk cut at 20 s: 600 tests took 8 s of it, six drops on one square
        // at 100 k nodes each, all undecided).
        let mut deferred = Vec::new();
        for m in drops {
            if self.past_deadline() {
                return None;
            }
            if r - 3 >= 1 && self.known_within(&pos.play(m), r - 3) == Some(true) {
                deferred.push(m);
            } else if self.counts_as_defence(pos, m, &mut m_bound, r)? {
                real.push(m);
            }
        }
        if real.is_empty() {
            // Whether this is the end turns on the drops alone.
            real = self.effective_drops(pos, &std::mem::take(&mut deferred), &mut m_bound, r)?;
            if real.is_empty() {
                return Some(end);
            }
        }
        // Whether each defence is mated within r - 3 (`None` until asked; `Some(None)` when
        // its test ran out): those the tables settle first, as they cost nothing. With
        // no room for a shorter mate, every defence lasts longest.
        let mut tests: Vec<Option<Option<bool>>> = real
            .iter()
            .map(|&m| {
                if r - 3 < 1 {
                    Some(Some(false))
                } else {
                    self.known_within(&pos.play(m), r - 3).map(Some)
                }
            })
            .collect();
        // Every defence that counts is in `real` or mated sooner (`deferred`), unless a
        // drop's count was left undecided here.
        let sure = sure && self.undecided_drops == undecided_before;
        let mut inferred = None;
        // Until one longest defence is known, the others are tested in order: if none
        // lasts, the bound was loose.
        if !tests.contains(&Some(Some(false))) {
            let mut mated_sooner = tests.iter().filter(|&&t| t == Some(Some(true))).count();
            for i in 0..real.len() {
                if tests[i].is_none() {
                    // Every other defence is shown mated within r - 3.
                    let others_sooner = mated_sooner + 1 == real.len();
                    tests[i] = Some(if sure && others_sooner {
                        self.longest_inferred += 1;
                        inferred = Some(real[i]);
                        #[cfg(test)]
                        if self.check_inferences {
                            let child = pos.play(real[i]);
                            let t = self.mates_within_nodes(&child, r - 3, None);
                            assert_eq!(t, Some(false), "{} {r}", pos.to_sfen());
                        }
                        Some(false)
                    } else {
                        self.longest_test(pos, real[i], r)?
                    });
                    if tests[i] == Some(Some(true)) {
                        mated_sooner += 1;
                    }
                }
                if tests[i] == Some(Some(false)) {
                    break;
                }
            }
        }
        if !tests.contains(&Some(Some(false))) {
            // Every defence was tested, and none is shown to last longest.
            // The longest mate against the defences shown mated within r - 3, or None
            // once one is not.
            let mut sooner = Some(0);
            for (&m, test) in real.iter().zip(&tests) {
                if *test == Some(Some(true)) {
                    let l = self.b.proven_len(&pos.play(m)).unwrap_or(r - 3).min(r - 3);
                    sooner = sooner.map(|s: i32| s.max(l + 1));
                } else {
                    sooner = None;
                }
            }
            // A deferred drop may be effective: the bound stays one that holds if it is.
            for &m in &deferred {
                let l = self.b.proven_len(&pos.play(m)).unwrap_or(r - 3).min(r - 3);
                sooner = sooner.map(|s| s.max(l + 1));
            }
            if let Some(bound) = sooner {
                // Every defence is mated sooner than the bound said: the bound was loose,
                // and the node is walked at the one its defences prove. Walking each
                // defence at the loose bound instead, to find the longest line, walked
                // whole subtrees several times over and ran Zuko 99's walk (bound 123,
                // length 117) out of time.
                return self.walk(pos, bound, false);
            }
        }
        // The longest defences: those not mated within r - 3, each mated in exactly r - 1.
        // Those known first; the others' tests only matter to the 駒余り comparison, so
        // each waits until the defences before it have all left spare pieces (Zuko 100,
        // at ply 259: three of five defences last longest, and the tables knew one, whose
        // line leaves none; the other two tests took 8 M nodes).
        let mut order: Vec<usize> = (0..real.len())
            .filter(|&i| tests[i] == Some(Some(false)))
            .collect();
        order.extend((0..real.len()).filter(|&i| tests[i].is_none()));
        let mut longest = Vec::new();
        // Where no defence is shown to last longest, the one whose walked line is.
        let mut walked = None;
        if order.is_empty() {
            // Only upper bounds here, and lines walked decide: an effective deferred drop's
            // may be the longest.
            self.exact = false;
            let drops =
                self.effective_drops(pos, &std::mem::take(&mut deferred), &mut m_bound, r)?;
            real.extend(drops);
            walked = Some(self.longest_walked(pos, &real, r)?);
        }
        let sure_child = walked.is_none();
        let mut order = order.into_iter();
        let mut first: Option<Choice> = None;
        // The longest line without spare pieces that the convention had to shorten: a
        // longest defence whose own line ends with none is better, whatever its order.
        let mut shortened: Option<Choice> = None;
        // The longest line walked that ends with spare pieces only for want of a decided
        // comparison below (see `Choice::open`).
        let mut open_len = i32::MIN;
        loop {
            let m = if let Some(m) = walked.take() {
                m
            } else {
                let Some(i) = order.next() else { break };
                if tests[i].is_none() {
                    tests[i] = Some(self.longest_test(pos, real[i], r)?);
                }
                if tests[i] != Some(Some(false)) {
                    continue;
                }
                real[i]
            };
            longest.push(m);
            let sub = self.walk_move(&pos.play(m), m, r - 1, sure_child)?;
            let c = Choice {
                mv: Some(m),
                child_r: r - 1,
                spare: sub.spare,
                shortened: sub.shortened,
                len: sub.len + 1,
                open: sub.open,
            };
            // The inference rests on the bounds' verdicts on drops matching the walk's;
            // a line that falls short of `r` shows they did not.
            if inferred == Some(m) && !c.shortened && c.len != r {
                self.exact = false;
            }
            if (c.spare.is_empty() && !c.shortened) || !self.may_compare() {
                self.unweighed(&c);
                return Some(c);
            }
            if c.open {
                open_len = open_len.max(c.len);
            }
            if !c.spare.is_empty() {
                first.get_or_insert(c);
            } else if shortened.is_none_or(|s| c.len > s.len) {
                shortened = Some(c);
            }
        }
        // Lines walked once the comparisons ran out took the first mate at each attacker
        // node, so the spare pieces they end with say nothing about the defence: the
        // convention would trade the longest defence for a shorter one on that noise.
        if !self.may_compare() {
            let c = shortened.or(first);
            if let Some(c) = &c {
                self.unweighed(c);
            }
            return c;
        }
        // Every longest defence leaves spare pieces, or leaves none only by the convention:
        // the longest line without spare pieces within the convention's gap is the better
        // defence, whether a longest defence or a shorter one leads to it.
        let floor = (r - 1 - self.spare_gap).max(shortened.map_or(i32::MIN, |s| s.len));
        let within_gap =
            |b: &Bounded, m: Move| b.proven_len(&pos.play(m)).unwrap_or(r - 1) >= floor;
        let mut shorter: Vec<Move> = real
            .into_iter()
            .filter(|m| !longest.contains(m))
            .filter(|&m| within_gap(self.b, m))
            .collect();
        deferred.retain(|&m| within_gap(self.b, m));
        shorter.extend(self.effective_drops(pos, &deferred, &mut m_bound, r)?);
        let mut chosen = shortened.or(first);
        if let Some(c) = self.longest_without_spare(pos, &shorter, r, floor)? {
            if shortened.is_none_or(|s| c.len > s.len) {
                chosen = Some(c);
            }
        }
        // A longer defence ranked below the one taken may end with nothing spare after all.
        if let Some(c) = &mut chosen {
            if c.len < open_len {
                self.exact = false;
                c.open = true;
            }
        }
        chosen
    }

    /// Whether the defence `m` at `pos`, mated within `r - 1`, is mated within `r - 3`:
    /// `None` when the limits are past, `Some(None)` when its test ran out.
    fn longest_test(&mut self, pos: &Position, m: Move, r: i32) -> Option<Option<bool>> {
        match self.mated_sooner(&pos.play(m), r - 3) {
            None if self.past_deadline() => None,
            t => Some(t),
        }
    }

    /// A defence taken once the comparisons ran out of time, `c`, whose line the 駒余り
    /// convention shortened further down: the other defences here were not weighed
    /// against it, and one of them may lead to a longer line without spare pieces, which
    /// the convention prefers. So the line's length is no longer shown to be the
    /// problem's. Shogi Muso 65 (classical rules, two threads, 30 s) printed 11 plies
    /// marked exact in one run of three: its second walk, at the bound 21, ran past the
    /// comparisons' deadline inside the longest defence, 5i6h+, whose line the convention
    /// had shortened to 11, and took it at ply 2 without comparing 5i6h, whose line of 17
    /// plies ends with no spare piece (the other runs printed those 17).
    fn unweighed(&mut self, c: &Choice) {
        if c.shortened && !self.may_compare() {
            self.exact = false;
        }
    }

    /// Whether the interposing drop `m` at `pos` is a defence the walk counts: not futile
    /// against the node's futility bound `fb`, and mated within `r - 1`. The node's bound
    /// is proven, and its proof took every effective drop into account, so a drop not
    /// shown mated within `r - 1` was futile to that proof, whatever a test cut short by
    /// its budget says here. That goes for a drop whose search runs out of nodes too,
    /// though the line then rests on it and is not shown exact: Muso 89 (69 plies) has a
    /// pawn dropped on 7c at ply 34 that neither test settles in 100 k nodes, and giving
    /// up the whole walk there printed a 19-ply line read off the tables.
    fn counts_as_defence(
        &mut self,
        pos: &Position,
        m: Move,
        fb: &mut FutilityBound,
        r: i32,
    ) -> Option<bool> {
        self.b.set_limits(self.deadline, self.test_nodes);
        let shown_effective = match self.futile_here(pos, m, fb) {
            Some(true) => return Some(false),
            Some(false) => true,
            None if self.past_deadline() => return None,
            None => false,
        };
        match self.mates_within(&pos.play(m), r - 1) {
            None if self.past_deadline() => None,
            None => {
                self.exact = false;
                self.undecided_drops += 1;
                Some(false)
            }
            // Under `SameLength` a drop shown effective against the true futility bound,
            // and not mated within `r - 1`, shows the bound's proof took it for futile
            // against a bound too high (see `FutilityBound`): the node is not mated
            // within `r` after all. Under `AnyLength` "effective" only says no mate was
            // found, and the proof's verdict stands.
            Some(false) if shown_effective && !self.b.any_length(fb.upper) => {
                self.exact = false;
                Some(false)
            }
            known => known,
        }
    }

    /// The drops among `drops` that [`Self::counts_as_defence`] keeps.
    fn effective_drops(
        &mut self,
        pos: &Position,
        drops: &[Move],
        fb: &mut FutilityBound,
        r: i32,
    ) -> Option<Vec<Move>> {
        let mut kept = Vec::new();
        for &m in drops {
            if self.past_deadline() {
                return None;
            }
            if self.counts_as_defence(pos, m, fb, r)? {
                kept.push(m);
            }
        }
        Some(kept)
    }

    /// Where no defence at `pos` is shown to last longest: the one whose walked line is
    /// longest. The bounds alone mislead, as an upper bound the walk below cannot reach
    /// ends the line early, so the defences are walked in the order of their bounds until
    /// no bound left can beat the longest line. This goes on after the comparisons ran
    /// out of time: it is the longest-defence rule itself, not a tie-break, and on
    /// Microcosmos the highest bound (L*8c, 1145) walked to a quick mate where the next
    /// (N*8c, 1139) is the main line, over 1000 plies long.
    fn longest_walked(&mut self, pos: &Position, real: &[Move], r: i32) -> Option<Move> {
        let mut by_bound: Vec<(Move, i32)> = real
            .iter()
            .map(|&m| {
                let l = self.b.proven_len(&pos.play(m)).unwrap_or(r - 1);
                (m, l.min(r - 1))
            })
            .collect();
        by_bound.sort_by_key(|&(_, l)| -l);
        let mut best: Option<(Move, i32)> = None;
        for (m, bound) in by_bound {
            let child = pos.play(m);
            if let Some((_, len)) = best {
                if len > bound {
                    break;
                }
                // A defence shown mated before the longest line so far ends cannot be
                // longer: a test is cheaper than a walk, and from a loose bound every
                // bound here is loose too, so without it every defence was walked (Zuko
                // 99's interpositions at ply 68, bounds 51-53, lines of 41-49 plies).
                if len - 3 >= 1 && self.mated_sooner(&child, len - 3) == Some(true) {
                    continue;
                }
                if self.past_deadline() {
                    return None;
                }
            }
            let sub = self.walk_move(&child, m, r - 1, false)?;
            if best.is_none_or(|(_, len)| sub.len + 1 > len) {
                best = Some((m, sub.len + 1));
            }
        }
        best.map(|(m, _)| m)
    }

    /// Among the defences `moves` at `pos` (each mated within `r - 1`), the longest whose
    /// main line ends with no spare piece, each at its own exact length.
    fn longest_without_spare(
        &mut self,
        pos: &Position,
        moves: &[Move],
        r: i32,
        floor: i32,
    ) -> Option<Option<Choice>> {
        let mut lengths = Vec::with_capacity(moves.len());
        for &m in moves {
            let child = pos.play(m);
            let mut l = self.b.proven_len(&child).unwrap_or(r - 1).min(r - 1);
            // Step down to the exact length, so that the attacker's line below is its
            // shortest; a step the limits cut leaves an upper bound.
            let mut exact = true;
            while l >= 2 {
                match self.mated_sooner(&child, l - 2) {
                    Some(true) => l = self.b.proven_len(&child).unwrap_or(l - 2).min(l - 2),
                    Some(false) => break,
                    None if self.past_deadline() => return None,
                    None => {
                        self.exact = false;
                        exact = false;
                        break;
                    }
                }
            }
            lengths.push((m, l, exact));
        }
        // A defence's line without spare pieces may itself be one the convention shortened
        // below the defence's exact length, so the first defence found need not be the
        // best: keep the longest line, and stop once no exact length can beat it.
        lengths.sort_by_key(|&(_, l, _)| -l);
        let mut best: Option<Choice> = None;
        for (m, l, exact) in lengths.into_iter().filter(|&(_, l, _)| l >= floor) {
            if best.is_some_and(|b| b.len > l) {
                break;
            }
            let sub = self.walk_move(&pos.play(m), m, l, exact)?;
            if !sub.spare.is_empty() && sub.open && best.is_none_or(|b| sub.len + 1 > b.len) {
                // It may end with nothing spare, and be the better defence.
                self.exact = false;
            }
            if sub.spare.is_empty() && best.is_none_or(|b| sub.len + 1 > b.len) {
                best = Some(Choice {
                    mv: Some(m),
                    child_r: l,
                    spare: sub.spare,
                    shortened: true,
                    len: sub.len + 1,
                    open: sub.open,
                });
            }
        }
        Some(best)
    }

    /// Whether the drop `m` at `pos` is futile against the node's futility bound `fb`;
    /// `None` where a test is undecided: the futility test itself, or whether the bound
    /// it is futile against is the true one (the line is then not shown exact).
    fn futile_here(&mut self, pos: &Position, m: Move, fb: &mut FutilityBound) -> Option<bool> {
        loop {
            match self.is_futile(pos, m, fb.upper) {
                Some(true) => {}
                verdict => return verdict,
            }
            if fb.shown || self.b.any_length(fb.upper) {
                return Some(true);
            }
            // Futile against the upper bound: that holds if a real defence lasts so long,
            // that is, is not mated within `upper - 3`. A real defence lasts a ply at least.
            let n = fb.upper - 3;
            if n < 1 {
                fb.shown = true;
                return Some(true);
            }
            let mut all_sooner = true;
            for i in 0..fb.real.len() {
                match self.mated_sooner(&pos.play(fb.real[i]), n) {
                    Some(false) => {
                        fb.shown = true;
                        return Some(true);
                    }
                    Some(true) => {}
                    None => all_sooner = false,
                }
            }
            if !all_sooner {
                self.exact = false;
                self.undecided_drops += 1;
                return None;
            }
            // Every real defence is mated sooner: their proofs now bound it lower.
            fb.upper = fb
                .real
                .iter()
                .map(|&d| self.b.proven_len(&pos.play(d)).unwrap_or(n).min(n) + 1)
                .max()
                .unwrap_or(0);
        }
    }

    /// The futility test of [`super::futile`] for the drop `m` at `pos`, against the
    /// length `m_bound` of the other defences.
    pub fn is_futile(&mut self, pos: &Position, m: Move, m_bound: i32) -> Option<bool> {
        let Some((checker, _)) = interposition_line(pos) else {
            return Some(false);
        };
        let after = pos.play(m);
        for q in give_backs(&after, m, checker, self.b.check_mode) {
            let key = (q.key(), m_bound);
            let verdict = match self.give_back_tests.get(&key) {
                Some(&v) => v,
                None => {
                    self.futility_searches += 1;
                    let v = self.b.give_back_test(q, m_bound);
                    self.give_back_tests.insert(key, v);
                    v
                }
            };
            if verdict? {
                return Some(true);
            }
        }
        Some(false)
    }
}

/// A line read off the proof tables alone, with no new search: the attacker's shortest
/// proven check, the defender's longest proven reply. A drop with no proven length is
/// taken as futile (the proof of its parent then rested on the give-back test). The line
/// needs no exact length, only to be a mate, which the verifier decides; it stands in when
/// the walk above runs out of time.
pub(crate) fn table_line(b: &Bounded, root: &Position) -> Option<Vec<Move>> {
    let mut line = Vec::new();
    let mut pos = root.clone();
    let mut list = MoveList::new();
    let mut r = b.proven_len(root)?;
    let cap = 2 * r as usize + 16;
    loop {
        if let Some(m) = b.line_moves(&pos, &mut list) {
            line.push(m);
            return Some(line);
        }
        let attacker = pos.side_to_move() == b.attacker;
        // Proven lengths need not fall ply by ply (some are the proof walk's upper bounds),
        // so the shortest check and the longest reply are taken whatever the bound says,
        // and a cap on the plies ends the walk. Drops on the checking line come in only
        // below the bound, as they may be futile.
        if line.len() > cap {
            return None;
        }
        let line_sq = interposition_line(&pos);
        let pick = list
            .as_slice()
            .iter()
            .filter_map(|&m| Some((m, b.proven_len(&pos.play(m))?)))
            .filter(|&(m, l)| l < r || !is_interposing_drop(m, line_sq))
            .min_by_key(|&(m, l)| {
                if attacker {
                    (0, l)
                } else {
                    (is_interposing_drop(m, line_sq) as i32, -l)
                }
            });
        match pick {
            Some((m, l)) => {
                line.push(m);
                pos = pos.play(m);
                r = l.min(r - 1);
            }
            None if attacker => return None,
            None => return Some(line),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mainline::test_data::{no_hints, published};
    use kanju_engine::Color;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    /// A walk from a loose bound, such as the proof walk's (Muso 77 is 11 plies; the
    /// tables say 21 at the root and 20 after the first check), lowers it at the first
    /// defender node whose every defence is proven mated sooner, and from there walks at
    /// bounds it can show exact: the line is the 11-ply mate, shown exact. Left at the
    /// loose bound, no defence there is shown to last longest, and the line rests on
    /// upper bounds.
    #[test]
    fn a_loose_bound_is_lowered_where_every_defence_is_mated_sooner() {
        let (root, sol) = published("tsume_edo_zukou_musou.jsonl", "musou-077");
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
        b.remember_proof(&root, 21);
        b.remember_proof(&root.play(sol[0]), 20);
        let deadline = Some(Instant::now() + Duration::from_secs(60));
        let mut ch = Chooser::new(&mut b, None, deadline, Some(100_000));
        let line = ch.line(&root, 21).expect("within the limits");
        assert_eq!(line.len(), sol.len());
        assert!(ch.exact, "every choice rests on a proof and a disproof");
    }

    /// A walk at a bound proven exact knows the last of a node's defences to last
    /// longest once every other is shown mated sooner, and so does a walk below a
    /// defence shown to last longest. Each such inference is checked here against the
    /// search it saves, and the line is the one the searches give: the published
    /// length, shown exact. Muso 9 (29 plies), where an inference made without every
    /// other defence shown mated sooner is wrong.
    #[test]
    fn at_an_exact_bound_the_last_longest_defence_needs_no_test() {
        let (root, sol) = published("tsume_edo_zukou_musou.jsonl", "musou-009");
        let n = sol.len() as i32;
        let stop = AtomicBool::new(false);
        let walk = |exact_bound: bool| {
            let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
            assert_eq!(b.within(&root, n), Some(true));
            assert_eq!(b.within(&root, n - 2), Some(false));
            let mut ch = Chooser::new(&mut b, None, None, None);
            ch.exact_bound = exact_bound;
            ch.check_inferences = true;
            let line = ch.line(&root, n).expect("no limits");
            assert!(ch.exact);
            assert_eq!(line.len(), sol.len());
            let end = line.iter().fold(root.clone(), |p, &m| {
                assert!(p.is_legal(m), "{m:?}");
                p.play(m)
            });
            assert!(end.in_check() && !end.has_legal_move());
            ch.longest_inferred
        };
        assert!(walk(true) > 0, "no inference made");
        walk(false);
    }

    /// The tables a proof leaves give a line on their own, down to its mate: the search
    /// proves a node with a mate in one without storing the mated position, so the line
    /// takes that mate itself. Without it every table line stopped one ply short of its
    /// end and was thrown away (Zuko 8 on one thread, walk cut at 120 s: twice at a mate in
    /// one, at plies 9 and 20).
    #[test]
    fn the_tables_line_ends_in_mate() {
        let (root, sol) = published("tsume_edo_zukou_musou.jsonl", "musou-077");
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
        assert_eq!(b.within(&root, sol.len() as i32), Some(true));
        let line = table_line(&b, &root).expect("a line from the tables");
        let end = line.iter().enumerate().fold(root.clone(), |p, (i, &m)| {
            assert!(p.is_legal(m), "ply {i}: {m:?}");
            assert!(i % 2 == 1 || p.gives_check(m), "ply {i}: {m:?} is no check");
            p.play(m)
        });
        assert!(end.in_check() && !end.has_legal_move(), "{line:?}");
        assert!(line.len() <= sol.len(), "{} plies", line.len());
    }

    /// From a loose bound the attacker still mates shortest. Here 2c2b mates at once but
    /// leaves a pawn in hand; P*1b K2a G2b mates in three and uses it. The table knows the
    /// mate in one, so the walk meets it first, and a walk that compared every check
    /// within the loose bound for its spare pieces took the three-ply detour.
    #[test]
    fn a_mate_without_spare_pieces_does_not_beat_a_shorter_one() {
        let root = Position::from_sfen("8k/9/7G1/6N2/9/9/9/9/9 b P2r2b3g4s3n4l17p 1").unwrap();
        let short = root.parse_usi_move("2c2b").unwrap();
        let detour = root.parse_usi_move("P*1b").unwrap();
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
        assert_eq!(
            b.within(&root.play(detour), 2),
            Some(true),
            "the detour mates"
        );

        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
        b.remember_proof(&root.play(short), 0);
        let mut ch = Chooser::new(&mut b, None, None, Some(100_000));
        let line = ch.line(&root, 5).expect("no limits");
        assert_eq!(line, vec![short]);
    }

    /// From a loose bound the attacker takes the shortest mate the tables prove, not the
    /// first. Here the horse's 3b2b mates at once; 1d2b+, 3d2c+ and 3b2c mate in three,
    /// and every one of these mates ends with an empty hand, so no spare piece tells them
    /// apart. The checks are generated with a detour first, and a walk that took the
    /// tables' proven checks in that order printed 1d2b+ 1b1c 3b2c.
    #[test]
    fn the_shortest_proven_check_is_walked_first() {
        let root = Position::from_sfen("9/6+B1k/9/6S1N/9/9/9/9/9 b - 1").unwrap();
        let usi = |s: &str| root.parse_usi_move(s).unwrap();
        let short = usi("3b2b");
        let detours: Vec<Move> = ["1d2b+", "3d2c+", "3b2c"].map(usi).into();
        let mut checks = MoveList::new();
        root.checks(GenMode::All, &mut checks);
        let at = |m: Move| checks.as_slice().iter().position(|&c| c == m).unwrap();
        assert!(
            detours.iter().any(|&d| at(d) < at(short)),
            "a detour is generated first, or the order does not matter here"
        );
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
        b.remember_proof(&root.play(short), 0);
        for &d in &detours {
            assert_eq!(b.within(&root.play(d), 2), Some(true), "{d:?} mates in 3");
        }
        let mut ch = Chooser::new(&mut b, None, None, Some(100_000));
        let line = ch.line(&root, 9).expect("no limits");
        assert_eq!(line, vec![short]);
    }

    /// A defence whose line the 駒余り convention shortened further down, taken once the
    /// comparisons have run out of time, leaves the line's length unshown: the other
    /// defences were not weighed against it. Muso 77 after its first check (10 plies
    /// left), with the walk below the main defence standing in for one that was
    /// shortened to 3 plies: without time to compare, the walk takes it, and may not call
    /// the result exact. With the walk's own line below it, it does.
    #[test]
    fn a_shortened_line_taken_without_comparing_is_not_exact() {
        let (root, sol) = published("tsume_edo_zukou_musou.jsonl", "musou-077");
        let pos = root.play(sol[0]);
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
        assert_eq!(b.within(&pos, 10), Some(true));
        let past = Some(Instant::now());
        for shortened in [false, true] {
            let mut ch = Chooser::new(&mut b, past, None, Some(100_000));
            let below = pos.play(sol[1]);
            if shortened {
                let stand_in = Choice {
                    mv: Some(sol[2]),
                    child_r: 8,
                    spare: Hand::EMPTY,
                    shortened: true,
                    len: 3,
                    open: false,
                };
                ch.memo.insert((below.key(), 9), stand_in);
            }
            let line = ch.line(&pos, 10).expect("no deadline");
            assert_eq!(
                line[..2],
                sol[1..3],
                "the main defence, then the line below it"
            );
            assert_eq!(ch.exact, !shortened, "shortened below: {shortened}");
        }
    }

    /// A walk cut by its deadline hands back the moves it had settled. With the tables
    /// already proving Muso 77's mate within 11 and a deadline already past, the walk
    /// follows the proven first check (the table answers it, no search needed) and stops
    /// at the first defence test that would need a search.
    #[test]
    fn a_cut_walk_reports_where_it_stopped() {
        let (root, sol) = published("tsume_edo_zukou_musou.jsonl", "musou-077");
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
        assert_eq!(b.within(&root, 11), Some(true));
        let mut ch = Chooser::new(&mut b, None, Some(Instant::now()), Some(100_000));
        assert!(ch.line(&root, 11).is_none(), "the deadline has passed");
        let reached = ch.reached().to_vec();
        assert!(!reached.is_empty(), "the proven check is settled");
        assert_eq!(reached[0], sol[0], "the problem's only first check");
        let end = reached.iter().fold(root.clone(), |p, &m| p.play(m));
        assert!(
            b.proven_len(&end).is_some(),
            "the tables' line can go on from there"
        );
    }

    /// A futility test is searched once per give-back position and bound, even when its
    /// budget leaves it undecided. Shogi Zuko 69's variation where the bishop on 2g checks
    /// the king on 4i across 3h (see the rule tests): a gold dropped on 3h is taken by the
    /// bishop, and the test asks whether the king, with the gold given back, is mated.
    #[test]
    fn a_futility_test_is_searched_once() {
        let pos =
            Position::from_sfen("9/9/9/9/5l3/p8/1p1+R3B1/S1G6/5ksR1 w GSb2gs4n3l16p 16").unwrap();
        let drop = pos.parse_usi_move("G*3h").unwrap();
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
        let mut ch = Chooser::new(&mut b, None, None, Some(1_000));
        let first = ch.is_futile(&pos, drop, 6);
        assert_eq!(ch.futility_searches, 1);
        assert_eq!(ch.is_futile(&pos, drop, 6), first);
        assert_eq!(
            ch.futility_searches, 1,
            "the second answer came from the memo"
        );
        ch.is_futile(&pos, drop, 8);
        assert_eq!(ch.futility_searches, 2, "another bound is another test");
    }
}
