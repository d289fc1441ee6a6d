#!/usr/bin/env bash
# A newcomer's first report: from `git clone` to the end of README's first
# command (`cargo run --release -- run --preset quick`), with an empty
# CARGO_HOME, so crates.io's index and every crate are downloaded as on a
# fresh machine (the Rust toolchain itself is taken as installed). Prints
# the wall time of the whole, and cargo's build time.
#
# Usage: bench/first-report.sh [REPO]   (REPO: what to clone; default this checkout)
# Needs: network access to crates.io, about 2 GB free in /var/tmp.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
REPO=${1:-$here}
work=$(mktemp -d /var/tmp/candor-first-report.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
# Benchmark Runs stay out of the user's history database.
export CANDOR_NO_HISTORY=1 CARGO_HOME="$work/cargo-home"
echo "# $(date -u +%FT%TZ) $(git -C "$REPO" rev-parse --short HEAD), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s.%N)
git clone -q "$REPO" "$work/candor"
cd "$work/candor"
cargo run --release -- run --preset quick --output "$work/first.json" >"$work/out.txt" 2>"$work/err.txt" ||
    { tail -20 "$work/err.txt"; exit 1; }
end=$(date +%s.%N)
echo "fresh clone to first report: $(python3 -c "print(round($end - $start, 1))") s"
grep -E "^ *Finished" "$work/err.txt"
python3 - "$work/first.json" <<'PY'
import json, sys
from datetime import datetime
run = json.load(open(sys.argv[1]))
t = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
print(f"the quick battery: {(t(run['finished_at']) - t(run['started_at'])).total_seconds():.0f} s, {run['status']}, {len(run['measurements'])} measurements")
PY
