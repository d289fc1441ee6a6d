#!/usr/bin/env bash
# Builds candor for FreeBSD (x86_64-unknown-freebsd, issue 38): Debian's
# rustc with the standard library built from its source (`rust-web-src`,
# cargo's build-std) and zig as the C compiler and linker (cargo-zigbuild,
# from PyPI: `pip install ziglang==0.17.1 cargo-zigbuild==0.24.1`). Nothing
# here can run the result: it is built and type-checked, not run by its
# tests (README, "FreeBSD"). It fails unless `file` calls the result a
# FreeBSD ELF executable for x86-64.
#
#   contrib/build-freebsd.sh    -> target/freebsd/x86_64-unknown-freebsd/release/candor
#
# Every tool is required: a missing one fails (CI=true or not).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -eq 0 ]] || { echo "error: unknown argument '$1' (usage: contrib/build-freebsd.sh)" >&2; exit 2; }
for tool in cargo-zigbuild file /usr/bin/cargo /usr/bin/rustc; do
  command -v "$tool" >/dev/null || { echo "error: $tool is missing (pip install ziglang==0.17.1 cargo-zigbuild==0.24.1; apt-get install rust-web-src file)" >&2; exit 2; }
done
[[ -d /usr/lib/rustlib/src/rust/library ]] || { echo "error: rust-web-src (the standard library's source) is missing" >&2; exit 2; }
target=x86_64-unknown-freebsd
# Debian's cargo and rustc (build-std needs the source of the very rustc
# that builds it), found first on PATH by cargo-zigbuild.
PATH="/usr/bin:$PATH" CARGO_TARGET_DIR=target/freebsd RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
  cargo-zigbuild zigbuild --release -Z build-std=std,panic_abort --target "$target" --bin candor
bin="target/freebsd/$target/release/candor"
kind=$(file -b "$bin")
echo "build-freebsd: $bin: $kind"
[[ "$kind" == *"ELF 64-bit"*"x86-64"*"FreeBSD"* ]] \
  || { echo "error: $bin is not a FreeBSD x86-64 ELF executable: $kind" >&2; exit 1; }
