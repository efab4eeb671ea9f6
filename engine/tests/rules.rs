//! Hand-made positions for the rules a tsume solver leans on, each with its known answer:
//! uchifuzume (including the pinned-defender and unpinned-by-the-drop cases), the standard
//! generation convention against "all", double-check evasions, interposing drops, keys, and
//! repetition with the continuous-check rule.

use kanju_engine::{Color, GenMode, History, MoveError, MoveList, Position, Repetition};

fn pos(s: &str) -> Position {
    Position::from_sfen(s).unwrap_or_else(|e| panic!("{s}: {e:?}"))
}

fn usi(p: &Position, f: impl FnOnce(&Position, &mut MoveList)) -> Vec<String> {
    let mut l = MoveList::new();
    f(p, &mut l);
    let mut v: Vec<String> = l.iter().map(|m| m.to_usi()).collect();
    v.sort();
    v
}

fn legal_std(p: &Position) -> Vec<String> {
    usi(p, |p, l| p.legal_moves(l))
}

fn legal_all(p: &Position) -> Vec<String> {
    usi(p, |p, l| p.legal_moves_with(GenMode::All, l))
}

fn assert_drop_forbidden(p: &Position, m: &str) {
    assert!(
        !legal_std(p).contains(&m.to_string()),
        "{m} generated (standard)"
    );
    assert!(
        !legal_all(p).contains(&m.to_string()),
        "{m} generated (all)"
    );
    assert!(
        !usi(p, |p, l| p.checks(GenMode::All, l)).contains(&m.to_string()),
        "{m} among checks"
    );
    assert!(
        matches!(p.parse_usi_move(m), Err(MoveError::Illegal(_))),
        "{m} parsed"
    );
    let mv = kanju_engine::Move::from_usi(m).unwrap();
    assert!(!p.is_legal(mv), "is_legal({m})");
    assert_ne!(
        p.mate_in_1(),
        Some(mv),
        "mate_in_1 returned the forbidden pawn-drop mate {m}"
    );
}

/// White king 1a; Black gold 3b covers 2a and 2b; Black knight 2d defends 1b.
/// P*1b would mate, so it is illegal, and nothing else mates.
#[test]
fn uchifuzume_plain() {
    let p = pos("8k/6G2/9/7N1/9/9/9/9/9 b P 1");
    assert_drop_forbidden(&p, "P*1b");
    assert_eq!(p.mate_in_1(), None);
    // Other pawn drops stay legal (nothing on those files).
    assert!(legal_std(&p).contains(&"P*2c".to_string()));
    // Without the gold the king escapes, so the same drop is a legal check.
    let q = pos("8k/9/9/7N1/9/9/9/9/9 b P 1");
    assert!(legal_std(&q).contains(&"P*1b".to_string()));
    assert!(q.gives_check(q.parse_usi_move("P*1b").unwrap()));
    assert!(q.play(q.parse_usi_move("P*1b").unwrap()).in_check());
}

/// The only defender able to take the pawn (silver 2a) is pinned by the rook on 5a:
/// still mate, still illegal.
#[test]
fn uchifuzume_with_pinned_defender() {
    let p = pos("4R2sk/6G2/9/7N1/9/9/9/9/9 b P 1");
    assert_drop_forbidden(&p, "P*1b");
}

/// The gold on 1c is pinned by the lance on 1i before the drop, but the dropped pawn itself
/// blocks that line: the gold may take it, so P*1b is not mate and is legal.
#[test]
fn pawn_drop_that_unpins_the_defender_is_legal() {
    let p = pos("8k/6G2/8g/7N1/9/9/9/9/8L b P 1");
    assert!(
        legal_std(&p).contains(&"P*1b".to_string()),
        "P*1b missing: {:?}",
        legal_std(&p)
    );
    let m = p.parse_usi_move("P*1b").unwrap();
    assert!(p.gives_check(m));
    let after = p.play(m);
    assert!(after.in_check());
    let replies = usi(&after, |p, l| p.evasions(GenMode::All, l));
    assert_eq!(replies, vec!["1c1b".to_string()]);
    assert_ne!(p.mate_in_1(), Some(m));
}

