//! Legal move generation: all moves, checks, evasions. Every generator yields only legal moves.
//!
//! In shogi a piece moves exactly where it attacks, so the generators are built from the
//! attack tables: a destination set per piece, cut by pins (a pinned piece stays on the line
//! to its king), then expanded into the promotion choices the mode allows.

use crate::attacks::{aligned, attacks_from, attacks_square, between, line_through, steps};
use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::types::{Color, Piece, PieceKind, Square};

/// Where a generator puts its moves: a list, or a count where only the number matters.
pub(crate) trait MoveSink {
    /// Takes one legal move.
    fn push(&mut self, m: Move);

    /// True once the sink needs no more moves: a generator may stop there. A list never
    /// has enough.
    #[inline(always)]
    fn has_enough(&self) -> bool {
        false
    }
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        MoveList::push(self, m)
    }
}

/// Which non-promotions a generator includes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum GenMode {
    /// The usual convention (YaneuraOu, cshogi, rsshogi): pawn, bishop and rook moves that
    /// could promote are generated only as promotions, and a lance reaching its second rank
    /// only promotes.
    #[default]
    Standard,
    /// Every legal move, including the non-promotions `Standard` leaves out. Tsume needs
    /// these: a piece that stays unpromoted can avoid, for instance, a pawn-drop mate.
    All,
}

/// Which promotion choices exist for `kind` of `color` moving `from` → `to`:
/// (promotion, non-promotion).
#[inline(always)]
fn promotion_choices(
    kind: PieceKind,
    color: Color,
    from: Square,
    to: Square,
    mode: GenMode,
) -> (bool, bool) {
    let zone = Bitboard::promotion_zone(color);
    if !kind.can_promote() || !(zone.contains(from) || zone.contains(to)) {
        return (false, true);
    }
    let rank = to.relative_rank(color);
    let all = mode == GenMode::All;
    let stay = match kind {
        PieceKind::Pawn => all && rank > 1,
        PieceKind::Lance => rank >= 3 || (all && rank == 2),
        PieceKind::Knight => rank >= 3,
        PieceKind::Silver => true,
        _ => all, // bishop, rook
    };
    (true, stay)
}

/// Squares where `color` may drop `kind` on an otherwise empty square, ignoring nifu.
#[inline(always)]
pub(crate) fn drop_zone(kind: PieceKind, color: Color) -> Bitboard {
    let far = |n: u8| match color {
        Color::Black => Bitboard::ranks(1, n),
        Color::White => Bitboard::ranks(10 - n, 9),
    };
    match kind {
        PieceKind::Pawn | PieceKind::Lance => !far(1),
        PieceKind::Knight => !far(2),
        _ => Bitboard::ALL,
    }
}

/// Files (as full-file masks) holding an unpromoted pawn of `color`: pawn drops are barred there.
#[inline(always)]
pub(crate) fn pawn_files(pos: &Position, color: Color) -> Bitboard {
    // Per 9-bit file: adding 0xff to the low eight bits carries into the ninth exactly when
    // one of them is set, so the ninth bit ends up "any pawn on this file"; then
    // 0x100 - 0x001 | 0x100 spreads it over the file. No carry crosses a file.
    const LOW8: u128 = {
        let mut m = 0u128;
        let mut f = 0;
        while f < 9 {
            m |= 0xffu128 << (f * 9);
            f += 1;
        }
        m
    };
    const TOP: u128 = LOW8 << 8 & !LOW8 & ((1u128 << 81) - 1);
    let pawns = pos.pieces_of(color, PieceKind::Pawn).bits();
    let any = (((pawns & LOW8) + LOW8) | pawns) & TOP;
    Bitboard((any - (any >> 8)) | any)
}

impl Position {
    /// All legal moves, standard convention.
    pub fn legal_moves(&self, list: &mut MoveList) {
        self.legal_moves_with(GenMode::Standard, list)
    }

