#!/usr/bin/env python3
"""Builds of Kanju over a whole problem file at a node cap: what a search change does to
the work, problem by problem.

A change to the search's heuristics moves node counts up on some problems and down on
others, often by factors of two or three, so a handful of problems says little about it
(session 23: a disproof-number estimate that halved the nodes on eight chosen Edo problems
changed the whole set's total by 3 %). On one thread a build's node count repeats exactly
from run to run, so a sweep at a node cap is deterministic: it needs no repeats and no
quiet machine, and the whole Edo set takes about a minute per build on two cores.

Each build runs `kanju solve FILE --proof-only --threads 1 --nodes CAP --time none --jobs
2`. For each build the script prints how many problems were decided, the total and the
geometric mean of nodes (a problem not decided counts at the cap), and the seconds spent.
With two or more builds it compares each with the first: how many problems took fewer and
more nodes, and the biggest changes either way. Equal nodes on every problem mean the
search is unchanged, which is how a pure speed change shows that it is one.

usage: scripts/sweep.py OLD_KANJU [NEW_KANJU ...] [--file PROBLEMS.jsonl] [--nodes 6000000]
                        [--hash 1024] [--jobs 2] [--show 8]
"""
import argparse
import json
import math
import subprocess

import problemfile


def sweep(kanju, a):
    """The results of one build, by problem name (or line number)."""
    out = subprocess.run(
        [kanju, "solve", a.file, "--proof-only", "--quiet", "--threads", "1", "--hash",
         str(a.hash), "--nodes", str(a.nodes), "--time", "none", "--jobs", str(a.jobs)],
        capture_output=True, text=True).stdout
    results = {}
    for line in out.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            results[r.get("name") or r["line"]] = r
    return results


def decided(r):
    return r.get("result") in ("mate", "nomate")


def work(r, cap):
    """Nodes to a decision; a problem not decided counts at the cap."""
    return r.get("nodes", 0) if decided(r) else max(r.get("nodes", 0), cap)


def summary(kanju, results, cap):
    nodes = [work(r, cap) for r in results.values()]
    geo = math.exp(sum(math.log(max(n, 1)) for n in nodes) / max(len(nodes), 1))
    seconds = sum(r.get("time_ms", 0) for r in results.values()) / 1000
    done = sum(decided(r) for r in results.values())
    print(f"{kanju}: {done}/{len(results)} decided, nodes {sum(nodes) / 1e6:.1f} M, "
          f"geometric mean {geo:,.0f}, {seconds:.0f} s")


def compare(base, other, cap, show):
    names = [n for n in base if n in other]
    ratio = {n: work(other[n], cap) / max(work(base[n], cap), 1) for n in names}
    fewer = sum(r < 1 for r in ratio.values())
    more = sum(r > 1 for r in ratio.values())
    print(f"  against the first: fewer nodes on {fewer}, more on {more}, "
          f"equal on {len(names) - fewer - more}")
    down = sorted((n for n in names if ratio[n] < 1), key=lambda n: ratio[n])[:show]
    up = sorted((n for n in names if ratio[n] > 1), key=lambda n: -ratio[n])[:show]
    for n in down + up:
        print(f"    {n}: {work(base[n], cap):,} -> {work(other[n], cap):,} ({ratio[n]:.2f}x)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--file", default=str(problemfile.EDO))
    ap.add_argument("--nodes", type=int, default=6_000_000)
    ap.add_argument("--hash", type=int, default=1024)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=8, help="biggest changes shown each way")
    a = ap.parse_args()
    base = None
    for kanju in a.builds:
        results = sweep(kanju, a)
        summary(kanju, results, a.nodes)
        if base is None:
            base = results
        else:
            compare(base, results, a.nodes, a.show)


if __name__ == "__main__":
    main()
