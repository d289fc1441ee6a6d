#!/usr/bin/env bash
# What Process Creation (UnixBench's spawn: fork, the child exits, the
# parent waits) owes to the program that forks: UnixBench's own spawn.c
# built three ways (dynamically linked as its Makefile builds it; static;
# dynamic with _exit in the child, as candor's child leaves) beside
# candor's static and dynamic builds, A B C D E E D C B A, each pass
# SECONDS long. UnixBench's source comes from ../shared/reference and is
# built in a temp dir (removed at the end); nothing of it enters candor.
#
# Usage: bench/spawn-cost.sh CANDOR_STATIC CANDOR_DYNAMIC [SECONDS]
#   CANDOR_STATIC: contrib/build-static.sh's binary
#   (target/x86_64-unknown-linux-gnu/release/candor); CANDOR_DYNAMIC:
#   `cargo build --release`'s (target/release/candor). SECONDS: 10.
# Prints one line per pass: "<program> <forks per second>".
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
STATIC=$1
DYNAMIC=$2
SECS=${3:-10}
SRC=${UNIXBENCH_SRC:-$here/../shared/reference/byte-unixbench-986b674.tar.gz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
tar xzf "$SRC" -C "$work"
src=$work/byte-unixbench/UnixBench/src
flags="-O3 -ffast-math -march=native"
gcc $flags -o "$work/ub-dynamic" "$src/spawn.c"
gcc $flags -static -o "$work/ub-static" "$src/spawn.c"
# The same program, its child leaving with _exit(0) instead of exit(0).
python3 - "$src/spawn.c" "$work/spawn_exit.c" <<'PY'
import sys
s = open(sys.argv[1]).read()
i = s.index('/* kill it right away */')
open(sys.argv[2], 'w').write(s[:i] + s[i:].replace('exit(0);', '_exit(0);', 1))
PY
gcc $flags -I"$src" -o "$work/ub-dynamic-_exit" "$work/spawn_exit.c"
ub() { "$1" "$SECS" 2>&1 >/dev/null | awk -F'|' -v d="$SECS" '/COUNT/ {printf "%.1f", $2/d}'; }
cand() {
  "$1" unixbench --only spawn --copies 1 --iterations 1 --runtime "${SECS}s" --format json |
    python3 -c "import json,sys; print(round(json.load(sys.stdin)['measurements'][0]['spec']['params']['score'],1))"
}
one() {
  case $1 in
    ub-dynamic|ub-static|ub-dynamic-_exit) echo "$1 $(ub "$work/$1")" ;;
    candor-static) echo "$1 $(cand "$STATIC")" ;;
    candor-dynamic) echo "$1 $(cand "$DYNAMIC")" ;;
  esac
}
order="ub-dynamic ub-static ub-dynamic-_exit candor-static candor-dynamic"
echo "# $(date -u +%FT%TZ) spawn, forks per second, ${SECS} s passes; gcc: $(gcc --version | head -1)"
for p in $order; do one "$p"; done
for p in $(echo "$order" | tr ' ' '\n' | tac); do one "$p"; done
echo "# $(date -u +%FT%TZ) done"
