#!/usr/bin/env python3
"""Measure how fast Kanju answers `stop` and obeys `quit` in the middle of a search.

USI promises: `stop` -> exactly one `checkmate ...` line within 100 ms; `quit` -> the
process is gone within 100 ms. The tests check the behaviour; this script measures the
latency, from the moment the command is written to the moment the answer line is read
(or the process has exited).

By default the search is the df-pn proof of Microcosmos. With --main-line, `stop` comes
after the proof instead, while the main line is worked out (the bounded searches, their
give-back searches and table collections, the cooks): Shogi Zuko #65 under the classical
rules is proven in well under a second and answered after about ten, so a stop at a
random moment up to --main-line-window seconds after the proof's `info ... score mate`
lands there. The answer must then be a mate, never `timeout`.

Usage:
  scripts/usi_stop_latency.py [--engine target/release/kanju] [--trials 20]
                              [--threads 2] [--hash 1024]
                              [--main-line] [--main-line-window 6]
"""
import argparse
import os
import random
import statistics
import subprocess
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Microcosmos (1525 plies): no search finishes it in the second it runs here.
HARD = "g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/1P3ssP1/2P1+Ps2N/4+P1P1L/+B5G1g b - 1"
# Shogi Zuko #65 (31 plies): proven at once, its main line takes seconds.
MAIN_LINE = "9/9/4R4/9/5p3/6n2/3nG1+b+p+B/5+s1G1/k1S4+r1 b 2GN2sn4l16p 1"


class Engine:
    def __init__(self, path, options):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lines = []
        self.cv = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("usi")
        self.wait(lambda l: l == "usiok")
        for k, v in options:
            self.send(f"setoption name {k} value {v}")
        self.send("isready")
        self.wait(lambda l: l == "readyok")

    def _read(self):
        for line in self.p.stdout:
            with self.cv:
                self.lines.append((time.perf_counter(), line.rstrip("\n")))
                self.cv.notify_all()

    def send(self, s):
        self.p.stdin.write(s + "\n")
        self.p.stdin.flush()
        return time.perf_counter()

    def wait(self, pred, timeout=60):
        deadline = time.time() + timeout
        with self.cv:
            while True:
                while self.lines:
                    t, l = self.lines.pop(0)
                    if pred(l):
                        return t, l
                left = deadline - time.time()
                if left <= 0:
                    raise TimeoutError("no answer")
                self.cv.wait(left)


def summary(name, ms):
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    print(f"{name}: n={len(ms)} median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, "
          f"max {ms[-1]:.1f} ms, over 100 ms: {sum(1 for x in ms if x > 100)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=os.path.join(ROOT, "target", "release", "kanju"))
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hash", type=int, default=1024)
    ap.add_argument("--main-line", action="store_true")
    ap.add_argument("--main-line-window", type=float, default=6.0)
    args = ap.parse_args()
    options = [("USI_Hash", args.hash), ("Threads", args.threads)]
    if args.main_line:
        main_line(args, options)
        return

    stop_ms, extra = [], 0
    e = Engine(args.engine, options)
    for _ in range(args.trials):
        e.send(f"position sfen {HARD}")
        e.send("go mate infinite")
        time.sleep(random.uniform(0.2, 1.0))
        sent = e.send("stop")
        t, _ = e.wait(lambda l: l.startswith("checkmate"))
        stop_ms.append((t - sent) * 1000)
        # Exactly one answer: count any further checkmate line before the next readyok.
        time.sleep(0.2)
        e.send("isready")
        while e.wait(lambda l: l == "readyok" or l.startswith("checkmate"))[1] != "readyok":
            extra += 1
    e.send("quit")
    e.p.wait(10)
    if extra:
        print(f"ERROR: {extra} extra checkmate lines after stop")
    summary("stop -> checkmate", stop_ms)

    quit_ms = []
    for _ in range(args.trials):
        e = Engine(args.engine, options)
        e.send(f"position sfen {HARD}")
        e.send("go mate infinite")
        time.sleep(random.uniform(0.2, 1.0))
        sent = e.send("quit")
        e.p.wait(10)
        quit_ms.append((time.perf_counter() - sent) * 1000)
    summary("quit -> process gone", quit_ms)


def main_line(args, options):
    """`stop` while the main line is worked out; each answer must be a mate."""
    options = options + [("SpareRule", "Classical"), ("FutileRule", "AnyLength"),
                         ("PvInterval", 100)]
    e = Engine(args.engine, options)
    stop_ms, early, bad = [], 0, []
    for _ in range(args.trials):
        # A fresh table each time, or the proofs kept from the last search end it at once.
        e.send("setoption name ClearHash")
        e.send(f"position sfen {MAIN_LINE}")
        e.send("go mate infinite")
        e.wait(lambda l: l.startswith("info") and " score mate " in l)
        time.sleep(random.uniform(0.0, args.main_line_window))
        sent = e.send("stop")
        t, answer = e.wait(lambda l: l.startswith("checkmate"))
        if t < sent:
            early += 1
        else:
            stop_ms.append((t - sent) * 1000)
        if answer in ("checkmate timeout", "checkmate nomate"):
            bad.append(answer)
        e.send("isready")
        e.wait(lambda l: l == "readyok")
    e.send("quit")
    e.p.wait(10)
    if bad:
        print(f"ERROR: {len(bad)} answers without the mate: {bad}")
    if early:
        print(f"{early} searches ended before the stop (not counted)")
    if stop_ms:
        summary("stop in the main line -> checkmate", stop_ms)


if __name__ == "__main__":
    main()
