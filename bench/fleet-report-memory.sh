#!/usr/bin/env bash
# Peak memory of `candor fleet report` over a large fleet directory: HOSTS
# hosts (default 4,000), each Run a hard link to one Run file (default the
# battery fixture, 233 KB), reported in each format; /usr/bin/time's
# maximum resident set size and the wall time.
#
#   bench/fleet-report-memory.sh [HOSTS] [RUN] [CANDOR...]
#
# Several CANDOR binaries are run in alternation (A B B A per format) so
# that a shared machine's drift falls on both alike. Needs GNU time
# (/usr/bin/time) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=${1:-4000}
run=${2:-tests/fixtures/runs/battery.json}
shift $(( $# > 2 ? 2 : $# ))
binaries=("$@")
[ ${#binaries[@]} -gt 0 ] || binaries=(target/release/candor)
work=$(mktemp -d /var/tmp/candor-fleet-report.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$work/fleet" "$run" "$hosts" <<'PY'
import json, os, sys
d, run, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(d + "/runs")
hosts = []
for i in range(n):
    f = f"runs/h{i}.json"
    os.link(run, f"{d}/{f}")
    hosts.append({"name": f"h{i}", "destination": f"root@10.1.{i // 250}.{i % 250}",
                  "status": "ok", "phases": [], "run_file": f, "run_status": "complete",
                  "exit_status": 0})
json.dump({"schema": "candor.fleet/1", "controller": {"version": "0.1.0"},
           "command": ["candor", "fleet", "run"], "run_flags": [], "parallel": 1,
           "binaries": [], "started_at": "2026-12-04T00:00:00Z",
           "finished_at": "2026-12-04T01:00:00Z", "interrupted": False,
           "hosts": hosts, "notes": []}, open(d + "/fleet.json", "w"))
PY
echo "fleet report of $hosts hosts, each Run $(stat -c %s "$run") bytes ($run)"
order=("${binaries[@]}")
for ((i = ${#binaries[@]} - 1; i >= 0; i--)); do order+=("${binaries[i]}"); done
for format in text csv html json; do
    for bin in "${order[@]}"; do
        /usr/bin/time -f "$format $bin: %M KB peak, %e s" "$bin" fleet report "$work/fleet" \
            --format "$format" > /dev/null
    done
done
