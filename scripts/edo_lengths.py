#!/usr/bin/env python3
"""Kanju's main-line lengths beside the published and anchor lengths, as a Markdown table.

Runs `kanju solve` over a problem file (or over the records of one `length_status`) and
prints one row per problem: published length, each anchor's length, Kanju's length, and
whether Kanju proved it exact. A summary follows.

usage: scripts/edo_lengths.py [--status disputed] [--time 20s] [--threads 2]
                              [--hash 4096] [--file PROBLEMS.jsonl] [--kanju PATH]
"""
import argparse
import json
import subprocess
import tempfile

import problemfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--status", help="only records whose length_status is this")
    ap.add_argument("--time", default="20s")
    ap.add_argument("--threads", default="2")
    ap.add_argument("--hash", default="4096")
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
         "--hash", a.hash] + problemfile.CLASSICAL_RULES,
        capture_output=True, text=True, check=False,
    ).stdout
    answers = [json.loads(l) for l in out.splitlines() if l.strip()]
    anchors = sorted({k for r in records for k in r.get("anchor_lengths", {})})
    print("| problem | published | " + " | ".join(anchors) + " | Kanju | exact |")
    print("|---" * (4 + len(anchors)) + "|")
    same = exact = 0
    for r, ans in zip(records, answers):
        if ans.get("result") == "mate":
            ours = str(ans["length"])
            same += ans["length"] == r.get("mate_plies")
            exact += bool(ans.get("length_exact"))
        else:
            ours = ans.get("result", "?")
        cells = [str(r.get("anchor_lengths", {}).get(k, "")) for k in anchors]
        print(f"| {r['name']} | {r.get('mate_plies')} | " + " | ".join(cells)
              + f" | {ours} | {'yes' if ans.get('length_exact') else ''} |")
    print(f"\n{len(answers)} problems: Kanju printed the published length on {same}, "
          f"proved its own length exact on {exact}.")


if __name__ == "__main__":
    main()