    /// All legal moves in the given mode.
    pub fn legal_moves_with(&self, mode: GenMode, list: &mut MoveList) {
        if self.in_check() {
            return self.evasions(mode, list);
        }
        let us = self.side;
        let own = self.pieces(us);
        self.king_moves(!own, list);
        self.piece_moves(mode, !own, list);
        self.drops(!self.occupied(), list);
    }

    /// The legal moves of a side in check. Empty when the side to move is not in check.
    pub fn evasions(&self, mode: GenMode, list: &mut MoveList) {
        let Some(ksq) = self.king_square(self.side) else {
            return;
        };
        if !self.in_check() {
            return;
        }
        let own = self.pieces(self.side);
        self.king_moves(!own, list);
        if self.checkers.has_more_than_one() {
            return;
        }
        let checker = self.checkers.single();
        let block = between(ksq, checker);
        self.piece_moves_onto(mode, block | Bitboard::from_square(checker), list);
        self.drops(block, list);
    }

    /// The legal moves of the side to move that give check. Empty if the opponent has no king.
    pub fn checks(&self, mode: GenMode, list: &mut MoveList) {
        let us = self.side;
        let them = us.flip();
        let Some(ek) = self.king_square(them) else {
            return;
        };
        if self.in_check() {
            let mut evasions = MoveList::new();
            self.evasions(mode, &mut evasions);
            for &m in evasions.as_slice() {
                if self.gives_check(m) {
                    list.push(m);
                }
            }
            return;
        }
        let occ = self.occupied();
        let own = self.pieces(us);
        let our_king = self.king_square(us);
        let pinned = self.pinned(us);
        let discoverers = self.blockers(us, ek) & own;

        // check_sq[k]: squares from which a piece of ours of kind k attacks the enemy king.
        // Slider rays are walked only if we have that slider, on the board or in hand.
        let hand = self.hand(us);
        let mut check_sq = [Bitboard::EMPTY; 14];
        let gold = steps(them, PieceKind::Gold, ek);
        let king = steps(them, PieceKind::King, ek);
        let has = |kinds: &[PieceKind]| {
            kinds
                .iter()
                .any(|&k| self.pieces_of(us, k).is_nonempty() || hand.has(k))
        };
        let bishop = if has(&[PieceKind::Bishop, PieceKind::Horse]) {
            crate::attacks::bishop_attacks(ek, occ)
        } else {
            Bitboard::EMPTY
        };
        let rook = if has(&[PieceKind::Rook, PieceKind::Dragon]) {
            crate::attacks::rook_attacks(ek, occ)
        } else {
            Bitboard::EMPTY
        };
        if has(&[PieceKind::Lance]) {
            check_sq[PieceKind::Lance.index()] = crate::attacks::lance_attacks(them, ek, occ);
        }
        check_sq[PieceKind::Pawn.index()] = steps(them, PieceKind::Pawn, ek);
        check_sq[PieceKind::Knight.index()] = steps(them, PieceKind::Knight, ek);
        check_sq[PieceKind::Silver.index()] = steps(them, PieceKind::Silver, ek);
        check_sq[PieceKind::Bishop.index()] = bishop;
        check_sq[PieceKind::Rook.index()] = rook;
        check_sq[PieceKind::Horse.index()] = bishop | king;
        check_sq[PieceKind::Dragon.index()] = rook | king;
        for k in [
            PieceKind::Gold,
            PieceKind::ProPawn,
            PieceKind::ProLance,
            PieceKind::ProKnight,
            PieceKind::ProSilver,
        ] {
            check_sq[k.index()] = gold;
        }

        // Stepping pieces can only check from a few squares around the king; sliders and
        // pieces that uncover a slider can check from anywhere.
        let cand = |k: PieceKind| crate::attacks::check_candidates(us, k, ek);
        let golds = self.kind_bb(PieceKind::Gold)
            | self.kind_bb(PieceKind::ProPawn)
            | self.kind_bb(PieceKind::ProLance)
            | self.kind_bb(PieceKind::ProKnight)
            | self.kind_bb(PieceKind::ProSilver);
        let steppers = (self.kind_bb(PieceKind::Pawn) & cand(PieceKind::Pawn))
            | (self.kind_bb(PieceKind::Knight) & cand(PieceKind::Knight))
            | (self.kind_bb(PieceKind::Silver) & cand(PieceKind::Silver))
            | (golds & cand(PieceKind::Gold));
        let sliders = self.kind_bb(PieceKind::Lance)
            | self.kind_bb(PieceKind::Bishop)
            | self.kind_bb(PieceKind::Rook)
            | self.kind_bb(PieceKind::Horse)
            | self.kind_bb(PieceKind::Dragon);
        let movers =
            (steppers | sliders | discoverers) & own.and_not(self.kind_bb(PieceKind::King));
        for from in movers {
            let piece = self.board[from.index()].expect("own piece");
            let k = piece.kind();
            let mut targets = attacks_from(piece, from, occ).and_not(own);
            if pinned.contains(from) {
                if let Some(ksq) = our_king {
                    targets &= line_through(ksq, from);
                }
            }
            let discovering = discoverers.contains(from);
            let off_line = if discovering {
                !line_through(from, ek)
            } else {
                Bitboard::EMPTY
            };
            if !discovering {
                let mut reach = check_sq[k.index()];
                if k.can_promote() {
                    reach |= check_sq[k.promote().index()];
                }
                targets &= reach;
            }
            for to in targets {
                let (promote, stay) = promotion_choices(k, us, from, to, mode);
                let disc = off_line.contains(to);
                if stay && (disc || check_sq[k.index()].contains(to)) {
                    list.push(Move::normal(from, to, false));
                }
                if promote && (disc || check_sq[k.promote().index()].contains(to)) {
                    list.push(Move::normal(from, to, true));
                }
            }
        }

        // Our king can only check by discovery.
        if let Some(ksq) = our_king {
            if discoverers.contains(ksq) {
                let targets = steps(us, PieceKind::King, ksq)
                    .and_not(own)
                    .and_not(line_through(ksq, ek));
                let occ_wo = occ ^ Bitboard::from_square(ksq);
                for to in targets.and_not(self.attacked_around(them, ksq, targets, occ_wo)) {
                    list.push(Move::normal(ksq, to, false));
                }
            }
        }

        let empty = !occ;
        for k in hand.kinds() {
            let targets = check_sq[k.index()] & empty & drop_zone(k, us);
            if k == PieceKind::Pawn {
                for to in targets.and_not(pawn_files(self, us)) {
                    if !self.is_pawn_drop_mate(to) {
                        list.push(Move::drop(k, to));
                    }
                }
            } else {
                for to in targets {
                    list.push(Move::drop(k, to));
                }
            }
        }
    }