/// A pawn *move* that mates is fine: only drops fall under uchifuzume.
#[test]
fn pawn_push_mate_is_legal() {
    let p = pos("8k/6G2/8P/7N1/9/9/9/9/9 b - 1");
    let m = p.mate_in_1().expect("1c1b+ mates");
    assert!(["1c1b+", "1c1b"].contains(&m.to_usi().as_str()), "{m}");
    assert!(p.play(m).in_check());
    let checks_std = usi(&p, |p, l| p.checks(GenMode::Standard, l));
    let checks_all = usi(&p, |p, l| p.checks(GenMode::All, l));
    assert!(checks_std.contains(&"1c1b+".to_string()) && !checks_std.contains(&"1c1b".to_string()));
    assert!(checks_all.contains(&"1c1b+".to_string()) && checks_all.contains(&"1c1b".to_string()));
}

/// Which non-promotions standard generation leaves out (the YaneuraOu / cshogi / rsshogi
/// convention): pawn, bishop and rook non-promotions wherever promotion is possible, and a
/// lance's non-promotion to its 2nd rank. Lance to its 3rd rank, knights and silvers keep both.
#[test]
fn standard_generation_convention() {
    // Black: bishop 9c, lance 1c, pawn 7d, knight 5e, lance 3e; White king 5i.
    let p = pos("9/9/B7L/2P6/4N1L2/9/9/9/4k4 b - 1");
    let std = legal_std(&p);
    let all = legal_all(&p);
    let has = |v: &Vec<String>, m: &str| v.contains(&m.to_string());
    for (m, in_std, in_all) in [
        ("1c1b+", true, true),
        ("1c1b", false, true), // lance to its 2nd rank
        ("1c1a+", true, true), // to the last rank: promotion only
        ("1c1a", false, false),
        ("3e3d", true, true),
        ("3e3c", true, true), // lance to its 3rd rank keeps the non-promotion
        ("3e3c+", true, true),
        ("3e3b", false, true),
        ("3e3b+", true, true),
        ("3e3a+", true, true),
        ("3e3a", false, false), // would be dead
        ("5e4c", true, true),
        ("5e4c+", true, true),
        ("5e6c", true, true),
        ("7d7c+", true, true),
        ("7d7c", false, true),
        ("9c8d+", true, true), // bishop leaving the zone
        ("9c8d", false, true),
        ("9c7a+", true, true),
        ("9c7a", false, true),
    ] {
        assert_eq!(has(&std, m), in_std, "{m} in standard generation");
        assert_eq!(has(&all, m), in_all, "{m} in all-moves generation");
    }
    assert!(std.iter().all(|m| all.contains(m)));
    // Left out by standard generation: 1c1b, 3e3b, 7d7c and the eight bishop
    // non-promotions (every bishop move starts in the zone).
    assert_eq!(all.len() - std.len(), 11, "std {std:?}\nall {all:?}");
}

/// Knight and lance checks in double check: only king moves answer.
#[test]
fn double_check_only_king_moves() {
    let p = pos("4k4/9/3N5/9/9/9/9/9/4L4 w 2g 1");
    assert_eq!(p.checkers().count(), 2);
    let ev = usi(&p, |p, l| p.evasions(GenMode::All, l));
    assert_eq!(ev, vec!["5a4a", "5a4b", "5a6a", "5a6b"]);
    assert_eq!(legal_all(&p), ev);
}

