#!/usr/bin/env bash
# candor's tests for an ARM target on this x86_64 machine, under qemu-user:
#
#   contrib/test-emulated.sh --unit aarch64-unknown-linux-gnu
#       the unit tests (`cargo test --lib`), built in the release profile
#       with Debian's cargo and rustc (contrib/cross-env.sh) and run by
#       cargo's target runner, qemu-aarch64-static;
#   contrib/test-emulated.sh --battery armv7-unknown-linux-gnueabihf
#       `candor run --preset quick --no-history` of the static build
#       (contrib/build-static.sh puts it in target/TRIPLE/release/candor)
#       under qemu-user, in a directory on the real disk: it must end with a
#       complete Run whose disk jobs ran on psync and say why, and which says
#       it ran emulated.
#
# The unit tests that cannot pass under qemu-user are listed, each with its
# reason, in contrib/emulated-skips.txt, the one place they are left out:
# each is printed before the run and skipped by its exact name, and a name
# that is not one of the target's tests fails the run (a renamed test is
# not skipped silently, nor its entry left stale).
#
# The release profile is the one contrib/build-static.sh --no-lto builds
# with (CARGO_PROFILE_RELEASE_STRIP=debuginfo, no LTO), so after that build
# only candor's own test harness is compiled. Every tool is required: a
# missing one fails (CI=true or not).
set -euo pipefail
cd "$(dirname "$0")/.."
mode="" target=""
for a in "$@"; do
  case "$a" in
    --unit|--battery) mode="${a#--}" ;;
    -*) echo "error: unknown flag '$a' (usage: contrib/test-emulated.sh --unit|--battery TRIPLE)" >&2; exit 2 ;;
    *) target="$a" ;;
  esac
done
[[ -n "$mode" && -n "$target" ]] || { echo "usage: contrib/test-emulated.sh --unit|--battery TRIPLE" >&2; exit 2; }
case "$target" in
  aarch64-unknown-linux-gnu)     runner=qemu-aarch64-static ;;
  armv7-unknown-linux-gnueabihf) runner=qemu-arm-static ;;
  *) echo "error: no emulated tests for target '$target' (aarch64-unknown-linux-gnu, armv7-unknown-linux-gnueabihf)" >&2; exit 2 ;;
esac
command -v "$runner" >/dev/null || { echo "error: $runner is not installed (README: Static binaries)" >&2; exit 2; }

if [[ "$mode" == unit ]]; then
  # shellcheck source=contrib/cross-env.sh
  . contrib/cross-env.sh "$target"
  cargo="${CROSS_CARGO:-/usr/bin/cargo}"
  export CARGO_PROFILE_RELEASE_STRIP=debuginfo
  skips=contrib/emulated-skips.txt
  # The target's test names, from the test binary itself (under qemu).
  listed=$("$cargo" test --release --locked --lib --target "$target" -- --list --format terse \
    | sed -n 's/: test$//p')
  [[ -n "$listed" ]] || { echo "error: no unit tests listed for $target" >&2; exit 1; }
  args=()
  while IFS= read -r line; do
    line="${line%%#*}"
    name="${line%%[[:space:]]*}"
    [[ -z "$name" ]] && continue
    grep -qxF "$name" <<<"$listed" || { echo "error: $skips names '$name', which is not a unit test of $target" >&2; exit 1; }
    args+=(--skip "$name")
  done < "$skips"
  echo "left out under qemu-user ($skips):"
  { grep -v '^[[:space:]]*\(#\|$\)' "$skips" || echo "(none)"; } | sed 's/^/  /'
  echo "$(wc -l <<<"$listed") unit tests for $target, $(( ${#args[@]} / 2 )) left out"
  "$cargo" test --release --locked --lib --target "$target" -- --exact "${args[@]}"
  exit 0
fi

bin="target/$target/release/candor"
[[ -x "$bin" ]] || { echo "error: $bin is missing: contrib/build-static.sh --target $target builds it" >&2; exit 2; }
dir=$(mktemp -d /var/tmp/candor-emulated.XXXXXX)
trap 'rm -rf "$dir"' EXIT
out="$dir/out.txt"
set +e
"$runner" "$bin" run --preset quick --no-history --dir "$dir" -o "$dir/run.json" >"$out" 2>&1
rc=$?
set -e
fail() { cat "$out" >&2; echo "error: $target under $runner: $1" >&2; exit 1; }
[[ $rc -eq 0 ]] || fail "candor run --preset quick exited $rc"
grep -q "Run saved to $dir/run.json (complete)" "$out" || fail "the Run is not complete"
grep -q "^  Engine    psync (psync ran because io_uring is unavailable (qemu-user implements no io_uring" "$out" \
  || fail "the engine line does not name psync and qemu-user as the reason"
grep -q "^  Emulated  emulated (qemu-user or similar)" "$out" || fail "the Run does not say it ran emulated"
if grep -q "instruction sequence Debian's sysbench 1.0.20 runs on x86_64" "$out"; then
  fail "the Run claims x86_64's instruction sequence"
fi
head -12 "$out"
echo "ok: $target under $runner: a complete Run on psync, emulated ($(grep -o 'took [0-9ms ]*' "$out" | head -1))"