    /// Legal king moves to `target`.
    #[inline]
    pub(crate) fn king_moves<S: MoveSink>(&self, target: Bitboard, list: &mut S) {
        let us = self.side;
        let Some(ksq) = self.king_square(us) else {
            return;
        };
        let occ_wo = self.occupied() ^ Bitboard::from_square(ksq);
        let flights = steps(us, PieceKind::King, ksq) & target;
        for to in flights.and_not(self.attacked_around(us.flip(), ksq, flights, occ_wo)) {
            list.push(Move::normal(ksq, to, false));
        }
    }

    /// Legal moves of non-king pieces to `target` (pins respected).
    #[inline]
    pub(crate) fn piece_moves<S: MoveSink>(&self, mode: GenMode, target: Bitboard, list: &mut S) {
        let us = self.side;
        let occ = self.occupied();
        let our_king = self.king_square(us);
        let mut pinned = None;
        let movers = self.pieces(us).and_not(self.kind_bb(PieceKind::King));
        for from in movers {
            let piece = self.board[from.index()].expect("own piece");
            let mut targets = attacks_from(piece, from, occ) & target;
            if let Some(ksq) = our_king {
                // As in `piece_moves_onto`: the pins are looked for only when needed.
                if targets.is_nonempty()
                    && aligned(ksq).contains(from)
                    && pinned.get_or_insert_with(|| self.pinned(us)).contains(from)
                {
                    targets &= line_through(ksq, from);
                }
            }
            self.push_piece_moves(piece.kind(), from, targets, mode, list);
        }
    }

