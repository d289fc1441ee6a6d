#!/usr/bin/env bash
# Does the pause between disk tests have a measured reason? Two candor
# binaries run the same disk battery (main file and control series, one
# pass, short tests) in alternation A B B A ...: OLD pauses before every
# disk test, NEW only after a test that wrote or a file layout. For each
# test the script prints the median IOPS of each binary, their ratio, and
# whether NEW dropped the pause before it. If the tests that lost their
# pause move no more than those that kept it, the pause after a read
# bought nothing; the wall time of each run says what it cost.
#
# Usage: bench/pauses.sh OLD NEW [ROUNDS]   (a round is A B B A; default 2)
#   DIR (default /var/tmp), PAUSE (5s, the standard preset's), RUNTIME (5s),
#   CONTROL (4G) set the battery.
set -euo pipefail
OLD=$1; NEW=$2; ROUNDS=${3:-2}
DIR=${DIR:-/var/tmp}; PAUSE=${PAUSE:-5s}; RUNTIME=${RUNTIME:-5s}; CONTROL=${CONTROL:-4G}
out=$(mktemp -d "$DIR/candor-pauses.XXXXXX")
trap 'rm -rf "$out"' EXIT
one() { # binary name index
  local start end
  start=$(date +%s.%N)
  "$1" run --dir "$DIR" --only disk,control --passes 1 --runtime "$RUNTIME" --ramp 1s \
    --pause "$PAUSE" --control-size "$CONTROL" --quiet --no-history -o "$out/$2-$3.json" >/dev/null
  end=$(date +%s.%N)
  echo "$2 $3 wall $(python3 -c "print(round($end-$start,1))")s"
}
echo "# $(date -u +%FT%TZ) $ROUNDS rounds A B B A, pause $PAUSE, runtime $RUNTIME, control $CONTROL, dir $DIR, load $(cut -d' ' -f1-3 /proc/loadavg)"
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
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    runs[f.name.split("-")[0]].append(json.loads(f.read_text()))
def tests(run):
    order, figures = [], {}
    for m in run["measurements"]:
        if m.get("kind") != "disk":
            continue
        name = f'{m["profile"]} {m["spec"]["rw"]} ({m.get("role", "main")})'
        iops = sum((m.get(d) or {}).get("iops", 0) for d in ("read", "write"))
        order.append((name, m["spec"]["rw"]))
        figures[name] = iops
    return order, figures
order, _ = tests(runs["new"][0])
reads = {"read", "randread"}
print(f'{"test":42} {"old IOPS":>10} {"new IOPS":>10} {"new/old":>8}  pause in new')
moved = {True: [], False: []}
for i, (name, rw) in enumerate(order):
    old = statistics.median(tests(r)[1][name] for r in runs["old"])
    new = statistics.median(tests(r)[1][name] for r in runs["new"])
    dropped = i > 0 and order[i - 1][1] in reads and order[i-1][0].endswith("(control)") == name.endswith("(control)")
    ratio = new / old if old else float("nan")
    if i > 0:
        moved[dropped].append(abs(ratio - 1))
    print(f'{name:42} {old:10.0f} {new:10.0f} {ratio:8.3f}  {"dropped" if dropped else "kept"}')
for k, label in ((True, "dropped"), (False, "kept")):
    if moved[k]:
        print(f'median |new/old - 1| where the pause was {label}: {statistics.median(moved[k]):.3f} ({len(moved[k])} tests)')
PY
