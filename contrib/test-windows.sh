#!/bin/sh
# candor.exe under Wine (issue 38): builds the Windows binary, runs a short
# real disk test (random reads, then sequential writes) to a Run file, checks
# the Run (complete, operations and bytes done, psync, the file system named)
# and that the test directory is empty afterwards, and that a feature not
# ported is refused with exit 2. Wine's figures are not Windows's: nothing
# here checks a rate. Under CI=true a missing toolchain or Wine fails.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
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
CARGO_TARGET_DIR="$target" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 /usr/bin/cargo build \
    --manifest-path "$here/Cargo.toml" --release -Z build-std=std,panic_abort \
    --target x86_64-pc-windows-gnu --bin candor
work=$(mktemp -d /tmp/candor-wine.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$target/x86_64-pc-windows-gnu/release/candor.exe" "$work/"
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
for rw in randread write; do
    "$wine" candor.exe disk --dir "$(win "$work/d")" --rw "$rw" --bs 4k --size 64m \
        --runtime 2s --ramp 0s --no-history -o "$(win "$work/$rw.json")" > "$work/$rw.txt"
    python3 - "$work/$rw.json" "$rw" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
rw = sys.argv[2]
assert run["status"] == "complete", run["status"]
assert "Windows" in (run["host"].get("kernel") or ""), run["host"].get("kernel")
m = run["measurements"][0]
assert m["spec"]["engine"] == "psync" and m["spec"]["direct"], m["spec"]
side = m["read" if rw == "randread" else "write"]
assert side["ops"] > 0 and side["bytes"] == side["ops"] * 4096, side
assert m["file"]["size"] == 64 << 20 and m["file"]["allocated_bytes"] >= 64 << 20, m["file"]
assert run["host"]["storage"]["fs_type"], run["host"]["storage"]
print(f"test-windows: {rw}: {side['ops']} operations, {side['bytes']} bytes, Run complete")
PY
done
left=$(ls -A "$work/d")
[ -z "$left" ] || { echo "test-windows: FAIL: left in the test directory: $left" >&2; exit 1; }
set +e
"$wine" candor.exe unixbench > /dev/null 2> "$work/refused.txt"
rc=$?
set -e
[ "$rc" = 2 ] || { echo "test-windows: FAIL: unixbench exited $rc, not 2" >&2; exit 1; }
grep -q 'do not run on Windows' "$work/refused.txt"
echo "test-windows: ok (candor.exe under Wine: disk read and write to complete Runs, files removed, unixbench refused with exit 2)"
