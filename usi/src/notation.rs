//! Japanese move notation (棋譜表記) as composers and the JSA write it:
//! `▲２四銀`, `△同玉`, `▲３二金打`, `▲２三銀成`, `▲２三銀不成`, `▲５二金右`.
//!
//! Rules followed (日本将棋連盟「棋譜の表記方法」):
//! * file as a full-width digit, rank as a kanji numeral; `同` when the move lands where
//!   the previous move landed;
//! * when several pieces of the same kind can reach the square, the motion
//!   (`上` forward, `寄` sideways, `引` backward) is written if it tells them apart;
//!   otherwise the position (`左`/`右`, as the mover sees it), with the motion added if
//!   position alone is not enough; a gold-like piece or silver moving straight forward
//!   is `直`; dragons and horses never use `直`;
//! * `打` only when a piece on the board could also reach the square;
//! * `成` for a promotion, `不成` when the move could have promoted and did not.

use kanju_engine::{Color, GenMode, Hand, Move, MoveList, PieceKind, Position, Square};

const FILES: [&str; 9] = ["１", "２", "３", "４", "５", "６", "７", "８", "９"];
const RANKS: [&str; 9] = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
const COUNTS: [&str; 19] = [
    "", "", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三", "十四",
    "十五", "十六", "十七", "十八",
];

/// `▲` for Black (先手), `△` for White.
pub fn side_mark(c: Color) -> &'static str {
    match c {
        Color::Black => "▲",
        Color::White => "△",
    }
}

/// The square in kifu form, `２四`.
pub fn square(sq: Square) -> String {
    format!(
        "{}{}",
        FILES[sq.file() as usize - 1],
        RANKS[sq.rank() as usize - 1]
    )
}

fn in_zone(sq: Square, c: Color) -> bool {
    sq.relative_rank(c) <= 3
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Motion {
    Up,
    Side,
    Back,
}

fn motion(from: Square, to: Square, c: Color) -> Motion {
    let (f, t) = (from.relative_rank(c), to.relative_rank(c));
    match t.cmp(&f) {
        std::cmp::Ordering::Less => Motion::Up,
        std::cmp::Ordering::Equal => Motion::Side,
        std::cmp::Ordering::Greater => Motion::Back,
    }
}

fn motion_word(m: Motion) -> &'static str {
    match m {
        Motion::Up => "上",
        Motion::Side => "寄",
        Motion::Back => "引",
    }
}

/// How far left a square is as `c` sees the board: Black's left is the 9 file.
fn leftness(sq: Square, c: Color) -> i32 {
    match c {
        Color::Black => sq.file() as i32,
        Color::White => -(sq.file() as i32),
    }
}

/// The disambiguation suffix (`右`, `上`, `左引`, `直`, …) for a board move of `kind`
/// from `from` to `to`, given the origins of the other same-kind pieces that can also go there.
fn relative(kind: PieceKind, from: Square, to: Square, others: &[Square], c: Color) -> String {
    if others.is_empty() {
        return String::new();
    }
    let mine = motion(from, to, c);
    let same_motion: Vec<Square> = others
        .iter()
        .copied()
        .filter(|&o| motion(o, to, c) == mine)
        .collect();
    if same_motion.is_empty() {
        return motion_word(mine).to_string();
    }
    let straight_capable = matches!(
        kind,
        PieceKind::Gold
            | PieceKind::Silver
            | PieceKind::ProPawn
            | PieceKind::ProLance
            | PieceKind::ProKnight
            | PieceKind::ProSilver
    );
    if straight_capable && mine == Motion::Up && from.file() == to.file() {
        return "直".to_string();
    }
    let l = leftness(from, c);
    let lr = if same_motion.iter().all(|&o| leftness(o, c) < l) {
        "左"
    } else if same_motion.iter().all(|&o| leftness(o, c) > l) {
        "右"
    } else {
        // Three in a row with the mover in the middle cannot happen for a legal move
        // without a straight-forward one, which `直` covered; fall back to the motion.
        return motion_word(mine).to_string();
    };
    let lr_alone_enough = if lr == "左" {
        others.iter().all(|&o| leftness(o, c) < l)
    } else {
        others.iter().all(|&o| leftness(o, c) > l)
    };
    if lr_alone_enough {
        lr.to_string()
    } else {
        format!("{lr}{}", motion_word(mine))
    }
}

fn legal_all(pos: &Position) -> MoveList {
    let mut list = MoveList::new();
    pos.legal_moves_with(GenMode::All, &mut list);
    list
}

