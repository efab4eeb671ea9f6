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

One thread's count repeats exactly, but it is one draw: the search's noise seed (`kanju
solve --seed`) gives other, equally sound searches, and on one problem their counts differ
by factors of two or three. Over the 200 Edo problems the geometric mean moved by -6 % to
+4 % between four seeds of one build (docs/performance.md, "How much a search's work is
chance"), so a change that moves it by less than that is not told from chance by one
seed. `--seeds 0,1,2` runs every build under each seed; a problem's work is then the
geometric mean over the seeds, and the summaries give each seed's figures and those
means. Seed 0 runs without `--seed`, so older builds can be compared at it.

usage: scripts/sweep.py OLD_KANJU [NEW_KANJU ...] [--file PROBLEMS.jsonl] [--nodes 6000000]
                        [--hash 1024] [--jobs 2] [--show 8] [--seeds 0]
"""
import argparse
import json
import math
import subprocess

import problemfile


def sweep(kanju, a, seed):
    """The results of one build under one seed, by problem name (or line number)."""
    seeded = ["--seed", str(seed)] if seed else []
    out = subprocess.run(
        [kanju, "solve", a.file, "--proof-only", "--quiet", "--threads", "1", "--hash",
         str(a.hash), "--nodes", str(a.nodes), "--time", "none", "--jobs", str(a.jobs),
         *seeded],
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


def geomean(xs):
    xs = list(xs)
    return math.exp(sum(math.log(max(x, 1)) for x in xs) / max(len(xs), 1))


def summary(label, results, cap):
    nodes = [work(r, cap) for r in results.values()]
    seconds = sum(r.get("time_ms", 0) for r in results.values()) / 1000
    done = sum(decided(r) for r in results.values())
    print(f"{label}: {done}/{len(results)} decided, nodes {sum(nodes) / 1e6:.1f} M, "
          f"geometric mean {geomean(nodes):,.0f}, {seconds:.0f} s")


def works(by_seed, cap):
    """Each problem's work: the geometric mean over the seeds that ran it."""
    names = set.intersection(*(set(r) for r in by_seed.values()))
    return {n: geomean(work(r[n], cap) for r in by_seed.values()) for n in names}


def spreads(by_seed, cap):
    """Each problem's largest work over its smallest, across the seeds."""
    names = set.intersection(*(set(r) for r in by_seed.values()))
    for n in names:
        counts = [work(r[n], cap) for r in by_seed.values()]
        yield max(counts) / max(min(counts), 1)


def compare(base, other, show):
    names = [n for n in base if n in other]
    ratio = {n: other[n] / max(base[n], 1) for n in names}
    fewer = sum(r < 1 for r in ratio.values())
    more = sum(r > 1 for r in ratio.values())
    print(f"  against the first: fewer nodes on {fewer}, more on {more}, "
          f"equal on {len(names) - fewer - more}")
    down = sorted((n for n in names if ratio[n] < 1), key=lambda n: ratio[n])[:show]
    up = sorted((n for n in names if ratio[n] > 1), key=lambda n: -ratio[n])[:show]
    for n in down + up:
        print(f"    {n}: {base[n]:,.0f} -> {other[n]:,.0f} ({ratio[n]:.2f}x)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--file", default=str(problemfile.EDO))
    ap.add_argument("--nodes", type=int, default=6_000_000)
    ap.add_argument("--hash", type=int, default=1024)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=8, help="biggest changes shown each way")
    ap.add_argument("--seeds", default="0", help="comma-separated search seeds")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    base = None
    for kanju in a.builds:
        by_seed = {}
        for seed in seeds:
            by_seed[seed] = sweep(kanju, a, seed)
            label = kanju if len(seeds) == 1 else f"{kanju} seed {seed}"
            summary(label, by_seed[seed], a.nodes)
        w = works(by_seed, a.nodes)
        if len(seeds) > 1:
            spread = sorted(spreads(by_seed, a.nodes))
            print(f"{kanju}, over seeds {a.seeds}: geometric mean {geomean(w.values()):,.0f}; "
                  f"a problem's largest count over its smallest: median "
                  f"{spread[len(spread) // 2]:.2f}, 90th percentile "
                  f"{spread[len(spread) * 9 // 10]:.2f}")
        if base is None:
            base = w
        else:
            compare(base, w, a.show)


if __name__ == "__main__":
    main()
