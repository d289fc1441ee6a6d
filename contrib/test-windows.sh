#!/bin/sh
# candor.exe under Wine (issue 38): builds the Windows binary, runs short
# real disk tests to Run files and checks each Run (complete, operations and
# bytes done, the engine, the file system named) and that the test directory
# is empty afterwards: random reads and sequential writes on the automatic
# engine (windowsaio) and on psync, QD8 random reads and writes on windowsaio
# through a job file (exactly size/bs operations each), and a QD8 job whose
# I/O fails after 100 operations (the engine cancels and drains what is in
# flight; the Run says failed, the file is removed), and another candor's
# files named as a gone or a running owner's (pid and creation time). A
# feature not ported is
# refused with exit 2. Wine's figures are not Windows's: nothing here checks
# a rate. Under CI=true a missing toolchain or Wine fails.
#
# With --unit it runs candor's unit tests instead (`cargo test --lib` built
# for x86_64-pc-windows-gnu in the release profile and target directory of
# the candor.exe build, so only candor's test harness is compiled again),
# the harness run by Wine with the test-only ProcessPrng shim beside it. The
# tests that cannot pass under Wine are left out by exact name, each with
# its reason, in contrib/windows-skips.txt; a name there that is not a test
# of the Windows build fails the run.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
mode=disk
case "${1:-}" in
    --unit) mode=unit ;;
    "") ;;
    *) echo "error: unknown argument '$1' (usage: contrib/test-windows.sh [--unit])" >&2; exit 2 ;;
esac
missing() {
    if [ "${CI:-}" = true ]; then echo "test-windows: FAIL: $1 is missing" >&2; exit 1; fi
    echo "test-windows: skipped: $1 is missing" >&2; exit 0
}
wine=/usr/lib/wine/wine64
[ -x "$wine" ] || missing "wine64 ($wine)"
command -v x86_64-w64-mingw32-gcc >/dev/null || missing "x86_64-w64-mingw32-gcc"
[ -d /usr/lib/rustlib/src/rust/library ] || missing "rust-web-src (the standard library's source)"
command -v python3 >/dev/null || missing python3

target="$here/target/win"
build() {
    CARGO_TARGET_DIR="$target" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 /usr/bin/cargo "$@" \
        --manifest-path "$here/Cargo.toml" --release -Z build-std=std,panic_abort \
        --target x86_64-pc-windows-gnu
}
work=$(mktemp -d /tmp/candor-wine.XXXXXX)
# Wine's server outlives the last program by a few seconds and writes into
# the prefix: it is waited for before the directory goes.
trap 'WINEPREFIX="$work/prefix" /usr/lib/wine/wineserver -w 2>/dev/null; rm -rf "$work"' EXIT
if [ "$mode" = unit ]; then
    # The harness's path, from cargo's own report of what it built.
    build test --lib --no-run --message-format=json > "$work/built.json"
    harness=$(python3 -c '
import json, sys
exes = [m["executable"] for m in map(json.loads, open(sys.argv[1]))
        if m.get("reason") == "compiler-artifact" and m.get("executable")]
assert len(exes) == 1, exes
print(exes[0])' "$work/built.json")
    cp "$harness" "$work/candor-unit.exe"
else
    build build --bin candor
    cp "$target/x86_64-pc-windows-gnu/release/candor.exe" "$work/"
fi
# Wine 8 lacks ProcessPrng (bcryptprimitives.dll), which Rust's std calls;
# this test-only shim answers it with SystemFunction036. Never shipped.
cat > "$work/shim.c" <<'C'
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID, ULONG);
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!SystemFunction036(data, n)) return FALSE;
        data += n; len -= n;
    }
    return TRUE;
}
C
x86_64-w64-mingw32-gcc -shared -o "$work/bcryptprimitives.dll" "$work/shim.c" -ladvapi32
mkdir "$work/d"
export WINEPREFIX="$work/prefix" WINEDEBUG=-all
win() { printf 'Z:%s' "$1" | tr / '\\'; }
cd "$work"
if [ "$mode" = unit ]; then
    skips="$here/contrib/windows-skips.txt"
    "$wine" candor-unit.exe --list --format terse 2>/dev/null | sed -n 's/: test$//p' > listed.txt
    [ -s listed.txt ] || { echo "test-windows: FAIL: the unit test harness listed no tests under Wine" >&2; exit 1; }
    sed 's/#.*//' "$skips" | awk 'NF { print $1 }' > skipped.txt
    set --
    while IFS= read -r name; do
        grep -qxF "$name" listed.txt || { echo "test-windows: FAIL: $skips names '$name', which is not a unit test of the Windows build" >&2; exit 1; }
        set -- "$@" --skip "$name"
    done < skipped.txt
    echo "test-windows: $(wc -l < listed.txt) unit tests for x86_64-pc-windows-gnu, $(wc -l < skipped.txt) left out ($skips)"
    "$wine" candor-unit.exe --exact "$@" > unit.txt 2>&1 || { cat unit.txt >&2; echo "test-windows: FAIL: unit tests under Wine" >&2; exit 1; }
    grep '^test result: ' unit.txt
    echo "test-windows: ok (the unit tests under Wine)"
    exit 0
