#!/usr/bin/env bash
# The truth table: runs tests/truth.rs and tests/stack.rs (conditions planted for real on this
# machine: cgroup throttles, a host cache on a loop device, tmpfs/ramfs,
# btrfs/xfs, fio imports) one test at a time and prints each row as a
# Markdown table line: condition planted | verdict expected | verdict and
# figure measured. A failing row fails the script.
#
# Usage: bench/truth-table.sh [TEST-NAME-FILTER]
# Needs: root, cgroup v1 blkio, losetup, mkfs.btrfs, mkfs.xfs, fio fixtures (in the repo).
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --test truth --test stack -- --test-threads=1 --nocapture ${1:+"$1"} >"$log" 2>&1 || status=$?
echo "| condition planted | verdict expected | verdict and figure measured |"
echo "|---|---|---|"
grep -o 'TRUTH|.*' "$log" | sed -e 's/^TRUTH|/| /' -e 's/$/ |/' -e 's/|\([^ ]\)/| \1/g'
grep -E '^test .* (ok|FAILED)$' "$log" >&2 || true
if [ "$status" -ne 0 ]; then
    grep -A20 'panicked' "$log" >&2 || true
    echo "truth-table: some rows failed (see above)" >&2
fi
exit "$status"
