//! The root's other first moves that win as quickly as the brinkmate found (別解). A
//! composer checks a brinkmate problem for them as he checks a tsume for cooks: a problem
//! whose first move is not unique is flawed.

use super::line::{legal_moves, Verifier};
use super::search::Search;
use kanju_engine::{Move, Position};

/// What became of the root's other moves.
#[derive(Default)]
pub(super) struct Alternatives {
    /// Proven to win with as few attacker moves, and replayed.
    pub found: Vec<Move>,
    /// Not settled within the limits.
    pub undecided: Vec<Move>,
}

/// The fewest nodes each other move may take; it may also take as many as the whole
/// search had taken when the brinkmate was found.
const NODES_EACH: u64 = 200_000;

/// Looks at every root move besides `main`, the first move of a brinkmate with `moves`
/// attacker moves: a check, or a quiet move not shown harmless, is searched as a defender
/// node with one move fewer left. Moves met after a limit cut the search are undecided.
pub(super) fn find(s: &mut Search, root: &Position, main: Move, moves: u32) -> Alternatives {
    let mut out = Alternatives::default();
    let each = NODES_EACH.max(s.spent());
    for m in legal_moves(root) {
        if m == main {
            continue;
        }
        if s.cut.is_some() {
            out.undecided.push(m);
            continue;
        }
        let child = root.play(m);
        if let Some(passed) = child.pass() {
            if !s.may_threaten(&passed) {
                continue;
            }
        }
        let n = s.settle(&child, moves - 1, each);
        if n.dn == 0 {
            continue;
        }
        if n.pn == 0 && Verifier::new(s).defence(&child, moves - 1) {
            out.found.push(m);
        } else {
            out.undecided.push(m);
        }
    }
    out
}
