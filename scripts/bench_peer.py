#!/usr/bin/env python3
"""Kanju against cshogi's OSL df-pn, problem by problem, in one run.

Kanju (`kanju solve FILE --proof-only`, one process for all the problems, as a GUI keeps
one engine) and then OSL's df-pn get the same wall-clock limit per problem; the two never
run at once. OSL ignores its stop flag on long problems, so it runs in a child process per
problem that is killed at the limit. Every mate either
solver claims is replayed with cshogi: each attacker move legal and checking, the end
mate. OSL cannot tell a disproof from a search it gave up, so its "no" is reported as such.

Prints one line per problem (verdict, time, plies, nodes and nodes/s of each solver) and a
summary (proven, median and total time of the proofs, median nodes/s over the problems
both proved), and with --json writes the records.

Kanju counts a node per visit of its search. Solvers built on YaneuraOu, KomoringHeights
among them, count one per move made on a board, and a Kanju node makes several: the
descent into the child, a move for each new child of a defender node (its mate in one is
tried) and one for each new check (its replies are counted). So Kanju's line also gives
its moves made per second ("moves/s"), read off its debug log, with the share of them
made for the checks' estimates, which KomoringHeights works out without a move.

--speed runs the fixed speed set instead of a file: Edo problems that both solvers prove
in seconds to a minute on this machine class, one thread each unless --threads says
otherwise. Its nodes/s are the project's node-rate figure.

--osl-only leaves Kanju out, and --resume FILE appends each problem's record to FILE (JSON
Lines) as it finishes and skips the problems already there. Together they split a run
longer than one sitting, such as OSL on the long problems at 600 s each (about 9 hours),
into parts; the summary then covers the whole file.

usage: scripts/bench_peer.py [--file PROBLEMS.jsonl] [--time 600] [--threads 2]
                             [--hash 4096] [--first N] [--skip N] [--kanju PATH] [--json OUT]
                             [--osl-only] [--resume RECORDS.jsonl]
       scripts/bench_peer.py --speed [--time 60] [--threads 1]
"""
import os
import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
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
print(s.searched_node, flush=True)
print(" ".join(cshogi.move_to_usi(m) for m in s.get_pv(b)) if found else "no", flush=True)
"""

# The speed set: Edo problems of a few seconds to a minute for both solvers, so that node
# rates are measured on real search rather than on start-up or on a timeout.
SPEED_SET = ["zukou-001", "zukou-017", "zukou-023", "zukou-031", "zukou-090", "zukou-091",
             "zukou-099", "zukou-100", "musou-010", "musou-030", "musou-067"]


PROOF_LOG = re.compile(r"proof search: (\d+) nodes, (\d+) moves made \((\d+) to estimate")


def run_kanju(a, problems):
    """Each problem's verdict, proof time, plies and nodes, and the moves made with the
    share made for estimates (None if the log line is missing), by name. One process
    solves them all in turn (`kanju solve FILE`), each from an empty table, as a GUI's
    engine keeps its table: on this machine class, a Firecracker guest, memory just
    allocated can run at half speed for seconds (docs/performance.md, session 52), and a
    process per problem put that into every rate."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "problems.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for p in problems:
                f.write(json.dumps({"name": p["name"], "sfen": p["sfen"]}) + "\n")
        cmd = [a.kanju, "solve", path, "--proof-only", "--quiet", "--time", f"{a.time}s",
               "--threads", str(a.threads), "--hash", str(a.hash)]
        env = dict(os.environ, RUST_LOG="kanju_tsume::solve=debug")
        done = subprocess.run(cmd, capture_output=True, text=True, env=env,
                              timeout=(a.time + 60) * len(problems) + 60)
    recs = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    logs = PROOF_LOG.findall(done.stderr)
    # One proof search is logged per problem solved, in order; if not, no moves at all.
    if len(logs) != len(recs):
        logs = [None] * len(recs)
    out = {}
    for p, rec, log in zip(problems, recs, logs):
        moves = (int(log[1]), int(log[2]) / max(int(log[1]), 1)) if log else (None, None)
        line = rec.get("moves", [])
        if rec.get("result") == "mate":
            verdict = "mate" if replay(p["sfen"], line) == "mate" else "BAD-MATE"
        else:
            verdict = rec.get("result", "error")
        secs = rec.get("decided_ms", rec.get("time_ms", 0)) / 1000
        out[p["name"]] = (verdict, secs, len(line), rec.get("nodes"), *moves)
    return out


def run_osl(a, sfen):
    t0 = time.time()
    try:
        out = subprocess.run([sys.executable, "-c", OSL_CHILD, sfen], capture_output=True,
                             text=True, timeout=a.time).stdout.strip()
    except subprocess.TimeoutExpired:
        return "timeout", time.time() - t0, 0, None
    secs = time.time() - t0
    lines = out.splitlines()
    nodes = int(lines[0]) if lines and lines[0].isdigit() else None
    pv = lines[1] if len(lines) > 1 else ""
    if pv == "no" or not pv:
        return "no (gave up or disproved)", secs, 0, nodes
    moves = pv.split()
    return ("mate" if replay(sfen, moves) == "mate" else "BAD-MATE"), secs, len(moves), nodes


