#!/usr/bin/env bash
# What candor's memory rules answer on a small VPS: the battery (ARGS,
# default the quick preset's memory group) inside a cgroup v1 memory limit
# of each size (default 512M 1G 2G), with the STREAM arrays' size and note
# candor chose, the process's peak RSS and the cgroup's peak usage.
#
# Usage: bench/small-vps-memory.sh CANDOR [LIMITS...]   (root, cgroup v1 memory)
#   ARGS (default "--preset quick --only memory") are candor run's flags.
set -euo pipefail
CANDOR=$(realpath "$1"); shift
LIMITS=("${@:-512M}"); [ $# -eq 0 ] && LIMITS=(512M 1G 2G)
ARGS=${ARGS:---preset quick --only memory}
root=/sys/fs/cgroup/memory
[ -w "$root" ] || { echo "error: $root is not writable (cgroup v1 memory, as root)" >&2; exit 2; }
out=$(mktemp -d /var/tmp/candor-mem.XXXXXX)
cg=""
cleanup() { [ -n "$cg" ] && rmdir "$cg" 2>/dev/null; rm -rf "$out"; }
trap cleanup EXIT
echo "# $(date -u +%FT%TZ) candor run $ARGS in memory cgroups ${LIMITS[*]}"
for limit in "${LIMITS[@]}"; do
  cg="$root/candor-bench-$limit-$$"
  mkdir "$cg"
  echo "$limit" > "$cg/memory.limit_in_bytes"
  # shellcheck disable=SC2086
  sh -c 'echo $$ > "$1/cgroup.procs"; shift; exec /usr/bin/time -f "%e %M" -o "$0" "$@"' \
    "$out/time-$limit" "$cg" "$CANDOR" run $ARGS --dir /var/tmp --quiet --no-history -o "$out/run-$limit.json" >/dev/null || true
  peak=$(cat "$cg/memory.max_usage_in_bytes")
  rmdir "$cg"; cg=""
  python3 - "$out/run-$limit.json" "$out/time-$limit" "$limit" "$peak" <<'PY'
import json, sys
run = json.load(open(sys.argv[1])); wall, rss = open(sys.argv[2]).read().split()
notes = sorted({n for m in run["measurements"] if m["kind"] == "memory" and "stream" in m["spec"].get("test", "")
                for n in m.get("notes", []) if "array" in n or "cut" in n or "cache" in n})
print(f'{sys.argv[3]:>5}: {run["status"]}, {len(run["measurements"])} measurements, wall {float(wall):.0f} s, '
      f'peak RSS {int(rss) / 1024:.0f} MiB, cgroup peak {int(sys.argv[4]) / 2**20:.0f} MiB')
for n in notes:
    print(f'       {n}')
PY
done
