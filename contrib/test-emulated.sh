#!/usr/bin/env bash
# candor's tests for an ARM target on this x86_64 machine, under qemu-user:
#
#   contrib/test-emulated.sh --unit aarch64-unknown-linux-gnu
#       the unit tests (`cargo test --lib`), built in the release profile
#       with Debian's cargo and rustc (contrib/cross-env.sh) and run by
#       cargo's target runner, qemu-aarch64-static;
#   contrib/test-emulated.sh --integration aarch64-unknown-linux-gnu
#       the integration tests that need no kernel feature qemu-user lacks
#       (INTEGRATION below: golden files, imports, history, job files,
#       reports): the tests of those files of tests/ (modules of the two
#       test binaries, tests/integration.rs and tests/quiet.rs), built and
#       run as --unit's, one at a time;
#   contrib/test-emulated.sh --battery armv7-unknown-linux-gnueabihf
#       `candor run --preset quick --no-history` of the static build
#       (contrib/build-static.sh puts it in target/TRIPLE/release/candor)
#       under qemu-user, in a directory on the real disk: it must end with a
#       complete Run whose disk jobs ran on psync and say why, and which says
#       it ran emulated.
#
# The tests that cannot pass under qemu-user are listed, each with its
# reason, in contrib/emulated-skips.txt, the one place they are left out
# (unit tests by name; integration tests as `tests/FILE.rs NAME`, and the
# test files not run at all as `tests/FILE.rs` alone): each is printed
# before the run and skipped by its exact name, and a name that is not one
# of the target's tests fails the run (a renamed test is not skipped
# silently, nor its entry left stale).
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
    --unit|--integration|--battery) mode="${a#--}" ;;
    -*) echo "error: unknown flag '$a' (usage: contrib/test-emulated.sh --unit|--integration|--battery TRIPLE)" >&2; exit 2 ;;
    *) target="$a" ;;
  esac
done
[[ -n "$mode" && -n "$target" ]] || { echo "usage: contrib/test-emulated.sh --unit|--integration|--battery TRIPLE" >&2; exit 2; }
case "$target" in
  aarch64-unknown-linux-gnu)     runner=qemu-aarch64-static ;;
  armv7-unknown-linux-gnueabihf) runner=qemu-arm-static ;;
  *) echo "error: no emulated tests for target '$target' (aarch64-unknown-linux-gnu, armv7-unknown-linux-gnueabihf)" >&2; exit 2 ;;
esac
command -v "$runner" >/dev/null || { echo "error: $runner is not installed (README: Static binaries)" >&2; exit 2; }

skips=contrib/emulated-skips.txt
# The integration tests run emulated; every other file of tests/ must be in
# $skips as `tests/FILE.rs  # why` (checked below), so none is left out unsaid.
INTEGRATION=(golden import import_corpus history jobfile report properties block_device device_jobs compute findings inventory verify)

