#!/usr/bin/env bash
# A long hunt of the property tests before a stop. The suite runs 256 cases
# of each property with fresh random seeds in every CI run: a rare input
# (a Run file field at 2^64-1 once failed a stop that way) is found by CI
# at the price of the stop. This runs CASES cases of each (default
# 400,000) so that the next CI
# run's seeds are unlikely to find what the hunt did not. A failure leaves
# its case in tests/properties.proptest-regressions (proptest's own
# persistence): fix it and keep the case there with a one-line reason.
#
# Usage: bench/property-hunt.sh [CASES] [FILTER]
set -euo pipefail
cd "$(dirname "$0")/.."
CASES=${1:-400000}
FILTER=${2:-}
echo "# $(date -u +%FT%TZ) PROPTEST_CASES=$CASES cargo test --test integration properties::$FILTER ($(git rev-parse --short HEAD))"
start=$(date +%s)
PROPTEST_CASES=$CASES cargo test --test integration "properties::$FILTER"
echo "# $(date -u +%FT%TZ) passed in $(( $(date +%s) - start )) s"