fi
# A timed job: the Run complete, whole 4k operations, the file as asked.
timed() { # rw engine-flag engine-in-run
    name="$1-$3"
    # shellcheck disable=SC2086
    "$wine" candor.exe disk --dir "$(win "$work/d")" --rw "$1" --bs 4k --size 64m $2 \
        --runtime 2s --ramp 0s --no-history -o "$(win "$work/$name.json")" > "$work/$name.txt"
    python3 - "$work/$name.json" "$1" "$3" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
rw, engine = sys.argv[2], sys.argv[3]
assert run["status"] == "complete", run["status"]
assert "Windows" in (run["host"].get("kernel") or ""), run["host"].get("kernel")
m = run["measurements"][0]
assert m["spec"]["engine"] == engine and m["spec"]["direct"], m["spec"]
side = m["read" if rw == "randread" else "write"]
assert side["ops"] > 0 and side["bytes"] == side["ops"] * 4096, side
assert m["file"]["size"] == 64 << 20 and m["file"]["allocated_bytes"] >= 64 << 20, m["file"]
assert run["host"]["storage"]["fs_type"], run["host"]["storage"]
print(f"test-windows: {rw} on {engine}: {side['ops']} operations, {side['bytes']} bytes, Run complete")
PY
}
timed randread "" windowsaio
timed write "" windowsaio
timed randread "--engine psync --iodepth 1" psync
# The host facts Windows's own calls read, against Linux's view of the same
# machine (Wine answers GetLogicalProcessorInformationEx from the host's
# topology; cpuid is the real CPU's): the same CPUs, cores, sockets and model;
# the disk's bus either read or not-checked with its reason, never guessed.
command -v lscpu >/dev/null || missing lscpu
cpus=$(lscpu -p=cpu | grep -vc '^#')
cores=$(lscpu -p=socket,core | grep -v '^#' | sort -u | wc -l)
sockets=$(lscpu -p=socket | grep -v '^#' | sort -u | wc -l)
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
python3 - "$work/randread-windowsaio.json" "$cpus" "$cores" "$sockets" "$model" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["host"]
cpus, cores, sockets, model = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
assert h["kernel"].startswith("Windows "), h["kernel"]
assert (h["cpu_threads"], h["cpu_cores"], h["cpu_sockets"]) == (cpus, cores, sockets), h
assert h["smt"] == (cpus > cores), h
assert h["extra"]["cpu_topology_source"] == "GetLogicalProcessorInformationEx", h["extra"]
assert not model or h["cpu_model"] == model, (h["cpu_model"], model)
bus = h["extra"]["storage_bus"]
assert bus and (not bus.startswith("not-checked") or len(bus) > len("not-checked: ")), bus
print(f"test-windows: host: {h['kernel']}, {h['cpu_model']}, {h['cpu_threads']} CPUs, "
      f"{h['cpu_cores']} cores, {h['cpu_sockets']} socket(s), caches {h['extra'].get('cpu_caches')}, bus {bus}, "
      f"write cache {h['storage'].get('write_cache') or h['extra'].get('write_cache')}")
PY
# The Run renders on Linux, and its Host line says Windows, not "Linux Windows".
cargo run --quiet --manifest-path "$here/Cargo.toml" --bin candor -- \
    report "$work/randread-windowsaio.json" > "$work/report.txt"
grep -q '· Windows ' "$work/report.txt" || { echo "test-windows: FAIL: the report's Host line does not say Windows" >&2; grep Host "$work/report.txt" >&2; exit 1; }
! grep -q 'Linux Windows' "$work/report.txt" || { echo "test-windows: FAIL: the report says Linux Windows" >&2; exit 1; }
echo "test-windows: candor report on Linux renders the Run: $(grep -m1 'Host' "$work/report.txt")"
# QD8 on windowsaio, sized: a random job over an 8 MiB file does each 4k
# block once (fio's random map), 2048 operations, all of them completed.
for rw in randread randwrite; do
    printf '[q8]\nioengine=windowsaio\nrw=%s\nbs=4k\niodepth=8\nsize=8m\ndirect=1\n' "$rw" > "$work/$rw.fio"
    "$wine" candor.exe disk --job "$(win "$work/$rw.fio")" --dir "$(win "$work/d")" --no-history \
        -o "$(win "$work/q8-$rw.json")" > "$work/q8-$rw.txt"
    python3 - "$work/q8-$rw.json" "$rw" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