def nps(nodes, secs):
    return nodes / secs if nodes and secs > 0 else None


def rate(v):
    return f"{v / 1000:7.0f}k/s" if v else "      -  "


def main():
    ap = argparse.ArgumentParser()
    problemfile.add_file_and_engine(ap)
    ap.add_argument("--speed", action="store_true", help="the fixed speed set (see above)")
    ap.add_argument("--time", type=float)
    ap.add_argument("--threads", type=int)
    ap.add_argument("--hash", type=int, default=4096)
    ap.add_argument("--first", type=int)
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--json")
    ap.add_argument("--osl-only", action="store_true", help="leave Kanju out")
    ap.add_argument("--resume", help="JSON Lines of finished problems: skip them, append")
    a = ap.parse_args()
    if a.time is None:
        a.time = 60 if a.speed else 600
    if a.threads is None:
        a.threads = 1 if a.speed else 2
    problems = problemfile.read(a.file)[a.skip:]
    if a.speed:
        problems = [p for p in problems if p["name"] in SPEED_SET]
    kanju = "Kanju left out" if a.osl_only else f"Kanju {a.threads} thread(s), hash {a.hash} MiB"
    print(f"{len(problems)} problems, {a.time:g} s each, {kanju}; OSL one thread", flush=True)
    if a.first:
        problems = problems[:a.first]
    rows = []
    if a.resume and os.path.exists(a.resume):
        with open(a.resume, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    done = {r["name"] for r in rows}
    problems = [p for p in problems if p["name"] not in done]
    # With --resume each problem is saved as it finishes, so each gets its own process:
    # over the long problems' minutes, fresh memory's slower first seconds do not count.
    groups = [[p] for p in problems] if a.resume else [problems]
    for group in groups:
        run_group(a, group, rows)
    report(a, rows)


def run_group(a, problems, rows):
    """Runs Kanju over `problems` in one process, then OSL on each, and adds their rows."""
    kanju_runs = {} if a.osl_only or not problems else run_kanju(a, problems)
    for p in problems:
        # A problem the Kanju process left no answer for (it died on the way) is an error,
        # not a problem left out.
        missing = "-" if a.osl_only else "error"
        kv, kt, kn, knodes, kmoves, kest = kanju_runs.get(
            p["name"], (missing, 0.0, 0, None, None, None))
        ov, ot, on, onodes = run_osl(a, p["sfen"])
        rows.append(dict(name=p["name"], expected=p.get("mate_plies"), kanju=kv,
                         kanju_s=round(kt, 3), kanju_plies=kn, kanju_nodes=knodes,
                         kanju_nps=nps(knodes, kt), kanju_moves=kmoves,
                         kanju_moves_per_s=nps(kmoves, kt), kanju_estimate_share=kest, osl=ov, osl_s=round(ot, 3),
                         osl_plies=on, osl_nodes=onodes, osl_nps=nps(onodes, ot)))
        r = rows[-1]
        if a.resume:
            with open(a.resume, "a", encoding="utf-8") as f:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        moves = f" {rate(r['kanju_moves_per_s'])} moves" if kmoves else ""
        print(f"{p['name'][:34]:<34} kanju {kv:<8} {kt:8.2f}s {kn:>5}p {rate(r['kanju_nps'])}"
              f"{moves}   osl {ov:<8} {ot:8.2f}s {on:>5}p {rate(r['osl_nps'])}", flush=True)


def report(a, rows):
    """The summary of `rows`, and the --json file."""
    for who in ("osl",) if a.osl_only else ("kanju", "osl"):
        times = [r[f"{who}_s"] for r in rows if r[who] == "mate"]
        nomate = sum(r[who] == "nomate" for r in rows)
        bad = sum(r[who] == "BAD-MATE" for r in rows)
        med = statistics.median(times) if times else 0
        both = [r[f"{who}_nps"] for r in rows
                if r["kanju"] == "mate" and r["osl"] == "mate" and r[f"{who}_nps"]]
        med_nps = f"{statistics.median(both) / 1000:.0f}k nodes/s" if both else "-"
        print(f"{who}: {len(times)}/{len(rows)} proven (verified), {nomate} nomate, "
              f"{bad} bad mates; proofs median {med:.2f}s total {sum(times):.1f}s; "
              f"median rate where both proved {med_nps}")
        if who == "kanju":
            mv = [r for r in rows if r["kanju"] == "mate" and r["osl"] == "mate"
                  and r.get("kanju_moves_per_s")]
            if mv:
                per_s = statistics.median(r["kanju_moves_per_s"] for r in mv)
                rest = statistics.median(r["kanju_moves_per_s"] * (1 - r["kanju_estimate_share"])
                                         for r in mv)
                print(f"kanju: median moves made where both proved {per_s / 1000:.0f}k/s; "
                      f"without those for the checks' estimates {rest / 1000:.0f}k/s")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
