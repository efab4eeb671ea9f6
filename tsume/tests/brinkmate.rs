//! The brinkmate search on the positions of `shared/problems/hisshi/` (OSL's tests, the
//! shogi proverbs, Suisho's README, gpsshogi's next-move problems), each answer checked
//! against the definitions with the tsume solver's public API, which the brinkmate code
//! does not go through:
//! - a brinkmate: every legal reply to its last move is mated (`Solver::solve`), and the
//!   mate reported for each reply replays, in Kanju's board and in rsshogi's, whose legal
//!   replies must be exactly those answered;
//! - no brinkmate in one: every attacker move has a reply that `Solver::solve` proves
//!   unmated;
//! - a threatmate: after it and a pass, `Solver::solve` proves a mate;
//! - the mate shown after each reply is no longer than brute force's shortest mate over
//!   rsshogi's moves, which counts every interposition.

// The engine's test helpers: rsshogi, an independent board, replays every line too.
#[path = "support/brute.rs"]
mod brute;
#[path = "../../engine/tests/common/mod.rs"]
mod common;
mod support;

use common::rs;
use kanju_engine::{GenMode, Move, MoveList, Position};
use kanju_tsume::{
    BrinkmateLimits, BrinkmateOutcome, BrinkmateSolution, Config, Limits, Outcome, Solver,
};
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use support::jsonl::{self, Problem};

fn solver() -> Solver {
    Solver::new(Config {
        hash_mb: 256,
        progress_interval: Duration::ZERO,
        ..Config::default()
    })
}

/// The tsume solver that checks the answers: a mate or not, no main line.
fn checker() -> Solver {
    Solver::new(Config {
        hash_mb: 64,
        progress_interval: Duration::ZERO,
        main_line: false,
        ..Config::default()
    })
}

fn hisshi_file(name: &str) -> Vec<Problem> {
    jsonl::read(&jsonl::problems_dir().join("hisshi").join(name))
}

fn position(p: &Problem) -> Position {
    Position::from_sfen(&p.sfen).unwrap_or_else(|e| panic!("{}: {e}", p.name))
}

/// A node limit makes the search the same on every machine; the time limit only guards
/// against a runaway.
fn brinkmate(s: &mut Solver, pos: &Position, max_plies: u32) -> BrinkmateSolution {
    s.clear();
    let limits = BrinkmateLimits {
        time: Some(Duration::from_secs(120)),
        nodes: Some(20_000_000),
        max_plies,
    };
    s.brinkmate(pos, &limits, &AtomicBool::new(false))
}

/// Whether the side to move mates by checks, by the tsume solver: `None` if undecided.
fn mates(s: &mut Solver, pos: &Position) -> Option<bool> {
    let limits = Limits {
        nodes: Some(2_000_000),
        ..Limits::default()
    };
    match s
        .solve(pos, &limits, &AtomicBool::new(false), &mut |_| {})
        .outcome
    {
        Outcome::Mate(_) => Some(true),
        Outcome::NoMate => Some(false),
        Outcome::Unknown(_) => None,
    }
}

fn legal_moves(pos: &Position) -> Vec<Move> {
    let mut l = MoveList::new();
    pos.legal_moves_with(GenMode::All, &mut l);
    l.as_slice().to_vec()
}

fn usi(line: &[Move]) -> Vec<String> {
    line.iter().map(|m| m.to_usi()).collect()
}

/// Whether `line` is a mate from `pos`: the side to move checks with every move, the
/// other side's moves are legal, and the end is mate.
fn replays_as_mate(pos: &Position, line: &[Move]) -> bool {
    let attacker = pos.side_to_move();
    let mut p = pos.clone();
    for &m in line {
        if !p.is_legal(m) || (p.side_to_move() == attacker && !p.gives_check(m)) {
            return false;
        }
        p.do_move(m);
    }
    p.side_to_move() != attacker && p.in_check() && !p.has_legal_move()
}

