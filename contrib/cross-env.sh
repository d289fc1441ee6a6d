# Sourced, not run: sets what cargo needs to build candor for an ARM target on
# an x86_64 Debian machine with Debian's own cross packages (README names them):
# Debian's rustc (whose std exists for arm64 and armhf; rustup's stays x86_64),
# the cross gcc as linker, C compiler and archiver for the C dependencies
# (aws-lc, liblzma, zstd, SQLite), glibc linked statically, and qemu-user as
# cargo's target runner so `cargo test --target TRIPLE` runs the tests emulated.
#
#   . contrib/cross-env.sh aarch64-unknown-linux-gnu
#   cargo build --target aarch64-unknown-linux-gnu
#
# On x86_64-unknown-linux-gnu it only adds the static-linking flags.
cross_target="${1:?usage: . contrib/cross-env.sh TRIPLE}"
case "$cross_target" in
  x86_64-unknown-linux-gnu)      cross_gcc=""; cross_qemu="" ;;
  aarch64-unknown-linux-gnu)     cross_gcc=aarch64-linux-gnu;   cross_qemu=qemu-aarch64-static ;;
  armv7-unknown-linux-gnueabihf) cross_gcc=arm-linux-gnueabihf; cross_qemu=qemu-arm-static ;;
  *) echo "error: no cross build for target $cross_target (x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu, armv7-unknown-linux-gnueabihf)" >&2
     return 2 2>/dev/null || exit 2 ;;
esac
cross_upper=$(echo "$cross_target" | tr 'a-z-' 'A-Z_')
cross_lower=$(echo "$cross_target" | tr '-' '_')
# Flags for the target only (host build scripts and proc macros stay dynamic).
cross_flags="-C target-feature=+crt-static -C relocation-model=static"
# io-uring ships its kernel-ABI bindings generated on a 64-bit target and
# refuses other targets unless told; its bindgen feature needs kernel headers
# newer than Debian 12's. The io_uring UAPI uses fixed-size fields only and
# 32-bit ARM's EABI aligns u64 to 8 bytes as x86_64 does, so the same layout
# holds on armv7 (not on i386, whose u64 alignment is 4).
[[ "$cross_target" == armv7-* ]] && cross_flags="$cross_flags --cfg=io_uring_skip_arch_check"
export "CARGO_TARGET_${cross_upper}_RUSTFLAGS=$cross_flags"
unset cross_flags
if [[ -n "$cross_gcc" ]]; then
  # Debian's rustc carries the ARM standard libraries; rustup's does not.
  export RUSTC="${CROSS_RUSTC:-/usr/bin/rustc}"
  export "CARGO_TARGET_${cross_upper}_LINKER=${cross_gcc}-gcc"
  export "CC_${cross_lower}=${cross_gcc}-gcc"
  export "CXX_${cross_lower}=${cross_gcc}-g++"
  export "AR_${cross_lower}=${cross_gcc}-ar"
  # The static test binaries need no -L sysroot under qemu-user.
  export "CARGO_TARGET_${cross_upper}_RUNNER=${cross_qemu}"
  # bindgen (armv7's aws-lc-sys) must parse the target's headers, not the host's.
  export "BINDGEN_EXTRA_CLANG_ARGS_${cross_lower}=--sysroot=/usr/${cross_gcc} -I/usr/${cross_gcc}/include"
fi
unset cross_gcc cross_qemu cross_upper cross_lower
