//! One test per tsume rule of the main line (docs/rules.md): a futile drop, an effective
//! interposition, spare pieces, a cook, and exact lengths on short problems with
//! tsume-convention lengths.

use kanju_engine::{Move, PieceKind, Position};
use kanju_tsume::{Config, FutileRule, Limits, Outcome, RootMode, Solution, Solver, SpareRule};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

fn solve(sfen: &str) -> (Vec<Move>, Solution) {
    solve_with(sfen, SpareRule::Strict, 16)
}

fn solve_with(sfen: &str, spare_rule: SpareRule, hash_mb: usize) -> (Vec<Move>, Solution) {
    let futile_rule = match spare_rule {
        SpareRule::Classical => FutileRule::AnyLength,
        _ => FutileRule::SameLength,
    };
    solve_at(sfen, spare_rule, futile_rule, hash_mb, RootMode::Attacker)
}

fn solve_at(
    sfen: &str,
    spare_rule: SpareRule,
    futile_rule: FutileRule,
    hash_mb: usize,
    root: RootMode,
) -> (Vec<Move>, Solution) {
    solve_on(1, sfen, spare_rule, futile_rule, hash_mb, root)
}

/// The defender to move at `sfen`, under the classical collections' rules.
fn defend_classically(sfen: &str) -> (Vec<Move>, Solution) {
    solve_at(
        sfen,
        SpareRule::Classical,
        FutileRule::AnyLength,
        16,
        RootMode::Defender,
    )
}

