#!/usr/bin/env bash
# candor's disk engine against fio on the same machine, in alternation
# (candor fio, fio candor, candor fio, ...) so that drift of a shared VM's
# disk hits both alike. Prints per-pair ratios and their median per profile.
#
# Usage: bench/vs-fio.sh [PAIRS] [RUNTIME_S] [RAMP_S] [SIZE]
#   defaults: 5 pairs, 5 s measured, 1 s ramp, 1G file, in $DIR (/var/tmp).
# Environment: ONLY=name,name (a subset of the profiles); FIO_REAP_ALL=1 (fio
#   reaps every ready completion per call, as candor does: latencies booked
#   alike); FIO_DEFAULT_BUFFERS=1 (fio without --refill_buffers for writes);
#   NO_OVERWRITE=1 (fio writes into a fresh, never-written file);
#   CANDOR=path (another candor binary).
# Needs: fio, python3, a release build (cargo build --release).
set -euo pipefail
cd "$(dirname "$0")/.."
# Benchmark Runs stay out of the user's history database.
export CANDOR_NO_HISTORY=1
PAIRS=${1:-5}
RUNTIME=${2:-5}
RAMP=${3:-1}
SIZE=${4:-1G}
DIR=${DIR:-/var/tmp}
CANDOR=${CANDOR:-target/release/candor}
OUT=$(mktemp -d /var/tmp/candor-bench.XXXXXX)
FIOFILE="$DIR/fio-candor-bench.$$"
trap 'rm -rf "$OUT" "$FIOFILE"' EXIT
[ -x "$CANDOR" ] || { echo "build first: cargo build --release" >&2; exit 1; }
command -v fio >/dev/null || { echo "fio is not installed (apt-get install fio)" >&2; exit 1; }

# name | rw | bs | iodepth
PROFILES=(
  "RND4K-Q32T1-read|randread|4k|32"
  "RND4K-Q1T1-read|randread|4k|1"
  "SEQ1M-Q8T1-read|read|1m|8"
  "RND4K-Q32T1-write|randwrite|4k|32"
)

run_candor() { # name rw bs qd engine pair
  "$CANDOR" disk --dir "$DIR" --rw "$2" --bs "$3" --iodepth "$4" --size "$SIZE" \
    --runtime "${RUNTIME}s" --ramp "${RAMP}s" --engine "$5" --format json >"$OUT/$1.candor.$6.json"
}
run_fio() { # name rw bs qd engine pair
  local extra=()
  # A fresh file for every fio run, as candor lays out a fresh one for every
  # run: both then measure a file written just before.
  rm -f "$FIOFILE"
  [ "$5" = null ] || extra=(--filename="$FIOFILE" --direct=1 --lat_percentiles=1)
  # candor writes fresh incompressible data (METHODOLOGY: payloads random and
  # refreshed). fio's default buffers are filled once and only scrambled,
  # which a compressing or deduplicating disk would store faster, and fresh
  # data costs CPU; so fio gets --refill_buffers and both pay the same
  # (FIO_DEFAULT_BUFFERS=1 shows fio's default instead).
  case "$2" in *write*|*rw*) [ -n "${FIO_DEFAULT_BUFFERS:-}" ] || extra+=(--refill_buffers) ;; esac
  # candor overwrites a file it filled first. A write-only fio job without
  # --overwrite=1 writes into a fallocated, never-written file instead
  # (unwritten extents converted on the fly: slower and noisier here);
  # NO_OVERWRITE=1 shows that.
  case "$2" in *write*|*rw*) [ -n "${NO_OVERWRITE:-}" ] || extra+=(--overwrite=1) ;; esac
  # FIO_REAP_ALL=1: fio reaps every ready completion per call, as candor
  # does (and as candor's printed fio command asks); fio's default reaps one
  # per call, so completions wait in the ring, timed, and its latency reads
  # higher at depth. IOPS are the same either way.
  [ -z "${FIO_REAP_ALL:-}" ] || [ "$4" = 1 ] || extra+=(--iodepth_batch_complete_max="$4")
  fio --name=bench --rw="$2" --bs="$3" --iodepth="$4" --ioengine="$5" --size="$SIZE" \
    --time_based --runtime="$RUNTIME" --ramp_time="$RAMP" --norandommap --randrepeat=0 \
    --numjobs=1 --group_reporting "${extra[@]}" --output-format=json >"$OUT/$1.fio.$6.json"
}

