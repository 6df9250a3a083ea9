#!/usr/bin/env bash
# Runs the concurrency tests under ThreadSanitizer and the LMDB-layer tests under
# AddressSanitizer, each in its own scratch directory (sanitized and plain builds never mix).
#
#   Tests/Sanitizers/run.sh [tsan|asan|all]      (default: all)
#
# Environment: SANITIZER_SCRATCH (default .build/sanitizers) holds the builds; SWIFT (default swift).
# Fails when a test fails, when AddressSanitizer reports anything, or when ThreadSanitizer reports
# a race outside the known Synchronization.Mutex false positive (see README.md and tsan-filter.awk).
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Tests/Sanitizers
swift=${SWIFT:-swift}
scratch=${SANITIZER_SCRATCH:-.build/sanitizers}
mode=${1:-all}
mkdir -p "$scratch"

run_tsan() {
    local log="$scratch/tsan.log" start=$SECONDS status=0
    echo "== ThreadSanitizer: WriterTests, ContextTests, TransactionTests"
    "$swift" build --build-tests --sanitize=thread --scratch-path "$scratch/thread"
    # exitcode=0: the test runner's status is the tests' own; races are judged by the filter below.
    TSAN_OPTIONS="exitcode=0 halt_on_error=0 history_size=4 ${TSAN_OPTIONS:-}" \
        "$swift" test --skip-build --sanitize=thread --scratch-path "$scratch/thread" \
        --filter 'WriterTests|ContextTests|TransactionTests' >"$log" 2>&1 || status=$?
    grep -E '^(✔|✘) Test run|Executed [0-9]+ tests' "$log" || true
    if [ "$status" -ne 0 ]; then
        grep -E '^✘' "$log" || tail -50 "$log"
        echo "ThreadSanitizer run: tests failed (status $status); full output in $log"; return 1
    fi
    awk -f "$here/tsan-filter.awk" "$log" || { echo "full output in $log"; return 1; }
    echo "ThreadSanitizer step: $((SECONDS - start)) s"
}

run_asan() {
    local log="$scratch/asan.log" start=$SECONDS status=0
    echo "== AddressSanitizer: LMDBTests"
    "$swift" build --build-tests --sanitize=address --scratch-path "$scratch/address"
    ASAN_OPTIONS="halt_on_error=1 detect_stack_use_after_return=1 ${ASAN_OPTIONS:-}" \
    LSAN_OPTIONS="suppressions=$PWD/$here/lsan.supp ${LSAN_OPTIONS:-}" \
        "$swift" test --skip-build --sanitize=address --scratch-path "$scratch/address" \
        --filter LMDBTests >"$log" 2>&1 || status=$?
    grep -E '^(✔|✘) Test run|Executed [0-9]+ tests' "$log" || true
    if [ "$status" -ne 0 ] || grep -q 'ERROR: \(Address\|Leak\)Sanitizer' "$log"; then
        grep -A40 'ERROR: \(Address\|Leak\)Sanitizer' "$log" | head -80 || tail -50 "$log"
        echo "AddressSanitizer run failed (status $status); full output in $log"; return 1
    fi
    echo "AddressSanitizer step: $((SECONDS - start)) s"
}

case "$mode" in
    tsan) run_tsan ;;
    asan) run_asan ;;
    all) run_tsan; run_asan ;;
    *) echo "usage: $0 [tsan|asan|all]" >&2; exit 2 ;;
esac