/// A distant lance check: king steps off the file, or any of seven interposing drops.
#[test]
fn interposing_drops() {
    let p = pos("4k4/9/9/9/9/9/9/9/4L4 w g 1");
    let ev = usi(&p, |p, l| p.evasions(GenMode::Standard, l));
    let mut want: Vec<String> = ["5a4a", "5a4b", "5a6a", "5a6b"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    want.extend("bcdefgh".chars().map(|r| format!("G*5{r}")));
    want.sort();
    assert_eq!(ev, want);
}

/// Rook check along rank a; White holds a pawn and already has one on file 7, so it may
/// interpose on 8a and 6a but not on 7a. The king cannot step to 4a (still on the rook's line).
#[test]
fn no_nifu_interposition() {
    let p = pos("R3k4/9/2p6/9/9/9/9/9/9 w p 1");
    assert!(p.in_check());
    let ev = usi(&p, |p, l| p.evasions(GenMode::All, l));
    assert_eq!(ev, vec!["5a4b", "5a5b", "5a6b", "P*6a", "P*8a"]);
    assert_eq!(legal_all(&p), ev);
}

#[test]
fn keys_transpose_and_separate_hands() {
    let s = Position::startpos();
    let play = |p: &Position, ms: &[&str]| {
        ms.iter().fold(p.clone(), |p, m| {
            let mv = p.parse_usi_move(m).unwrap();
            p.play(mv)
        })
    };
    let a = play(&s, &["7g7f", "3c3d", "2g2f"]);
    let b = play(&s, &["2g2f", "3c3d", "7g7f"]);
    assert_eq!(a.key(), b.key());
    assert_eq!(a.board_key(), b.board_key());
    assert_ne!(a.key(), s.key());
    // Same board, different hands: same board key, different full key.
    let h1 = pos("4k4/9/9/9/9/9/9/9/4K4 b P 1");
    let h2 = pos("4k4/9/9/9/9/9/9/9/4K4 b p 1");
    assert_eq!(h1.board_key(), h2.board_key());
    assert_ne!(h1.key(), h2.key());
    assert!(h1.hand(Color::Black).dominates(h2.hand(Color::Black)));
    assert!(!h2.hand(Color::Black).dominates(h1.hand(Color::Black)));
    // The side to move is part of the board key.
    let w = pos("4k4/9/9/9/9/9/9/9/4K4 w P 1");
    assert_ne!(w.board_key(), h1.board_key());
    // A capture moves a piece into the hand: the board key and the hand key both change.
    let c = play(&s, &["7g7f", "3c3d", "8h2b+"]);
    assert_eq!(
        c.hand(Color::Black).count(kanju_engine::PieceKind::Bishop),
        1
    );
    let fresh = pos(&c.to_sfen());
    assert_eq!((fresh.key(), fresh.board_key()), (c.key(), c.board_key()));
}

#[test]
fn repetition_draw_and_continuous_check() {
    // King shuffle from startpos: a plain repetition.
    let mut h = History::new();
    let mut p = Position::startpos();
    for m in ["5i5h", "5a5b", "5h5i", "5b5a"] {
        h.push(&p);
        let mv = p.parse_usi_move(m).unwrap();
        p = p.play(mv);
        if m != "5b5a" {
            assert_eq!(h.repetition(&p), Repetition::None, "after {m}");
        }
    }
    assert_eq!(h.repetition(&p), Repetition::Draw);

    // Black's rook checks on every move: 6e5e+ 5a4a 5e4e+ 4a5a 4e5e+ repeats the position
    // after 6e5e+, with White in check at each of its turns.
    let mut h = History::new();
    let mut p = pos("4k4/9/9/9/3R5/9/9/9/K8 b - 1");
    let line = ["6e5e", "5a4a", "5e4e", "4a5a", "4e5e"];
    for (i, m) in line.iter().enumerate() {
        h.push(&p);
        let mv = p.parse_usi_move(m).unwrap();
        p = p.play(mv);
        if i + 1 < line.len() {
            assert_eq!(h.repetition(&p), Repetition::None, "after {m}");
        }
    }
    assert!(p.in_check());
    assert_eq!(
        h.repetition(&p),
        Repetition::ContinuousCheckBy(Color::Black)
    );
}

/// A pass hands the move over and nothing else: the same board and hands, the other side
/// to move, and back again after a second pass. In check there is no pass.
#[test]
fn pass_hands_the_move_over() {
    // Black to move; White has a king on 5a and nothing in hand.
    let p = pos("4k4/9/9/9/9/9/9/9/4K4 b GS 1");
    let q = p.pass().expect("not in check");
    assert_eq!(q.side_to_move(), Color::White);
    assert_eq!(
        q.board_key() ^ p.board_key(),
        1,
        "only the side bit changes"
    );
    assert_eq!(q.hand(Color::Black), p.hand(Color::Black));
    assert!(!q.in_check());
    // White, to move, may now do anything it could: here, walk its king.
    assert_eq!(legal_all(&q), ["5a4a", "5a4b", "5a5b", "5a6a", "5a6b"]);
    let r = q.pass().expect("not in check");
    assert_eq!(r.key(), p.key());
    assert_eq!(r.side_to_move(), Color::Black);
    // With the king in check, a pass would leave it en prise.
    let checked = pos("4k4/4G4/9/9/9/9/9/9/4K4 w S 1");
    assert!(checked.in_check());
    assert!(checked.pass().is_none());
}
