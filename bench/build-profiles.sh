#!/usr/bin/env bash
# What the release profile's heavy optimisation (thin LTO, one codegen unit)
# buys and costs. Builds this checkout's committed source twice from cold
# (a fresh target directory each, as on a fresh clone; the crates are
# already in cargo's cache, as after any first `cargo fetch`): FAST, the
# release profile with CARGO_PROFILE_RELEASE_LTO=false and
# CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 (cargo's defaults), and HEAVY, with
# thin LTO and one codegen unit. Both are set through the environment, so
# the result does not depend on what Cargo.toml's release profile says.
# HEAVY=PATH reuses a HEAVY binary built before from the same commit;
# COMMIT (default HEAD) is the commit built. Then the two binaries run the
# CPU-bound figures in alternation (A B B A ...): the null disk engine
# (candor's own per-I/O cost, no device), primes, memory, compression and
# crypto; it prints each figure's median per binary and HEAVY/FAST.
#
# Usage: bench/build-profiles.sh [ROUNDS]   (a round is A B B A; default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-2}
work=$(mktemp -d /var/tmp/candor-profiles.XXXXXX)
trap 'rm -rf "$work"' EXIT
git archive "${COMMIT:-HEAD}" | tar -x -C "$work" --one-top-level=src-tree
echo "# $(date -u +%FT%TZ) $(git rev-parse --short "${COMMIT:-HEAD}"), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
build() { # name, env...
  local name=$1; shift
  ( cd "$work/src-tree" &&
    env "$@" CARGO_TARGET_DIR="$work/$name" /usr/bin/time -f "$name build: %e s wall, %U s user, %S s sys, %M KiB peak" \
      cargo build --release --locked --quiet 2>&1 | tail -1 )
  cp "$work/$name/release/candor" "$work/candor-$name"
  rm -rf "${work:?}/$name"
}
build fast CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
if [ -n "${HEAVY:-}" ]; then
  cp "$HEAVY" "$work/candor-heavy"; echo "heavy build: reused $HEAVY"
else
  build heavy CARGO_PROFILE_RELEASE_LTO=thin CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
fi
ls -l "$work"/candor-* | awk '{print $5, $9}'
figures() { # binary -> "name value" lines
  local b=$1
  "$b" disk --dir /var/tmp --engine null --rw randread --bs 4k --iodepth 32 --size 256M \
    --runtime 3s --ramp 1s --no-history --format json |
    python3 -c "import json,sys; m=json.load(sys.stdin)['measurements'][0]; print('null-engine-iops', m['read']['iops'])"
  for group in cpu memory compress crypto; do
    "$b" "$group" --runtime 2s --format json | python3 -c "
import json, sys
for i, m in enumerate(json.load(sys.stdin)['measurements']):
    spec = m.get('spec') or {}
    name = '-'.join(str(spec[k]) for k in ('test', 'algorithm', 'threads', 'level') if k in spec) or str(i)
    print(f'$group/{i}/{name}'.replace(' ', '_'), m.get('events_per_sec') or m.get('bytes_per_sec'))
"
  done
}
for _ in $(seq 1 "$ROUNDS"); do
  for who in fast heavy heavy fast; do figures "$work/candor-$who" | sed "s/^/$who /" >>"$work/figures"; done
done
python3 - "$work/figures" <<'PY'
import statistics, sys, collections
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    who, name, value = line.split()
    v[(name, who)].append(float(value))
names = sorted({n for n, _ in v})
print(f'{"figure":44} {"fast":>14} {"heavy":>14} {"heavy/fast":>10}')
for n in names:
    f, h = statistics.median(v[(n, "fast")]), statistics.median(v[(n, "heavy")])
    print(f'{n:44} {f:14.4g} {h:14.4g} {h / f if f else float("nan"):10.3f}')
PY
