//! Repetition (千日手) along a game path, with the continuous-check rule.

use crate::position::Position;
use crate::types::Color;

/// What a repetition means for the game.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Repetition {
    /// The position has not occurred before on the path.
    None,
    /// It occurred before, and neither side checked on every move in between.
    Draw,
    /// It occurred before, and `Color` gave check on every one of its moves in between:
    /// under the continuous-check rule (連続王手の千日手) that side loses.
    ContinuousCheckBy(Color),
}

/// The positions of a game path, for repetition detection.
#[derive(Clone, Default, Debug)]
pub struct History {
    /// Per position: full key, and whether the side to move there was in check.
    entries: Vec<(u64, bool)>,
}

impl History {
    /// An empty path.
    pub fn new() -> History {
        History::default()
    }

    /// Appends a position reached on the path.
    pub fn push(&mut self, pos: &Position) {
        self.entries.push((pos.key(), pos.in_check()));
    }

    /// Removes the last position.
    pub fn pop(&mut self) {
        self.entries.pop();
    }

    /// Number of positions on the path.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if the path is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How `pos`, about to be reached, repeats an earlier position of the path. A single
    /// earlier occurrence counts: a solver treats any cycle as the game's four-fold
    /// repetition, since the same choices can be made again.
    pub fn repetition(&self, pos: &Position) -> Repetition {
        let key = pos.key();
        let Some(i) = self.entries.iter().rposition(|&(k, _)| k == key) else {
            return Repetition::None;
        };
        // Positions i+1..=end plus `pos` make the cycle. Side to move alternates, so the
        // positions where the side to move is in check were reached by the opponent's checks.
        let mover_at_pos = pos.side_to_move();
        let mut in_check_for = [true, true];
        let mut side = mover_at_pos;
        in_check_for[side.index()] &= pos.in_check();
        for &(_, check) in self.entries[i + 1..].iter().rev() {
            side = side.flip();
            in_check_for[side.index()] &= check;
        }
        // A side in check on every one of its turns in the cycle was checked continuously by the other.
        if in_check_for[Color::White.index()] {
            Repetition::ContinuousCheckBy(Color::Black)
        } else if in_check_for[Color::Black.index()] {
            Repetition::ContinuousCheckBy(Color::White)
        } else {
            Repetition::Draw
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(sfen: &str, moves: &[&str]) -> (History, Position) {
        let mut pos = Position::from_sfen(sfen).unwrap();
        let mut h = History::new();
        for m in moves {
            h.push(&pos);
            pos = pos.play(pos.parse_usi_move(m).unwrap());
        }
        (h, pos)
    }

    #[test]
    fn rook_checking_back_and_forth_loses_for_the_checker() {
        // Black's rook checks on ranks a and b while the king steps between 5a and 5b.
        let sfen = "4k4/9/9/9/9/9/9/9/R8 b - 1";
        let (h, pos) = walk(sfen, &["9i9a", "5a5b", "9a9b", "5b5a"]);
        // Before Black's fifth move: not yet a repetition.
        assert_eq!(h.repetition(&pos), Repetition::None);
        let again = pos.play(pos.parse_usi_move("9b9a").unwrap());
        let mut h = h;
        h.push(&pos);
        assert_eq!(
            h.repetition(&again),
            Repetition::ContinuousCheckBy(Color::Black)
        );
    }

    #[test]
    fn quiet_shuffle_is_a_draw() {
        let sfen = "4k4/9/9/9/9/9/9/9/4K4 b - 1";
        let (h, pos) = walk(sfen, &["5i5h", "5a5b", "5h5i"]);
        let back = pos.play(pos.parse_usi_move("5b5a").unwrap());
        let mut h = h;
        h.push(&pos);
        assert_eq!(h.repetition(&back), Repetition::Draw);
        // A different position is no repetition.
        assert_eq!(
            h.repetition(&pos.play(pos.parse_usi_move("5b4b").unwrap())),
            Repetition::None
        );
    }

    #[test]
    fn hands_distinguish_positions() {
        // Same board, different hands: the full key differs, the board key does not.
        let a = Position::from_sfen("4k4/9/9/9/9/9/9/9/9 b P 1").unwrap();
        let b = Position::from_sfen("4k4/9/9/9/9/9/9/9/9 b 2P 1").unwrap();
        assert_eq!(a.board_key(), b.board_key());
        assert_ne!(a.key(), b.key());
        let mut h = History::new();
        h.push(&a);
        assert_eq!(h.repetition(&b), Repetition::None);
    }
}
