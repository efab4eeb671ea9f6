#!/usr/bin/env bash
# Solver benchmark: builds the release `solve_file` example of kanju-tsume and runs it over
# problem files, printing per-problem result, plies, time, nodes and nodes/s, and a summary
# (solved count, total and median time, overall nodes/s).
#
# usage: scripts/bench_solver.sh [FILE...] [-- solve_file options]
#   default files: the Edo set (60 s each); options e.g. --time 20 --hash 4096 --threads 2
#   --filter zukou-0 --first 50 --clear; the Edo set's published lengths need
#   --spare-rule classical --futile-rule any-length
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="${KANJU_SHARED:-$root/../shared}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
files=()
while [[ $# -gt 0 && "$1" != "--" ]]; do files+=("$1"); shift; done
[[ "${1:-}" == "--" ]] && shift
[[ ${#files[@]} -eq 0 ]] && files=("$shared/problems/tsume_edo_zukou_musou.jsonl")
opts=("$@")
[[ ${#opts[@]} -eq 0 ]] && opts=(--time 60 --hash 4096)
cargo build --release -q -p kanju-tsume --example solve_file
for f in "${files[@]}"; do
  echo "== $f ${opts[*]}"
  "$CARGO_TARGET_DIR/release/examples/solve_file" "$f" "${opts[@]}"
done
