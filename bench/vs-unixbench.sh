#!/usr/bin/env bash
# candor unixbench beside the real UnixBench 5.1, built from the reference
# source in a temp dir (never in the source tree, removed at the end): each
# test in alternation, A B B A (UnixBench, candor, candor, UnixBench), with
# 1 copy and 2 copies (or the COPIES given); prints each side's score, the per-test ratio
# (candor / UnixBench, the mean of the two of each side) and the ratio of
# the two sides' geometric means over the tests that ran.
#
# Usage: bench/vs-unixbench.sh [CANDOR] [ITERATIONS] [TESTS] [COPIES]
#   defaults: target/release/candor, 3 iterations (UnixBench's -i: 3 passes
#   of the 10-pass tests, 1 of the others), all 12 index tests, copies "1 2".
#   UnixBench's pass lengths are its own (10, 30, 60 s) and it sleeps 3 s
#   before each pass: with -i 1 each side's run of all 12 tests takes 6-7
#   minutes, so one copy count A B B A takes about 25 minutes; the defaults
#   take over an hour on a quiet machine.
# LOCK=FILE: each test's A B B A holds flock on FILE (one test and copy count
#   at a time, so that others may take it between tests); without it nothing
#   is locked (the caller holds what it must).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
CANDOR=${1:-$here/target/release/candor}
ITER=${2:-3}
TESTS=${3:-dhry2reg whetstone-double execl fstime fsbuffer fsdisk pipe context1 spawn shell1 shell8 syscall}
COPIES=${4:-1 2}
SRC=${UNIXBENCH_SRC:-$here/../shared/reference/byte-unixbench-986b674.tar.gz}
DIR=${DIR:-/var/tmp}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
tar xzf "$SRC" -C "$work"
ub=$work/byte-unixbench/UnixBench
make -C "$ub" >"$work/make.log" 2>&1 || { cat "$work/make.log"; exit 1; }

# UnixBench's score of TEST with COPIES: the "Sum"/"Results" line of its log.
theirs() {
  (cd "$ub" && TMPDIR="$DIR" ./Run -q -c "$2" -i "$ITER" "$1" >/dev/null 2>&1)
  local log; log=$(ls -t "$ub"/results/*.log | head -1)
  awk '/^>>>> score:/ {print $3}' "$log" | tail -1
  rm -f "$ub"/results/*
}
ours() {
  "$CANDOR" unixbench --only "$1" --copies "$2" --iterations "$ITER" --dir "$DIR" --format json |
    python3 -c "import json,sys; print(json.load(sys.stdin)['measurements'][0]['spec']['params']['score'])"
}
if [ -n "${LOCK:-}" ]; then exec 9>"$LOCK"; fi
lock() { if [ -n "${LOCK:-}" ]; then flock "$1" 9; fi; }
echo "# $(date -u +%FT%TZ) candor $("$CANDOR" --version) vs UnixBench 5.1 (986b674, gcc: $(cc --version | head -1)), -i $ITER"
for copies in $COPIES; do
  echo "## $copies copies: test, UnixBench, candor, ratio"
  logsum=0; n=0
  for t in $TESTS; do
    lock -x; echo "$t, $copies copies: $(date -u +%T)" >&2
    a1=$(theirs "$t" "$copies"); b1=$(ours "$t" "$copies"); b2=$(ours "$t" "$copies"); a2=$(theirs "$t" "$copies")
    lock -u; echo "$t, $copies copies: done $(date -u +%T)" >&2
    python3 - "$t" "$a1" "$a2" "$b1" "$b2" <<'PY'
import sys
t, a1, a2, b1, b2 = sys.argv[1], *map(float, sys.argv[2:])
a, b = (a1 + a2) / 2, (b1 + b2) / 2
print(f"{t:10} {a:14.1f} {b:14.1f} {b / a:6.2f}x  (UnixBench {a1:.1f} {a2:.1f}, candor {b1:.1f} {b2:.1f})")
PY
  done | tee "$work/ratios-$copies"
  awk '{s += log($4 + 0); n++} END {if (n) printf "index ratio (geometric mean of %d ratios): %.2fx\n", n, exp(s / n)}' "$work/ratios-$copies"
done