/// The position after `line`.
fn after(pos: &Position, line: &[Move]) -> Position {
    line.iter().fold(pos.clone(), |p, &m| p.play(m))
}

fn moves_of(pos: &Position, usi: &[String]) -> Vec<Move> {
    let mut p = pos.clone();
    usi.iter()
        .map(|u| {
            let m = p.parse_usi_move(u).unwrap_or_else(|e| panic!("{u}: {e:?}"));
            p = p.play(m);
            m
        })
        .collect()
}

/// Checks a reported brinkmate against the definition: the replies listed are exactly
/// the legal ones, each listed mate replays, and the tsume solver agrees that each reply
/// is mated.
fn assert_brinkmate(c: &mut Solver, name: &str, pos: &Position, found: &BrinkmateSolution) {
    let BrinkmateOutcome::Brinkmate(line) = &found.outcome else {
        panic!("{name}: expected a brinkmate, got {:?}", found.outcome);
    };
    assert_eq!(
        line.len() % 2,
        1,
        "{name}: the line ends with the attacker's move"
    );
    let end = after(pos, line);
    let mut listed: Vec<Move> = found.replies.iter().map(|r| r.reply).collect();
    let mut legal = legal_moves(&end);
    listed.sort_by_key(|m| m.bits());
    legal.sort_by_key(|m| m.bits());
    assert_eq!(listed, legal, "{name}: every legal reply is answered");
    for r in &found.replies {
        let p = end.play(r.reply);
        assert!(
            replays_as_mate(&p, &r.mate),
            "{name}: the mate after {} does not replay",
            r.reply.to_usi()
        );
        assert_eq!(mates(c, &p), Some(true), "{name}: {}", r.reply.to_usi());
        if let Some(shortest) = brute::brute_force(&p.to_sfen(), false).mate {
            assert!(
                r.mate.len() as u32 <= shortest,
                "{name}: after {} the mate shown, {:?}, is longer than one in {shortest}",
                r.reply.to_usi(),
                usi(&r.mate)
            );
        }
    }
    rsshogi_agrees(name, pos, line, found);
}

/// The same brinkmate replayed in rsshogi: the line is legal, the replies answered are
/// rsshogi's legal moves at its end, and each reply's mate is legal, checks on every
/// attacker move, and ends with no legal move.
fn rsshogi_agrees(name: &str, pos: &Position, line: &[Move], found: &BrinkmateSolution) {
    rs::init();
    let mut end = rs::parse(&pos.to_sfen()).expect("rsshogi parses the position");
    for m in usi(line) {
        assert!(
            legal_in_rsshogi(&end, &m),
            "{name}: {m} is illegal in rsshogi"
        );
        rs::play_usi(&mut end, &m);
    }
    let mut answered: Vec<String> = found.replies.iter().map(|r| r.reply.to_usi()).collect();
    answered.sort();
    assert_eq!(answered, rs::usi(&rs::legal(&end, true)), "{name}: replies");
    for r in &found.replies {
        let mut p = end.clone();
        rs::play_usi(&mut p, &r.reply.to_usi());
        for (i, m) in usi(&r.mate).iter().enumerate() {
            assert!(legal_in_rsshogi(&p, m), "{name}: {m} is illegal in rsshogi");
            let legal = rs::legal(&p, true);
            let mv = legal.iter().find(|x| x.to_usi() == *m).expect("legal");
            assert!(
                i % 2 == 1 || rs::gives_check(&p, *mv),
                "{name}: {m} does not check"
            );
            rs::play_usi(&mut p, m);
        }
        assert!(
            rs::in_check(&p) && rs::legal(&p, true).is_empty(),
            "{name}: after {} the mate does not end in mate in rsshogi",
            r.reply.to_usi()
        );
    }
}

fn legal_in_rsshogi(p: &rs::RPos, usi: &str) -> bool {
    rs::legal(p, true).iter().any(|m| m.to_usi() == usi)
}