/// One move in kifu notation, without the side mark. `prev_to` is where the previous
/// move landed (for `同`). `m` must be legal in `pos`.
pub fn kifu_move(pos: &Position, m: Move, prev_to: Option<Square>) -> String {
    let c = pos.side_to_move();
    let to = m.to();
    let dest = if prev_to == Some(to) {
        "同".to_string()
    } else {
        square(to)
    };
    match m.from() {
        None => {
            let kind = m.drop_kind().unwrap_or(PieceKind::Pawn);
            let board_rival = legal_all(pos).iter().any(|&o| {
                o.to() == to
                    && o.from().and_then(|f| pos.piece_on(f)).map(|p| p.kind()) == Some(kind)
            });
            format!(
                "{dest}{}{}",
                kind.japanese(),
                if board_rival { "打" } else { "" }
            )
        }
        Some(from) => {
            let Some(piece) = pos.piece_on(from) else {
                return m.to_usi();
            };
            let kind = piece.kind();
            let mut others: Vec<Square> = legal_all(pos)
                .iter()
                .filter_map(|&o| {
                    let f = o.from()?;
                    (o.to() == to && f != from && pos.piece_on(f) == Some(piece)).then_some(f)
                })
                .collect();
            others.sort();
            others.dedup();
            let rel = if kind == PieceKind::King {
                String::new()
            } else {
                relative(kind, from, to, &others, c)
            };
            let promo = if m.is_promotion() {
                "成"
            } else if kind.can_promote() && (in_zone(from, c) || in_zone(to, c)) {
                "不成"
            } else {
                ""
            };
            format!("{dest}{}{rel}{promo}", kind.japanese())
        }
    }
}

/// A whole line from `root`, each move with its side mark: `▲２四銀`, `△同玉`, …
/// Moves that turn out to be illegal are shown in USI form and end the replay.
///
/// ```
/// use kanju_engine::Position;
/// use kanju_usi::notation::kifu_line;
/// // The start of 将棋図巧 #36: a gold drop on 2e, the bishop takes it, the silver goes to 3f.
/// let root = Position::from_sfen("9/6nS1/4s4/4r1P1g/5Sk1B/5+pbR1/4Nsp2/9/4N4 b 3Gn4l15p 1").unwrap();
/// let mut pos = root.clone();
/// let mut line = Vec::new();
/// for usi in ["G*2e", "3f2e", "4e3f"] {
///     let m = pos.parse_usi_move(usi).unwrap();
///     pos = pos.play(m);
///     line.push(m);
/// }
/// assert_eq!(kifu_line(&root, &line), ["▲２五金", "△同角", "▲３六銀"]);
/// ```
pub fn kifu_line(root: &Position, moves: &[Move]) -> Vec<String> {
    let mut pos = root.clone();
    let mut prev_to = None;
    let mut out = Vec::with_capacity(moves.len());
    for (i, &m) in moves.iter().enumerate() {
        if !legal_all(&pos).contains(m) {
            out.extend(moves[i..].iter().map(|m| m.to_usi()));
            break;
        }
        out.push(format!(
            "{}{}",
            side_mark(pos.side_to_move()),
            kifu_move(&pos, m, prev_to)
        ));
        prev_to = Some(m.to());
        pos.do_move(m);
    }
    out
}

