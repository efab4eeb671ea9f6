#!/usr/bin/env python3
"""Drive Kanju through cshogi's USI client over a problem file and print the results.

This is what a script author would write: cshogi.usi.Engine starts the engine, sets
options, and asks `go mate` for each problem. Each answer is replayed with cshogi
(an independent rules implementation) before it is counted.

Needs: pip install cshogi
Usage:
  scripts/usi_client.py [--engine target/release/kanju]
                        [--problems ../shared/problems/tsume_short_tests.jsonl]
                        [--time-ms 5000] [--hash 256] [--threads 1] [--limit N]
"""
import argparse
import json
import os
import sys
import time

try:
    import cshogi
    import cshogi.usi
except ImportError:
    sys.exit("needs cshogi: pip install cshogi")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def replay(sfen, moves):
    """'mate', 'mate?' (ends in check with only interpositions left), or why it is wrong."""
    b = cshogi.Board(sfen)
    attacker = b.turn
    for i, usi in enumerate(moves):
        m = b.move_from_usi(usi)
        if m == 0 or not b.is_legal(m):
            return f"illegal move {usi} at ply {i + 1}"
        b.push(m)
        if b.turn != attacker and not b.is_check():
            return f"{usi} at ply {i + 1} is not a check"
    if b.turn == attacker or not b.is_check():
        return "does not end in check"
    if not any(True for _ in b.legal_moves):
        return "mate"
    # Futile interpositions are left out of tsume main lines; the judge checks them fully.
    return "mate?"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=os.path.join(ROOT, "target", "release", "kanju"))
    ap.add_argument("--problems", default=os.path.join(ROOT, "..", "shared", "problems", "tsume_short_tests.jsonl"))
    ap.add_argument("--time-ms", type=int, default=5000)
    ap.add_argument("--hash", type=int, default=256)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()

    problems = []
    with open(args.problems, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                problems.append(json.loads(line))
    if args.limit:
        problems = problems[: args.limit]

    engine = cshogi.usi.Engine(args.engine)
    print(f"engine: {engine.name}")
    engine.setoption("USI_Hash", args.hash)
    engine.setoption("Threads", args.threads)
    engine.isready()
    engine.usinewgame()

    counts = {}
    print(f"{'name':45} {'expected':>8} {'answer':>10} {'plies':>5} {'ms':>7}  check")
    for p in problems:
        sfen = p["sfen"][5:] if p["sfen"].startswith("sfen ") else p["sfen"]
        engine.position(sfen="sfen " + sfen)
        t = time.monotonic()
        answer = engine.go_mate(byoyomi=args.time_ms).split()
        ms = (time.monotonic() - t) * 1000
        if answer[:1] in (["nomate"], ["timeout"]):
            kind, plies, check = answer[0], "", ""
        else:
            kind, plies, check = "mate", str(len(answer)), replay(sfen, answer)
        counts[kind] = counts.get(kind, 0) + 1
        expected = p.get("mate_plies")
        expected = "-" if expected is None else str(expected)
        print(f"{p['name'][:45]:45} {expected:>8} {kind:>10} {plies:>5} {ms:7.0f}  {check}")
    engine.quit()
    print(", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + f" of {len(problems)} problems")


if __name__ == "__main__":
    main()
