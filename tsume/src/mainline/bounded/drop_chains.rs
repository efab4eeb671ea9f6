//! Interposing drops held back in the bounded search: at a defender node, the drops on
//! one square are tried from the cheapest piece up, and a dearer one only once the one
//! before it is shown futile or mated. The df-pn does the same (`crate::delayed`).
//!
//! A defender with a full hand answers a distant check with a drop of every kind on every
//! square between, and each counted in the node's proof number made a check with room to
//! interpose look many times harder to follow up than it is: a dearer piece usually falls
//! for the reason the cheaper one did. A held-back drop is never chosen, and adds only
//! the least a proof costs to its node's proof number (`HELD_BACK_PN`); the node is
//! proven only once every drop has been shown and proven. A node's disproof needs one
//! reply that holds, so it never waits for a held-back drop.
//!
//! On eight steps of the Edo set (no hints, same-length futility tests, one thread) the
//! searches took 6.9 M nodes in all, against 9.1 M with every drop shown; "no mate within
//! 21" on Zuko 19 took 0.62 M against 1.39 M (docs/performance.md, session 80).

use super::expand::Kid;
use super::Kind;
use crate::delayed::DropSquares;

/// No dearer drop on the square.
const NO_NEXT: u16 = u16::MAX;

/// The chains of one node's children, by the children's indices.
#[derive(Default)]
pub(super) struct DropChains {
    /// The next dearer drop on the child's square, or [`NO_NEXT`].
    next: Vec<u16>,
    /// Held back: a cheaper drop on the same square is not yet proven.
    hidden: Vec<bool>,
}

impl DropChains {
    pub(super) fn clear(&mut self) {
        self.next.clear();
        self.hidden.clear();
    }

    /// Links the interposing drops among `kids` square by square, cheapest kind first,
    /// and holds back all but the cheapest on each square. Never inlined: its table of
    /// squares would stay in the frame of every level of the search's recursion.
    #[inline(never)]
    pub(super) fn link(&mut self, kids: &[Kid]) {
        self.clear();
        self.next.resize(kids.len(), NO_NEXT);
        self.hidden.resize(kids.len(), false);
        let drops = kids
            .iter()
            .enumerate()
            .filter(|(_, k)| matches!(k.spot.kind, Kind::Interpose { .. }))
            .map(|(i, k)| (i, k.mv));
        let Some(squares) = DropSquares::of(drops.clone()) else {
            return;
        };
        for (i, m) in drops {
            let (next, cheaper) = squares.links(m);
            self.next[i] = next.unwrap_or(NO_NEXT);
            self.hidden[i] = cheaper;
        }
    }

    /// Whether child `i` is held back.
    #[inline]
    pub(super) fn is_hidden(&self, i: usize) -> bool {
        self.hidden.get(i).copied().unwrap_or(false)
    }

