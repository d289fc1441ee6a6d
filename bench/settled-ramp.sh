#!/usr/bin/env bash
# Is a settled ramp long enough? Two candor binaries run the same disk
# battery (main file, one pass) in alternation A B B A ...: OLD with the
# fixed ramp (before disk::settle), NEW with the ramp that ends once the
# throughput settles. For each test: the median IOPS of each binary, their
# ratio, NEW's ramps, and, as the yardstick of this disk's drift, how far
# OLD's own runs lie apart. If new/old moves no more than old/old, the
# shorter ramp changed nothing measurable; the wall times say what it saved.
#
# Usage: bench/settled-ramp.sh OLD NEW [ROUNDS]   (a round is A B B A; default 1)
#   DIR (default /var/tmp), RAMP (2s, the standard preset's), RUNTIME (5s).
set -euo pipefail
OLD=$1; NEW=$2; ROUNDS=${3:-1}
DIR=${DIR:-/var/tmp}; RAMP=${RAMP:-2s}; RUNTIME=${RUNTIME:-5s}
out=$(mktemp -d "$DIR/candor-ramp.XXXXXX")
trap 'rm -rf "$out"' EXIT
one() { # binary name index
  local start end
  start=$(date +%s.%N)
  "$1" run --dir "$DIR" --only disk --passes 1 --runtime "$RUNTIME" --ramp "$RAMP" \
    --quiet --no-history -o "$out/$2-$3.json" >/dev/null
  end=$(date +%s.%N)
  echo "$2 $3 wall $(python3 -c "print(round($end-$start,1))")s"
}
echo "# $(date -u +%FT%TZ) $ROUNDS rounds A B B A, ramp $RAMP, runtime $RUNTIME, dir $DIR, load $(cut -d' ' -f1-3 /proc/loadavg)"
n=0
for _ in $(seq 1 "$ROUNDS"); do
  for who in old new new old; do
    n=$((n + 1))
    if [ "$who" = old ]; then one "$OLD" old "$n"; else one "$NEW" new "$n"; fi
  done
done
python3 - "$out" <<'PY'
import json, statistics, sys, pathlib
runs = {"old": [], "new": []}
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.json"), key=lambda f: int(f.stem.split("-")[1])):
    runs[f.name.split("-")[0]].append(json.loads(f.read_text()))
def tests(run):
    out = {}
    for m in run["measurements"]:
        if m.get("kind") == "disk":
            name = f'{m["profile"]} {m["spec"]["rw"]}'
            iops = sum((m.get(d) or {}).get("iops", 0) for d in ("read", "write"))
            out[name] = (iops, m["spec"]["ramp_ns"] / 1e9)
    return out
names = list(tests(runs["new"][0]))
print(f'{"test":28} {"old IOPS":>10} {"new IOPS":>10} {"new/old":>8} {"old/old":>8}  new ramps (s)')
moved, drift = [], []
for name in names:
    old = [tests(r)[name][0] for r in runs["old"]]
    new = [tests(r)[name][0] for r in runs["new"]]
    ramps = [tests(r)[name][1] for r in runs["new"]]
    ratio = statistics.median(new) / statistics.median(old)
    spread = max(old) / min(old)
    moved.append(abs(ratio - 1)); drift.append(spread - 1)
    print(f'{name:28} {statistics.median(old):10.0f} {statistics.median(new):10.0f} {ratio:8.3f} {spread:8.3f}  {" ".join(f"{r:.1f}" for r in ramps)}')
print(f"median |new/old - 1| {statistics.median(moved):.3f}; median old max/min - 1 {statistics.median(drift):.3f} ({len(names)} tests)")
PY
