//! The end of a line that ends with spare pieces, walked again.
//!
//! Once its comparisons are out of time, the walk takes the first mate at each attacker
//! node and the first longest defence, whatever spare pieces their lines leave. Near the
//! end of a long line that choice is cheap to make properly, and it matters: a line that
//! ends with spare pieces where an equally long one ends with none is not the composer's,
//! and the shortcuts ([`super::shortcut`]) leave such a line alone. On Microcosmos a walk
//! that overran its comparison time ended 1h1g 3i2h, mate with a gold still in hand, where
//! the composer's 1h1i G*2i uses it.
//!
//! A walk in time makes the same slip under the strict rule, where the spare pieces
//! decide no length: once a mate is in hand, the attacker's other checks get a reduced
//! test, and one that runs out is not weighed. On a sparse chase
//! (`1k7/1l1g1+r3/1sBS1N3/6+R2/9/9/9/9/9 b 3GSPl`, after G*7a 8a7a) 6c6b and 7c6b+ both
//! mate in 11, 6c6b with two golds, a silver and a pawn to spare, 7c6b+ with nothing, and
//! the walk took 6c6b. Here those checks are weighed with a share of a full test's nodes.
//!
//! So from the last attacker node backwards, the rest of the line is walked again with
//! comparisons, at its own length as the bound, until one such walk ends with no spare
//! piece at the same length. Its length unchanged, the defences above keep their order.

use super::bounded::Bounded;
use super::choose::Chooser;
use kanju_engine::{Move, Position};
use std::time::Instant;

/// Attacker nodes, from the end of the line, walked again at most: each one further up
/// walks a larger tree, and the choices a cut walk got wrong lie near its end, where it
/// spent the time it had left.
const MAX_NODES: usize = 12;
/// Nodes for each test of those walks.
const TEST_NODES: u64 = 100_000;

/// `line` from `root` with its end walked again, where it ends with spare pieces and a
/// walk with comparisons finds an equally long end with none; `line` itself otherwise, or
/// once `deadline` passed.
pub(crate) fn without_spare_end(
    b: &mut Bounded,
    root: &Position,
    line: Vec<Move>,
    spare_gap: i32,
    deadline: Option<Instant>,
) -> Vec<Move> {
    let attacker = b.attacker;
    let positions = super::replay(root, &line);
    if positions[line.len()].hand(attacker).is_empty() {
        return line;
    }
    let nodes = (0..line.len())
        .rev()
        .filter(|&k| positions[k].side_to_move() == attacker)
        .take(MAX_NODES);
    for k in nodes {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let len = line.len() - k;
        let mut ch = Chooser::new(b, None, deadline, Some(TEST_NODES));
        ch.spare_gap = spare_gap;
        ch.weigh_open_checks = true;
        let Some(end) = ch.line(&positions[k], len as i32) else {
            break;
        };
        if end.len() != len || ch.spare_rule_used {
            continue;
        }
        let last = end.iter().fold(positions[k].clone(), |p, &m| p.play(m));
        if last.hand(attacker).is_empty() {
            log::debug!("mainline: end walked again from ply {k}: no spare piece");
            let mut line = line;
            line.splice(k.., end);
            return line;
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mainline::test_data::{no_hints, published};
    use crate::mainline::verify;
    use kanju_engine::{Color, GenMode};
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    /// Microcosmos' last 14 plies, and the same line ending 1h1g 3i2h: as long, and mate,
    /// but with a gold left in hand. Walking the end again finds an end as long that uses
    /// the gold: the composer's 1h1i G*2i, or 1h1g G*1h, which is as long.
    #[test]
    fn an_end_with_a_spare_piece_is_walked_again() {
        let (root, sol) = published("tsume_long_named.jsonl", "microcosmos");
        assert_eq!(sol.len(), 1525);
        let start = 1511;
        let pos = sol[..start].iter().fold(root, |p, &m| p.play(m));
        let published = sol[start..].to_vec();
        let mut spare_end = published[..published.len() - 2].to_vec();
        let before = spare_end.iter().fold(pos.clone(), |p, &m| p.play(m));
        let king = before.parse_usi_move("1h1g").unwrap();
        let mate = before.play(king).parse_usi_move("3i2h").unwrap();
        spare_end.extend([king, mate]);

        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 64 << 20);
        b.set_limits(None, Some(1_000_000));
        assert!(
            verify::verify(&mut b, &pos, &spare_end),
            "the spare end is mate"
        );
        assert!(!spare_end
            .iter()
            .fold(pos.clone(), |p, &m| p.play(m))
            .hand(Color::Black)
            .is_empty());
        let deadline = Some(Instant::now() + Duration::from_secs(60));
        let line = without_spare_end(&mut b, &pos, spare_end.clone(), 0, deadline);
        assert_ne!(line, spare_end, "the end was walked again");
        assert_eq!(line.len(), published.len());
        assert_eq!(line[..line.len() - 2], published[..published.len() - 2]);
        assert!(verify::verify(&mut b, &pos, &line), "the new end is mate");
        let last = line.iter().fold(pos.clone(), |p, &m| p.play(m));
        assert!(last.hand(Color::Black).is_empty(), "no spare piece");
    }
}
