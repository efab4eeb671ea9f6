#!/usr/bin/env python3
"""Two or more Kanju builds on the same problems in the same run: the search for cooks.

Each run is a whole solve under the classical rules (as the Edo problems are judged),
with the main line's debug log on. What it prints for each run is the time from the
verified line to the end of the search for cooks (the log's `verified` and `cooks done`
lines), the whole solve's time, and how many cooks were found and how many alternatives
were left undecided: a faster search for cooks must find the same cooks and leave about
as many undecided. Builds alternate within each round, so the machine's drift falls on
all of them alike; compare the sums of medians.

usage: scripts/bench_cooks.py OLD_KANJU NEW_KANJU [...] --names zukou-029,musou-035
                              [--file PROBLEMS.jsonl] [--threads 2] [--hash 1024]
                              [--time 60s] [--repeat 2]
"""
import argparse
import json
import os
import re
import statistics
import subprocess

import problemfile


def solve(kanju, sfen, threads, hash_mb, time):
    """(cooks seconds, whole seconds, cooks found, alternatives undecided), or None."""
    env = dict(os.environ, RUST_LOG="kanju_tsume::mainline=debug")
    p = subprocess.run(
        [kanju, "solve", sfen, *problemfile.CLASSICAL_RULES, "--json", "--threads",
         str(threads), "--hash", str(hash_mb), "--time", time],
        capture_output=True, text=True, env=env)
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    verified = re.search(r"mainline: verified \(([0-9.]+)s\)", p.stderr)
    done = re.search(r"mainline: cooks done \(([0-9.]+)s\)", p.stderr)
    if not lines or not verified or not done:
        return None
    d = json.loads(lines[-1])
    return (float(done.group(1)) - float(verified.group(1)), d["time_ms"] / 1000,
            len(d.get("cooks", [])), len(d.get("cooks_undecided", [])))


def main():
    ap = argparse.ArgumentParser()
    problemfile.add_build_comparison(ap, threads=2, hash_mb=1024, time="60s", repeat=2)
    a = ap.parse_args()
    problems = problemfile.by_name(a.file)
    names = a.names.split(",")
    runs = {(n, b): [] for n in names for b in a.builds}
    for r in range(a.repeat):
        for name in names:
            for b in a.builds:
                got = solve(b, problems[name]["sfen"], a.threads, a.hash, a.time)
                if got is None:
                    print(f"{name} round {r + 1} {b}: no line or no cooks logged", flush=True)
                    continue
                runs[(name, b)].append(got)
                print(f"{name} round {r + 1} {b}: cooks {got[0]:.2f} s, whole {got[1]:.2f} s, "
                      f"{got[2]} found, {got[3]} undecided", flush=True)
    print()
    cooks = {b: 0.0 for b in a.builds}
    whole = {b: 0.0 for b in a.builds}
    undecided = {b: 0 for b in a.builds}
    for name in names:
        cells = []
        for b in a.builds:
            rs = runs[(name, b)]
            if not rs:
                cells.append("-")
                continue
            c = statistics.median(x[0] for x in rs)
            w = statistics.median(x[1] for x in rs)
            cooks[b] += c
            whole[b] += w
            undecided[b] += sum(x[3] for x in rs)
            found = sorted({x[2] for x in rs})
            cells.append(f"cooks {c:.2f} s, whole {w:.2f} s, found {found}, "
                         f"undecided {[x[3] for x in rs]}")
        print(f"{name}: " + " | ".join(cells))
    for b in a.builds:
        print(f"{b}: sum of medians: cooks {cooks[b]:.1f} s, whole {whole[b]:.1f} s; "
              f"undecided over all runs {undecided[b]}")


if __name__ == "__main__":
    main()
