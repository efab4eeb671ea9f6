//! Random positions for the solver's tests, shared by the test binaries that declare
//! the engine's `common` helpers at their root.

use crate::common::{Rng, Sketch};

/// A few pieces round a king near the corner: two or three attackers, mostly long-range
/// or promoted, up to two defenders, and a piece or two in hand. With so little on the
/// board the king runs and the attacker chases it round and round, so these positions
/// are full of cycles under check: where repetition is handled wrong (a verdict that
/// holds on one path kept for all), answers go wrong here first. Random positions of this
/// shape are how the main line's test of a disproof over a return found its position.
pub fn sparse_chase(rng: &mut Rng) -> String {
    let mut sk = Sketch::empty();
    sk.set(1 + rng.below(4), 1 + rng.below(4), "k");
    let place = |sk: &mut Sketch, rng: &mut Rng, token: &str, reach: usize| loop {
        let (file, rank) = (1 + rng.below(reach), 1 + rng.below(reach));
        if sk.is_empty_at(file, rank) {
            sk.set(file, rank, token);
            return;
        }
    };
    let attackers = ["+R", "+R", "+B", "R", "B", "G", "S", "L", "N", "+P"];
    for _ in 0..2 + rng.below(2) {
        let token = *rng.pick(&attackers);
        place(&mut sk, rng, token, 6);
    }
    let defenders = ["p", "g", "s", "l", "+r"];
    for _ in 0..rng.below(3) {
        let token = *rng.pick(&defenders);
        place(&mut sk, rng, token, 5);
    }
    // Hands in `common::SUPPLY` order: P L N S G B R.
    for _ in 0..rng.below(3) {
        sk.hands[0][rng.below(7)] += 1;
    }
    if rng.chance(40) {
        sk.hands[1][rng.below(7)] += 1;
    }
    sk.black_to_move = true;
    sk.to_sfen()
}
