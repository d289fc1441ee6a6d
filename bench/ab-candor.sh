#!/usr/bin/env bash
# Two candor binaries on one disk profile, alternating (A B, B A, ...), to
# see what a change of the engine did: IOPS and CPU ns per I/O per pair.
# On a shared VM whose disk drifts, the CPU per I/O is the steadier figure.
#
# Usage: bench/ab-candor.sh OLD NEW [PAIRS] [RW] [IODEPTH]
#   defaults: 6 pairs, randread, QD32; 4k blocks, a fresh 1 GiB file per
#   run, 3 s measured after a 1 s ramp, io_uring, in $DIR (/var/tmp).
set -euo pipefail
OLD=$1; NEW=$2; PAIRS=${3:-6}; RW=${4:-randread}; QD=${5:-32}
DIR=${DIR:-/var/tmp}
one() {
  "$1" disk --dir "$DIR" --rw "$RW" --bs 4k --iodepth "$QD" --size 1G --runtime 3s --ramp 1s \
    --engine io_uring --format json |
    python3 -c "import json,sys; m=json.load(sys.stdin)['measurements'][0]; d=m['read'] or m['write']; print(round(d['iops']), round(m['cpu']['cpu_ns']/d['ops']))"
}
echo "# $(date -u +%FT%TZ) $RW QD$QD, $PAIRS pairs: IOPS and CPU ns per I/O"
for i in $(seq 1 "$PAIRS"); do
  if [ $((i % 2)) = 1 ]; then a=$(one "$OLD"); b=$(one "$NEW"); else b=$(one "$NEW"); a=$(one "$OLD"); fi
  echo "pair $i: old $a new $b"
done
