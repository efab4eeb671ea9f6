#!/usr/bin/env python3
"""Kanju against cshogi's OSL df-pn, problem by problem, in one run.

For each problem, Kanju (`kanju solve --proof-only --json`) and then OSL's df-pn each get
the same wall-clock limit; the two never run at once. OSL ignores its stop flag on long
problems, so it runs in a child process that is killed at the limit. Every mate either
solver claims is replayed with cshogi: each attacker move legal and checking, the end
mate. OSL cannot tell a disproof from a search it gave up, so its "no" is reported as such.

Prints one line per problem and a summary (proven, median and total time of the proofs),
and with --json writes the records.

usage: scripts/bench_peer.py [--file PROBLEMS.jsonl] [--time 600] [--threads 2]
                             [--hash 4096] [--first N] [--skip N] [--kanju PATH] [--json OUT]
"""
import argparse
import json
import statistics
import subprocess
import sys
import time

import cshogi

import problemfile
from usi_client import replay

OSL_CHILD = r"""
import sys, cshogi
b = cshogi.Board(sys.argv[1])
s = cshogi.OslDfPn()
s.set_max_search_node(2**31 - 1)
found = s.search(b)
print(" ".join(cshogi.move_to_usi(m) for m in s.get_pv(b)) if found else "no", flush=True)
"""


def run_kanju(a, sfen):
    cmd = [a.kanju, "solve", sfen, "--proof-only", "--json", "--quiet",
           "--time", f"{a.time}s", "--threads", str(a.threads), "--hash", str(a.hash)]
    t0 = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=a.time + 60).stdout
    secs = time.time() - t0
    rec = json.loads(out.strip().splitlines()[-1])
    moves = rec.get("moves", [])
    if rec.get("result") == "mate":
        verdict = "mate" if replay(sfen, moves) == "mate" else "BAD-MATE"
    else:
        verdict = rec.get("result", "error")
    return verdict, rec.get("decided_ms", secs * 1000) / 1000, len(moves), rec.get("nodes")


def run_osl(a, sfen):
    t0 = time.time()
    try:
        out = subprocess.run([sys.executable, "-c", OSL_CHILD, sfen], capture_output=True,
                             text=True, timeout=a.time).stdout.strip()
    except subprocess.TimeoutExpired:
        return "timeout", time.time() - t0, 0
    secs = time.time() - t0
    if out == "no" or not out:
        return "no (gave up or disproved)", secs, 0
    moves = out.split()
    return ("mate" if replay(sfen, moves) == "mate" else "BAD-MATE"), secs, len(moves)


def main():
    ap = argparse.ArgumentParser()
    problemfile.add_file_and_engine(ap)
    ap.add_argument("--time", type=float, default=600)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hash", type=int, default=4096)
    ap.add_argument("--first", type=int)
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--json")
    a = ap.parse_args()
    problems = problemfile.read(a.file)[a.skip:]
    if a.first:
        problems = problems[:a.first]
    rows = []
    for p in problems:
        kv, kt, kn, knodes = run_kanju(a, p["sfen"])
        ov, ot, on = run_osl(a, p["sfen"])
        rows.append(dict(name=p["name"], expected=p.get("mate_plies"), kanju=kv,
                         kanju_s=round(kt, 3), kanju_plies=kn, kanju_nodes=knodes,
                         osl=ov, osl_s=round(ot, 3), osl_plies=on))
        print(f"{p['name'][:34]:<34} kanju {kv:<8} {kt:8.2f}s {kn:>5}p   "
              f"osl {ov:<8} {ot:8.2f}s {on:>5}p", flush=True)
    for who in ("kanju", "osl"):
        times = [r[f"{who}_s"] for r in rows if r[who] == "mate"]
        nomate = sum(r[who] == "nomate" for r in rows)
        bad = sum(r[who] == "BAD-MATE" for r in rows)
        med = statistics.median(times) if times else 0
        print(f"{who}: {len(times)}/{len(rows)} proven (verified), {nomate} nomate, "
              f"{bad} bad mates; proofs median {med:.2f}s total {sum(times):.1f}s")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
