//! What the bounded search knows for good about a board: per attacker hand, the shortest
//! mate proven and the largest bound disproven.

use super::bounded::NEVER;
use kanju_engine::Hand;

/// One attacker hand's verdicts on a board.
#[derive(Clone, Copy, Default)]
pub(crate) struct Known {
    /// A proof holds for any attacker hand that dominates this one, a disproof for any
    /// hand it dominates (pieces are conserved, so the defender holds the rest). Proofs
    /// and disproofs store their proof and disproof pieces, so one entry answers for
    /// many hands.
    pub hand: Hand,
    /// Shortest length proven (NEVER if none).
    pub proven: i32,
    /// Largest bound disproven (-1 if none).
    pub disproven: i32,
}

/// The `Known` entries of one board, in the order they came. Most boards have one, kept
/// in place; a vector for more would cost every lookup a second cache miss.
#[derive(Clone)]
pub(crate) enum KnownSet {
    One(Known),
    Many(Vec<Known>),
}

impl Default for KnownSet {
    fn default() -> Self {
        KnownSet::Many(Vec::new())
    }
}

/// Entries one board may keep; the oldest goes first.
const KNOWN_PER_BOARD: usize = 16;

/// What the allocator keeps beside each block it hands out (glibc: a 16-byte header,
/// sizes rounded to 16), counted with a vector's elements.
const BLOCK_OVERHEAD: usize = 16;

impl KnownSet {
    pub fn as_slice(&self) -> &[Known] {
        match self {
            KnownSet::One(k) => std::slice::from_ref(k),
            KnownSet::Many(v) => v,
        }
    }

    pub fn as_mut_slice(&mut self) -> &mut [Known] {
        match self {
            KnownSet::One(k) => std::slice::from_mut(k),
            KnownSet::Many(v) => v,
        }
    }

    /// The entry for exactly `hand`, added (as neither proven nor disproven) if absent.
    pub fn entry(&mut self, hand: Hand) -> &mut Known {
        let fresh = Known {
            hand,
            proven: NEVER,
            disproven: -1,
        };
        if let KnownSet::One(k) = *self {
            if k.hand != hand {
                *self = KnownSet::Many(vec![k]);
            }
        }
        match self {
            KnownSet::One(k) => k,
            KnownSet::Many(v) if v.is_empty() => {
                *self = KnownSet::One(fresh);
                match self {
                    KnownSet::One(k) => k,
                    KnownSet::Many(_) => unreachable!(),
                }
            }
            KnownSet::Many(v) => {
                let i = match v.iter().position(|k| k.hand == hand) {
                    Some(i) => i,
                    None => {
                        if v.len() >= KNOWN_PER_BOARD {
                            v.remove(0);
                        }
                        v.push(fresh);
                        v.len() - 1
                    }
                };
                &mut v[i]
            }
        }
    }

    /// Drops the entries `keep` refuses, and what their vector no longer needs.
    pub fn retain(&mut self, keep: impl Fn(&Known) -> bool) {
        match self {
            KnownSet::One(k) if !keep(k) => *self = KnownSet::default(),
            KnownSet::One(_) => {}
            KnownSet::Many(v) => {
                v.retain(keep);
                if let [k] = v[..] {
                    *self = KnownSet::One(k);
                } else {
                    v.shrink_to_fit();
                }
            }
        }
    }

    /// Bytes the set takes outside its map's slot: a board with several hands keeps them
    /// in a vector of its own, which the map's arrays do not count.
    pub fn heap_bytes(&self) -> usize {
        match self {
            KnownSet::Many(v) if v.capacity() > 0 => {
                v.capacity() * std::mem::size_of::<Known>() + BLOCK_OVERHEAD
            }
            _ => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::PieceKind;

    fn pawns(n: usize) -> Hand {
        (0..n).fold(Hand::EMPTY, |h, _| h.add(PieceKind::Pawn))
    }

    /// Entries keep their order (the first of equal proofs answers a lookup), the
    /// seventeenth hand pushes out the first, and one entry stays in place.
    #[test]
    fn a_set_keeps_hands_in_order_up_to_its_limit() {
        let mut set = KnownSet::default();
        assert!(set.is_empty());
        set.entry(pawns(0)).proven = 5;
        assert!(matches!(set, KnownSet::One(_)));
        assert_eq!(set.entry(pawns(0)).proven, 5);
        for n in 1..=KNOWN_PER_BOARD {
            set.entry(pawns(n)).disproven = n as i32;
        }
        let hands: Vec<Hand> = set.as_slice().iter().map(|k| k.hand).collect();
        let expected: Vec<Hand> = (1..=KNOWN_PER_BOARD).map(pawns).collect();
        assert_eq!(hands, expected);
        set.retain(|k| k.disproven % 2 == 0);
        assert_eq!(set.as_slice().len(), KNOWN_PER_BOARD / 2);
        let fresh = *set.entry(pawns(99));
        assert_eq!((fresh.proven, fresh.disproven), (NEVER, -1));
    }
}
