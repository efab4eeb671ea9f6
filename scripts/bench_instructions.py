#!/usr/bin/env python3
"""Instructions per node of Kanju builds at equal work, counted by valgrind.

Timings on these machines drift by 10-30 % from run to run, so a change to the node's
cost below about a tenth cannot be seen in them. The instructions a build executes for a
fixed number of nodes on one thread repeat exactly, and where the node is bound by
computation rather than memory (see docs/performance.md) they follow its time. Each build
runs `kanju solve SFEN --proof-only --nodes N` under `valgrind --tool=callgrind` (about 50
times slower than natively) on each named problem; the script prints instructions per
node and each build's ratio to the first. A run that reaches the cap searches as many
nodes in every build, but not necessarily the same ones: check that a change leaves the
search alone with `sweep.py` (equal nodes on every problem) before reading the counts as
the node's cost. A problem decided before the cap is flagged when the builds' node counts
differ.

usage: scripts/bench_instructions.py OLD_KANJU NEW_KANJU [...]
                                     [--names zukou-091,zukou-008] [--nodes 150000]
                                     [--file PROBLEMS.jsonl] [--hash 64]
"""
import argparse
import json
import re
import subprocess
import sys

import problemfile


def count(kanju, sfen, nodes, hash_mb):
    """(instructions, nodes searched) for one run under callgrind."""
    cmd = [kanju, "solve", sfen, "--proof-only", "--json", "--quiet", "--threads", "1",
           "--hash", str(hash_mb), "--nodes", str(nodes), "--time", "none"]
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        capture_output=True, text=True, check=True)
    m = re.search(r"Collected : (\d+)", out.stderr)
    if not m:
        sys.exit(f"no instruction count from valgrind:\n{out.stderr[-2000:]}")
    return int(m.group(1)), json.loads(out.stdout)["nodes"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--names", default="zukou-091,zukou-008")
    ap.add_argument("--nodes", type=int, default=150_000)
    ap.add_argument("--hash", type=int, default=64)
    ap.add_argument("--file", default=str(problemfile.EDO))
    args = ap.parse_args()
    problems = problemfile.by_name(args.file)
    totals = [0] * len(args.builds)
    for name in args.names.split(","):
        sfen = problems[name]["sfen"]
        row = [count(b, sfen, args.nodes, args.hash) for b in args.builds]
        if len({n for _, n in row}) > 1:
            print(f"{name}: the builds searched different nodes: {[n for _, n in row]}")
        cells = []
        for i, (ins, n) in enumerate(row):
            totals[i] += ins
            cells.append(f"{ins / n:,.0f} ({ins / row[0][0]:.3f})")
        print(f"{name}: instructions per node " + " | ".join(cells))
    print("total: " + " | ".join(f"{b} {t / totals[0]:.3f}"
                                 for b, t in zip(args.builds, totals)))


if __name__ == "__main__":
    main()
