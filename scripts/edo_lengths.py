#!/usr/bin/env python3
"""Kanju's main-line lengths beside the published and anchor lengths, as a Markdown table.

Runs `kanju solve` over a problem file (or over the records of one `length_status`) and
prints one row per problem: published length, each anchor's length, Kanju's length, and
whether Kanju proved it exact. A summary follows.

With `--every-drop` a column is added: the mate's length with every interposition
counted, futile drops (無駄合) included, which is what a solver without a futility rule
prints. It is found with `kanju solve --max-length N --proof-only`, whose limit counts
every interposition: the least N at which a mate is proven, once N - 2 is proven to
have none. From Kanju's own length it steps down while mates are proven and up while
none is; a step undecided within `--time` ends the search with "≥ N" or "≤ N".

The collections' own rules (`--rules classical`, the default here: the 駒余り and 無駄合
readings of Shogi Zuko and Shogi Muso, as the judge runs them), Kanju's defaults
(`--rules default`) and today's composers' (`--rules twoply`) can give different
lengths: see docs/rules.md.

usage: scripts/edo_lengths.py [--status disputed] [--time 20s] [--threads 2]
                              [--hash 4096] [--rules classical|default|twoply] [--every-drop]
                              [--file PROBLEMS.jsonl] [--kanju PATH]
"""
import argparse
import json
import subprocess
import tempfile

import problemfile

# `kanju solve`'s reason for "no mate within --max-length" (usi/src/report.rs).
NONE_WITHIN = "no mate within the length limit; a longer one was not ruled out"


def within(a, sfen, n):
    """True if a mate within `n` plies (every interposition counted) is proven, False if
    none is, None if the search did not decide."""
    out = subprocess.run(
        [a.kanju, "solve", sfen, "--max-length", str(n), "--proof-only", "--json",
         "--quiet", "--time", a.time, "--threads", a.threads, "--hash", a.hash],
        capture_output=True, text=True, check=False,
    ).stdout
    lines = out.splitlines()
    if not lines:
        return None
    ans = json.loads(lines[-1])
    if ans.get("result") == "mate":
        return True
    return False if ans.get("reason") == NONE_WITHIN else None


def every_drop_length(a, sfen, start):
    """The least n with a mate within n plies, every interposition counted, searched from
    `start` by steps of two (see the module's doc): n as a string, or "≥ n" / "≤ n" when a
    step stayed undecided."""
    n = start
    if within(a, sfen, n):
        while n > 1:
            v = within(a, sfen, n - 2)
            if v is None:
                return f"≤ {n}"
            if not v:
                return str(n)
            n -= 2
        return str(n)
    while n < start + 60:
        n += 2
        v = within(a, sfen, n)
        if v is None:
            return f"≥ {n}"
        if v:
            return str(n)
    return f"> {n}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--status", help="only records whose length_status is this")
    ap.add_argument("--time", default="20s")
    ap.add_argument("--threads", default="2")
    ap.add_argument("--hash", default="4096")
    ap.add_argument("--rules", choices=sorted(problemfile.RULES), default="classical")
    ap.add_argument("--every-drop", action="store_true",
                    help="add the length with every interposition counted")
    problemfile.add_file_and_engine(ap)
    a = ap.parse_args()
    records = problemfile.read(a.file)
    if a.status:
        records = [r for r in records if r.get("length_status") == a.status]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for r in records:
            f.write(json.dumps({"name": r["name"], "sfen": r["sfen"]}) + "\n")
        batch = f.name
    out = subprocess.run(
        [a.kanju, "solve", batch, "--time", a.time, "--threads", a.threads,
         "--hash", a.hash] + problemfile.rule_args(a.rules),
        capture_output=True, text=True, check=False,
    ).stdout
    answers = [json.loads(l) for l in out.splitlines() if l.strip()]
    anchors = sorted({k for r in records for k in r.get("anchor_lengths", {})})
    extra = " every drop counted |" if a.every_drop else ""
    print("| problem | published | " + " | ".join(anchors) + " | Kanju | exact |" + extra)
    print("|---" * (4 + len(anchors) + a.every_drop) + "|")
    same = exact = 0
    for r, ans in zip(records, answers):
        if ans.get("result") == "mate":
            ours = str(ans["length"])
            same += ans["length"] == r.get("mate_plies")
            exact += bool(ans.get("length_exact"))
        else:
            ours = ans.get("result", "?")
        cells = [str(r.get("anchor_lengths", {}).get(k, "")) for k in anchors]
        row = (f"| {r['name']} | {r.get('mate_plies')} | " + " | ".join(cells)
               + f" | {ours} | {'yes' if ans.get('length_exact') else ''} |")
        if a.every_drop:
            every = every_drop_length(a, r["sfen"], ans["length"]) \
                if ans.get("result") == "mate" else ""
            row += f" {every} |"
        print(row, flush=True)
    print(f"\n{len(answers)} problems: Kanju printed the published length on {same}, "
          f"proved its own length exact on {exact}.")


if __name__ == "__main__":
    main()
