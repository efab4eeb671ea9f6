//! Differential tests: Kanju against rsshogi (an independent implementation) and against
//! brute force, over positions reached by seeded random playouts.
//!
//! Position sources, each its own test so the two CI cores share the work:
//! * `tsume_playouts`: the tsume problems of `tests/data/tsume_seeds.txt` (no attacker king)
//!   and short random playouts from them, biased towards checks;
//! * `game_playouts`: long playouts from startpos and the perft positions, biased towards
//!   captures, promotions and checks, so hands fill up and promoted pieces accumulate;
//! * `random_positions`: random positions built piece by piece, with and without the
//!   attacker's king, with full hands or crowded boards and many promoted pieces. These also
//!   check validation: Kanju must reject exactly the ones where the side not to move is in
//!   check (rsshogi decides which), with `PositionError::OpponentInCheck`;
//! * `pawn_drop_positions`: small positions around a king on its back rank with a checking
//!   pawn drop available, so that uchifuzume (a pawn-drop mate, illegal) comes up hundreds
//!   of times, pinned would-be capturers included.
//!
//! At every position Kanju and rsshogi must agree exactly, as sets of USI strings, on the
//! legal moves (standard and all), the checks, the evasions and the mating moves; Kanju's own
//! contracts are checked by brute force (every check checks, every non-check does not, every
//! move leaves the mover's king safe, `mate_in_1` is sound and complete, keys equal a fresh
//! parse). A failure names the test, the seed, the ply and the SFEN. Set
//! `KANJU_DIFF_SCALE=4` (say) to run four times as many playouts.

mod common;

use common::{rs, Rng, Shape};
use kanju_engine::{
    Color, GenMode, Move, MoveError, MoveList, PieceKind, Position, PositionError, Square,
};
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

#[derive(Default, Debug)]
struct Stats {
    positions: usize,
    in_check: usize,
    double_check: usize,
    no_king_to_move: usize,
    no_king_waiting: usize,
    with_mate: usize,
    many_promoted: usize,
    big_hands: usize,
    checks_seen: usize,
    evasion_positions: usize,
    rejected_opponent_in_check: usize,
    rsshogi_solver_disagreements: usize,
    /// Positions where a checking pawn drop was excluded as uchifuzume.
    uchifuzume: usize,
}

struct Run {
    name: &'static str,
    stats: Stats,
    failures: Vec<String>,
}

impl Run {
    fn new(name: &'static str) -> Run {
        rs::init();
        Run {
            name,
            stats: Stats::default(),
            failures: Vec::new(),
        }
    }

    fn fail(&mut self, seed: u64, ply: usize, sfen: &str, what: String) {
        if self.failures.len() < 50 {
            self.failures.push(format!(
                "[{} seed={seed} ply={ply}] sfen {sfen}\n    {what}",
                self.name
            ));
        }
    }

    fn finish(self, min_positions: usize) -> Stats {
        eprintln!("{}: {:?}", self.name, self.stats);
        assert!(
            self.failures.is_empty(),
            "{} failures (first {} shown):\n{}",
            self.name,
            self.failures.len(),
            self.failures.join("\n")
        );
        assert!(
            self.stats.positions >= min_positions,
            "{}: only {} positions checked, expected at least {min_positions}",
            self.name,
            self.stats.positions
        );
        self.stats
    }
}

fn scale() -> usize {
    std::env::var("KANJU_DIFF_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1)
}

fn usi_sorted(moves: &[Move]) -> Vec<String> {
    let mut v: Vec<String> = moves.iter().map(|m| m.to_usi()).collect();
    v.sort();
    v
}

fn gen(pos: &Position, f: impl FnOnce(&Position, &mut MoveList)) -> Vec<Move> {
    let mut l = MoveList::new();
    f(pos, &mut l);
    l.as_slice().to_vec()
}

fn diff(label: &str, kanju: &[String], reference: &[String]) -> Result<(), String> {
    if kanju == reference {
        return Ok(());
    }
    let k: BTreeSet<_> = kanju.iter().collect();
    let r: BTreeSet<_> = reference.iter().collect();
    let dups = kanju.len() - k.len();
    Err(format!(
        "{label}: Kanju-only {:?}, reference-only {:?}{}",
        k.difference(&r).collect::<Vec<_>>(),
        r.difference(&k).collect::<Vec<_>>(),
        if dups > 0 {
            format!(", {dups} duplicate(s) in Kanju's list")
        } else {
            String::new()
        }
    ))
}

fn ensure(cond: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(what())
    }
}