    /// Legal moves of non-king pieces onto the few squares of `target`, found backwards from
    /// each square: cheaper than walking every piece when only a check must be answered.
    #[inline]
    pub(crate) fn piece_moves_onto<S: MoveSink>(
        &self,
        mode: GenMode,
        target: Bitboard,
        list: &mut S,
    ) {
        let us = self.side;
        let occ = self.occupied();
        let Some(ksq) = self.king_square(us) else {
            return self.piece_moves(mode, target, list);
        };
        // Only a piece on a line through its king can be pinned: the pins are looked for
        // once such a piece is found, which most replies to a check never meet.
        let mut pinned = None;
        let not_king = !self.kind_bb(PieceKind::King);
        for to in target {
            for from in self.attackers_to_occ(us, to, occ) & not_king {
                if aligned(ksq).contains(from)
                    && pinned.get_or_insert_with(|| self.pinned(us)).contains(from)
                    && !line_through(ksq, from).contains(to)
                {
                    continue;
                }
                let k = self.board[from.index()].expect("own piece").kind();
                self.push_piece_moves(k, from, Bitboard::from_square(to), mode, list);
            }
        }
    }

    /// Expands one piece's destinations into moves with the promotion choices of `mode`.
    #[inline(always)]
    fn push_piece_moves<S: MoveSink>(
        &self,
        k: PieceKind,
        from: Square,
        targets: Bitboard,
        mode: GenMode,
        list: &mut S,
    ) {
        if targets.is_empty() {
            return;
        }
        let us = self.side;
        if !k.can_promote() {
            for to in targets {
                list.push(Move::normal(from, to, false));
            }
            return;
        }
        let zone = Bitboard::promotion_zone(us);
        let promoting = if zone.contains(from) {
            targets
        } else {
            targets & zone
        };
        for to in targets.and_not(promoting) {
            list.push(Move::normal(from, to, false));
        }
        for to in promoting {
            let (promote, stay) = promotion_choices(k, us, from, to, mode);
            if stay {
                list.push(Move::normal(from, to, false));
            }
            if promote {
                list.push(Move::normal(from, to, true));
            }
        }
    }

    /// Legal drops onto `target` (which must hold only empty squares).
    #[inline]
    pub(crate) fn drops<S: MoveSink>(&self, target: Bitboard, list: &mut S) {
        let us = self.side;
        let hand = self.hand(us);
        if hand.is_empty() || target.is_empty() {
            return;
        }
        // Silver, gold, bishop and rook drop anywhere: one pass over the squares pushes
        // them all, which matters with full hands (hundreds of drops).
        let mut anywhere = [PieceKind::Silver; 4];
        let mut n = 0;
        for k in [
            PieceKind::Silver,
            PieceKind::Gold,
            PieceKind::Bishop,
            PieceKind::Rook,
        ] {
            if hand.has(k) {
                anywhere[n] = k;
                n += 1;
            }
        }
        if n > 0 {
            let kinds = &anywhere[..n];
            for to in target {
                for &k in kinds {
                    list.push(Move::drop(k, to));
                }
                if list.has_enough() {
                    return;
                }
            }
        }
        for k in [PieceKind::Knight, PieceKind::Lance] {
            if hand.has(k) {
                for to in target & drop_zone(k, us) {
                    list.push(Move::drop(k, to));
                }
            }
        }
        if list.has_enough() {
            return;
        }
        if hand.has(PieceKind::Pawn) {
            let targets = (target & drop_zone(PieceKind::Pawn, us)).and_not(pawn_files(self, us));
            // Only the square in front of the enemy king can be a pawn-drop mate.
            let mate_sq = self
                .king_square(us.flip())
                .map(|ek| steps(us.flip(), PieceKind::Pawn, ek))
                .unwrap_or(Bitboard::EMPTY);
            for to in targets {
                if !(mate_sq.contains(to) && self.is_pawn_drop_mate(to)) {
                    list.push(Move::drop(PieceKind::Pawn, to));
                    if list.has_enough() {
                        return;
                    }
                }
            }
        }
    }

