#!/usr/bin/env python3
"""Two or more Kanju builds on the same problems in the same run: time to first proof.

A change to the search is judged against the build before it, on one machine at one time:
these machines drift by 10-30 % from minute to minute, so figures from separate runs say
little. Each round runs every build once on a problem before the next round, so the drift
falls on all of them alike. A build is a `kanju` binary; keep the old one by copying it
out of target/ before building the new one.

Each run is `kanju solve SFEN --proof-only --json`: the time and nodes to the first
verified mate. With --main-line each run is the whole solve instead, main line included
(Classical and AnyLength rules, as the Edo problems are judged): the time to the answer,
all nodes, and the line's length, which two builds that differ in speed alone must agree on.
--default-rules runs the whole solve under Kanju's default rules (Strict, SameLength)
instead. On one thread a build's node count repeats exactly from run to run, so a
change in nodes is a change in the search and a change at equal nodes is speed alone.

usage: scripts/bench_ab.py OLD_KANJU NEW_KANJU [...] --names zukou-023,musou-030
                           [--file PROBLEMS.jsonl] [--threads 1] [--hash 2048]
                           [--time 120s] [--repeat 3] [--main-line [--default-rules]]
"""
import argparse
import json
import statistics
import subprocess

import problemfile


def proof(kanju, sfen, threads, hash_mb, time, main_line=False, default_rules=False):
    """(seconds, nodes, line) to the first verified mate, or to the answer with `main_line`;
    seconds are None if no mate came. `line` is the length, with "x" if shown exact."""
    if not main_line:
        mode = ["--proof-only"]
    elif default_rules:
        mode = []
    else:
        mode = ["--spare-rule", "classical", "--futile-rule", "any-length"]
    out = subprocess.run(
        [kanju, "solve", sfen, *mode, "--json", "--quiet", "--threads", str(threads),
         "--hash", str(hash_mb), "--time", time],
        capture_output=True, text=True).stdout
    lines = [l for l in out.splitlines() if l.startswith("{")]
    if not lines:
        return None, 0, ""
    d = json.loads(lines[-1])
    line = f"{d.get('length', '-')}{'x' if d.get('length_exact') else ''}"
    return (d["time_ms"] / 1000 if d.get("result") == "mate" else None), d.get("nodes", 0), line


def main():
    ap = argparse.ArgumentParser()
    problemfile.add_build_comparison(ap, threads=1, hash_mb=2048, time="120s", repeat=3)
    ap.add_argument("--main-line", action="store_true", help="time the whole solve")
    ap.add_argument("--default-rules", action="store_true",
                    help="with --main-line: Kanju's default rules, not the classical ones")
    a = ap.parse_args()
    problems = problemfile.by_name(a.file)
    names = a.names.split(",")
    runs = {(n, b): [] for n in names for b in a.builds}
    for name in names:
        for r in range(a.repeat):
            for b in a.builds:
                t, nodes, line = proof(b, problems[name]["sfen"], a.threads, a.hash, a.time,
                                       a.main_line, a.default_rules)
                runs[(name, b)].append((t, nodes))
                shown = f"{t:.2f} s" if t is not None else "no proof"
                print(f"{name} round {r + 1} {b}: {shown}, {nodes} nodes, line {line}",
                      flush=True)
    print()
    totals = {b: 0.0 for b in a.builds}
    for name in names:
        cells = []
        for b in a.builds:
            ts = [t if t is not None else float("inf") for t, _ in runs[(name, b)]]
            med = statistics.median(ts)
            totals[b] += med
            nodes = statistics.median(n for _, n in runs[(name, b)])
            cells.append(f"{med:.2f} s ({min(ts):.2f}-{max(ts):.2f}), {nodes / 1e6:.2f} M nodes")
        print(f"{name}: " + " | ".join(cells))
    print("sum of medians: " + " | ".join(f"{b} {totals[b]:.1f} s" for b in a.builds))


if __name__ == "__main__":
    main()
