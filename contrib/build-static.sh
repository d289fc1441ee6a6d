#!/usr/bin/env bash
# Builds the static candor that `candor fleet run` pushes to hosts: glibc
# linked statically (crt-static), so it runs on any x86_64 Linux whatever
# its libc. candor resolves no host names itself (ssh does that on the
# controller), so glibc's NSS, which static linking cannot carry, is never
# needed. It is linked at a fixed address (relocation-model=static, not a
# static PIE), which `ldd` reports as "not a dynamic executable". The debug
# line tables of the release profile are stripped from the result: the
# binary travels to every host.
#
#   contrib/build-static.sh            # -> target/x86_64-unknown-linux-gnu/release/candor
#
# It fails unless `ldd` calls the result "not a dynamic executable".
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-unknown-linux-gnu
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
  CARGO_PROFILE_RELEASE_STRIP=debuginfo \
  cargo build --release --locked --target "$target"
bin="target/$target/release/candor"
# ldd exits 1 for a static file: read its words, not its status.
says=$(ldd "$bin" 2>&1 || true)
if [[ "$says" == *"not a dynamic executable"* ]]; then
  echo "static: $bin ($(stat -c %s "$bin") bytes)"
else
  echo "$says"
  echo "error: $bin is not static" >&2
  exit 1
fi
"$bin" --version