fn solve_on(
    threads: usize,
    sfen: &str,
    spare_rule: SpareRule,
    futile_rule: FutileRule,
    hash_mb: usize,
    root: RootMode,
) -> (Vec<Move>, Solution) {
    let mut solver = Solver::new(Config {
        threads,
        hash_mb,
        progress_interval: Duration::ZERO,
        spare_rule,
        futile_rule,
        ..Config::default()
    });
    let pos = Position::from_sfen(sfen).unwrap();
    // The main line shares its time out between its steps, so a tight limit makes what
    // these tests assert depend on the machine's speed. A generous one costs nothing
    // where the line is quick: the search ends when it has the line, and the cooks get
    // no more time than the line took.
    let limits = Limits {
        time: Some(Duration::from_secs(300)),
        root,
        ..Limits::default()
    };
    let s = solver.solve(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
    match &s.outcome {
        Outcome::Mate(line) => (line.clone(), s),
        other => panic!("{sfen}: expected a mate, got {other:?}"),
    }
}

fn usi(line: &[Move]) -> Vec<String> {
    line.iter().map(|m| m.to_usi()).collect()
}

/// Diagram 1 of the Grimbergen survey, reduced: the rook checks from 9a, the king on 1a
/// has no flight (the gold on 1c holds 1b and 2b, the knight on 3c holds 2a), and the
/// defender holds every other piece. Each drop on 8a..2a is taken by the rook with the
/// piece given back and the same mate follows, so every drop is futile: mate in 1.
/// Counting the drops, the strict shortest mate would be 15 plies.
#[test]
fn futile_drops_are_not_played_or_counted() {
    let (line, s) = solve("8k/9/6N1G/9/9/9/9/9/R8 b r2b3g4s3n4l18p 1");
    // The rook may promote or not: both mate, and the other one is reported as a cook.
    assert_eq!(line.len(), 1);
    assert!(["9i9a", "9i9a+"].contains(&line[0].to_usi().as_str()));
    assert!(s.length_exact);
    assert_eq!(s.cooks.len(), 1);
}

/// antma's tsume3-19: strict shortest mate 5 (brute force, drops counted), tsume length 3:
/// the drop the defender can make at the end is futile.
#[test]
fn futile_drop_at_the_end_of_a_longer_line() {
    let (line, s) =
        solve("4+R4/l1+P2pG2/5k1p1/p2p1lp2/1ps2P1P1/PP1PP1P2/2pGBSN2/1s1G1K2s/L6R1 b 2NL3Pbgn 3");
    assert_eq!(line.len(), 3);
    assert!(s.length_exact);
}

/// antma's tsume5-3: tsume length 5 (strict 7). After 4i4b+ the dragon checks along the
/// second rank and a drop on 3b is effective (有効合): after the dragon takes it, with the
/// piece given back, the king is not mated at all, so under either 無駄合 rule it is played
/// and counted. Lance and silver drops there last equally long and both leave the captured
/// piece over at the end, so neither is preferred; whichever is played is the spare piece.
#[test]
fn effective_interposition_is_played_and_counted() {
    let (line, s) = solve("7nl/7k1/6ppp/9/9/9/9/9/5R3 b Sr2b4g3s3n3l15p 1");
    assert_eq!(line.len(), 5);
    assert!(s.length_exact);
    let interposed = line[1]
        .drop_kind()
        .expect("the defender's reply is an interposing drop");
    assert_eq!(
        line[1].to().to_string(),
        "3b",
        "the interposition is in the line"
    );
    assert_eq!(
        s.spare_pieces.count(interposed),
        1,
        "{}",
        usi(&line).join(" ")
    );
    assert_eq!(s.spare_pieces.total(), 1);
}

/// Under the same-length rule a drop is futile against the true length of the mate
/// against the other replies, not against a proof of it that is longer. The bishop takes
/// the dragon on 5e and checks the king on 1a across 4d, 3c and 2b. The king's move 1a1b
/// is mated in 5 more (R*1a 1b2c L*2e 2c3b B*1d), so the futility bound is 6. A knight
/// dropped on 4d, taken by the bishop and given back, is mated only in 8: effective, and
/// the longest defence (R*1c 1a2a 1c2c+ 3a2b B*4c 2a1a L*1b), 9 plies in all. Against a
/// 7-ply proof of 1a1b the knight looks futile, and the walk once printed 1a1b followed
/// by a 7-ply detour. Found by random sparse positions against brute force
/// (`tests/differential.rs`). Under the classical rule the knight is futile at any
/// length, and the line is 1a1b's, 7 plies.
#[test]
fn a_drop_is_futile_only_against_the_true_length_of_the_other_replies() {
    let sfen = "6s1k/9/9/3N5/4+r4/3B1+R3/9/9/9 b BLn 1";
    let (line, s) = solve(sfen);
    assert_eq!(
        usi(&line)[..2],
        ["6f5e", "N*4d"],
        "{}",
        usi(&line).join(" ")
    );
    assert_eq!(line.len(), 9);
    assert!(s.length_exact);
    let (line, s) = solve_with(sfen, SpareRule::Classical, 16);
    assert_eq!(usi(&line)[..2], ["6f5e", "1a1b"]);
    assert_eq!(line.len(), 7);
    assert!(s.length_exact);
}

/// Under the classical rule ([`FutileRule::AnyLength`]) a drop is futile when the
/// give-back position is mated at all, however long the mate then takes. Shogi Zuko 69 (published 13
/// plies), in the variation G*7h 8i7h 7g7h 5f7h+ … S*3i B*2g: the bishop on 2g checks the
/// king on 4i across 3h. The king's moves to 4h and 5i are mated in 2 (G*4i). Drops on 3h
/// are taken by 2g3h; with a gold, for one, given back the king is mated in 10 more plies
/// (4i3h 6g2g …). A test that asks for a mate in the other replies' length calls such
/// drops effective, and the position mated in 6 (S*3h S*5h …), as the default
/// [`FutileRule::SameLength`] does; the classical rule calls them futile, and it is mated
/// in 2. Across the whole problem the same-length rule gives 19 plies, the classical one
/// the published 13. (antma's tsume5-6, among the short tests, is the reverse: its stated
/// length, 5, counts a drop against B*5d that the classical rule lets go, for 3.)
#[test]
fn a_drop_is_futile_when_the_give_back_position_is_mated_at_any_length() {
    let defender = |rule| {
        solve_at(
            ZUKO_69_VARIATION,
            SpareRule::Strict,
            rule,
            16,
            RootMode::Defender,
        )
    };
    let (line, s) = defender(FutileRule::AnyLength);
    assert_eq!(line.len(), 2, "{:?}", usi(&line));
    assert!(s.length_exact);
    let (line, s) = defender(FutileRule::SameLength);
    assert_eq!(line.len(), 6, "{:?}", usi(&line));
    assert!(s.length_exact);
    const TSUME5_6: &str =
        "l6nl/3+R1pk2/3p3gp/p1p3p2/1p1nsN3/2P3P1P/PP1P1S3/1SG2GK2/LN6L b BGPrbs4p 1";
    let (line, s) = solve_at(
        TSUME5_6,
        SpareRule::Strict,
        FutileRule::AnyLength,
        16,
        RootMode::Attacker,
    );
    assert_eq!(line.len(), 3, "{:?}", usi(&line));
    assert!(s.length_exact);
    let (line, s) = solve_with(ZUKO_69, SpareRule::Classical, 64);
    assert_eq!(line.len(), 13, "{:?}", usi(&line));
    assert!(s.length_exact);
}

/// Shogi Zuko 69 and its variation (see the test above).
const ZUKO_69: &str = "9/9/9/9/5l3/p2+rb4/1pG3+R2/S3S4/1+bk6 b 3GSs4n3l16p 1";
const ZUKO_69_VARIATION: &str = "9/9/9/9/5l3/p8/1p1+R3B1/S1G6/5ksR1 w GSb2gs4n3l16p 16";

/// With two threads a helper runs the futility tests' give-back searches ahead of the main
/// line (`mainline/give_back_ahead.rs`). A verdict is the same whichever thread reaches
/// it, so the lines are too: the classical rule's 2 and 13 plies of the test above, and
/// the same-length rule's 6.
#[test]
fn give_back_searches_run_ahead_on_two_threads_to_the_same_verdicts() {
    let on_two = |sfen, root| {
        solve_on(
            2,
            sfen,
            SpareRule::Classical,
            FutileRule::AnyLength,
            64,
            root,
        )
    };
    let (line, s) = on_two(ZUKO_69_VARIATION, RootMode::Defender);
    assert_eq!(line.len(), 2, "{:?}", usi(&line));
    assert!(s.length_exact);
    let (line, s) = on_two(ZUKO_69, RootMode::Attacker);
    assert_eq!(line.len(), 13, "{:?}", usi(&line));
    assert!(s.length_exact);
    // The helper runs under the same-length rule too, and changes nothing there either.
    let (line, s) = solve_on(
        2,
        ZUKO_69_VARIATION,
        SpareRule::Strict,
        FutileRule::SameLength,
        16,
        RootMode::Defender,
    );
    assert_eq!(line.len(), 6, "{:?}", usi(&line));
    assert!(s.length_exact);
}

/// The drop may be taken by another piece than the checker, as long as the taker then
/// gives check alone. Shogi Zuko 73 (published 35), after ply 25 (6g8g): the dragon on 8g
/// checks the king on 8e across 8f. A knight dropped on 8f is taken by the horse, 6h8f,
/// which checks from 8f; with the knight given back the king is mated as before (8e9d
/// 8f9e …), so the drop is futile and the variation is 10 plies, as published. Taken by
/// the dragon instead, the king escapes: a test that only lets the checker capture called
/// the drop effective and counted 12, and the whole problem 37.
#[test]
fn a_drop_taken_by_another_piece_than_the_checker_can_be_futile() {
    const VARIATION: &str = "9/9/2ls5/9/1kp6/l2+P5/1+R4+b1+r/+pp1+B1g+p+p1/9 w S3g2s4n2l12p 26";
    for rule in [FutileRule::SameLength, FutileRule::AnyLength] {
        let (line, s) = solve_at(VARIATION, SpareRule::Strict, rule, 16, RootMode::Defender);
        assert_eq!(line.len(), 10, "{rule:?}: {:?}", usi(&line));
        assert_eq!(line[0].to_usi(), "8e9d", "{rule:?}");
        assert!(s.length_exact, "{rule:?}");
    }
}

/// antma's futile_drops-1: the dragon takes the gold on 3b for mate in 1 (tsume length 1,
/// strict 3); the gold it took stays in the attacker's hand and is reported (駒余り).
#[test]
fn spare_pieces_are_reported() {
    let (line, s) = solve("6Snl/5+Rg1k/6ppp/9/9/9/9/9/9 b r2b3g3s3n3l15p 1");
    assert_eq!(usi(&line), ["4b3b"]);
    assert_eq!(s.spare_pieces.count(PieceKind::Gold), 1);
    assert_eq!(s.spare_pieces.total(), 1);
}

/// Among the attacker's equally short mates, one that ends with nothing spare is taken,
/// under the strict rule too, where the spare pieces decide no length. On a sparse chase
/// (`scripts/line_consistency.py --open --dense --seed 15`), after G*7a 8a7a, 6c6b and
/// 7c6b+ both mate in 11 more: 6c6b ends with two golds, a silver and a pawn to spare,
/// 7c6b+ with nothing. The walk gave 7c6b+ only a reduced test, which ran out, and
/// printed 6c6b's line, where a fresh solve after 8a7a printed 7c6b+'s.
#[test]
fn an_equally_short_mate_without_spare_pieces_is_taken() {
    let (line, s) = solve("1k7/1l1g1+r3/1sBS1N3/6+R2/9/9/9/9/9 b 3GSPl 1");
    assert_eq!(line.len(), 13, "{:?}", usi(&line));
    assert!(s.length_exact);
    assert_eq!(usi(&line)[..3], ["G*7a", "8a7a", "7c6b+"]);
    assert!(s.spare_pieces.is_empty(), "{:?}", usi(&line));
}

/// Two kings face each other on the 9th file with a gold in hand: G*9b and G*8b both mate
/// in 1, so whichever the line plays, the other is a cook (余詰).
#[test]
fn cooks_are_reported() {
    let (line, s) = solve("k8/9/K8/9/9/9/9/9/9 b G2r2b3g4s4n4l18p 1");
    assert_eq!(line.len(), 1);
    let mut both: Vec<String> = s
        .cooks
        .iter()
        .filter(|c| c.ply == 0)
        .map(|c| c.alternative.to_usi())
        .collect();
    both.push(line[0].to_usi());
    both.sort();
    assert_eq!(both, ["G*8b", "G*9b"]);
}

/// antma's tsume9-2 (tsume length 9). At ply 4 the defender may take the gold with the
/// pawn (6a6b): 6c6b+ takes the pawn back and the mate ends at ply 9 with that pawn in
/// the attacker's hand. Running to 8b instead is mated at ply 7 with nothing to spare.
/// Strictly the longer defence is the better one; under 二手変長 a defence that is two
/// plies longer only by leaving a spare piece ranks below the other.
#[test]
fn a_defence_two_plies_longer_with_a_spare_piece_ranks_by_the_convention() {
    const SFEN: &str = "ln1p5/2k1p4/1pgP+P4/p8/1P7/P8/9/9/9 b RG2Sr2b2g2s3n3l10p 1";
    let (strict, s) = solve_with(SFEN, SpareRule::Strict, 16);
    assert_eq!(strict.len(), 9, "{:?}", usi(&strict));
    assert_eq!(usi(&strict)[3], "6a6b");
    assert!(s.spare_pieces.count(PieceKind::Pawn) == 1);
    let (two_ply, s) = solve_with(SFEN, SpareRule::TwoPly, 16);
    assert_eq!(
        usi(&two_ply),
        ["R*9b", "9a9b", "G*6b", "7b8b", "S*7a", "8b9a", "S*8b"]
    );
    assert!(s.spare_pieces.is_empty());
    assert!(s.length_exact);
}

/// Shogi Zuko 19 (published 21 plies). At ply 18 the king can step to 9d instead of
/// taking on 7c: the mate then takes 25 plies and ends with a pawn to spare. The
/// classical collections count such a defence below the 21-ply line without spare
/// pieces, however much longer; strictly it is the longest defence.
#[test]
fn classical_convention_prefers_no_spare_pieces_to_length() {
    const SFEN: &str = "2+b6/P1l+R5/pk7/N1P6/1S7/2p6/1R7/9/9 b 3Pb4g3s3n3l11p 1";
    let (line, s) = solve_with(SFEN, SpareRule::Classical, 512);
    assert_eq!(line.len(), 21, "{:?}", usi(&line));
    assert_eq!(usi(&line)[17], "8d7c");
    assert!(s.spare_pieces.is_empty());
}

/// Shogi Zuko 36 (published 13 plies). At ply 6 both 3f2e and 1d2e hold out 13 plies.
/// After 1d2e the longest defence ends with a gold to spare, and the convention cuts that
/// line to 11 plies; after 3f2e the 13-ply line ends with none. The defender keeps the
/// 13-ply line whichever of the two comes first.
#[test]
fn classical_convention_keeps_a_full_length_line_over_a_shortened_one() {
    const SFEN: &str = "9/6nS1/4s4/4r1P1g/5Sk1B/5+pbR1/4Nsp2/9/4N4 b 3Gn4l15p 1";
    let (line, s) = solve_with(SFEN, SpareRule::Classical, 256);
    assert_eq!(line.len(), 13, "{:?}", usi(&line));
    assert_eq!(usi(&line)[5], "3f2e");
    assert!(s.spare_pieces.is_empty());
}

/// Shogi Zuko 74 (published 29 plies). At ply 8 the defender has three long drops: P*7g
/// (23 plies strictly, two pawns to spare), N*7g (23 strictly with spare pieces too, which
/// the convention cuts to a 15-ply line without) and P*6h (21 plies, none to spare). A
/// defence whose exact length is longest need not keep the longest line once the
/// convention has cut it: P*6h's full 21 plies beat N*7g's 15. P*6h is an effective
/// interposition, shown so: taken, and the pawn given back, the king is not mated, which
/// the line's drop test proves once it may search past the first third of its nodes.
#[test]
fn classical_convention_compares_the_lines_it_shortened() {
    const SFEN: &str = "9/9/7s1/8p/2B+p1+PG1P/4+B2pL/7s1/+p1+r1k1p1G/3N3L1 b RS2gs3n2l11p 1";
    let (line, s) = solve_with(SFEN, SpareRule::Classical, 256);
    assert_eq!(line.len(), 29, "{:?}", usi(&line));
    assert_eq!(usi(&line)[7], "P*6h");
    assert!(s.spare_pieces.is_empty());
    assert!(s.length_exact);
    assert!(s.undecided_drops.is_empty(), "{:?}", s.undecided_drops);
}

/// Under the classical rule a drop is futile if its give-back position is mated at any
/// length, however the futility test's small search went. After L*3h, the gold dropped
/// on 3b is taken by 3h3b+, and with the gold given back the king is mated in 32 plies,
/// which an empty table proves in about 24 000 nodes. The search of that position ended
/// near a mate, was searched again with as many nodes as that, and stayed undecided: the
/// gold counted as effective and the line was 6 plies (G*3b 3h3b+ 3a3b G*2b 3b3c 2b2c),
/// marked exact. The gold is futile, and the king's escape 3a2a is mated at once.
#[test]
fn a_give_back_search_that_ends_near_a_mate_is_searched_further() {
    let (line, s) = defend_classically("6k1B/9/9/9/9/4+B+R3/9/6L2/9 w g 2");
    assert_eq!(usi(&line), ["3a2a", "4f4a"]);
    assert!(s.length_exact);
}

/// A drop the main line counts as effective only because its give-back search ran out
/// of nodes far from a mate is searched again before the length is called exact. Here
/// G*4d at ply 6 was such a drop: its give-back position after 5e4d is mated in 32
/// plies, which takes about 96 000 nodes against the test's 3 000, so the disproof of a
/// mate in 11 stood on it and 13 plies were printed, marked exact. Solved from three
/// plies in, the same position came out 8, exact, with the drop found futile. Searched
/// again, the drop is futile and the problem is 11 plies: 3c2c after 6f5e. (With a 16 MiB
/// table the df-pn happens to leave that give-back position proven, and the old code
/// passed; at 32 MiB and up it did not.)
#[test]
fn a_drop_counted_effective_on_an_undecided_test_is_searched_again() {
    let (line, s) = solve_with(
        "5k3/9/5B3/3+R5/4g+r3/3+B5/9/9/9 b g 1",
        SpareRule::Classical,
        32,
    );
    assert_eq!(line.len(), 11, "{:?}", usi(&line));
    assert_eq!(
        usi(&line)[..6],
        ["6d6a", "4a4b", "6a5b", "4b3c", "6f5e", "3c2c"]
    );
    assert!(s.length_exact);
}

/// A defence on the line is longest because it is shown not mated sooner, and that
/// disproof can outlive what it stood on. Here, after 2e4e 4a5a 4e5d, the walk took 5a6a
/// as lasting 7 more plies, on a disproof of a mate within 5 built while P*4a (after
/// 5d6c 6a5a 1d1a) counted as effective, its give-back search out of nodes far from a
/// mate. That give-back position is mated in 20, so the drop is futile, 6a5a and 6a7a
/// are each mated in 3 (1d1a, with a lance to spare), and 5a6a lasts 5. Solved from
/// four plies in, the position came out 5, exact, where the line said 7. The disproof's
/// tree is now walked again, its undecided tests and the nodes no reply is shown to
/// refute searched again, and the stale disproof voided: the longest defence is P*5b,
/// mated in 7 more, and the problem stays 11 plies.
#[test]
fn a_defence_shown_longest_on_a_stale_disproof_is_shown_again() {
    let (line, s) = solve_with(
        "5k3/9/9/7p+R/7+RG/9/9/9/9 b SLp 1",
        SpareRule::Classical,
        32,
    );
    assert_eq!(line.len(), 11, "{:?}", usi(&line));
    assert_eq!(usi(&line)[..4], ["2e4e", "4a5a", "4e5d", "P*5b"]);
    assert!(s.length_exact);
    assert!(s.spare_pieces.is_empty());
    // P*5b is a defence because its futility test is undecided, and the answer says so.
    assert_eq!(s.undecided_drops, [3]);
}

/// A drop the line plays as a defence only because its futility test is undecided is
/// reported, since the length rests on it. A dense open chase of
/// `scripts/line_consistency.py`, the defender to move: under a 300 000-node limit the
/// interposition N*3b's test stops undecided, and the line is 8 plies (N*3b G*5a 4a3a
/// S*2b 3a2b S*3c 2b1a G*1b) with nothing to spare, which under the classical convention
/// outranks the 6-ply line with pieces to spare. Given the nodes, the test finds N*3b
/// futile (its give-back position is mated), and the line is 6 plies with no such drop.
#[test]
fn a_drop_counted_on_an_undecided_test_is_reported() {
    let before = Position::from_sfen("1+RBl1k3/1s+r6/2sN1p3/6+P2/9/9/9/9/9 b B2G2S2np 1").unwrap();
    let pos = before.play(before.parse_usi_move("B*2c").unwrap());
    let solve = |nodes| {
        let mut solver = Solver::new(Config {
            threads: 1,
            hash_mb: 64,
            progress_interval: Duration::ZERO,
            spare_rule: SpareRule::Classical,
            futile_rule: FutileRule::AnyLength,
            ..Config::default()
        });
        let limits = Limits {
            time: Some(Duration::from_secs(300)),
            nodes,
            root: RootMode::Defender,
            ..Limits::default()
        };
        let s = solver.solve(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
        let Outcome::Mate(line) = &s.outcome else {
            panic!("expected a mate, got {:?}", s.outcome);
        };
        (usi(line), s)
    };
    let (line, s) = solve(Some(300_000));
    assert_eq!(line.len(), 8, "{line:?}");
    assert_eq!(line[0], "N*3b");
    assert_eq!(s.undecided_drops, [0]);
    let (line, s) = solve(None);
    assert_eq!(line, ["4a3a", "7a5c", "3a2a", "8a6a", "2a2b", "G*1b"]);
    assert!(s.length_exact);
    assert!(s.undecided_drops.is_empty());
}

/// The root's length is exact because a mate two plies shorter is disproven, and that
/// disproof can rest on a futility test left undecided far from a mate. Here (a dense
/// open chase from `scripts/line_consistency.py`) 5a6b has the one reply 6c5d, and then
/// 7a7d mates in 5: the interposition S*6d, taken by the other dragon (6b6d) and given
/// back, is mated in 32, so the drop is futile, and 5c6d 7d6d 5d4c S*3d follows, with
/// two golds and a knight to spare. Its test stopped undecided, S*6d counted as a
/// defence, and the line was 9 plies (N*6f instead of 7a7d), marked exact, where a solve
/// from two plies in said 5, exact. The root's disproof is now walked for such tests too,
/// as the line's defences' are.
#[test]
fn the_roots_disproof_is_checked_for_undecided_tests() {
    let (line, s) = solve_with(
        "2+R1+Rlg2/9/3kg1N1+B/9/9/9/9/9/9 b GSNs 1",
        SpareRule::Classical,
        32,
    );
    assert_eq!(line.len(), 7, "{:?}", usi(&line));
    assert_eq!(usi(&line)[..3], ["5a6b", "6c5d", "7a7d"]);
    assert!(s.length_exact);
}

/// Under the classical convention a defence ranks by whether its line ends with spare
/// pieces, so every check as short as the attacker's first mate must be weighed for them,
/// or the defence is misranked and the length is wrong. A sparse chase, after 6b6c: 2c3d
/// is mated in 11 more, by R*5d with a pawn to spare or by 6c6d+ with nothing; 2c2b is
/// mated in 5 (R*2c 2b1b P*1c 1b1a 6c6a). With 6c6d+ left unweighed, its small test out
/// of nodes, 2c3d ranked below 2c2b and the walk printed 6 plies, marked exact. Found by
/// solving each position of the sparse chase's own 13-ply main line again.
#[test]
fn classical_convention_weighs_every_check_as_short_for_spare_pieces() {
    let (line, s) = defend_classically("9/5L2L/3R3k1/9/9/9/9/9/9 w RP 2");
    assert_eq!(line.len(), 12, "{:?}", usi(&line));
    assert!(s.length_exact);
    assert!(s.spare_pieces.is_empty());
}

/// The attacker may not exploit the classical convention: a check counts as long as its
/// longest defence, not as the shorter line the convention leaves the defender. Here
/// (a sparse chase after 4a4d+ 2d2c) 4e2e and 4e3d both mate in 10 more. After 4e2e the
/// longest defence ends with a piece to spare and the convention leaves the defender an
/// 8-ply line; after 4e3d the longest ends with nothing. So 4e3d is the mate, 11 plies;
/// taking 4e2e for the shorter gave 9, which a solve from two plies earlier, walking
/// 4e3d first, contradicted.
#[test]
fn classical_convention_does_not_shorten_the_attackers_mate() {
    let (line, s) = solve_with(
        "4s3s/9/7k1/5+R3/5+R3/9/9/9/9 b s 3",
        SpareRule::Classical,
        16,
    );
    assert_eq!(line.len(), 11, "{:?}", usi(&line));
    assert!(s.length_exact);
}

/// Where a published solution is not the attacker's shortest mate, Kanju prints the
/// shorter one: the rule is "the attacker mates shortest", whoever composed the line. Both
/// positions below were checked with an independent solver (cshogi's `mate_move`, which
/// counts every interposition): it finds no mate in fewer plies than Kanju's and a mate
/// in Kanju's length, with the same first move.
#[test]
fn a_shorter_mate_than_the_published_line_is_the_main_line() {
    // Shogi Zuko 45 after 32 plies of the published line (45 plies in all): the
    // published 6d7b+ needs 13 more plies, 7i7b+ mates in 11. The problem is 43 plies.
    let (line, s) = solve("1k7/9/9/1G1N5/9/p+l1g5/9/P8/2L6 b B2rb2g4s3n2l16p 33");
    assert_eq!(line.len(), 11, "{:?}", usi(&line));
    assert_eq!(usi(&line)[0], "7i7b+");
    assert!(s.length_exact);
    // Shogi Muso 92 after the interposition L*3d at ply 36: the published line takes 15
    // more plies with 4d3d at ply 39, 3e3d mates in 13. B*3d lasts as long, so the
    // problem is 49 plies, not 51.
    let (line, s) = solve("5pg2/7P+L/9/5+Rlk1/4l2p1/2p1pPp2/6GN1/1+l7/5+ps2 b Sr2b2g2s3n10p 37");
    assert_eq!(line.len(), 13, "{:?}", usi(&line));
    assert_eq!(usi(&line)[2], "3e3d");
    assert!(s.length_exact);
}

/// Shogi Muso 89, 69 plies under the classical rules. At ply 34 the walk meets a pawn
/// dropped on 7c that its budgeted tests settle neither way: not shown futile, not shown
/// mated within the node's bound. The bound's proof already counted every effective drop,
/// so the walk goes on without it. Giving up the walk there instead left the line read off
/// the tables: 19 plies, with five pawns to spare.
#[test]
fn a_drop_the_walk_cannot_settle_does_not_end_it() {
    const MUSO_89: &str =
        "3S1+N3/p5pll/4p3n/4s4/+pS5n1/2+bp2P1N/+R1S3B2/R1+p1P2p1/2k2P2P b 3P4g2l4p 1";
    let (line, s) = solve_with(MUSO_89, SpareRule::Classical, 64);
    assert_eq!(line.len(), 69, "{:?}", usi(&line));
    assert!(s.spare_pieces.is_empty());
}

/// A small table loses proofs that the walk then has to rebuild, and a test that runs
/// out of its nodes at a node the walk must pass used to end the whole walk: Shogi Muso
/// 89 (69 plies) at 16 MiB printed a 19-ply line from the tables, not exact, after 5 s
/// of a 20 s limit, every root check's test having run out. Such tests are now searched
/// again without a node limit, within the walk's time, and the main line is found.
#[test]
fn the_walk_rebuilds_proofs_a_small_table_lost() {
    const MUSO_89: &str =
        "3S1+N3/p5pll/4p3n/4s4/+pS5n1/2+bp2P1N/+R1S3B2/R1+p1P2p1/2k2P2P b 3P4g2l4p 1";
    let (line, s) = solve_with(MUSO_89, SpareRule::Classical, 16);
    assert_eq!(line.len(), 69, "{}", usi(&line).join(" "));
    assert!(s.length_exact);
}
