#!/usr/bin/env bash
# candor disk --job and fio on the same job file, in alternation (candor
# fio, fio candor, ...) so that drift of a shared VM's disk hits both alike.
# Prints each job's IOPS and MB/s under both tools, per pair, and the
# median ratio; when fio merges jobs into one report (group_reporting), the
# merged figure is compared with candor's jobs of that group counted as fio
# counts a group: all their operations and bytes over the longest job's
# measured time.
#
# Usage: bench/jobfile-vs-fio.sh JOBFILE [PAIRS]
#   The job file should name its files under ${BENCH_DIR} (set here to a
#   scratch directory under $DIR, /var/tmp by default), so that fio's files
#   go there and candor's beside them.
# Environment: DIR (default /var/tmp), CANDOR (default target/release/candor).
# Needs: fio, python3, a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBFILE=$(realpath "$1")
PAIRS=${2:-3}
DIR=${DIR:-/var/tmp}
CANDOR=$(realpath "${CANDOR:-target/release/candor}")
OUT=$(mktemp -d "$DIR/candor-jobbench.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
export BENCH_DIR="$OUT/files"
mkdir -p "$BENCH_DIR"
[ -x "$CANDOR" ] || { echo "build first: cargo build --release" >&2; exit 1; }
command -v fio >/dev/null || { echo "fio is not installed (apt-get install fio)" >&2; exit 1; }

run_candor() { "$CANDOR" disk --job "$JOBFILE" --dir "$BENCH_DIR" --format json >"$OUT/candor.$1.json"; }
# Fresh files for every fio run, removed as soon as it ends, as candor
# removes its own: each run then starts just after the other tool's files
# went (on a filesystem mounted with discard, a deletion keeps the disk
# busy for a while; removing fio's files just before fio's own run put that
# on fio alone).
run_fio() { (cd "$BENCH_DIR" && fio --output-format=json "$JOBFILE") >"$OUT/fio.$1.json"; rm -f "$BENCH_DIR"/*; }

echo "# $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs, $JOBFILE ($(sha256sum "$JOBFILE" | cut -c1-16)), $PAIRS pairs"
for i in $(seq 1 "$PAIRS"); do
  if [ $((i % 2)) = 1 ]; then run_candor "$i"; run_fio "$i"; else run_fio "$i"; run_candor "$i"; fi
done

python3 - "$OUT" "$PAIRS" <<'PY'
import json, statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])
def candor(i):
    run = json.load(open(f"{out}/candor.{i}.json"))
    jobs = {}
    for m in run["measurements"]:
        ops = sum((m[d] or {}).get("ops", 0) for d in ("read", "write"))
        nbytes = sum((m[d] or {}).get("bytes", 0) for d in ("read", "write"))
        jobs[m["profile"]] = (m["job"]["group"], ops, nbytes, m["measured_ns"] / 1e9)
    return jobs
def fio(i):
    text = open(f"{out}/fio.{i}.json").read()
    res = {}
    for j in json.loads(text[text.index("{"):])["jobs"]:
        ops = j["read"]["iops"] + j["write"]["iops"]
        bps = j["read"]["bw_bytes"] + j["write"]["bw_bytes"]
        # fio names a merged group after its first job; clones share a name.
        old = res.get(j["jobname"], (j["groupid"], 0.0, 0.0))
        res[j["jobname"]] = (j["groupid"], old[1] + ops, old[2] + bps)
    return res
rows = {}
for i in range(1, pairs + 1):
    c, f = candor(i), fio(i)
    for name, (group, ops, bps) in f.items():
        members = [n for n, v in c.items() if v[0] == group] if name not in c or len(f) < len(c) else [name]
        label = name if members == [name] else f"group {group} ({', '.join(members)})"
        secs = max(c[n][3] for n in members)
        cops = sum(c[n][1] for n in members) / secs
        cbps = sum(c[n][2] for n in members) / secs
        rows.setdefault(label, []).append((cops, ops, cbps, bps))
print(f"{'job':40} {'candor IOPS':>12} {'fio IOPS':>12} {'candor MB/s':>12} {'fio MB/s':>10} {'ratio':>6}")
for label, v in rows.items():
    med = lambda k: statistics.median(x[k] for x in v)
    ratio = statistics.median(x[0] / x[1] for x in v if x[1] > 0)
    print(f"{label:40} {med(0):12.0f} {med(1):12.0f} {med(2)/1e6:12.1f} {med(3)/1e6:10.1f} {ratio:6.3f}")
    print(f"{'':40} per-pair IOPS ratios: " + " ".join(f"{x[0]/x[1]:.3f}" for x in v))
PY