    /// True if dropping a pawn on `to` (which checks the enemy king) would mate: uchifuzume.
    pub(crate) fn is_pawn_drop_mate(&self, to: Square) -> bool {
        let us = self.side;
        let them = us.flip();
        let Some(ek) = self.king_square(them) else {
            return false;
        };
        if !steps(us, PieceKind::Pawn, to).contains(ek) {
            return false;
        }
        let occ = self.occupied() | Bitboard::from_square(to);
        // Cheapest refutations first: the king takes the pawn, or steps away.
        let occ_wo = occ ^ Bitboard::from_square(ek);
        let flights = steps(them, PieceKind::King, ek).and_not(self.pieces(them));
        if flights != self.attacked_around(us, ek, flights, occ_wo) {
            return false;
        }
        // Can a defender other than the king take the pawn? Pinned ones only along their line.
        let takers = self
            .attackers_to_occ(them, to, occ)
            .and_not(Bitboard::from_square(ek));
        if takers.is_empty() {
            return true;
        }
        let pinned = self.pinned(them);
        takers
            .iter()
            .all(|s| pinned.contains(s) && !line_through(ek, s).contains(to))
    }

    /// True if the side to move has at least one legal move.
    pub fn has_legal_move(&self) -> bool {
        if self.in_check() {
            return self.has_evasion();
        }
        let mut list = MoveList::new();
        self.legal_moves_with(GenMode::All, &mut list);
        !list.is_empty()
    }

    /// True if the side to move, in check, has a legal reply. Stops at the first one found.
    pub(crate) fn has_evasion(&self) -> bool {
        let us = self.side;
        let them = us.flip();
        let Some(ksq) = self.king_square(us) else {
            return true;
        };
        let occ = self.occupied();
        let own = self.pieces(us);
        let occ_wo = occ ^ Bitboard::from_square(ksq);
        let flights = steps(us, PieceKind::King, ksq).and_not(own);
        if flights != self.attacked_around(them, ksq, flights, occ_wo) {
            return true;
        }
        if self.checkers.has_more_than_one() {
            return false;
        }
        let checker = self.checkers.single();
        let pinned = self.pinned(us);
        let king_bb = Bitboard::from_square(ksq);
        // Every reachable square has some legal promotion choice, so reaching is enough.
        let can_reach = |sq: Square| {
            self.attackers_to_occ(us, sq, occ)
                .and_not(king_bb)
                .iter()
                .any(|s| !pinned.contains(s) || line_through(ksq, s).contains(sq))
        };
        if can_reach(checker) {
            return true;
        }
        let block = between(ksq, checker);
        if block.is_empty() {
            return false;
        }
        let hand = self.hand(us);
        for sq in block {
            if can_reach(sq) {
                return true;
            }
            for k in hand.kinds() {
                if !drop_zone(k, us).contains(sq) {
                    continue;
                }
                if k == PieceKind::Pawn
                    && (pawn_files(self, us).contains(sq) || self.is_pawn_drop_mate(sq))
                {
                    continue;
                }
                return true;
            }
        }
        false
    }

    /// True if `m` is legal here by the rules (any promotion choice the rules allow).
    pub fn is_legal(&self, m: Move) -> bool {
        let mut list = MoveList::new();
        self.legal_moves_with(GenMode::All, &mut list);
        list.contains(m)
    }

