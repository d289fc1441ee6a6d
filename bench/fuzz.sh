#!/bin/sh
# Fuzzes candor's parsers with cargo-fuzz (libFuzzer, nightly toolchain):
# each target in fuzz/ runs for MINUTES minutes, one after another, from the
# small seed corpus in fuzz/corpus/<target>/ (what libFuzzer adds goes to a
# scratch directory, not into the repository). A crash, a timeout (10 s for
# one input) or 2 GiB of memory stops the script with the target's name and
# exit code 1; the input is kept under fuzz/artifacts/<target>/.
#
#   bench/fuzz.sh MINUTES [TARGET...]     (default: every target)
#
# Needs: rustup toolchain nightly, cargo install cargo-fuzz.
set -eu
minutes=${1:?usage: bench/fuzz.sh MINUTES [TARGET...]}
shift
cd "$(dirname "$0")/.."
targets=${*:-"run_reader fio_import units jobfile inventory"}
seconds=$((minutes * 60))
scratch=$(mktemp -d /var/tmp/candor-fuzz.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# -a: with debug assertions, so that an integer overflow is a crash here
# as it is in the test suite (a release build would wrap silently).
cargo +nightly fuzz build --release -a $targets >/dev/null 2>&1 || cargo +nightly fuzz build --release -a
for t in $targets; do
    mkdir -p "$scratch/$t" "$scratch/artifacts-$t"
    echo "== $t: $minutes min"
    # -max_len: the JSON seeds are up to 25 KB; -timeout: one input may not
    # take 10 seconds; -rss_limit_mb: nor 2 GiB of memory.
    cargo +nightly fuzz run --release -a "$t" "$scratch/$t" "fuzz/corpus/$t" -- \
        -max_total_time="$seconds" -max_len=32768 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$scratch/artifacts-$t/" -print_final_stats=1 2>&1 |
        grep -aE '^(stat::number_of_executed_units|stat::peak_rss_mb|Done|==[0-9]+==|SUMMARY|thread .* panicked)' || true
    if [ -n "$(ls "$scratch/artifacts-$t")" ]; then
        mkdir -p "fuzz/artifacts/$t"
        cp "$scratch/artifacts-$t"/* "fuzz/artifacts/$t/"
        echo "== $t: CRASH, inputs in fuzz/artifacts/$t/: $(ls "$scratch/artifacts-$t" | tr '\n' ' ')"
        exit 1
    fi
    echo "== $t: no crash; corpus grew to $(ls "$scratch/$t" | wc -l) inputs"
done
