#!/usr/bin/env bash
# Runs the suites that exercise concurrency under ThreadSanitizer and the byte-level suites under
# AddressSanitizer, each in its own scratch directory (sanitized and plain builds never mix).
#
#   Tests/Sanitizers/run.sh [tsan|asan|all]      (default: all)
#
# Environment: SANITIZER_SCRATCH (default .build/sanitizers) holds the builds; SWIFT (default swift).
# Fails when a test fails or when either sanitizer reports anything. The ThreadSanitizer build is
# compiled with -DTSAN_LOCKS, which makes the package's `Mutex` a pthread mutex TSan sees
# (Sources/PthreadLocks/PthreadMutex.swift), so no report is expected and none is filtered out.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Tests/Sanitizers
swift=${SWIFT:-swift}
scratch=${SANITIZER_SCRATCH:-.build/sanitizers}
mode=${1:-all}
mkdir -p "$scratch"

# Every suite whose code runs on more than one thread: all of DataStoreKitTests (each write goes
# through the writer thread), the LMDB layer, the reliability tests (their child processes are
# built with TSan too) and the command-line tool's tests (each run is a TSan-built child).
# Two runs: the reliability suites wait on child processes, and beside the in-process suites under
# ThreadSanitizer's slowdown they can hold the cooperative pool's few threads long enough to stall them.
tsan_runs=('DataStoreKitTests|LMDBTests|datastoreTests' 'ReliabilityTests')
# The PostgreSQL suites (writer, contexts, change feed, conformance, reads: each crosses to the
# writer's, the readers' or the listener's threads) against a throwaway cluster
# (Tests/Postgres/with-cluster.sh; the one PGHOST names when set). Not the failure tests, which stop
# and restart clusters of their own: processes, not threads.
tsan_postgres='DataStorePostgresTests'
tsan_postgres_skip='PostgresFailureTests'
tsan_suites="${tsan_runs[0]}|${tsan_runs[1]}|$tsan_postgres"
# The code that reads bytes: the LMDB layer and DataStoreCore's codecs, parsers and fuzz seeds.
asan_suites='LMDBTests|DataStoreCoreTests'

# Prints the summary lines of a test log.
summary() { grep -E '^(✔|✘) Test run|Executed [0-9]+ tests' "$1" || true; }

run_tsan() {
    local log="$scratch/tsan.log" start=$SECONDS status=0
    echo "== ThreadSanitizer: $tsan_suites"
    "$swift" build --build-tests --sanitize=thread --scratch-path "$scratch/thread" -Xswiftc -DTSAN_LOCKS
    : >"$log"
    for suites in "${tsan_runs[@]}"; do
        TSAN_OPTIONS="halt_on_error=0 history_size=4 ${TSAN_OPTIONS:-}" \
            "$swift" test --skip-build --sanitize=thread --scratch-path "$scratch/thread" \
            --filter "$suites" >>"$log" 2>&1 || status=$?
    done
    TSAN_OPTIONS="halt_on_error=0 history_size=4 ${TSAN_OPTIONS:-}" \
        Tests/Postgres/with-cluster.sh "$swift" test --skip-build --sanitize=thread --scratch-path "$scratch/thread" \
        --filter "$tsan_postgres" --skip "$tsan_postgres_skip" >>"$log" 2>&1 || status=$?
    summary "$log"
    local reports
    reports=$(grep -c '^WARNING: ThreadSanitizer' "$log" || true)
    if [ "$status" -ne 0 ] || [ "$reports" -ne 0 ]; then
        grep -E '^✘' "$log" | head -40 || true
        grep -A30 '^WARNING: ThreadSanitizer' "$log" | head -120 || true
        echo "ThreadSanitizer run failed (status $status, $reports report(s)); full output in $log"; return 1
    fi
    echo "ThreadSanitizer step: $((SECONDS - start)) s, no reports"
}

run_asan() {
    local log="$scratch/asan.log" start=$SECONDS status=0
    echo "== AddressSanitizer: $asan_suites"
    "$swift" build --build-tests --sanitize=address --scratch-path "$scratch/address"
    ASAN_OPTIONS="halt_on_error=1 detect_stack_use_after_return=1 ${ASAN_OPTIONS:-}" \
    LSAN_OPTIONS="suppressions=$PWD/$here/lsan.supp ${LSAN_OPTIONS:-}" \
        "$swift" test --skip-build --sanitize=address --scratch-path "$scratch/address" \
        --filter "$asan_suites" >"$log" 2>&1 || status=$?
    summary "$log"
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
