#!/usr/bin/env python3
"""Feed Kanju's USI front end random and mangled input, and check that it keeps serving.

Each session sends a few hundred commands drawn at random: SFENs from a problem file
(`--file`, the Edo set by default) with characters changed, added or dropped; real
positions followed by random moves; `go` in every form the protocol has and some it has
not; options with absurd values; unknown commands; bytes that are not UTF-8. `go mate infinite` is followed by `stop`.
The session ends with `isready` and `quit`.

A session passes when:
- the process exits by itself after `quit`, with status 0 (within 120 s of the start);
- nothing on stderr mentions a panic;
- every `isready` is answered with `readyok` (the engine was still serving);
- errors were reported (`info string error: ...`), and stdout carries nothing but
  protocol lines and the empty lines that keep a GUI waiting while a table is allocated.

The tests (`tests/usi_bad_input.rs`) pin one case per kind of bad input; this script
looks for the combinations nobody wrote a test for. Each failing session's input is
written to `--out`, to be replayed with `kanju < FILE`.

Usage:
  scripts/usi_fuzz.py [--kanju target/release/kanju] [--file PROBLEMS.jsonl]
                      [--sessions 20] [--commands 400] [--seed 1] [--out /tmp]
"""
import argparse
import random
import subprocess
import threading

import problemfile

ALPHABET = "123456789abcdefghiPLNSGBRKplnsgbrk+/ -*wb0"
# Lines a USI engine may print, besides the empty lines that keep a GUI waiting for
# `readyok` while a large table is allocated (a mangled `USI_Hash` value can ask for one);
# anything else on stdout is a defect.
PROTOCOL = ("id ", "option ", "usiok", "readyok", "info ", "checkmate ", "bestmove ")


def mangle(rng, s):
    s = list(s)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(s) + 1)
        op = rng.random()
        if op < 0.4 and s:
            s[min(i, len(s) - 1)] = rng.choice(ALPHABET)
        elif op < 0.7:
            s.insert(i, rng.choice(ALPHABET))
        elif s:
            del s[min(i, len(s) - 1)]
    return "".join(s)


def random_moves(rng, n):
    sq = lambda: rng.choice("123456789") + rng.choice("abcdefghi")
    return " ".join(
        rng.choice("PLNSGBR") + "*" + sq() if rng.random() < 0.3
        else sq() + sq() + rng.choice(["", "+"])
        for _ in range(n))


def session(rng, positions, commands):
    """The commands of one session, as lines."""
    out = ["usi", "setoption name USI_Hash value 16", "isready"]
    for _ in range(commands):
        p = rng.choice(positions)
        r = rng.random()
        if r < 0.35:
            out.append("position sfen " + mangle(rng, p))
        elif r < 0.5:
            out.append(f"position sfen {p} moves {random_moves(rng, rng.randint(1, 3))}")
        elif r < 0.6:
            out.append("position sfen " + p)
        elif r < 0.7:
            out.append(rng.choice([
                "go mate 50", "go mate 0", "go mate -5", "go mate abc", "go mate infinite",
                "go nodes 1000", "go mate 30 nodes 1000", "go",
                "go btime 10 wtime 10 byoyomi 20"]))
            if out[-1] == "go mate infinite":
                out.append("stop")
        elif r < 0.75:
            out.append("stop")
        elif r < 0.85:
            name = rng.choice(["USI_Hash", "Threads", "PvInterval", "NodesLimit", "Foo",
                               "RootIsAndNodeIfChecked", "GenerateAllLegalMoves",
                               "SpareRule", "FutileRule"])
            value = rng.choice(["0", "1", "-1", "99999999999999", "true", "x", "", "4",
                                "16", "Classical", "AnyLength"])
            out.append(f"setoption name {name} value {value}")
        elif r < 0.9:
            out.append(rng.choice([
                "isready", "usinewgame", "usi", "gameover win", "ponderhit", "\udcff\udcfe",
                "position startpos moves 7g7f", "position", "position sfen", "setoption",
                "setoption name", "   ", "d"]))
        else:
            out.append(mangle(rng, rng.choice([
                "go mate 100", "position startpos", "isready",
                "setoption name USI_Hash value 16"])))
    return out + ["isready", "quit"]


def check(engine, lines):
    """Runs one session; returns a list of what went wrong. `quit` is sent only once the
    last `isready` is answered, as a GUI would: the front end may drop a `readyok` still
    owed when `quit` comes right behind it, to exit within 100 ms."""
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    asked = sum(1 for l in lines if l == "isready")
    body = ("\n".join(l for l in lines if l != "quit") + "\n").encode("utf-8", "surrogateescape")
    err = []
    pumps = [threading.Thread(target=lambda: err.append(p.stderr.read()), daemon=True)]

    def write():
        try:
            p.stdin.write(body)
            p.stdin.flush()
        except BrokenPipeError:
            pass

    pumps.append(threading.Thread(target=write, daemon=True))
    for t in pumps:
        t.start()
    out, answered = [], 0
    timer = threading.Timer(120, p.kill)
    timer.start()
    for raw in p.stdout:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        out.append(line)
        answered += line == "readyok"
        if answered >= asked:
            break
    try:
        p.stdin.write(b"quit\n")
        p.stdin.close()
    except BrokenPipeError:
        pass
    out += [raw.decode("utf-8", "replace").rstrip("\n") for raw in p.stdout]
    p.wait()
    timer.cancel()
    for t in pumps:
        t.join(5)
    faults = []
    if p.returncode != 0:
        faults.append(f"exit status {p.returncode}")
    if "panic" in b"".join(err).decode("utf-8", "replace").lower():
        faults.append("a panic on stderr")
    # A front end that took a mangled line for isready would answer more: no fault.
    if answered < asked:
        faults.append(f"{asked} isready, {answered} readyok")
    stray = [i for i, l in enumerate(out) if l and not l.startswith(PROTOCOL)]
    if stray:
        i = stray[0]
        faults.append(f"{len(stray)} lines outside the protocol, first {out[i]!r} after "
                      f"{out[max(0, i - 2):i]!r}")
    if not any(l.startswith("info string error:") for l in out):
        faults.append("no error reported for any of the bad commands")
    return faults


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    problemfile.add_file_and_engine(ap)
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--commands", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="/tmp")
    a = ap.parse_args()
    positions = [r["sfen"] for r in problemfile.read(a.file)]
    failed = 0
    for k in range(a.sessions):
        seed = a.seed + k
        lines = session(random.Random(seed), positions, a.commands)
        faults = check(a.kanju, lines)
        if faults:
            failed += 1
            path = f"{a.out}/usi_fuzz_{seed}.txt"
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write("\n".join(lines) + "\n")
            print(f"session {seed}: FAIL ({'; '.join(faults)}); input in {path}")
        else:
            print(f"session {seed}: ok")
    print(f"{a.sessions - failed} of {a.sessions} sessions ok")
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
