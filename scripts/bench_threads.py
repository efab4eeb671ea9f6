#!/usr/bin/env python3
"""Time to proof with 1 and with 2 search threads, on the same problems in the same run.

Drives the `kanju` binary over USI with `go mate`, and reads the first `info ... score
mate` line: the moment the df-pn proof is done and verified, before the main-line
refinement. Runs alternate between the thread counts, so load on the machine falls on
both alike. Prints each run, then per problem the median time and nodes/s for each thread
count and the speed-up, and the median speed-up over all problems.

One thread's search repeats exactly, but it is one of many equally sound searches: under
another noise seed (`kanju solve --seed`) the same problem can take a third of the nodes or
three times as many, and two threads are a draw from that spread, not a copy of seed 0's
search. With `--seeds K` each round also times one thread under seeds 0 to K-1 (through
`kanju solve --proof-only`), and the report adds the median over those searches and the
speed-up against it: what two threads gain over one thread's typical search rather than
over the one draw that seed 0 happens to be.

The names may come from several files: `--file A.jsonl,B.jsonl`.

usage: scripts/bench_threads.py NAME... [--file PROBLEMS.jsonl[,MORE.jsonl]] [--repeat 3]
                                [--limit-ms 120000] [--hash 4096] [--kanju PATH]
                                [--seeds 1]
"""
import argparse
import json
import statistics
import subprocess
import time

import problemfile


def time_to_proof(kanju, sfen, threads, hash_mb, limit_ms):
    """(ms, nodes) of the first mate the engine announces, or None."""
    p = subprocess.Popen([kanju], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
    send = lambda s: (p.stdin.write(s + "\n"), p.stdin.flush())
    for cmd in ("usi", f"setoption name USI_Hash value {hash_mb}",
                f"setoption name Threads value {threads}", "isready"):
        send(cmd)
    while p.stdout.readline().strip() != "readyok":
        pass
    send(f"position sfen {sfen}")
    send(f"go mate {limit_ms}")
    found = None
    for line in p.stdout:
        w = line.split()
        if w[:1] == ["info"] and "mate" in w and found is None:
            found = (int(w[w.index("time") + 1]), int(w[w.index("nodes") + 1]))
            send("stop")
        if w[:1] == ["checkmate"]:
            break
    send("quit")
    p.wait(timeout=10)
    return found


def seeded_proof(kanju, sfen, seed, hash_mb, limit_ms):
    """(ms, nodes) of one thread's proof under `seed`, through the command line."""
    out = subprocess.run(
        [kanju, "solve", sfen, "--proof-only", "--json", "--quiet", "--threads", "1",
         "--hash", str(hash_mb), "--time", f"{limit_ms}ms", "--seed", str(seed)],
        capture_output=True, text=True).stdout
    r = json.loads(out)
    return (round(r["time_ms"]), r["nodes"]) if r.get("result") == "mate" else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit-ms", type=int, default=120000)
    ap.add_argument("--hash", type=int, default=4096)
    ap.add_argument("--seeds", type=int, default=1,
                    help="also time one thread under seeds 0..K-1 each round")
    problemfile.add_file_and_engine(ap)
    a = ap.parse_args()
    problems = problemfile.by_name(a.file)
    ratios = []
    seeded_ratios = []
    for name in a.names:
        runs = {1: [], 2: []}
        seeded = []
        for _ in range(a.repeat):
            for t in (1, 2):
                r = time_to_proof(a.kanju, problems[name]["sfen"], t, a.hash, a.limit_ms)
                print(f"{name} threads {t}: {r}", flush=True)
                if r:
                    runs[t].append(r)
                time.sleep(0.5)
            for seed in range(a.seeds if a.seeds > 1 else 0):
                r = seeded_proof(a.kanju, problems[name]["sfen"], seed, a.hash, a.limit_ms)
                print(f"{name} threads 1 seed {seed}: {r}", flush=True)
                if r:
                    seeded.append(r)
        if not runs[1] or not runs[2]:
            print(f"{name}: not proven in every configuration")
            continue
        ms = {t: statistics.median(x[0] for x in runs[t]) for t in runs}
        nps = {t: statistics.median(x[1] * 1000 // max(x[0], 1) for x in runs[t]) for t in runs}
        ratio = ms[1] / max(ms[2], 1)
        ratios.append(ratio)
        print(f"== {name}: 1 thread {ms[1]:.0f} ms ({nps[1]} nodes/s), "
              f"2 threads {ms[2]:.0f} ms ({nps[2]} nodes/s), speed-up {ratio:.2f}x")
        if seeded:
            times = [x[0] for x in seeded]
            typical = statistics.median(times)
            seeded_ratios.append(typical / max(ms[2], 1))
            print(f"   1 thread over {a.seeds} seeds: median {typical:.0f} ms "
                  f"({min(times)} to {max(times)} ms), speed-up against it "
                  f"{seeded_ratios[-1]:.2f}x")
    if ratios:
        print(f"median speed-up {statistics.median(ratios):.2f}x over {len(ratios)} problems")
    if seeded_ratios:
        print(f"median speed-up against one thread's median over seeds "
              f"{statistics.median(seeded_ratios):.2f}x")


if __name__ == "__main__":
    main()