    /// True if the legal move `m` gives check.
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.side;
        let them = us.flip();
        let Some(ek) = self.king_square(them) else {
            return false;
        };
        let to = m.to();
        let to_bb = Bitboard::from_square(to);
        let (piece, occ) = match m.from() {
            None => {
                let k = m.drop_kind().expect("drop");
                (Piece::new(us, k), self.occupied() | to_bb)
            }
            Some(from) => {
                let p = self.board[from.index()].expect("moving piece");
                let k = if m.is_promotion() {
                    p.kind().promote()
                } else {
                    p.kind()
                };
                (
                    Piece::new(us, k),
                    (self.occupied() ^ Bitboard::from_square(from)) | to_bb,
                )
            }
        };
        if attacks_from(piece, to, occ).contains(ek) {
            return true;
        }
        let Some(from) = m.from() else { return false };
        // A discovered check comes along the line the moving piece left.
        let line = line_through(from, ek);
        if line.is_empty() || line.contains(to) {
            return false;
        }
        let rays = self.slider_attackers_occ(us, ek, occ) & line;
        rays.and_not(to_bb).is_nonempty()
    }

    /// Pieces of `color` attacking `sq` with the current occupancy.
    pub fn attackers_to(&self, color: Color, sq: Square) -> Bitboard {
        self.attackers_to_occ(color, sq, self.occupied())
    }

    /// Pieces of `color` pinned against `color`'s own king.
    pub fn pinned(&self, color: Color) -> Bitboard {
        match self.king_square(color) {
            Some(k) => self.blockers(color.flip(), k) & self.pieces(color),
            None => Bitboard::EMPTY,
        }
    }

    /// Makes the legal move `m` and returns the new position.
    ///
    /// Returning the position costs a second copy of it, which the compiler does not
    /// elide. The solver's hot loops clone into a local and call [`Position::do_move`]
    /// instead: 3 % of its instructions.
    #[inline]
    pub fn play(&self, m: Move) -> Position {
        let mut p = self.clone();
        p.do_move(m);
        p
    }

    /// This position with the side to move passing; `None` when it is in check, which a
    /// pass could not answer. Shogi has no pass: threat searches use it to ask what the
    /// opponent could do if this side played a harmless move (a threatmate, 詰めろ, is a
    /// move after which the opponent, passing, is mated).
    pub fn pass(&self) -> Option<Position> {
        if self.in_check() {
            return None;
        }
        let mut p = self.clone();
        p.side = p.side.flip();
        p.board_key ^= crate::zobrist::SIDE;
        p.ply += 1;
        // The side now to move moved last, so its own king cannot be attacked.
        p.refresh_checkers();
        Some(p)
    }

    /// Makes the legal move `m` in place.
    pub fn do_move(&mut self, m: Move) {
        let us = self.side;
        let to = m.to();
        match m.from() {
            None => {
                let k = m.drop_kind().expect("drop");
                self.remove_from_hand(us, k);
                self.put(to, Piece::new(us, k));
            }
            Some(from) => {
                if self.board[to.index()].is_some() {
                    let captured = self.take(to);
                    self.add_to_hand(us, captured.kind().unpromote());
                }
                let p = self.take(from);
                let k = if m.is_promotion() {
                    p.kind().promote()
                } else {
                    p.kind()
                };
                self.put(to, Piece::new(us, k));
            }
        }
        self.side = us.flip();
        self.board_key ^= crate::zobrist::SIDE;
        self.ply += 1;
        self.checkers = self.checks_given(us, m);
    }

    /// The pieces of `us` giving check right after `us` played `m`. The position before the
    /// move was legal, so the opponent was not in check then: a check now comes from the
    /// piece that moved, or from a slider whose line the vacated origin opened, and only an
    /// origin on a line through the king can open one.
    #[inline]
    fn checks_given(&self, us: Color, m: Move) -> Bitboard {
        let Some(ek) = self.kings[us.flip().index()] else {
            return Bitboard::EMPTY;
        };
        let to = m.to();
        let occ = self.occupied();
        let mover = self.board[to.index()].expect("the piece just moved");
        let mut out = if attacks_square(mover, to, ek, occ) {
            Bitboard::from_square(to)
        } else {
            Bitboard::EMPTY
        };
        if let Some(from) = m.from() {
            if aligned(ek).contains(from) {
                out |= self.slider_attackers_occ(us, ek, occ);
            }
        }
        out
    }
}
