#!/usr/bin/env bash
# Builds the static candor that `candor fleet run` pushes to hosts: glibc
# linked statically (crt-static), so it runs on any Linux of its architecture
# whatever its libc. candor resolves no host names itself (ssh does that on
# the controller), so glibc's NSS, which static linking cannot carry, is never
# needed. It is linked at a fixed address (relocation-model=static, not a
# static PIE): the ELF file has no interpreter. The debug line tables of the
# release profile are stripped from the result: the binary travels to every host.
#
#   contrib/build-static.sh                                  # x86_64
#   contrib/build-static.sh --target aarch64-unknown-linux-gnu
#   contrib/build-static.sh --target armv7-unknown-linux-gnueabihf
#   contrib/build-static.sh --target aarch64-unknown-linux-gnu --no-lto
#
# --no-lto builds with the release profile as it is (no LTO, 16 codegen
# units): what CI uses for the ARM binaries it only runs under qemu-user,
# where a build's minutes count and its speed does not (BENCHMARKS.md, "ARM").
# -> target/TRIPLE/release/candor, where `candor fleet run` looks for each
# architecture's build. The ARM targets use Debian's rustc and cross gcc
# (contrib/cross-env.sh; README names the packages) and are run once under
# qemu-user to prove they start. It fails unless the result has no
# interpreter (readelf) and is of the target's machine.
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-unknown-linux-gnu
lto=thin
while [[ $# -gt 0 ]]; do
  case "$1" in
    --target) target="${2:?--target needs a triple}"; shift 2 ;;
    --target=*) target="${1#--target=}"; shift ;;
    --no-lto) lto=no; shift ;;
    *) echo "error: unknown argument '$1' (usage: contrib/build-static.sh [--target TRIPLE] [--no-lto])" >&2; exit 2 ;;
  esac
done
case "$target" in
  x86_64-unknown-linux-gnu)      machine="Advanced Micro Devices X86-64"; runner="" ;;
  aarch64-unknown-linux-gnu)     machine="AArch64"; runner=qemu-aarch64-static ;;
  armv7-unknown-linux-gnueabihf) machine="ARM"; runner=qemu-arm-static ;;
  *) echo "error: no static build for target '$target' (x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu, armv7-unknown-linux-gnueabihf)" >&2; exit 2 ;;
esac
# shellcheck source=contrib/cross-env.sh
. contrib/cross-env.sh "$target"
cargo=cargo
[[ -n "$runner" ]] && cargo="${CROSS_CARGO:-/usr/bin/cargo}"
for tool in readelf ${runner:+"$runner"}; do
  command -v "$tool" >/dev/null || { echo "error: $tool is not installed (README: Static binaries)" >&2; exit 2; }
done
# Thin LTO and one codegen unit for the binary that travels (smaller; the
# release profile itself builds without them, BENCHMARKS.md "Build profiles").
# A later `cargo test --release` reuses the dependencies built here only
# with the same settings (.ci/run sets CARGO_PROFILE_RELEASE_STRIP=debuginfo
# for its --no-lto builds' tests).
export CARGO_PROFILE_RELEASE_STRIP=debuginfo
if [[ "$lto" == thin ]]; then
  export CARGO_PROFILE_RELEASE_LTO=thin CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
fi
"$cargo" build --release --locked --target "$target"
bin="target/$target/release/candor"
header=$(readelf -h "$bin")
if [[ "$header" != *"Machine:"*"$machine"* ]]; then
  echo "error: $bin is not an executable for $machine" >&2
  exit 1
fi
if readelf -l "$bin" | grep -q "INTERP"; then
  readelf -l "$bin" | grep -A1 INTERP
  echo "error: $bin is not static (it names a program interpreter)" >&2
  exit 1
fi
echo "static: $bin ($machine, $(stat -c %s "$bin") bytes, no interpreter)"
${runner:+"$runner"} "$bin" --version
