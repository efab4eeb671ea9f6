#!/usr/bin/env python3
"""Where does Kanju's main line part from a problem's published solution, and which side
of the fork is longer?

For each named problem: solve it, find the first ply where Kanju's line and the published
solution differ, then solve the position after each side's move at that ply and print the
lengths. A defender ply where the published move is mated sooner than Kanju's is a
published defence that is not the longest (a longer variation, 変長); an attacker ply
where Kanju's move mates sooner is a shorter mate the solution missed; a fork on an
interposition points at the futile-drop rule.

usage: scripts/explain_length.py NAME... [--time 30s] [--file PROBLEMS.jsonl]
                                 [--kanju target/release/kanju]
"""
import argparse
import json
import subprocess
import sys

import problemfile


def solve(kanju, sfen, moves, time, defender_root=False):
    """Kanju's JSON answer for `sfen` after `moves` (the defender to move if asked)."""
    pos = sfen + (" moves " + " ".join(moves) if moves else "")
    out = subprocess.run(
        [kanju, "solve", "-", "--time", time] + problemfile.CLASSICAL_RULES
        + (["--defender-root"] if defender_root else []),
        input=pos + "\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.splitlines()[0])


def describe(ans, base):
    if ans.get("result") != "mate":
        return ans.get("result", "?")
    exact = "exact" if ans.get("length_exact") else "not proven"
    return f"{base + ans['length']} plies in all ({exact})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="+")
    ap.add_argument("--time", default="30s")
    problemfile.add_file_and_engine(ap)
    a = ap.parse_args()
    problems = problemfile.by_name(a.file)
    for name in a.names:
        p = problems.get(name)
        if p is None:
            print(f"{name}: not in {a.file}", file=sys.stderr)
            continue
        pub = p["solution"]
        ans = solve(a.kanju, p["sfen"], [], a.time)
        ours = ans.get("moves", [])
        print(f"== {name}: published {len(pub)}, anchors {p.get('anchor_lengths')}, "
              f"Kanju {describe(ans, 0)}")
        k = next((i for i, (x, y) in enumerate(zip(pub, ours)) if x != y), None)
        if k is None:
            print("   the lines agree as far as the shorter one goes")
            continue
        side = "attacker" if k % 2 == 0 else "defender"
        print(f"   first difference at ply {k + 1} ({side}): "
              f"published {pub[k]}, Kanju {ours[k]}")
        print(f"   common prefix: {' '.join(pub[:k])}")
        for who, mv in (("published", pub[k]), ("Kanju", ours[k])):
            after = solve(a.kanju, p["sfen"], pub[:k] + [mv], a.time, side == "attacker")
            print(f"   after the {who} move {mv}: {describe(after, k + 1)}")


if __name__ == "__main__":
    main()
