//! The brinkmate tree's own table: proof and disproof numbers by position and by how many
//! attacker moves are left.
//!
//! The moves left fall by one at every attacker move and never rise, so the tree has no
//! cycles and a node's value does not depend on the path to it: a plain map will do,
//! with none of the tsume table's repetition handling. (Shogi's fourfold repetition
//! cannot arise within the fifteen plies a brinkmate search looks at.)

use kanju_engine::Position;
use std::collections::HashMap;

/// Proof numbers above this are infinite.
pub(super) const INF: u32 = u32::MAX / 4;

/// A node's proof and disproof numbers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Numbers {
    pub pn: u32,
    pub dn: u32,
}

impl Numbers {
    /// Proven.
    pub const PROVEN: Numbers = Numbers { pn: 0, dn: INF };
    /// Disproven.
    pub const DISPROVEN: Numbers = Numbers { pn: INF, dn: 0 };

    /// Whether the node is decided either way.
    pub fn is_decided(self) -> bool {
        self.pn == 0 || self.dn == 0
    }
}

/// The nodes searched so far.
pub(super) struct NodeMap {
    map: HashMap<u64, Numbers>,
    capacity: usize,
}

impl NodeMap {
    /// A map of at most `capacity` nodes.
    pub fn new(capacity: usize) -> NodeMap {
        NodeMap {
            map: HashMap::new(),
            capacity,
        }
    }

    /// The numbers of `pos` with `left` attacker moves left, if searched.
    pub fn get(&self, pos: &Position, left: u32) -> Option<Numbers> {
        self.map.get(&key(pos, left)).copied()
    }

    /// Stores the numbers of a node. False when the map is full and the node is new.
    pub fn put(&mut self, pos: &Position, left: u32, n: Numbers) -> bool {
        let k = key(pos, left);
        if self.map.len() >= self.capacity && !self.map.contains_key(&k) {
            return false;
        }
        self.map.insert(k, n);
        true
    }
}

/// The map's key: the position (side to move included) and the moves left.
fn key(pos: &Position, left: u32) -> u64 {
    pos.key() ^ (u64::from(left) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_moves_left_keep_nodes_apart() {
        let pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b GS 1").unwrap();
        let mut m = NodeMap::new(2);
        assert!(m.put(&pos, 1, Numbers::PROVEN));
        assert!(m.put(&pos, 2, Numbers { pn: 3, dn: 4 }));
        assert_eq!(m.get(&pos, 1), Some(Numbers::PROVEN));
        assert_eq!(m.get(&pos, 2), Some(Numbers { pn: 3, dn: 4 }));
        assert_eq!(m.get(&pos, 3), None);
        // Full: a new node is refused, a known one still updated.
        assert!(!m.put(&pos, 3, Numbers::DISPROVEN));
        assert!(m.put(&pos, 2, Numbers::DISPROVEN));
        assert_eq!(m.get(&pos, 2), Some(Numbers::DISPROVEN));
    }
}