# The entries of $skips for one test binary: "lib" (bare names) or a file
# stem of tests/ (`tests/STEM.rs NAME`), without their reasons.
skip_names() {
  local line words
  while IFS= read -r line; do
    line="${line%%#*}"
    read -r -a words <<<"$line"
    [[ ${#words[@]} -eq 0 ]] && continue
    if [[ "${words[0]}" == tests/*.rs ]]; then
      [[ ${#words[@]} -eq 2 && "${words[0]}" == "tests/$1.rs" ]] && echo "${words[1]}"
    elif [[ "$1" == lib ]]; then
      echo "${words[0]}"
    fi
  done < "$skips"
}

# Runs the unit tests (`--lib`) with their entries of $skips left out,
# after checking each entry names one of its tests.
run_unit_tests() {
  local listed name args=()
  listed=$("$cargo" test --release --locked --lib --target "$target" -- --list --format terse \
    | sed -n 's/: test$//p')
  [[ -n "$listed" ]] || { echo "error: no unit tests listed on $target" >&2; exit 1; }
  while IFS= read -r name; do
    [[ -z "$name" ]] && continue
    grep -qxF "$name" <<<"$listed" || { echo "error: $skips names '$name', which is not a unit test on $target" >&2; exit 1; }
    args+=(--skip "$name")
  done < <(skip_names lib)
  echo "--lib: $(wc -l <<<"$listed") tests for $target, $(( ${#args[@]} / 2 )) left out"
  "$cargo" test --release --locked --lib --target "$target" -- --exact "${args[@]}" \
    || { echo "error: the unit tests on $target failed (exit $?)" >&2; exit 1; }
}

# Runs the tests of one integration test binary (tests/BINARY.rs, whose
# modules are files of tests/) that belong to the files in INTEGRATION,
# without their entries of $skips (`tests/FILE.rs NAME` is the test
# FILE::NAME), after checking each entry names one of its tests.
run_integration_tests() {
  local binary=$1 listed name stem run=() left=0
  listed=$("$cargo" test --release --locked --test "$binary" --target "$target" -- --list --format terse \
    | sed -n 's/: test$//p')
  [[ -n "$listed" ]] || { echo "error: no tests listed for --test $binary on $target" >&2; exit 1; }
  local skipped=""
  for stem in "${INTEGRATION[@]}"; do
    while IFS= read -r name; do
      [[ -z "$name" ]] && continue
      grep -qxF "$stem::$name" <<<"$listed" || continue
      skipped+="$stem::$name"$'\n'
    done < <(skip_names "$stem")
  done
  while IFS= read -r name; do
    stem=${name%%::*}
    [[ " ${INTEGRATION[*]} " == *" $stem "* ]] || continue
    if grep -qxF "$name" <<<"$skipped"; then left=$((left + 1)); continue; fi
    run+=("$name")
  done <<<"$listed"
  echo "--test $binary: $(wc -l <<<"$listed") tests, ${#run[@]} run on $target, $left left out by name"
  [[ ${#run[@]} -gt 0 ]] || return 0
  # The integration tests start processes. qemu-user's fork of a guest whose
  # other threads are busy can hang the child before its exec (seen once
  # here: jobfile.rs under qemu-aarch64, two tests stuck 15 minutes at 0 %
  # CPU), so they run one at a time, and a test binary that still hangs is
  # stopped and named after 30 minutes instead of holding CI to its limit.
  timeout --kill-after=10 1800 "$cargo" test --release --locked --test "$binary" --target "$target" \
    -- --exact --test-threads 1 "${run[@]}" \
    || { echo "error: --test $binary on $target failed or hung (exit $?)" >&2; exit 1; }
}

if [[ "$mode" == unit || "$mode" == integration ]]; then
  # shellcheck source=contrib/cross-env.sh
  . contrib/cross-env.sh "$target"
  cargo="${CROSS_CARGO:-/usr/bin/cargo}"
  export CARGO_PROFILE_RELEASE_STRIP=debuginfo
  echo "left out under qemu-user ($skips):"
  { grep -v '^[[:space:]]*\(#\|$\)' "$skips" || echo "(none)"; } | sed 's/^/  /'
  if [[ "$mode" == unit ]]; then
    run_unit_tests
    exit 0
  fi
  # Some integration tests start candor (or candor starts itself) by its
  # path, not through cargo's target runner: the kernel runs an ARM binary
  # only through binfmt_misc. qemu-user-static ships the registration
  # (/usr/lib/binfmt.d/), which systemd-binfmt loads at boot; a machine
  # without systemd (this kind of VM) has none, so it is registered here
  # for the run and removed after, with binfmt_misc's mount if made here.
  binfmt=/proc/sys/fs/binfmt_misc
  entry="qemu-${runner#qemu-}"; entry="${entry%-static}"
  conf="/usr/lib/binfmt.d/$entry.conf"
  [[ -r "$conf" ]] || { echo "error: $conf is missing (qemu-user-static registers its binaries there)" >&2; exit 2; }
  mounted_here="" registered_here=""
  undo_binfmt() {
    [[ -n "$registered_here" && -e "$binfmt/$entry" ]] && echo -1 > "$binfmt/$entry"
    [[ -n "$mounted_here" ]] && umount "$binfmt"
    return 0
  }
  trap undo_binfmt EXIT
  if [[ ! -e "$binfmt/register" ]]; then
    mount -t binfmt_misc binfmt_misc "$binfmt"
    mounted_here=1
  fi
  if [[ ! -e "$binfmt/$entry" ]]; then
    cat "$conf" > "$binfmt/register"
    registered_here=1
  fi
  # Every file of tests/ (a module of tests/integration.rs or
  # tests/quiet.rs) is either run or left out with its reason, and every
  # entry of $skips names a test of a file run here.
  for f in tests/*.rs; do
    stem=$(basename "$f" .rs)
    [[ "$stem" == integration || "$stem" == quiet ]] && continue
    if [[ " ${INTEGRATION[*]} " == *" $stem "* ]]; then continue; fi
    grep -qE "^tests/$stem\.rs[[:space:]]*(#|$)" "$skips" \
      || { echo "error: tests/$stem.rs is neither run emulated (INTEGRATION in $0) nor left out with its reason in $skips" >&2; exit 1; }
  done
  all=""
  for binary in integration quiet; do
    all+=$("$cargo" test --release --locked --test "$binary" --target "$target" -- --list --format terse \
      | sed -n 's/: test$//p')$'\n'
  done
  for stem in "${INTEGRATION[@]}"; do
    while IFS= read -r name; do
      [[ -z "$name" ]] && continue
      grep -qxF "$stem::$name" <<<"$all" \
        || { echo "error: $skips names '$name' of tests/$stem.rs, which is not one of its tests on $target" >&2; exit 1; }
    done < <(skip_names "$stem")
  done
  for binary in integration quiet; do
    run_integration_tests "$binary"
  done
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