rw = sys.argv[2]
assert run["status"] == "complete", run["status"]
m = run["measurements"][0]
assert m["spec"]["engine"] == "windowsaio" and m["spec"]["iodepth"] == 8, m["spec"]
side, other = (m["read"], m["write"]) if rw == "randread" else (m["write"], m["read"])
assert side["ops"] == 2048 and side["bytes"] == 8 << 20, side
assert other is None or other["ops"] == 0, other
print(f"test-windows: QD8 {rw} on windowsaio: {side['ops']} operations of 2048, Run complete")
PY
done
# A failing device at QD8: the worker stops with operations in flight; the
# engine cancels them (CancelIoEx) and drains the port before the buffers go.
set +e
CANDOR_TEST_FAIL_IO_AFTER=100 "$wine" candor.exe disk --job "$(win "$work/randread.fio")" \
    --dir "$(win "$work/d")" --no-history -o "$(win "$work/fail.json")" > /dev/null 2> "$work/fail.txt"
rc=$?
set -e
[ "$rc" = 1 ] || { echo "test-windows: FAIL: a failing QD8 job exited $rc, not 1" >&2; cat "$work/fail.txt" >&2; exit 1; }
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["status"]=="failed", r["status"]' "$work/fail.json"
echo "test-windows: QD8 job failing after 100 operations: exit 1, Run failed, in-flight I/O cancelled"
# Another candor's files (owner liveness from pid and creation time): a
# dead owner's file is named as gone, a running candor's as running, and
# the second candor's measurement notes that the disk was shared.
mkdir "$work/d2"
planted=".candor-main-4-1-0.tmp"
: > "$work/d2/$planted"
"$wine" candor.exe disk --dir "$(win "$work/d2")" --rw randread --bs 4k --size 8m --iodepth 1 \
    --runtime 1s --ramp 0s --no-history -o "$(win "$work/dead.json")" > /dev/null 2> "$work/dead.txt"
grep -q "(pid 4) is gone" "$work/dead.txt" || { echo "test-windows: FAIL: a dead owner's file was not named as gone" >&2; cat "$work/dead.txt" >&2; exit 1; }
"$wine" candor.exe disk --dir "$(win "$work/d2")" --rw randread --bs 4k --size 8m --iodepth 1 \
    --runtime 8s --ramp 0s --no-history -o "$(win "$work/first.json")" > /dev/null 2>&1 &
first=$!
tries=0
until ls -A "$work/d2" | grep -v "^$planted\$" | grep -q '^\.candor-'; do
    tries=$((tries + 1))
    [ "$tries" -lt 100 ] || { echo "test-windows: FAIL: the first candor made no test file" >&2; exit 1; }
    sleep 0.2
done
"$wine" candor.exe disk --dir "$(win "$work/d2")" --rw randread --bs 4k --size 8m --iodepth 1 \
    --runtime 1s --ramp 0s --no-history -o "$(win "$work/second.json")" > /dev/null 2> "$work/second.txt"
wait "$first"
grep -q "still runs" "$work/second.txt" || { echo "test-windows: FAIL: a running candor's file was not named as running" >&2; cat "$work/second.txt" >&2; exit 1; }
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); notes=r["measurements"][0].get("notes", []) + r.get("notes", []); assert any("is measuring in" in n for n in notes), notes' "$work/second.json"
rm "$work/d2/$planted"
[ -z "$(ls -A "$work/d2")" ] || { echo "test-windows: FAIL: left in d2: $(ls -A "$work/d2")" >&2; exit 1; }
echo "test-windows: leftovers: a dead owner's file named as gone, a running candor's as running, the shared disk noted"
left=$(ls -A "$work/d")
[ -z "$left" ] || { echo "test-windows: FAIL: left in the test directory: $left" >&2; exit 1; }
set +e
"$wine" candor.exe unixbench > /dev/null 2> "$work/refused.txt"
rc=$?
set -e
[ "$rc" = 2 ] || { echo "test-windows: FAIL: unixbench exited $rc, not 2" >&2; exit 1; }
grep -q 'do not run on Windows' "$work/refused.txt"
# The history is refused by name, with or without --db (its default is
# under %LOCALAPPDATA%, not XDG's), exit 2.
for db in "" "--db $(win "$work/h.db")"; do
    set +e
    # shellcheck disable=SC2086
    "$wine" candor.exe history list $db > /dev/null 2> "$work/history.txt"
    rc=$?
    set -e
    [ "$rc" = 2 ] && grep -q 'history database is not ported to Windows' "$work/history.txt" \
        || { echo "test-windows: FAIL: candor history list $db exited $rc:" >&2; cat "$work/history.txt" >&2; exit 1; }
done
[ ! -e "$work/h.db" ] || { echo "test-windows: FAIL: a refused history made $work/h.db" >&2; exit 1; }
echo "test-windows: ok (candor.exe under Wine: disk read and write on windowsaio and psync, QD8 to exact counts, a failing QD8 job cancelled, owner liveness, files removed, unixbench and the history refused with exit 2)"
