#!/usr/bin/env python3
"""Whole solves of one problem file under several searches, checked against each other.

A length Kanju marks exact is a claim about the problem, not about the search that made
it: a proof of mate within L and a disproof of mate within L - 2, under one set of rules.
So every search that makes the claim must make the same one, whatever its thread count,
noise seed or table size. This script runs `kanju solve` over a file once per
configuration and reports each break of the claims that must hold between runs:
- two runs under the same rules marking different lengths exact;
- a length marked exact above a `length_bound` another run under those rules proved
  (a bound is a length the problem's is proven not to exceed);
- one run proving a mate and another answering nomate;
- a run that answered fewer problems than the file holds (it stopped early).

A run that does not finish in time claims nothing and breaks nothing. The runs are the
independent witnesses here; no published length is needed, so the check also covers
problems whose published length is disputed.

The default configurations: the collections' rules on one thread (two problems at a
time, seed 1), Kanju's default rules on one thread (seed 2), and the collections' rules
on two threads (seed 3).

usage: scripts/consistency.py [--file PROBLEMS.jsonl] [--time 20s] [--hash 1024]
                              [--kanju PATH] [--out DIR]
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

import problemfile

# (name, rules, extra arguments). Rules: a key of `problemfile.RULES`.
CONFIGS = [
    ("classical-1t", "classical", ["--threads", "1", "--jobs", "2", "--seed", "1"]),
    ("default-1t", "default", ["--threads", "1", "--jobs", "2", "--seed", "2"]),
    ("classical-2t", "classical", ["--threads", "2", "--jobs", "1", "--seed", "3"]),
]


def run(a, name, rules, extra):
    """The results of one configuration, by problem name (or line number)."""
    args = [a.kanju, "solve", a.file, "--quiet", "--time", a.time, "--hash", str(a.hash)]
    args += extra + problemfile.rule_args(rules)
    out = subprocess.run(args, capture_output=True, text=True, check=False).stdout
    if a.out:
        Path(a.out, f"{name}.jsonl").write_text(out, encoding="utf-8")
    results = {}
    for line in out.splitlines():
        d = json.loads(line)
        results[d.get("name") or d["line"]] = d
    return results


def breaks(runs):
    """Every claim two runs make that cannot both hold, as printable lines."""
    found = []
    problems = sorted({p for _, _, r in runs for p in r}, key=str)
    for p in problems:
        answers = [(name, rules, r[p]) for name, rules, r in runs if p in r]
        mates = [n for n, _, d in answers if d["result"] == "mate"]
        nomates = [n for n, _, d in answers if d["result"] == "nomate"]
        if mates and nomates:
            found.append(f"{p}: mate in {', '.join(mates)}, nomate in {', '.join(nomates)}")
        for rules in ("classical", "default"):
            same = [(n, d) for n, r, d in answers if r == rules and d["result"] == "mate"]
            exact = {n: d["length"] for n, d in same if d.get("length_exact")}
            if len(set(exact.values())) > 1:
                found.append(f"{p} ({rules}): exact lengths differ: {exact}")
            for n, d in same:
                bound = d.get("length_bound")
                for e, length in exact.items():
                    if bound is not None and length > bound:
                        found.append(f"{p} ({rules}): {e} exact {length} above {n}'s bound {bound}")
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    problemfile.add_file_and_engine(ap)
    ap.add_argument("--time", default="20s")
    ap.add_argument("--hash", type=int, default=1024)
    ap.add_argument("--out", help="a folder to keep each run's JSON Lines in")
    a = ap.parse_args()
    if a.out:
        Path(a.out).mkdir(parents=True, exist_ok=True)
    problems = len(problemfile.read(a.file))
    runs = []
    missing = []
    for name, rules, extra in CONFIGS:
        r = run(a, name, rules, extra)
        if len(r) < problems:
            # A run that stopped early would otherwise look like one that agrees.
            missing.append(f"{name}: {len(r)} answers for {problems} problems")
        mates = [d for d in r.values() if d["result"] == "mate"]
        exact = sum(1 for d in mates if d.get("length_exact"))
        print(f"{name}: {len(r)} answers, {len(mates)} mates, {exact} marked exact", flush=True)
        runs.append((name, rules, r))
    found = missing + breaks(runs)
    for line in found:
        print(line)
    print(f"{len(found)} breaks")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
