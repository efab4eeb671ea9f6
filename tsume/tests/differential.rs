//! The solver against brute force over an independent move generator.
//!
//! Kanju's own tests check its answers with its own board. Here every verdict is checked
//! against rsshogi: a plain AND/OR search over rsshogi's legal moves finds the shortest
//! mate (every interposition counted) up to a few plies, and rsshogi replays Kanju's lines.
//! The two share no code, so a bug in Kanju's move generation, its table's dominance
//! lookups, its repetition handling or its futility rule would show as a disagreement.
//!
//! What must hold at every position:
//! * `NoMate` only where brute force finds no mate at any depth it completed;
//! * where brute force finds a mate, Kanju proves one, and an exact length is no longer
//!   than brute force's (futile drops are not counted, so it may be shorter);
//! * with `max_mate_len` at brute force's length a mate comes back within it, and two
//!   plies shorter nothing longer and no `NoMate`;
//! * a `Mate` line is legal move by move in rsshogi, the attacker checks on every move,
//!   and the end is mate, or every reply left is an interposed drop that the attacker can
//!   take with check (a futile drop, not played);
//! * on an exact line, every other check in its last 7 plies that brute force mates as
//!   quickly as the main move is listed as a cook (余詰) or as undecided; under the
//!   default rules no attacker move in its last 9 plies has a mate two plies shorter than
//!   the line spends; and the spare pieces reported (駒余り) are the attacker's hand at
//!   the end.
//!
//! Positions: the tsume seeds of the engine's tests, the short test set, the last plies
//! of the Edo problems' published lines, and variants of each: a few random legal moves
//! played on, or a piece moved from the attacker's hand to the defender's (which turns
//! many mates into near misses). Also the hisshi files' endgames one attacker move on,
//! searched with the defender to move. Default, 二手変長 and classical rules; one thread,
//! whose node limits repeat on any machine, and two. Set `KANJU_DIFF_SCALE=4` (say) for
//! four times as many variants, and `KANJU_DIFF_SEED=1` (say) to draw other ones.

// The engine's test helpers (seeded RNG, rsshogi adapter) are shared, not copied.
#[path = "support/brute.rs"]
mod brute;
#[path = "support/chase.rs"]
mod chase;
#[path = "../../engine/tests/common/mod.rs"]
mod common;
mod support;

use brute::{brute_force, Brute, BRUTE_PLIES};
use chase::sparse_chase;
use common::{rs, Rng};
use kanju_engine::Position;
use kanju_tsume::{
    Config, FutileRule, Limits, Outcome, RootMode, Solver, SpareRule, UnknownReason,
};
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use support::jsonl;

/// Kanju's node limit per position: far more than these short mates need.
const KANJU_NODES: u64 = 100_000;