    /// The drop after child `i` on its square, shown now, and whether it was held back
    /// until now; `None` if there is none.
    pub(super) fn show_next(&mut self, i: usize) -> Option<(usize, bool)> {
        let n = *self.next.get(i)? as usize;
        if n == NO_NEXT as usize {
            return None;
        }
        Some((n, std::mem::replace(&mut self.hidden[n], false)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::expand::Kid;
    use super::super::{Bounded, Kind};
    use super::*;
    use crate::mainline::test_data::{no_hints, published};
    use kanju_engine::{Color, GenMode, MoveList, Position};
    use std::sync::atomic::AtomicBool;

    /// Holding drops back changes how the search goes, never what it finds. Along the
    /// published lines of three Edo problems whose defenders hold many pieces, each
    /// defender node is asked for a mate within what is left and within two plies fewer,
    /// with the drops held back and with all shown: the answers and the proven lengths
    /// agree, and holding back saves nodes.
    #[test]
    fn held_back_drops_change_no_answer() {
        let stop = AtomicBool::new(false);
        let (mut compared, mut saved) = (0, 0u64);
        for name in ["zukou-021", "zukou-077", "musou-035"] {
            let (root, line) = published("tsume_edo_zukou_musou.jsonl", name);
            let mut pos = root;
            for (ply, &m) in line.iter().enumerate() {
                pos = pos.play(m);
                if ply % 2 == 1 {
                    continue;
                }
                let left = (line.len() - ply - 1) as i32;
                for n in [left, left - 2] {
                    let mut nodes = [0u64; 2];
                    let mut found = [None; 2];
                    for (i, every) in [false, true].into_iter().enumerate() {
                        let mut b =
                            Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 32 << 20);
                        b.shows_every_drop = every;
                        b.set_limits(None, Some(300_000));
                        let r = b.within(&pos, n);
                        found[i] = r.map(|r| (r, b.proven_len(&pos)));
                        nodes[i] = b.nodes;
                    }
                    if let [Some(a), Some(b)] = found {
                        assert_eq!(a, b, "{name} ply {}: within {n}", ply + 1);
                        compared += 1;
                        saved += nodes[1].saturating_sub(nodes[0]);
                    }
                }
            }
        }
        assert!(compared >= 20, "only {compared} searches decided both ways");
        assert!(saved > 0, "holding drops back saved no node");
    }

    /// The children of the defender node `pos` as the bounded search makes them: each
    /// interposing drop a futility-test node, the rest plain replies.
    fn kids_of(pos: &Position) -> Vec<Kid> {
        let line = crate::mainline::futile::interposition_line(pos);
        let mut list = MoveList::new();
        pos.evasions(GenMode::All, &mut list);
        list.as_slice()
            .iter()
            .map(|&m| {
                let kind = if crate::mainline::futile::is_interposing_drop(m, line) {
                    let (checker, _) = line.unwrap();
                    Kind::Interpose {
                        s: m.to(),
                        checker,
                        m: 5,
                    }
                } else {
                    Kind::Or
                };
                Kid::after(pos, m, kind, 5, Color::Black)
            })
            .collect()
    }

    /// A rook checks up the file from 5i; White holds a pawn, a lance, a silver and a
    /// gold, so each of the seven squares between takes four kinds of drop. One drop a
    /// square is shown, the pawn; each shown in turn shows the next, up to the gold.
    #[test]
    fn one_drop_a_square_is_shown_and_the_next_follows() {
        let pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/4R4 w lsgp 1").unwrap();
        let kids = kids_of(&pos);
        let mut chains = DropChains::default();
        chains.link(&kids);
        let drops: Vec<usize> = (0..kids.len())
            .filter(|&i| matches!(kids[i].spot.kind, Kind::Interpose { .. }))
            .collect();
        assert_eq!(drops.len(), 7 * 4, "{} children", kids.len());
        let shown: Vec<usize> = drops
            .iter()
            .copied()
            .filter(|&i| !chains.is_hidden(i))
            .collect();
        assert_eq!(shown.len(), 7);
        for &i in &shown {
            assert_eq!(kids[i].mv.drop_kind(), Some(kanju_engine::PieceKind::Pawn));
            let mut at = i;
            let mut kinds = vec![kids[at].mv.drop_kind().unwrap()];
            while let Some((n, was_hidden)) = chains.show_next(at) {
                assert!(was_hidden && !chains.is_hidden(n));
                assert_eq!(kids[n].mv.to(), kids[i].mv.to());
                kinds.push(kids[n].mv.drop_kind().unwrap());
                at = n;
            }
            use kanju_engine::PieceKind::*;
            assert_eq!(kinds, [Pawn, Lance, Silver, Gold]);
        }
        assert!(drops.iter().all(|&i| !chains.is_hidden(i)));
        // The king's own moves are never held back.
        assert!((0..kids.len())
            .filter(|&i| !matches!(kids[i].spot.kind, Kind::Interpose { .. }))
            .all(|i| !chains.is_hidden(i) && chains.show_next(i).is_none()));
    }
}
