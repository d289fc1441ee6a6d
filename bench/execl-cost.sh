#!/usr/bin/env bash
# What one exec costs, for Execl Throughput: UnixBench's execl (built from
# the reference source in a temp dir, removed at the end) beside each candor
# binary given (its hidden --unixbench-execl chain), each chain run for SECS
# seconds in the order A B... then ...B A. Prints per binary its execs per
# second (over the chain's wall time), CPU time per exec (user + system, of the chain: less sensitive than
# the rate to other work on the machine) and minor page faults per exec,
# from getrusage of the reaped chain.
#
# Usage: bench/execl-cost.sh [SECS] CANDOR...
#   e.g. bench/execl-cost.sh 3 target/release/candor target/x86_64-unknown-linux-gnu/release/candor
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-3}; shift || true
[[ $# -gt 0 ]] || set -- "$here/target/release/candor"
SRC=${UNIXBENCH_SRC:-$here/../shared/reference/byte-unixbench-986b674.tar.gz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
tar xzf "$SRC" -C "$work"
ub=$work/byte-unixbench/UnixBench
make -C "$ub" pgms/execl >"$work/make.log" 2>&1 || { cat "$work/make.log"; exit 1; }
echo "# $(date -u +%FT%TZ) exec cost, $SECS s per chain; UnixBench's execl: $(stat -c %s "$ub/pgms/execl") bytes"
run() { # LABEL COMMAND...: one chain, its figures
  UB_BINDIR=$ub/pgms python3 - "$SECS" "$@" <<'PY'
import resource, subprocess, sys, re, time
secs, label, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.monotonic()
out = subprocess.run(cmd, capture_output=True, text=True)
wall = time.monotonic() - t0  # UnixBench's execl checks whole seconds: it may run longer than asked
after = resource.getrusage(resource.RUSAGE_CHILDREN)
# UnixBench's execl prints COUNT|n|1|lps on stderr; candor's chain its count on stdout.
m = re.search(r"COUNT\|(\d+)", out.stderr) or re.search(r"^(\d+)$", out.stdout.strip())
n = int(m.group(1))
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
faults = after.ru_minflt - before.ru_minflt
print(f"{label:48} {n / wall:7.0f} execs/s {cpu / n * 1e6:8.0f} us CPU/exec {faults / n:6.1f} faults/exec")
PY
}
order=("unixbench" "$@")
for pass in 1 2; do
  for b in "${order[@]}"; do
    if [[ "$b" == unixbench ]]; then
      run "UnixBench execl" "$ub/pgms/execl" "$SECS"
    else
      run "$b ($(( $(stat -c %s "$b") / 1000000 )) MB)" \
        "$b" --unixbench-execl "$((SECS * 1000000000))"
    fi
  done
  # the second round in the reverse order: A B ... B A
  rev=(); for ((i = ${#order[@]} - 1; i >= 0; i--)); do rev+=("${order[$i]}"); done; order=("${rev[@]}")
done