/// The random stream a test draws from: `base` as CI runs it, or another one per
/// `KANJU_DIFF_SEED`, so that longer hunts need not repeat CI's variants.
fn seeded(base: u64) -> Rng {
    let extra: u64 = std::env::var("KANJU_DIFF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Rng::new(base.wrapping_add(extra.wrapping_mul(0x9e37_79b9)))
}

fn scale() -> usize {
    std::env::var("KANJU_DIFF_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// Replays Kanju's line in rsshogi; `Err` says what is wrong with it.
fn replay(sfen: &str, line: &[String], defender_root: bool) -> Result<(), String> {
    let mut p = rs::parse(sfen).expect("rsshogi parses what Kanju accepted");
    for (i, usi) in line.iter().enumerate() {
        let legal = rs::legal(&p, true);
        let Some(&m) = legal.iter().find(|m| m.to_usi() == *usi) else {
            return Err(format!("ply {}: {usi} is not legal", i + 1));
        };
        let attacker = (i % 2 == 0) != defender_root;
        if attacker && !rs::gives_check(&p, m) {
            return Err(format!("ply {}: {usi} does not check", i + 1));
        }
        p.apply_move(m);
    }
    if line.len() % 2 == usize::from(defender_root) {
        return Err(format!("{} plies end on the defender's move", line.len()));
    }
    if !rs::in_check(&p) {
        return Err("the end is not check".into());
    }
    // Replies Kanju left out must be futile drops: interpositions the attacker can take
    // with check. (Whether the king is then still mated is Kanju's rule, checked by its
    // own tests; this only pins what an omitted reply can be.)
    for reply in rs::legal(&p, true) {
        let usi = reply.to_usi();
        if !usi.contains('*') {
            return Err(format!("the end is not mate: {usi} escapes"));
        }
        let square = &usi[2..4];
        let m32 = p.move32_from_move(reply);
        p.apply_move32(m32);
        let retake = rs::legal(&p, true)
            .into_iter()
            .any(|m| m.to_usi()[2..4] == *square && rs::gives_check(&p, m));
        p.undo_move32(m32).expect("undo");
        if !retake {
            return Err(format!(
                "the end is not mate: {usi} cannot be taken with check"
            ));
        }
    }
    Ok(())
}

/// The cooks (余詰) Kanju left out: at each attacker move of the exact main line `line`
/// near its end, and where the cook search looked, every other check that brute force
/// mates within the plies the main move needed must be listed, as a cook or undecided.
/// (Brute force counts every interposition, so what it finds is a cook under any rule.)
fn missing_cooks(
    sfen: &str,
    line: &[String],
    defender_root: bool,
    solution: &kanju_tsume::Solution,
) -> Vec<String> {
    let listed: Vec<(usize, String)> = solution
        .cooks
        .iter()
        .chain(&solution.cooks_undecided)
        .map(|c| (c.ply, c.alternative.to_usi()))
        .collect();
    let looked_at = |ply: usize| {
        ply < solution.cooks_checked_plies || ply + solution.cooks_checked_last_plies >= line.len()
    };
    let mut p = rs::parse(sfen).expect("rsshogi parses what Kanju accepted");
    let mut missing = Vec::new();
    for (ply, main) in line.iter().enumerate() {
        let attacker = (ply % 2 == 0) != defender_root;
        let left = (line.len() - ply) as u32;
        if attacker && left <= 7 && looked_at(ply) {
            let mut brute = Brute::new();
            for m in rs::legal(&p, true) {
                let usi = m.to_usi();
                if usi == *main || !rs::gives_check(&p, m) {
                    continue;
                }
                let m32 = p.move32_from_move(m);
                p.apply_move32(m32);
                let mates = brute.defender_mated(&mut p, left - 1);
                p.undo_move32(m32).expect("undo");
                if matches!(mates, Ok(true)) && !listed.contains(&(ply, usi.clone())) {
                    missing.push(format!("ply {ply}: {usi} also mates within {left}"));
                }
            }
        }
        rs::play_usi(&mut p, main);
    }
    missing
}

/// Where an exact main line (default rules) lets the attacker mate sooner: at each of
/// its attacker moves in the last 9 plies, brute force must find no mate two plies
/// shorter than what the line spends from there. (Every interposition counted can only
/// lengthen a mate, so one it finds exists under the tsume rules too.)
fn shorter_mates(sfen: &str, line: &[String], defender_root: bool) -> Vec<String> {
    let mut p = rs::parse(sfen).expect("rsshogi parses what Kanju accepted");
    let mut found = Vec::new();
    for (ply, main) in line.iter().enumerate() {
        let attacker = (ply % 2 == 0) != defender_root;
        let left = (line.len() - ply) as u32;
        if attacker && (3..=BRUTE_PLIES).contains(&left) {
            let mut brute = Brute::new();
            if let Ok(true) = brute.attacker_mates(&mut p, left - 2) {
                found.push(format!(
                    "ply {ply}: the line takes {left} more plies, brute force mates in {}",
                    left - 2
                ));
            }
        }
        rs::play_usi(&mut p, main);
    }
    found
}

/// The pieces Kanju says the attacker has left at the end (駒余り) are its hand in
/// rsshogi's replay of the line.
fn spare_pieces_match(
    sfen: &str,
    line: &[String],
    solution: &kanju_tsume::Solution,
) -> Result<(), String> {
    let mut p = rs::parse(sfen).expect("rsshogi parses what Kanju accepted");
    for m in line {
        rs::play_usi(&mut p, m);
    }
    // The attacker made the last move: the side not to move at the end.
    let end = Position::from_sfen(&rs::sfen(&p)).map_err(|e| format!("the end: {e}"))?;
    let attacker = end.side_to_move().flip();
    if end.hand(attacker) == solution.spare_pieces {
        Ok(())
    } else {
        Err(format!(
            "spare pieces {:?}, but the attacker holds {:?}",
            solution.spare_pieces,
            end.hand(attacker)
        ))
    }
}

/// A position to check, with where it came from.
struct Case {
    origin: String,
    sfen: String,
}

/// How Kanju is run on a set of cases.
#[derive(Clone, Copy, Default)]
struct Mode {
    /// The rules: which defence a mate leaving spare pieces (駒余り) yields to, and how
    /// long the mate after a futile drop's capture may be. Each changes lengths, but never
    /// makes a line longer than brute force's, which counts every interposition.
    spare: SpareRule,
    futile: FutileRule,
    /// Search threads. One repeats node for node, so node limits give the same answers
    /// on any machine; two also exercise the shared table under races.
    threads: usize,
    /// The side to move defends even when not in check (`RootMode::Defender`): is every
    /// move it has mated?
    defender: bool,
}

fn solver(mode: Mode) -> Solver {
    let mut config = Config {
        threads: mode.threads.max(1),
        hash_mb: 32,
        progress_interval: Duration::ZERO,
        generate_all_moves: true,
        ..Config::default()
    };
    config.spare_rule = mode.spare;
    config.futile_rule = mode.futile;
    Solver::new(config)
}

#[derive(Default, Debug)]
struct Tally {
    positions: usize,
    mates: usize,
    nomates: usize,
    unknown: usize,
    /// Mates brute force found, and how many of them Kanju gave at the same length.
    brute_mates: usize,
    same_length: usize,
    /// Kanju's NoMate where brute force ruled out mates up to 5 plies or more.
    nomate_checked_deep: usize,
    /// Exact lines whose last plies' alternatives brute force checked.
    cook_plies_checked: usize,
    /// Searches with a mate length limit, and those undecided at the node limit.
    length_limited: usize,
    length_limit_undecided: usize,
}

/// Checks every case; panics with all the disagreements found.
fn check(cases: &[Case], mode: Mode, min_positions: usize) -> Tally {
    let mut solver = solver(mode);
    let limits = Limits {
        nodes: Some(KANJU_NODES),
        time: Some(Duration::from_secs(30)),
        root: if mode.defender {
            RootMode::Defender
        } else {
            RootMode::DefenderIfInCheck
        },
        ..Limits::default()
    };
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for case in cases {
        let Ok(pos) = Position::from_sfen(&case.sfen) else {
            continue;
        };
        let defender_root = mode.defender || pos.in_check();
        // The defender's king is there to be mated.
        let defender = if defender_root {
            pos.side_to_move()
        } else {
            pos.side_to_move().flip()
        };
        if pos.king_square(defender).is_none() {
            continue;
        }
        if rs::parse(&case.sfen).is_none() {
            continue;
        }
        tally.positions += 1;
        solver.clear();
        let solution = solver.solve(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
        let brute = brute_force(&case.sfen, defender_root);
        let mut fail = |what: String| {
            failures.push(format!("{} [{}]: {what}", case.origin, case.sfen));
        };
        match &solution.outcome {
            Outcome::NoMate => {
                tally.nomates += 1;
                if let Some(m) = brute.mate {
                    fail(format!("Kanju says no mate; brute force mates in {m}"));
                }
                if brute.none_within >= 5 {
                    tally.nomate_checked_deep += 1;
                }
            }
            Outcome::Mate(line) => {
                tally.mates += 1;
                let usi: Vec<String> = line.iter().map(|m| m.to_usi()).collect();
                if let Err(e) = replay(&case.sfen, &usi, defender_root) {
                    fail(format!("line {}: {e}", usi.join(" ")));
                }
                if let Some(m) = brute.mate {
                    let len = usi.len() as u32;
                    if solution.length_exact && len > m {
                        fail(format!(
                            "exact length {len}, but brute force mates in {m}: {}",
                            usi.join(" ")
                        ));
                    }
                    tally.same_length += usize::from(len == m);
                }
                if solution.length_exact {
                    for e in missing_cooks(&case.sfen, &usi, defender_root, &solution) {
                        fail(format!("line {}: {e}", usi.join(" ")));
                    }
                    tally.cook_plies_checked += 1;
                    if mode.spare == SpareRule::Strict {
                        for e in shorter_mates(&case.sfen, &usi, defender_root) {
                            fail(format!("line {}: {e}", usi.join(" ")));
                        }
                    }
                }
                if let Err(e) = spare_pieces_match(&case.sfen, &usi, &solution) {
                    fail(format!("line {}: {e}", usi.join(" ")));
                }
            }
            Outcome::Unknown(_) => {
                tally.unknown += 1;
                if let Some(m) = brute.mate {
                    fail(format!("brute force mates in {m}; Kanju did not prove it"));
                }
            }
        }
        tally.brute_mates += usize::from(brute.mate.is_some());
        // A mate length limit, as playing engines set it: at brute force's length a mate
        // must come back within it; two plies shorter, where only futile drops could give
        // a mate, at least nothing longer and no NoMate.
        if let Some(m) = brute.mate {
            for n in [m, m.saturating_sub(2)] {
                if n == 0 {
                    continue;
                }
                let limits = Limits {
                    max_mate_len: Some(n),
                    ..limits.clone()
                };
                solver.clear();
                let outcome = solver
                    .solve(&pos, &limits, &AtomicBool::new(false), &mut |_| {})
                    .outcome;
                tally.length_limited += 1;
                match outcome {
                    Outcome::Mate(line) if line.len() as u32 <= n => {}
                    Outcome::Unknown(UnknownReason::LengthLimit) if n < m => {}
                    // Ruling out the shorter mates can take more nodes than finding the
                    // mate; that is a limit, not an error.
                    Outcome::Unknown(UnknownReason::Nodes) if n < m => {
                        tally.length_limit_undecided += 1;
                    }
                    other => fail(format!(
                        "within {n} plies (brute force mates in {m}): {other:?}"
                    )),
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        tally.positions >= min_positions,
        "only {} positions checked",
        tally.positions
    );
    eprintln!("{tally:?}");
    tally
}

/// Up to `n` random legal moves, either side, played from `sfen` in rsshogi.
fn played_on(rng: &mut Rng, sfen: &str, n: usize) -> Option<String> {
    let mut p = rs::parse(sfen)?;
    // An illegal position (the short tests have one) has "legal" moves that take a king.
    if rs::opponent_in_check(&p) {
        return None;
    }
    for _ in 0..n {
        let moves = rs::legal(&p, false);
        if moves.is_empty() {
            break;
        }
        p.apply_move(*rng.pick(&moves));
    }
    Some(rs::sfen(&p))
}

/// `sfen` with one piece of the side to move's hand given to the other side.
fn piece_handed_over(rng: &mut Rng, sfen: &str) -> Option<String> {
    let fields: Vec<&str> = sfen.split_whitespace().collect();
    let (board, side, hands) = (fields.first()?, fields.get(1)?, fields.get(2)?);
    let black = *side == "b";
    let mut counts: Vec<(char, u32)> = Vec::new();
    let mut n = 0;
    for c in hands.chars().filter(|_| *hands != "-") {
        if let Some(d) = c.to_digit(10) {
            n = n * 10 + d;
        } else {
            counts.push((c, n.max(1)));
            n = 0;
        }
    }
    let mine: Vec<usize> = (0..counts.len())
        .filter(|&i| counts[i].0.is_ascii_uppercase() == black)
        .collect();
    if mine.is_empty() {
        return None;
    }
    let i = *rng.pick(&mine);
    let given = counts[i].0;
    counts[i].1 -= 1;
    let taker = if black {
        given.to_ascii_lowercase()
    } else {
        given.to_ascii_uppercase()
    };
    match counts.iter_mut().find(|(c, _)| *c == taker) {
        Some(slot) => slot.1 += 1,
        None => counts.push((taker, 1)),
    }
    let hand: String = counts
        .iter()
        .filter(|(_, k)| *k > 0)
        .map(|&(c, k)| {
            if k > 1 {
                format!("{k}{c}")
            } else {
                c.to_string()
            }
        })
        .collect();
    let hand = if hand.is_empty() { "-".into() } else { hand };
    Some(format!("{board} {side} {hand} 1"))
}

/// The oracle itself: brute force must find the short test set's shortest mates (a field
/// the file's authors computed with their own brute force), and the replay must refuse
/// published lines cut short.
#[test]
fn the_oracle_agrees_with_the_files() {
    rs::init();
    let dir = jsonl::problems_dir();
    let mut compared = 0;
    for p in jsonl::read(&dir.join("tsume_short_tests.jsonl")) {
        let Some(n) = p
            .raw("bruteforce_shortest_forced_mate")
            .and_then(|r| r.parse::<u32>().ok())
        else {
            continue;
        };
        if n > BRUTE_PLIES || p.raw("starts_in_check") != Some("false") {
            continue;
        }
        let v = brute_force(&p.sfen, false);
        match v.mate {
            Some(m) => {
                assert_eq!(m, n, "{}", p.name);
                compared += 1;
            }
            None => assert!(v.none_within < n, "{}: {v:?}, file says {n}", p.name),
        }
    }
    assert!(compared >= 100, "only {compared} compared");

    let mut refused = 0;
    for p in jsonl::read(&dir.join("tsume_edo_zukou_musou.jsonl"))
        .into_iter()
        .take(40)
    {
        let Some(line) = p.solution else { continue };
        for cut in (1..line.len()).step_by(2) {
            // A cut before an interposed drop could end on a futile drop, which counts.
            if line[cut].contains('*') {
                continue;
            }
            let err = replay(&p.sfen, &line[..cut], false);
            assert!(err.is_err(), "{} cut at {cut} replays as mate", p.name);
            refused += 1;
        }
        let mut wrong = line.clone();
        wrong.truncate(2);
        assert!(replay(&p.sfen, &wrong, false).is_err(), "{}", p.name);
    }
    assert!(refused > 500, "only {refused} cut lines refused");
}

/// Each root, and `variants` random variants of it.
fn with_variants(roots: Vec<Case>, variants: usize, seed: u64) -> Vec<Case> {
    let mut rng = seeded(seed);
    let mut out = Vec::new();
    for root in roots {
        for v in 0..variants * scale() {
            let sfen = if v % 2 == 0 {
                let n = 1 + rng.below(3);
                played_on(&mut rng, &root.sfen, n)
            } else {
                piece_handed_over(&mut rng, &root.sfen)
            };
            if let Some(sfen) = sfen {
                out.push(Case {
                    origin: format!("{} variant {v}", root.origin),
                    sfen,
                });
            }
        }
        out.push(root);
    }
    out
}

fn engine_seeds() -> Vec<Case> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../engine/tests/data/tsume_seeds.txt");
    let text = std::fs::read_to_string(&path).expect("engine/tests/data/tsume_seeds.txt");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .enumerate()
        .map(|(i, l)| Case {
            origin: format!("tsume seed {}", i + 1),
            sfen: l.to_string(),
        })
        .collect()
}

/// The seeds of the engine's tests and their variants.
#[test]
fn engine_tsume_seeds_agree_with_brute_force() {
    rs::init();
    let cases = with_variants(engine_seeds(), 2, 1);
    let t = check(&cases, Mode::default(), 400);
    assert!(t.mates > 100 && t.nomates > 100, "{t:?}");
}

/// The short test set, the Edo problems' last plies, and their variants, under the default
/// rules, today's composers' (二手変長) and the classical collections'.
#[test]
fn problem_files_agree_with_brute_force() {
    rs::init();
    let dir = jsonl::problems_dir();
    let mut roots: Vec<Case> = jsonl::read(&dir.join("tsume_short_tests.jsonl"))
        .into_iter()
        .map(|p| Case {
            origin: p.name,
            sfen: p.sfen,
        })
        .collect();
    for p in jsonl::read(&dir.join("tsume_edo_zukou_musou.jsonl")) {
        let Some(line) = p.solution else { continue };
        let Some(mut pos) = rs::parse(&p.sfen) else {
            continue;
        };
        // Positions 7, 5 and 3 plies before the published end, attacker to move.
        for (i, usi) in line.iter().enumerate() {
            let left = line.len() - i;
            if left % 2 == 1 && (3..=7).contains(&left) {
                roots.push(Case {
                    origin: format!("{} ply {}", p.name, i + 1),
                    sfen: rs::sfen(&pos),
                });
            }
            rs::play_usi(&mut pos, usi);
        }
    }
    let cases = with_variants(roots, 1, 2);
    for (spare, futile) in [
        (SpareRule::Strict, FutileRule::SameLength),
        (SpareRule::TwoPly, FutileRule::SameLength),
        (SpareRule::Classical, FutileRule::AnyLength),
    ] {
        let mode = Mode {
            spare,
            futile,
            ..Mode::default()
        };
        let t = check(&cases, mode, 500);
        assert!(t.mates > 200 && t.nomates > 50, "{t:?}");
    }
}

/// Every position one attacker move away from `sfen`: the defender to move, in check or
/// not. `keep` picks which moves (by their USI) are taken.
fn after_attacker_moves(rng: &mut Rng, sfen: &str, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let Some(p) = rs::parse(sfen) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for m in rs::legal(&p, false) {
        if keep(&m.to_usi()) || rng.chance(15) {
            let mut q = p.clone();
            q.apply_move(m);
            out.push(rs::sfen(&q));
        }
    }
    out
}

/// A defender to move that need not be in check (`RootMode::Defender`, the question a
/// threatmate or brinkmate test asks): full-board endgames of `shared/problems/hisshi/`
/// after the book's move (every defence, counter-checks included, must be mated) and
/// after a sample of other moves (mostly not). And two search threads on the short tests,
/// whose answers must be as sound as one thread's.
#[test]
fn defender_roots_and_two_threads_agree_with_brute_force() {
    rs::init();
    let dir = jsonl::problems_dir();
    let mut rng = seeded(3);
    let mut defender_cases = Vec::new();
    for file in ["hisshi.jsonl", "tsumero.jsonl", "endgame.jsonl"] {
        for p in jsonl::read(&dir.join("hisshi").join(file)) {
            let answer = p.string("answer_usi").unwrap_or_default();
            for sfen in after_attacker_moves(&mut rng, &p.sfen, |m| m == answer) {
                defender_cases.push(Case {
                    origin: format!("{} after a move", p.name),
                    sfen,
                });
            }
        }
    }
    let mode = Mode {
        defender: true,
        ..Mode::default()
    };
    let t = check(&defender_cases, mode, 200);
    assert!(t.mates > 10 && t.nomates > 100, "{t:?}");

    let short: Vec<Case> = jsonl::read(&dir.join("tsume_short_tests.jsonl"))
        .into_iter()
        .map(|p| Case {
            origin: p.name,
            sfen: p.sfen,
        })
        .collect();
    let mode = Mode {
        threads: 2,
        ..Mode::default()
    };
    let t = check(&with_variants(short, 2, 4), mode, 300);
    assert!(t.mates > 100 && t.nomates > 30, "{t:?}");
}

/// Sparse chases (see [`chase::sparse_chase`]) under today's rules and the classical ones, where
/// the main line also counts a return to its own line as no mate.
#[test]
fn sparse_chases_agree_with_brute_force() {
    rs::init();
    let mut rng = seeded(5);
    let cases: Vec<Case> = (0..1000 * scale())
        .map(|i| Case {
            origin: format!("sparse chase {i}"),
            sfen: sparse_chase(&mut rng),
        })
        .collect();
    for (spare, futile) in [
        (SpareRule::Strict, FutileRule::SameLength),
        (SpareRule::Classical, FutileRule::AnyLength),
    ] {
        let mode = Mode {
            spare,
            futile,
            ..Mode::default()
        };
        let t = check(&cases, mode, 400);
        assert!(t.mates > 50 && t.nomates > 50, "{t:?}");
    }
}
