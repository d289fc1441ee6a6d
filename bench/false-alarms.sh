#!/usr/bin/env bash
# How often a clean disk trips an alarm: runs N `candor sweep` and N
# `candor run --preset quick --only disk` on the unthrottled disk (in
# alternation) and counts, per run, the warnings of the rules a clean medium
# must never trip (limiter-*, round-plateau, caps, host-cache, residency,
# metric-disagreement). Prints one line per run and the total.
#
# Usage: bench/false-alarms.sh [N]     (N=10 by default; about 3 minutes per pair)
# The Run of any alarm is kept in $KEEP (/var/tmp/candor-false-alarms-kept).
# Needs: a release build of candor (CANDOR=target/release/candor by default), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
# Benchmark Runs stay out of the user's history database.
export CANDOR_NO_HISTORY=1
N="${1:-10}"
CANDOR="${CANDOR:-target/release/candor}"
# Runs that raised an alarm are kept here.
KEEP="${KEEP:-/var/tmp/candor-false-alarms-kept}"
[ -x "$CANDOR" ] || { echo "false-alarms: build candor first (cargo build --release)" >&2; exit 2; }
dir=$(mktemp -d /var/tmp/candor-false-alarms.XXXXXX)
trap 'rm -rf "$dir"' EXIT
alarms=0
runs=0
for i in $(seq 1 "$N"); do
    for kind in sweep quick; do
        out="$dir/$kind-$i.json"
        # A clean disk: dirty pages that earlier work left (a build just
        # before the batch) written out first, as the truth table's clean
        # row does; their writeback during a test is other I/O on the
        # device, which foreign-io rightly names (it did once, 2026-12-05).
        sync
        if [ "$kind" = sweep ]; then
            "$CANDOR" sweep --dir "$dir" --output "$out" --format json >/dev/null
        else
            "$CANDOR" run --preset quick --only disk --dir "$dir" --output "$out" --quiet >/dev/null
        fi
        line=$(python3 - "$out" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
ids = ("limiter-", "round-plateau", "caps", "host-cache", "residency", "metric-disagreement",
       "foreign-io", "cache-layer", "write-amplification", "latency-above-device")
hits = [f"{f['id']} [{f.get('subject') or ''}]" for f in run["findings"]
        if f["severity"] in ("warning", "refusal") and f["status"] == "checked"
        and any(f["id"].startswith(i) for i in ids)]
caps = next((f["verdict"] for f in run["findings"] if f["id"] == "caps"), "")
print(f"{len(hits)}\t{'; '.join(hits) or 'none'}\t{caps[:140]}")
PY
)
        n=$(echo "$line" | cut -f1)
        runs=$((runs + 1))
        printf '%s %-5s %s warnings: %s | %s\n' "$(date -u +%H:%M:%S)" "$kind" "$n" "$(echo "$line" | cut -f2)" "$(echo "$line" | cut -f3)"
        if [ "$n" -gt 0 ]; then
            # Keep the Run of an alarm: `candor analyze` can replay it after a rule changes.
            alarms=$((alarms + 1))
            mkdir -p "$KEEP"
            cp "$out" "$KEEP/$kind-$(date -u +%Y%m%dT%H%M%S).json"
            echo "    kept in $KEEP/"
        fi
        rm -f "$out"
    done
done
echo "runs with any alarm: $alarms of $runs"