echo "# $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs, dir $DIR, file $SIZE, ${RUNTIME}s + ${RAMP}s ramp, $PAIRS pairs"
for p in "${PROFILES[@]}" "NULL-Q32|randread|4k|32"; do
  IFS='|' read -r name rw bs qd <<<"$p"
  # ONLY=name1,name2 runs a subset.
  [ -z "${ONLY:-}" ] || [[ ",$ONLY," == *",$name,"* ]] || continue
  engine=io_uring; [ "$name" = NULL-Q32 ] && engine=null
  for i in $(seq 1 "$PAIRS"); do
    # A B, then B A: drift and whatever the first run of a pair meets
    # (the other tool's file just deleted) fall on both tools alike.
    if [ $((i % 2)) = 1 ]; then
      run_candor "$name" "$rw" "$bs" "$qd" "$engine" "$i"
      run_fio "$name" "$rw" "$bs" "$qd" "$engine" "$i"
    else
      run_fio "$name" "$rw" "$bs" "$qd" "$engine" "$i"
      run_candor "$name" "$rw" "$bs" "$qd" "$engine" "$i"
    fi
  done
done

python3 - "$OUT" "$PAIRS" <<'PY'
import json, statistics, sys, glob, os
out, pairs = sys.argv[1], int(sys.argv[2])
def candor(path):
    m = json.load(open(path))["measurements"][0]
    d = m["read"] or m["write"]
    return dict(iops=d["iops"], p50=d["lat_ns"]["p50"], p99=d["lat_ns"]["p99"],
                cpu_per_io=m["cpu"]["cpu_ns"] / max(d["ops"], 1))
def fio(path):
    text = open(path).read()
    j = json.loads(text[text.index("{"):])["jobs"][0]
    d = j["read"] if j["read"]["total_ios"] else j["write"]
    # candor times submit-to-completion, which is fio's "lat" (slat + clat);
    # fio's clat starts after submission. Both are shown.
    pct = d["lat_ns"].get("percentile") or d["clat_ns"].get("percentile", {})
    cpct = d["clat_ns"].get("percentile", {})
    runtime_ns = j["job_runtime"] * 1e6
    return dict(iops=d["iops"], p50=pct.get("50.000000", 0), p99=pct.get("99.000000", 0),
                cp50=cpct.get("50.000000", 0), cp99=cpct.get("99.000000", 0),
                cpu_per_io=(j["usr_cpu"] + j["sys_cpu"]) / 100 * runtime_ns / max(d["total_ios"], 1))
names = sorted({os.path.basename(p).split(".")[0] for p in glob.glob(out + "/*.json")},
               key=lambda n: ["RND4K-Q32T1-read","RND4K-Q1T1-read","SEQ1M-Q8T1-read","RND4K-Q32T1-write","NULL-Q32"].index(n))
print("p50/p99: candor's submit-to-completion latency / fio's lat (clat in brackets), medians in us")
print(f"{'profile':20} {'candor IOPS':>12} {'fio IOPS':>12} {'ratio':>6}  {'p50 candor/fio':>22} {'p99 candor/fio':>22}  {'CPU ns/IO candor/fio (ratio)':>28}")
for n in names:
    c = [candor(f"{out}/{n}.candor.{i}.json") for i in range(1, pairs + 1)]
    f = [fio(f"{out}/{n}.fio.{i}.json") for i in range(1, pairs + 1)]
    med = lambda xs, k: statistics.median(x[k] for x in xs)
    ratio = statistics.median(a["iops"] / b["iops"] for a, b in zip(c, f))
    cpu_ratio = statistics.median(a["cpu_per_io"] / b["cpu_per_io"] for a, b in zip(c, f) if b["cpu_per_io"] > 0)
    print(f"{n:20} {med(c,'iops'):12.0f} {med(f,'iops'):12.0f} {ratio:6.3f}  "
          f"{med(c,'p50')/1e3:7.1f}/{med(f,'p50')/1e3:.1f} ({med(f,'cp50')/1e3:.1f})  {med(c,'p99')/1e3:7.1f}/{med(f,'p99')/1e3:.1f} ({med(f,'cp99')/1e3:.1f})  "
          f"{med(c,'cpu_per_io'):6.0f}/{med(f,'cpu_per_io'):<6.0f} ({cpu_ratio:.2f})")
    print(f"{'':20} per-pair IOPS ratios: " + " ".join(f"{a['iops']/b['iops']:.3f}" for a, b in zip(c, f)))
    print(f"{'':20} per-pair IOPS candor/fio: " + " ".join(f"{a['iops']:.0f}/{b['iops']:.0f}" for a, b in zip(c, f)))
PY
