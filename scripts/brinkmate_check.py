#!/usr/bin/env python3
"""Checks `kanju brinkmate` answers with cshogi, an implementation Kanju shares no code with.

Runs `kanju brinkmate FILE --plies N` (or reads its JSON Lines with --results) and, for
every answer:
- brinkmate: the line is legal, its attacker moves are checks or leave a mate threat (a
  cshogi df-pn mate after a pass), the replies listed are exactly cshogi's legal moves at
  its end, and each reply's mate replays: every attacker move legal and checking, the
  end mate;
- mate: the line replays as a mate;
- each other first move Kanju reports (`alternatives`, one-move brinkmates here) is
  checked with cshogi's df-pn on every reply;
- a record's expected answer (`answer_usi`) that differs from Kanju's first move is
  itself checked as a one-move brinkmate the same way, and reported as an alternative
  when it is one.
No brinkmate and unknown are only counted: cshogi's df-pn gives no disproofs to compare.

    python3 scripts/brinkmate_check.py ../shared/problems/hisshi/hisshi.jsonl --plies 3
"""

import argparse
import json
import subprocess
import sys

import cshogi


def replay_mate(board, line):
    """Whether `line` from `board` is a mate: attacker checks, defender legal, mate."""
    attacker = board.turn
    pushed = 0
    ok = True
    for usi in line:
        move = board.move_from_usi(usi)
        if move == 0 or not board.is_legal(move):
            ok = False
            break
        mover = board.turn
        board.push(move)
        pushed += 1
        if mover == attacker and not board.is_check():
            ok = False
            break
    if ok:
        ok = board.turn != attacker and board.is_check() and board.is_game_over()
    for _ in range(pushed):
        board.pop()
    return ok


def dfpn_mates(board, nodes):
    """Whether cshogi's df-pn proves a mate for the side to move."""
    d = cshogi.DfPn()
    d.set_max_search_node(nodes)
    return d.search(board)


def threatens(board, usi, nodes):
    """Whether the quiet move `usi` leaves a mate after a pass (a threatmate)."""
    board.push_usi(usi)
    try:
        board.push_pass()
        try:
            return dfpn_mates(board, nodes)
        finally:
            board.pop_pass()
    finally:
        board.pop()


def check_brinkmate(sfen, moves, replies, nodes):
    """Problems with a reported brinkmate, as a list of strings (empty when sound)."""
    board = cshogi.Board(sfen)
    problems = []
    for i, usi in enumerate(moves):
        move = board.move_from_usi(usi)
        if move == 0 or not board.is_legal(move):
            return [f"illegal move {usi} at ply {i + 1}"]
        if i % 2 == 0:
            board.push(move)
            checks = board.is_check()
            board.pop()
            if not checks and not threatens(board, usi, nodes):
                problems.append(f"{usi} at ply {i + 1} is neither a check nor a threatmate")
        board.push(move)
    legal = sorted(cshogi.move_to_usi(m) for m in board.legal_moves)
    listed = sorted(r["reply"] for r in replies)
    if legal != listed:
        problems.append(f"replies listed {len(listed)}, legal {len(legal)}")
    for r in replies:
        board.push_usi(r["reply"])
        if not replay_mate(board, r["mate"]):
            problems.append(f"the mate after {r['reply']} does not replay")
        board.pop()
    return problems


def book_answer_is_brinkmate(sfen, answer, nodes):
    """Whether every reply to `answer` is mated by cshogi's df-pn: True, False or None."""
    board = cshogi.Board(sfen)
    move = board.move_from_usi(answer)
    if move == 0 or not board.is_legal(move):
        return False
    board.push(move)
    for reply in list(board.legal_moves):
        board.push(reply)
        mated = dfpn_mates(board, nodes)
        board.pop()
        if not mated:
            return None
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("problems", help="a JSON Lines file of positions (the hisshi files)")
    ap.add_argument("--kanju", default="target/release/kanju")
    ap.add_argument("--plies", type=int, default=1)
    ap.add_argument("--time", default="60s")
    ap.add_argument("--results", help="Kanju's JSON Lines, instead of running it")
    ap.add_argument("--nodes", type=int, default=1_000_000, help="cshogi df-pn nodes a test")
    a = ap.parse_args()

    if a.results:
        with open(a.results, encoding="utf-8") as f:
            lines = f.read().splitlines()
    else:
        cmd = [a.kanju, "brinkmate", a.problems, "--plies", str(a.plies), "--time", a.time,
               "--quiet"]
        lines = subprocess.run(cmd, capture_output=True, text=True, check=False).stdout.splitlines()

    counts = {}
    unsound = 0
    for text in lines:
        r = json.loads(text)
        name = r.get("name", f"line {r['line']}")
        result = r["result"]
        counts[result] = counts.get(result, 0) + 1
        note = ""
        if result == "brinkmate":
            problems = check_brinkmate(r["sfen"], r["moves"], r["replies"], a.nodes)
            if problems:
                unsound += 1
                note = "UNSOUND: " + "; ".join(problems)
            else:
                note = f"replayed, {len(r['replies'])} replies"
        elif result == "mate":
            board = cshogi.Board(r["sfen"])
            if replay_mate(board, r["moves"]):
                note = "replayed"
            else:
                unsound += 1
                note = "UNSOUND: the mate does not replay"
        if result == "brinkmate" and len(r["moves"]) == 1:
            for alt in r.get("alternatives", []):
                if book_answer_is_brinkmate(r["sfen"], alt, a.nodes) is not True:
                    unsound += 1
                    note += f"; UNSOUND: the alternative {alt} is not confirmed by cshogi"
            if r.get("alternatives"):
                note += f"; alternatives {' '.join(r['alternatives'])}"
        expected = r.get("expected")
        first = (r.get("moves") or [None])[0]
        if expected and first and expected != first and result == "brinkmate":
            verdict = book_answer_is_brinkmate(r["sfen"], expected, a.nodes)
            note += {True: f"; the book's {expected} is a brinkmate too (an alternative)",
                     False: f"; the book's {expected} is not legal",
                     None: f"; the book's {expected} not confirmed by cshogi"}[verdict]
        print(f"{name:48} {result:12} {' '.join(r.get('moves') or []):24} "
              f"{r['time_ms'] / 1000:7.2f} s  {note}")
    summary = ", ".join(f"{n} {w}" for w, n in sorted(counts.items()))
    print(f"\n{summary}; {unsound} unsound")
    sys.exit(1 if unsound else 0)


if __name__ == "__main__":
    main()
