#!/usr/bin/env bash
# Runs the engine benchmarks (Kanju and rsshogi in the same run, same positions) and prints
# a summary table of the medians.
#
#   scripts/bench_engine.sh                  # all benchmarks
#   scripts/bench_engine.sh perft checks     # only those whose name contains a filter
#   KANJU_BENCH_RUNS=5 scripts/bench_engine.sh   # fewer repetitions per benchmark
#
# The full log is kept in ${BENCH_LOG:-target/bench_engine.log}.
set -euo pipefail
cd "$(dirname "$0")/.."

log="${BENCH_LOG:-target/bench_engine.log}"
mkdir -p "$(dirname "$log")"

echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')"
echo "load:   $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) (medians are only comparable on an idle machine)"
cargo bench -p kanju-engine --bench engine -- "$@" 2>&1 | tee "$log" | grep -v '^BENCH ' || true

if ! grep -q '^BENCH ' "$log"; then
  echo "no benchmark results; see $log" >&2
  exit 1
fi

echo
echo "Summary (medians; ratio > 1 means Kanju is faster)"
grep '^BENCH ' "$log" | awk '
  BEGIN { printf "| %-36s | %17s | %17s | %7s |\n", "benchmark", "Kanju", "rsshogi", "ratio";
          printf "|%s|%s|%s|%s|\n", "--------------------------------------", "-------------------", "-------------------", "---------" }
  {
    name = $2; split($3, k, "="); split($4, r, "="); split($5, u, "=");
    printf "| %-36s | %9.1f %-7s | %9.1f %-7s | %6.2fx |\n", name, k[2], u[2], r[2], u[2], r[2] / k[2]
  }'
