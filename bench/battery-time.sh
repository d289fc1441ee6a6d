#!/usr/bin/env bash
# Where a battery's time goes: runs `candor run` (ARGS, default the standard
# preset) under /usr/bin/time and splits its wall time, from the Run's own
# timestamps, into measured seconds per group (disk main, disk control,
# cpu, memory, crypto, compress, os), ramps, the test files' layout, the
# rests after writes and everything else (start-up, findings, saving).
#
# Usage: bench/battery-time.sh CANDOR [ARGS...]
#   DIR (default /var/tmp) is the test directory.
#   e.g. bench/battery-time.sh target/release/candor
#        bench/battery-time.sh target/release/candor --preset quick
set -euo pipefail
CANDOR=$1; shift
DIR=${DIR:-/var/tmp}
out=$(mktemp -d "$DIR/candor-time.XXXXXX")
trap 'rm -rf "$out"' EXIT
echo "# $(date -u +%FT%TZ) $CANDOR run ${*:-(standard)} --dir $DIR; load $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s.%N)
/usr/bin/time -f "%e %M" -o "$out/time" "$CANDOR" run "$@" --dir "$DIR" --quiet --no-history -o "$out/run.json" >/dev/null
end=$(date +%s.%N)
python3 - "$out/run.json" "$out/time" "$start" "$end" <<'PY'
import json, sys, datetime
run = json.load(open(sys.argv[1]))
wall, maxrss_kib = open(sys.argv[2]).read().split()
t0, t1 = float(sys.argv[3]), float(sys.argv[4])
def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
measured, ramps, layout = {}, 0.0, 0.0
seen_files = set()
for m in run["measurements"]:
    kind = m["kind"]
    if kind == "disk":
        key = "disk " + m.get("role", "main")
        ramps += m["spec"].get("ramp_ns", 0) / 1e9
        f = m.get("file") or {}
        if f.get("path") and f["path"] not in seen_files:
            seen_files.add(f["path"])
            layout += f.get("fill_ns", 0) / 1e9
    else:
        key = kind
    measured[key] = measured.get(key, 0.0) + m.get("measured_ns", 0) / 1e9
total_measured = sum(measured.values())
plan = run.get("plan") or {}
rest = plan.get("pause_ns", 0) / 1e9
print(f"status {run['status']}, {len(run['measurements'])} measurements, wall {float(wall):.1f} s "
      f"({(t1 - t0) / 60:.1f} min), peak RSS {int(maxrss_kib) / 1024:.0f} MiB")
for k in sorted(measured):
    print(f"  measured {k:14} {measured[k]:7.1f} s")
print(f"  measured total   {total_measured:7.1f} s")
print(f"  ramps            {ramps:7.1f} s")
print(f"  file layouts     {layout:7.1f} s")
other = float(wall) - total_measured - ramps - layout
print(f"  everything else  {other:7.1f} s (rests after writes of {rest:.0f} s, start-up, findings, saves)")
PY