/// Pieces in hand in kifu style, strongest first: `飛 金二 歩`. Empty hand: `なし`.
pub fn hand(h: Hand) -> String {
    if h.is_empty() {
        return "なし".to_string();
    }
    PieceKind::HAND
        .iter()
        .rev()
        .filter(|&&k| h.count(k) > 0)
        .map(|&k| format!("{}{}", k.japanese(), COUNTS[h.count(k).min(18) as usize]))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Pieces in hand in SFEN style (`R2GP`), `-` when empty.
pub fn hand_sfen(h: Hand) -> String {
    if h.is_empty() {
        return "-".to_string();
    }
    let mut s = String::new();
    for &k in PieceKind::HAND.iter().rev() {
        match h.count(k) {
            0 => {}
            1 => s.push(k.sfen_letter()),
            n => s.push_str(&format!("{n}{}", k.sfen_letter())),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::from_usi(s).unwrap()
    }

    #[test]
    fn relative_words_without_a_board() {
        let b = Color::Black;
        // Golds on 6c and 4c both step up to 5b: position tells them apart.
        assert_eq!(
            relative(PieceKind::Gold, sq("6c"), sq("5b"), &[sq("4c")], b),
            "左"
        );
        assert_eq!(
            relative(PieceKind::Gold, sq("4c"), sq("5b"), &[sq("6c")], b),
            "右"
        );
        // Gold from 6c moves up, gold from 4b moves sideways: motion is enough.
        assert_eq!(
            relative(PieceKind::Gold, sq("6c"), sq("5b"), &[sq("4b")], b),
            "上"
        );
        assert_eq!(
            relative(PieceKind::Gold, sq("4b"), sq("5b"), &[sq("6c")], b),
            "寄"
        );
        // Three golds on the third rank to 5b: left, straight, right.
        assert_eq!(
            relative(
                PieceKind::Gold,
                sq("5c"),
                sq("5b"),
                &[sq("6c"), sq("4c")],
                b
            ),
            "直"
        );
        assert_eq!(
            relative(
                PieceKind::Gold,
                sq("6c"),
                sq("5b"),
                &[sq("5c"), sq("4c")],
                b
            ),
            "左"
        );
        // Golds on 6c, 4c and 4b to 5b: the 4c one is the right one of the two moving up,
        // but 右 alone would also fit 4b, so the motion is added.
        assert_eq!(
            relative(
                PieceKind::Gold,
                sq("4c"),
                sq("5b"),
                &[sq("6c"), sq("4b")],
                b
            ),
            "右上"
        );
        // White sees the board the other way round.
        assert_eq!(
            relative(
                PieceKind::Gold,
                sq("6g"),
                sq("5h"),
                &[sq("4g")],
                Color::White
            ),
            "右"
        );
        // Dragons on 1c and 2b to 2d (both move back): 左/右, never 直.
        assert_eq!(
            relative(PieceKind::Dragon, sq("1c"), sq("2d"), &[sq("2b")], b),
            "右"
        );
        assert_eq!(
            relative(PieceKind::Dragon, sq("2b"), sq("2d"), &[sq("1c")], b),
            "左"
        );
        assert_eq!(relative(PieceKind::Silver, sq("6c"), sq("5b"), &[], b), "");
    }

    fn kifu(sfen: &str, usi: &[&str]) -> Vec<String> {
        let pos = Position::from_sfen(sfen).unwrap();
        let mut p = pos.clone();
        let mut moves = Vec::new();
        for u in usi {
            let m = p.parse_usi_move(u).unwrap();
            moves.push(m);
            p.do_move(m);
        }
        kifu_line(&pos, &moves)
    }

    #[test]
    fn drops_promotions_and_recaptures_on_a_board() {
        // 打 only when a board silver could also go there.
        assert_eq!(
            kifu("4k4/9/9/4S4/9/9/9/9/9 b S 1", &["S*5c"]),
            ["▲５三銀打"]
        );
        assert_eq!(kifu("4k4/9/9/9/9/9/9/9/9 b S 1", &["S*5c"]), ["▲５三銀"]);
        assert_eq!(
            kifu("4k4/9/9/4S4/9/9/9/9/9 b - 1", &["5d5c+"]),
            ["▲５三銀成"]
        );
        assert_eq!(
            kifu("4k4/9/9/4S4/9/9/9/9/9 b - 1", &["5d5c"]),
            ["▲５三銀不成"]
        );
        // Outside the zone there is no choice, so no 不成.
        assert_eq!(kifu("4k4/9/9/9/4S4/9/9/9/9 b - 1", &["5e5d"]), ["▲５四銀"]);
        assert_eq!(
            kifu("4k4/4g4/9/9/9/9/9/9/4R4 b - 1", &["5i5b+", "5a5b"]),
            ["▲５二飛成", "△同玉"]
        );
    }

    #[test]
    fn same_kind_pieces_on_a_board() {
        let golds = "4k4/9/3G1G3/9/9/9/9/9/9 b - 1";
        assert_eq!(kifu(golds, &["6c5b"]), ["▲５二金左"]);
        assert_eq!(kifu(golds, &["4c5b"]), ["▲５二金右"]);
        let three = "4k4/9/3GGG3/9/9/9/9/9/9 b - 1";
        assert_eq!(kifu(three, &["5c5b"]), ["▲５二金直"]);
        assert_eq!(kifu(three, &["6c5b"]), ["▲５二金左"]);
        let knights = "4k4/9/9/9/2N1N4/9/9/9/9 b - 1";
        assert_eq!(kifu(knights, &["7e6c"]), ["▲６三桂左不成"]);
        assert_eq!(kifu(knights, &["5e6c+"]), ["▲６三桂右成"]);
        let dragons = "4k4/7+R1/8+R/9/9/9/9/9/9 b - 1";
        assert_eq!(kifu(dragons, &["1c2d"]), ["▲２四龍右"]);
        assert_eq!(kifu(dragons, &["2b2d"]), ["▲２四龍左"]);
        // White's left and right are Black's right and left.
        let white = "9/9/9/9/9/9/3g1g3/9/4K4 w - 1";
        assert_eq!(kifu(white, &["6g5h"]), ["△５八金右"]);
        assert_eq!(kifu(white, &["4g5h"]), ["△５八金左"]);
    }

    #[test]
    fn squares_and_hands() {
        assert_eq!(square(sq("2d")), "２四");
        assert_eq!(square(sq("9i")), "９九");
        let h = Hand::EMPTY
            .add(PieceKind::Gold)
            .add(PieceKind::Gold)
            .add(PieceKind::Pawn)
            .add(PieceKind::Rook);
        assert_eq!(hand(h), "飛 金二 歩");
        assert_eq!(hand_sfen(h), "R2GP");
        assert_eq!(hand(Hand::EMPTY), "なし");
        assert_eq!(hand_sfen(Hand::EMPTY), "-");
    }
}