/// The brinkmates of the file: each found within its book line's length, checked against
/// the definition, and the book's own answer checked the same way.
#[test]
fn brinkmates_are_found_and_every_reply_is_mated() {
    let mut s = solver();
    let mut c = checker();
    let mut found = 0;
    for p in hisshi_file("hisshi.jsonl") {
        let Some(book) = p.strings("line") else {
            continue;
        };
        let pos = position(&p);
        let plies = book.len() as u32;
        let result = brinkmate(&mut s, &pos, plies);
        assert_brinkmate(&mut c, &p.name, &pos, &result);
        let BrinkmateOutcome::Brinkmate(line) = &result.outcome else {
            unreachable!()
        };
        assert!(line.len() as u32 <= plies, "{}: {:?}", p.name, usi(line));
        // The book's line ends in a brinkmate too: every reply mated.
        let end = after(&pos, &moves_of(&pos, &book));
        for r in legal_moves(&end) {
            assert_eq!(
                mates(&mut c, &end.play(r)),
                Some(true),
                "{}: the book's reply {}",
                p.name,
                r.to_usi()
            );
        }
        found += 1;
    }
    assert_eq!(found, 12);
}

/// OSL's negative cases: no brinkmate in one. `testRecognizeAttackBack0` is dual-λ's own
/// case: the defender's counter-mate refutes every quiet attack. The search's answer is
/// checked by brute force: for every legal attacker move, quiet or not, the tsume solver
/// proves some reply unmated.
#[test]
fn positions_without_a_brinkmate_are_disproven() {
    let mut s = solver();
    let mut c = checker();
    let mut disproven = 0;
    for p in hisshi_file("hisshi.jsonl") {
        if p.raw("answer_usi") != Some("null") {
            continue;
        }
        let pos = position(&p);
        let result = brinkmate(&mut s, &pos, 1);
        assert_eq!(result.outcome, BrinkmateOutcome::NoBrinkmate, "{}", p.name);
        for m in legal_moves(&pos) {
            let child = pos.play(m);
            let escape = legal_moves(&child)
                .into_iter()
                .find(|&r| mates(&mut c, &child.play(r)) == Some(false));
            assert!(
                escape.is_some(),
                "{}: {} may be a brinkmate",
                p.name,
                m.to_usi()
            );
        }
        disproven += 1;
    }
    assert_eq!(disproven, 3);
}

/// OSL's threatmate cases: the author's threatmate is among the root's, and every
/// threatmate reported is one by the tsume solver.
#[test]
fn threatmates_are_reported() {
    let mut s = solver();
    let mut c = checker();
    for p in hisshi_file("tsumero.jsonl") {
        let pos = position(&p);
        let answer = p.string("answer_usi").expect("an answer");
        let result = brinkmate(&mut s, &pos, 1);
        if let BrinkmateOutcome::Mate(line) = &result.outcome {
            // The side to move mates outright; a threat is beside the point.
            assert!(replays_as_mate(&pos, line), "{}", p.name);
            continue;
        }
        let threats = usi(&result.threatmates);
        assert!(
            threats.contains(&answer),
            "{}: {answer} not in {threats:?}",
            p.name
        );
        for &m in &result.threatmates {
            let passed = pos.play(m).pass().expect("a threatmate does not check");
            assert_eq!(
                mates(&mut c, &passed),
                Some(true),
                "{}: {}",
                p.name,
                m.to_usi()
            );
        }
    }
}