/// Pieces of `c` pinned against `c`'s king, found by walking the eight rays from the king:
/// the first piece on a ray is pinned if it is `c`'s and the next one is an enemy slider
/// that moves along that ray towards the king.
fn pins_by_ray_walk(k: &Position, c: Color) -> Vec<usize> {
    let Some(ks) = k.king_square(c) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (df, dr) in [
        (0i32, 1i32),
        (0, -1),
        (1, 0),
        (-1, 0),
        (1, 1),
        (1, -1),
        (-1, 1),
        (-1, -1),
    ] {
        let mut f = ks.file() as i32;
        let mut r = ks.rank() as i32;
        let mut first: Option<Square> = None;
        loop {
            f += df;
            r += dr;
            let Some(sq) = Square::new(f as u8, r as u8)
                .filter(|_| (1..=9).contains(&f) && (1..=9).contains(&r))
            else {
                break;
            };
            let Some(p) = k.piece_on(sq) else { continue };
            match first {
                None if p.color() == c => first = Some(sq),
                None => break,
                Some(blocker) => {
                    if p.color() != c {
                        let orth = df == 0 || dr == 0;
                        // An enemy lance attacks towards the king if it moves in direction -dr:
                        // Black's lances move to lower ranks, White's to higher.
                        let lance_ok = df == 0
                            && ((p.color() == Color::Black && dr == 1)
                                || (p.color() == Color::White && dr == -1));
                        let slides = match p.kind() {
                            PieceKind::Rook | PieceKind::Dragon => orth,
                            PieceKind::Bishop | PieceKind::Horse => !orth,
                            PieceKind::Lance => lance_ok,
                            _ => false,
                        };
                        if slides {
                            out.push(blocker.index());
                        }
                    }
                    break;
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// Checkmate by brute force: in check, and no legal move in all mode.
fn mated(p: &Position) -> bool {
    p.in_check() && gen(p, |p, l| p.legal_moves_with(GenMode::All, l)).is_empty()
}

fn promoted_on_board(pos: &Position) -> usize {
    Square::all()
        .filter(|&s| pos.piece_on(s).is_some_and(|p| p.kind().is_promoted()))
        .count()
}

/// Checks one position. `deep` adds the costlier checks (fresh-parse keys of every child,
/// attackers to every square, random move candidates).
fn check_position(
    k: &Position,
    r: &rs::RPos,
    deep: bool,
    rng: &mut Rng,
    stats: &mut Stats,
) -> Result<(), String> {
    stats.positions += 1;
    let us = k.side_to_move();
    let them = us.flip();
    let black = us == Color::Black;

    // --- SFEN and keys
    let sfen = k.to_sfen();
    diff(
        "sfen",
        &[common::sfen_core(&sfen)],
        &[common::sfen_core(&rs::sfen(r))],
    )?;
    let fresh =
        Position::from_sfen(&sfen).map_err(|e| format!("to_sfen does not parse back: {e:?}"))?;
    ensure(fresh.to_sfen() == sfen, || {
        format!("SFEN round trip: {sfen} -> {}", fresh.to_sfen())
    })?;
    ensure(
        fresh.key() == k.key() && fresh.board_key() == k.board_key(),
        || "key/board_key differ from a fresh parse of to_sfen".into(),
    )?;
    ensure(
        fresh.hand(Color::Black) == k.hand(Color::Black)
            && fresh.hand(Color::White) == k.hand(Color::White),
        || "hands differ from a fresh parse".into(),
    )?;
    ensure(rs::black_to_move(r) == black, || {
        "side to move differs".into()
    })?;

    // --- check state, checkers, pins
    ensure(k.in_check() == rs::in_check(r), || {
        format!(
            "in_check: Kanju {}, rsshogi {}",
            k.in_check(),
            rs::in_check(r)
        )
    })?;
    let kc: Vec<usize> = k.checkers().iter().map(|s| s.index()).collect();
    diff(
        "checkers",
        &kc.iter().map(|i| i.to_string()).collect::<Vec<_>>(),
        &rs::checkers(r)
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>(),
    )?;
    // rsshogi's `pinned_pieces` are Stockfish-style "blockers" (another slider behind an
    // adjacent checker still counts), so pins are checked against a ray walk instead.
    for c in Color::ALL {
        let mut kp: Vec<usize> = k.pinned(c).iter().map(|s| s.index()).collect();
        kp.sort_unstable();
        let wp = pins_by_ray_walk(k, c);
        ensure(kp == wp, || {
            format!("pinned({c:?}): Kanju {kp:?}, ray walk {wp:?} (square indices)")
        })?;
    }
    if deep {
        for c in Color::ALL {
            for sq in Square::all() {
                let mut ka: Vec<usize> = k.attackers_to(c, sq).iter().map(|s| s.index()).collect();
                ka.sort_unstable();
                let ra = rs::attackers(r, c == Color::Black, sq.index());
                ensure(ka == ra, || {
                    format!("attackers_to({c:?}, {sq}): Kanju {ka:?}, rsshogi {ra:?}")
                })?;
            }
        }
    }

    // --- coverage statistics
    if k.in_check() {
        stats.in_check += 1;
        if k.checkers().count() > 1 {
            stats.double_check += 1;
        }
    }
    if k.king_square(us).is_none() {
        stats.no_king_to_move += 1;
    }
    if k.king_square(them).is_none() {
        stats.no_king_waiting += 1;
    }
    if promoted_on_board(k) >= 6 {
        stats.many_promoted += 1;
    }
    if k.hand(Color::Black).total() + k.hand(Color::White).total() >= 15 {
        stats.big_hands += 1;
    }

    // --- legal moves, both modes
    let std_moves = gen(k, |p, l| p.legal_moves(l));
    let all_moves = gen(k, |p, l| p.legal_moves_with(GenMode::All, l));
    let std_usi = usi_sorted(&std_moves);
    let all_usi = usi_sorted(&all_moves);
    diff(
        "legal moves (standard) vs rsshogi Legal",
        &std_usi,
        &rs::usi(&rs::legal(r, false)),
    )?;
    diff(
        "legal moves (all) vs rsshogi LegalAll",
        &all_usi,
        &rs::usi(&rs::legal(r, true)),
    )?;
    let all_set: BTreeSet<Move> = all_moves.iter().copied().collect();
    ensure(all_set.len() == all_moves.len(), || {
        "duplicate moves in the all-mode list".into()
    })?;
    ensure(std_moves.iter().all(|m| all_set.contains(m)), || {
        "a standard move is missing from all mode".into()
    })?;
    ensure(k.has_legal_move() != all_moves.is_empty(), || {
        format!(
            "has_legal_move() = {} with {} legal moves",
            k.has_legal_move(),
            all_moves.len()
        )
    })?;

    // --- every legal move, by brute force
    let mut gives: BTreeSet<Move> = BTreeSet::new();
    let mut mating: Vec<String> = Vec::new();
    for &m in &all_moves {
        let u = m.to_usi();
        ensure(k.is_legal(m), || {
            format!("is_legal({u}) is false for a generated move")
        })?;
        match k.parse_usi_move(&u) {
            Ok(p) if p == m => {}
            other => return Err(format!("parse_usi_move({u}) = {other:?}")),
        }
        let child = k.play(m);
        ensure(child.side_to_move() == them, || {
            format!("{u}: side to move did not flip")
        })?;
        // The mover's king (if any) is not attacked after the move.
        if let Some(ks) = child.king_square(us) {
            ensure(child.attackers_to(them, ks).is_empty(), || {
                format!("{u} leaves the mover's king on {ks} attacked")
            })?;
        }
        let gc = k.gives_check(m);
        ensure(gc == child.in_check(), || {
            format!(
                "{u}: gives_check {gc} but the child in_check {}",
                child.in_check()
            )
        })?;
        let rgc = rs::gives_check(r, rsshogi::types::Move::from_usi(&u).expect("usi"));
        ensure(gc == rgc, || {
            format!("{u}: gives_check Kanju {gc}, rsshogi {rgc}")
        })?;
        if gc {
            gives.insert(m);
            if mated(&child) {
                mating.push(u.clone());
            }
        } else {
            ensure(!mated(&child), || {
                format!("{u}: no check, yet counted as mate")
            })?;
        }
        if deep {
            let s = child.to_sfen();
            let f = Position::from_sfen(&s)
                .map_err(|e| format!("{u}: child SFEN {s} rejected: {e:?}"))?;
            ensure(f.board_key() == child.board_key(), || {
                format!("{u}: incremental board_key differs from a fresh parse of {s}")
            })?;
            ensure(f.key() == child.key(), || {
                format!("{u}: incremental key differs from a fresh parse of {s}")
            })?;
            ensure(
                f.hand(us) == child.hand(us) && f.hand(them) == child.hand(them),
                || format!("{u}: hands differ from a fresh parse"),
            )?;
            ensure(f.checkers() == child.checkers(), || {
                format!("{u}: incremental checkers differ from a fresh parse")
            })?;
        }
    }
    stats.checks_seen += gives.len();
    if let (Some(ek), false) = (k.king_square(them), k.in_check()) {
        // The square from which a pawn of ours would attack the enemy king.
        let rank = if black {
            ek.rank() + 1
        } else {
            ek.rank().wrapping_sub(1)
        };
        if let Some(sq) = Square::new(ek.file(), rank) {
            let pawn_on_file = k
                .pieces_of(us, PieceKind::Pawn)
                .iter()
                .any(|s| s.file() == sq.file());
            if k.hand(us).has(PieceKind::Pawn)
                && k.piece_on(sq).is_none()
                && !pawn_on_file
                && !all_set.contains(&Move::drop(PieceKind::Pawn, sq))
            {
                stats.uchifuzume += 1;
            }
        }
    }

    // --- checks: Kanju's generator = legal ∩ gives_check = rsshogi's
    for (mode, moves, label) in [
        (GenMode::Standard, &std_moves, "standard"),
        (GenMode::All, &all_moves, "all"),
    ] {
        let kchecks = usi_sorted(&gen(k, |p, l| p.checks(mode, l)));
        let from_legal = usi_sorted(
            &moves
                .iter()
                .copied()
                .filter(|m| gives.contains(m))
                .collect::<Vec<_>>(),
        );
        diff(
            &format!("checks({label}) vs legal moves that give check"),
            &kchecks,
            &from_legal,
        )?;
        let rlegal = rs::legal(r, mode == GenMode::All);
        let rchecks: Vec<_> = rlegal
            .into_iter()
            .filter(|&m| rs::gives_check(r, m))
            .collect();
        diff(
            &format!("checks({label}) vs rsshogi"),
            &kchecks,
            &rs::usi(&rchecks),
        )?;
        if k.king_square(them).is_none() {
            ensure(kchecks.is_empty(), || {
                "checks against a side without a king".into()
            })?;
        }
    }

    // --- evasions
    if k.in_check() {
        stats.evasion_positions += 1;
        for (mode, label, legal_usi) in [
            (GenMode::Standard, "standard", &std_usi),
            (GenMode::All, "all", &all_usi),
        ] {
            let ev = usi_sorted(&gen(k, |p, l| p.evasions(mode, l)));
            diff(&format!("evasions({label}) vs legal moves"), &ev, legal_usi)?;
        }
        let mut l = rsshogi::board::MoveList::new();
        rsshogi::movegen::generate_legal_evasions_all(r, &mut l);
        let rev: Vec<_> = l.iter().copied().collect();
        diff(
            "evasions(all) vs rsshogi generate_legal_evasions_all",
            &all_usi,
            &rs::usi(&rev),
        )?;
    }

    // --- mate in 1
    mating.sort();
    diff(
        "mating moves (Kanju brute force) vs rsshogi brute force",
        &mating,
        &rs::mating_moves(r),
    )?;
    let m1 = k.mate_in_1();
    match m1 {
        Some(m) => {
            ensure(all_set.contains(&m), || {
                format!("mate_in_1 returned {m}, not a legal move")
            })?;
            ensure(mated(&k.play(m)), || {
                format!("mate_in_1 returned {m}, which does not mate")
            })?;
        }
        None => ensure(mating.is_empty(), || {
            format!("mate_in_1 found nothing but {mating:?} mate")
        })?,
    }
    if !mating.is_empty() {
        stats.with_mate += 1;
    }
    // The search tests the checks it generates anyway, in the usual (Standard) mode, which
    // leaves out non-promotions: a mate must still be found whenever one exists.
    let standard = gen(k, |p, l| p.checks(GenMode::Standard, l));
    match k.mating_check(&standard) {
        Some(m) => ensure(mated(&k.play(m)), || {
            format!("mating_check over the Standard checks returned {m}, which does not mate")
        })?,
        None => ensure(mating.is_empty(), || {
            format!("mating_check over the Standard checks found nothing but {mating:?} mate")
        })?,
    }

    // --- checks that leave the king no move of its own, by brute force over every check
    let no_flight: BTreeSet<Move> = gen(k, |p, l| p.checks_leaving_no_flight(GenMode::All, l))
        .into_iter()
        .collect();
    ensure(no_flight.is_subset(&gives), || {
        format!("checks_leaving_no_flight returned a non-check: {no_flight:?}")
    })?;
    for &m in &gives {
        let child = k.play(m);
        let king = child.king_square(them);
        let flies = gen(&child, |p, l| p.legal_moves_with(GenMode::All, l))
            .iter()
            .any(|c| c.from().is_some() && c.from() == king);
        ensure(no_flight.contains(&m) != flies, || {
            format!(
                "{}: the king can move: {flies}, yet checks_leaving_no_flight keeps it: {}",
                m.to_usi(),
                no_flight.contains(&m)
            )
        })?;
    }
    if rs::solver_mate(r).is_some() == mating.is_empty() {
        // Not Kanju's business, but worth knowing when reading the log.
        stats.rsshogi_solver_disagreements += 1;
        eprintln!("note: rsshogi solve_mate_in_one disagrees with brute force on {sfen}");
    }

    // --- is_legal / parse_usi_move on well-formed moves that are mostly illegal
    if deep {
        for _ in 0..24 {
            let m = random_move(rng, k);
            let legal = all_set.contains(&m);
            ensure(k.is_legal(m) == legal, || {
                format!("is_legal({m}) = {}, generated: {legal}", !legal)
            })?;
            match (k.parse_usi_move(&m.to_usi()), legal) {
                (Ok(p), true) if p == m => {}
                (Err(MoveError::Illegal(_)), false) => {}
                (other, _) => {
                    return Err(format!("parse_usi_move({m}) = {other:?}, legal: {legal}"))
                }
            }
        }
    }
    Ok(())
}

/// A well-formed move: board moves mostly from the mover's pieces, drops of held kinds.
fn random_move(rng: &mut Rng, k: &Position) -> Move {
    let sq = |i: usize| Square::from_index(i).expect("square");
    let to = sq(rng.below(81));
    if rng.chance(30) {
        return Move::drop(PieceKind::HAND[rng.below(7)], to);
    }
    let own: Vec<Square> = k.pieces(k.side_to_move()).iter().collect();
    let from = if !own.is_empty() && rng.chance(80) {
        *rng.pick(&own)
    } else {
        sq(rng.below(81))
    };
    if from == to {
        return Move::drop(PieceKind::Pawn, to);
    }
    Move::normal(from, to, rng.chance(40))
}

/// Checks `k`, catching panics so that the seed and SFEN are reported.
fn check_caught(
    run: &mut Run,
    k: &Position,
    r: &rs::RPos,
    deep: bool,
    rng: &mut Rng,
    seed: u64,
    ply: usize,
) -> bool {
    let sfen = catch_unwind(AssertUnwindSafe(|| k.to_sfen())).unwrap_or_else(|_| rs::sfen(r));
    let res = catch_unwind(AssertUnwindSafe(|| {
        check_position(k, r, deep, rng, &mut run.stats)
    }));
    match res {
        Ok(Ok(())) => true,
        Ok(Err(what)) => {
            run.fail(seed, ply, &sfen, what);
            false
        }
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            run.fail(seed, ply, &sfen, format!("panic: {msg}"));
            false
        }
    }
}

/// Chooses the next playout move: biased towards checks, captures and promotions.
fn choose(rng: &mut Rng, k: &Position, check_bias: u32) -> Option<Move> {
    let all = gen(k, |p, l| p.legal_moves_with(GenMode::All, l));
    if all.is_empty() {
        return None;
    }
    if rng.chance(check_bias) {
        let checks = gen(k, |p, l| p.checks(GenMode::All, l));
        if !checks.is_empty() {
            return Some(*rng.pick(&checks));
        }
    }
    if rng.chance(35) {
        let caps: Vec<Move> = all
            .iter()
            .copied()
            .filter(|m| m.from().is_some() && k.piece_on(m.to()).is_some())
            .collect();
        if !caps.is_empty() {
            return Some(*rng.pick(&caps));
        }
    }
    if rng.chance(20) {
        let promos: Vec<Move> = all.iter().copied().filter(|m| m.is_promotion()).collect();
        if !promos.is_empty() {
            return Some(*rng.pick(&promos));
        }
    }
    Some(*rng.pick(&all))
}

/// A playout from `sfen`: checks every position, plays the chosen move on both engines,
/// and stops at the first failure (the rest of the line would be meaningless).
fn playout(run: &mut Run, sfen: &str, seed: u64, plies: usize, check_bias: u32) {
    let mut rng = Rng::new(seed);
    let k0 = match Position::from_sfen(sfen) {
        Ok(p) => p,
        Err(e) => {
            run.fail(seed, 0, sfen, format!("seed position rejected: {e:?}"));
            return;
        }
    };
    let mut r = rs::parse(sfen).expect("rsshogi parses the seed");
    let mut k = k0;
    for ply in 0..plies {
        let deep = ply % 4 == 0;
        if !check_caught(run, &k, &r, deep, &mut rng, seed, ply) {
            return;
        }
        let Some(m) = choose(&mut rng, &k, check_bias) else {
            return;
        };
        // Alternate copy-make and in-place make so that both are exercised.
        if ply % 2 == 0 {
            k = k.play(m);
        } else {
            k.do_move(m);
        }
        rs::play_usi(&mut r, &m.to_usi());
    }
}

#[test]
fn tsume_playouts() {
    let mut run = Run::new("tsume_playouts");
    let seeds = common::tsume_seeds();
    assert!(seeds.len() >= 200);
    let mut rng = Rng::new(0x7A5E);
    for round in 0..2 * scale() {
        for (i, s) in seeds.iter().enumerate() {
            let seed = (round as u64) << 32 | i as u64;
            let plies = 6 + rng.below(18);
            playout(&mut run, s, seed, plies, 60);
        }
    }
    let st = run.finish(5_000);
    assert!(
        st.no_king_to_move >= 1_000 && st.no_king_waiting >= 1_000,
        "too few king-less positions: {st:?}"
    );
    assert!(
        st.in_check >= 1_000 && st.with_mate >= 100,
        "too few checks or mates: {st:?}"
    );
}

#[test]
fn game_playouts() {
    let mut run = Run::new("game_playouts");
    let mut starts = vec![kanju_engine::STARTPOS_SFEN.to_owned()];
    for line in common::data_lines("perft.txt") {
        let s = line.split(';').next().unwrap().trim().to_owned();
        if s != "startpos" && !starts.contains(&s) {
            starts.push(s);
        }
    }
    let n = 36 * scale();
    for i in 0..n {
        let start = &starts[i % starts.len()];
        playout(&mut run, start, 1_000 + i as u64, 140, 15);
    }
    let st = run.finish(3_000);
    assert!(
        st.many_promoted >= 200 && st.big_hands >= 200,
        "playouts too tame: {st:?}"
    );
}

#[test]
fn random_positions() {
    let mut run = Run::new("random_positions");
    let n = 2_400 * scale();
    for i in 0..n {
        let seed = 50_000 + i as u64;
        let mut rng = Rng::new(seed);
        let shape = if i % 3 == 0 {
            Shape::BothKings
        } else {
            Shape::Tsume
        };
        // Cycle through full hands, crowded boards and heavy promotion.
        let (board, promo) = [(10, 20), (35, 50), (60, 80), (85, 30), (25, 90)][i % 5];
        let sk = common::random_sketch(&mut rng, shape, board, promo);
        let sfen = sk.to_sfen();
        let r = rs::parse(&sfen).expect("rsshogi parses generated SFEN");
        let valid = !rs::opponent_in_check(&r);
        let waiting = if sk.black_to_move {
            Color::White
        } else {
            Color::Black
        };
        match catch_unwind(|| Position::from_sfen(&sfen)) {
            Err(_) => run.fail(seed, 0, &sfen, "from_sfen panicked".into()),
            Ok(Ok(_)) if valid => playout(&mut run, &sfen, seed, 3, 50),
            Ok(Err(PositionError::OpponentInCheck(c))) if !valid && c == waiting => {
                run.stats.rejected_opponent_in_check += 1;
            }
            Ok(res) => run.fail(
                seed,
                0,
                &sfen,
                format!(
                    "from_sfen = {:?}; expected {}",
                    res.map(|p| p.to_sfen()),
                    if valid {
                        "Ok".to_string()
                    } else {
                        format!("OpponentInCheck({waiting:?})")
                    }
                ),
            ),
        }
    }
    let st = run.finish(4_000);
    assert!(
        st.rejected_opponent_in_check >= 100,
        "validation barely exercised: {st:?}"
    );
    assert!(
        st.big_hands >= 500 && st.many_promoted >= 500,
        "random positions too tame: {st:?}"
    );
    assert!(st.double_check >= 20, "too few double checks: {st:?}");
}

/// Small positions built so that a pawn drop in front of the defender's king gives check:
/// the king on or next to its back rank, attacker pieces crowding it, a few defenders, and a
/// pawn in the attacker's hand with no attacker pawn on that file. Many of these drops mate,
/// which makes them uchifuzume: the generators, `is_legal` and mate-in-1 must all refuse them,
/// exactly as rsshogi does, including when the only capturer is pinned.
#[test]
fn pawn_drop_positions() {
    let mut run = Run::new("pawn_drop_positions");
    let n = 12_000 * scale();
    for i in 0..n {
        let seed = 900_000 + i as u64;
        let mut rng = Rng::new(seed);
        let attacker_black = rng.chance(50);
        let mut sk = common::Sketch::empty();
        sk.black_to_move = attacker_black;
        // Rank as seen from the attacker: the defender's back rank is the attacker's rank 1.
        let abs = |rel: usize| if attacker_black { rel } else { 10 - rel };
        let kf = 1 + rng.below(9);
        let krel = if rng.chance(75) { 1 } else { 2 };
        sk.set(kf, abs(krel), if attacker_black { "k" } else { "K" });
        let drop_sq = (kf, abs(krel + 1));
        let mut used = [0u32; 7];
        let mut place = |sk: &mut common::Sketch,
                         rng: &mut Rng,
                         attacker: bool,
                         choices: &[&str]| {
            for _ in 0..10 {
                let f = kf as i32 + rng.below(5) as i32 - 2;
                let rel = krel as i32 + rng.below(5) as i32 - 2;
                if !(1..=9).contains(&f) || !(1..=9).contains(&rel) {
                    continue;
                }
                let (f, rel) = (f as usize, rel as usize);
                if (f, abs(rel)) == drop_sq || !sk.is_empty_at(f, abs(rel)) {
                    continue;
                }
                let t = *rng.pick(choices);
                let letter = t.trim_start_matches('+').chars().next().unwrap();
                let idx = common::SUPPLY
                    .iter()
                    .position(|&(c, _)| c == letter)
                    .unwrap();
                if used[idx] >= common::SUPPLY[idx].1 {
                    continue;
                }
                // Owner-relative rank, for dead pieces: the attacker's rank 1 is the
                // defender's rank 9.
                let own_rel = if attacker { rel } else { 10 - rel };
                let promoted = t.starts_with('+');
                let dead = !promoted
                    && match letter {
                        'P' | 'L' => own_rel == 1,
                        'N' => own_rel <= 2,
                        _ => false,
                    };
                if dead
                    || (!promoted && letter == 'P' && sk.has_pawn(attacker == attacker_black, f))
                {
                    continue;
                }
                let black = attacker == attacker_black;
                let tok = if black {
                    t.to_string()
                } else {
                    t.to_ascii_lowercase()
                };
                sk.set(f, abs(rel), &tok);
                used[idx] += 1;
                return;
            }
        };
        for _ in 0..2 + rng.below(5) {
            place(
                &mut sk,
                &mut rng,
                true,
                &["G", "G", "S", "S", "N", "L", "R", "B", "+R", "+B", "+P"],
            );
        }
        for _ in 0..rng.below(4) {
            place(
                &mut sk,
                &mut rng,
                false,
                &["G", "S", "N", "L", "P", "B", "R"],
            );
        }
        let a = if attacker_black { 0 } else { 1 };
        sk.hands[a][0] = 1 + rng.below(3) as u32;
        if rng.chance(30) {
            sk.hands[1 - a][4] = (4 - used[4]).min(1); // a defender gold to interpose
        }
        let sfen = sk.to_sfen();
        let r = rs::parse(&sfen).expect("rsshogi parses generated SFEN");
        if rs::opponent_in_check(&r) {
            continue;
        }
        match Position::from_sfen(&sfen) {
            Ok(_) => playout(&mut run, &sfen, seed, 3, 70),
            Err(e) => run.fail(seed, 0, &sfen, format!("valid position rejected: {e:?}")),
        }
    }
    let st = run.finish(6_000);
    assert!(st.uchifuzume >= 300, "too few uchifuzume positions: {st:?}");
}