/// The endgame file: forced mates come back as the tsume solver's line (the answer's
/// length or shorter), and gpsshogi's `yose` as a brinkmate with one of its answers.
#[test]
fn endgame_positions() {
    let mut s = solver();
    let mut c = checker();
    for p in hisshi_file("endgame.jsonl") {
        let pos = position(&p);
        match p.raw("level") {
            Some("0") => {
                let book = p.strings("line").expect("a mate line");
                let result = brinkmate(&mut s, &pos, 1);
                let BrinkmateOutcome::Mate(line) = &result.outcome else {
                    panic!("{}: {:?}", p.name, result.outcome);
                };
                assert!(replays_as_mate(&pos, line), "{}", p.name);
                assert!(line.len() <= book.len(), "{}: {:?}", p.name, usi(line));
            }
            _ if p.name.ends_with("-yose") => {
                let result = brinkmate(&mut s, &pos, 1);
                assert_brinkmate(&mut c, &p.name, &pos, &result);
                let mut answers = p.strings("alt_usi").unwrap_or_default();
                answers.push(p.string("answer_usi").expect("an answer"));
                let BrinkmateOutcome::Brinkmate(line) = &result.outcome else {
                    unreachable!()
                };
                assert!(answers.contains(&line[0].to_usi()), "{}", p.name);
            }
            _ => {}
        }
    }
}

/// The fewest attacker moves come first: asked for up to 5 plies, a position with a
/// one-move brinkmate gets that one, not a longer line df-pn met first.
#[test]
fn the_shortest_brinkmate_is_reported() {
    let mut s = solver();
    let p = hisshi_file("hisshi.jsonl")
        .into_iter()
        .find(|p| p.name.contains("test_proof1tesuki2"))
        .expect("the OSL position");
    let pos = position(&p);
    let result = brinkmate(&mut s, &pos, 5);
    let BrinkmateOutcome::Brinkmate(line) = &result.outcome else {
        panic!("{:?}", result.outcome);
    };
    assert_eq!(usi(line), ["2d2c+"]);
}

/// A limit ends the search as unknown, never as "no brinkmate": here a full-board
/// position that three plies do not settle, cut by nodes and by the stop flag.
#[test]
fn limits_end_in_unknown() {
    use kanju_tsume::UnknownReason;
    let mut s = solver();
    let p = hisshi_file("tsumero.jsonl")
        .into_iter()
        .find(|p| p.name.ends_with("88um"))
        .expect("OSL's 88um");
    let pos = position(&p);
    let limits = BrinkmateLimits {
        time: None,
        nodes: Some(20_000),
        max_plies: 3,
    };
    let found = s.brinkmate(&pos, &limits, &AtomicBool::new(false));
    assert_eq!(
        found.outcome,
        BrinkmateOutcome::Unknown(UnknownReason::Nodes)
    );
    let stopped = s.brinkmate(&pos, &limits, &AtomicBool::new(true));
    assert_eq!(
        stopped.outcome,
        BrinkmateOutcome::Unknown(UnknownReason::Stopped)
    );
}

/// The other first moves (別解) reported are brinkmates too, by the definition: OSL's
/// proof1tesuki3 has two (the silver or the king takes on 5i; the book gives the king),
/// and gpsshogi's yose has its answer's twin unpromoted and the quiet knight drops.
#[test]
fn alternatives_are_brinkmates_too() {
    let mut s = solver();
    let mut c = checker();
    let wanted = [
        ("hisshi.jsonl", "test_proof1tesuki3", "6i5i"),
        ("endgame.jsonl", "-yose", "N*7e"),
    ];
    for (file, name, alternative) in wanted {
        let p = hisshi_file(file)
            .into_iter()
            .find(|p| p.name.contains(name))
            .expect("the position");
        let pos = position(&p);
        let found = brinkmate(&mut s, &pos, 1);
        let alternatives = usi(&found.alternatives);
        assert!(
            alternatives.contains(&alternative.to_string()),
            "{name}: {alternatives:?}"
        );
        for &m in &found.alternatives {
            let after = pos.play(m);
            for r in legal_moves(&after) {
                assert_eq!(
                    mates(&mut c, &after.play(r)),
                    Some(true),
                    "{name}: {} {}",
                    m.to_usi(),
                    r.to_usi()
                );
            }
        }
    }
}
