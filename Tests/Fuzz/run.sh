#!/usr/bin/env bash
# Builds a libFuzzer target over DataStoreCore (and LMDB's page verifier) and runs it for a bounded time.
#
#   Tests/Fuzz/run.sh TARGET [SECONDS]     TARGET: record | key | query | page | all   (default 20 s each)
#
# Each target is one file here (RecordFuzz.swift, …). All of them, FuzzSupport.swift (the entry
# point; FUZZ_TARGET picks the target), the DataStoreCore sources and LMDB's page-tree verifier
# (pure Swift, no C) are compiled into one module
# and one binary with `-sanitize=fuzzer,address`, rebuilt only when a source is newer. The committed seeds in
# corpus/TARGET are read, never written: new inputs go to a scratch corpus under FUZZ_WORK
# (default .build/fuzz). Exits non-zero if the fuzzer finds a crash, leak, timeout or out-of-memory;
# the failing input is left in FUZZ_WORK/TARGET/artifacts and printed in hex — make it a
# regression test in Tests/DataStoreCoreTests/FuzzRegressionTests.swift.
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${1:?usage: Tests/Fuzz/run.sh record|key|query|page|all [seconds]}
seconds=${2:-20}
work=${FUZZ_WORK:-.build/fuzz}
swiftc=${SWIFTC:-swiftc}

if [ "$target" = all ]; then
    for each in record key query page; do "$0" "$each" "$seconds"; done
    exit 0
fi
case "$target" in
    record | key | query | page) ;;
    *) echo "unknown target $target (record, key, query, page, all)" >&2; exit 2 ;;
esac

dir="$work/$target"
mkdir -p "$dir/corpus" "$dir/artifacts" "$work/bin"
binary="$work/bin/DataStoreCoreFuzz"
sources=(Sources/DataStoreCore/*/*.swift Sources/LMDB/Verification/PageTreeVerifier.swift Tests/Fuzz/*.swift)
# A page target's input is a small data file of 512-byte pages.
max_len=4096
if [ "$target" = page ]; then max_len=16384; fi
start=$SECONDS
if [ ! -x "$binary" ] || [ -n "$(find "${sources[@]}" -newer "$binary" 2>/dev/null | head -1)" ]; then
    "$swiftc" -sanitize=fuzzer,address -parse-as-library -module-name DataStoreCore -package-name DataStoreKit -swift-version 6 \
        -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault \
        -O -g -use-ld=lld "${sources[@]}" -o "$binary.new"
    mv "$binary.new" "$binary"
    echo "fuzz: built $binary in $((SECONDS - start)) s"
fi
echo "fuzz $target: running $seconds s"

status=0
# The Swift runtime's own backtracer would read memory ASan guards; libFuzzer prints the stack.
SWIFT_BACKTRACE=enable=no FUZZ_TARGET=$target "$binary" "$dir/corpus" "Tests/Fuzz/corpus/$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
    -artifact_prefix="$dir/artifacts/" -print_final_stats=1 >"$dir/fuzz.log" 2>&1 || status=$?
grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^Done [0-9]+ runs' "$dir/fuzz.log" || true
if [ "$status" -ne 0 ]; then
    grep -E 'ERROR|fuzz invariant|Fatal error|SUMMARY' "$dir/fuzz.log" | head -20
    for artifact in "$dir"/artifacts/*; do
        [ -f "$artifact" ] || continue
        echo "failing input $artifact:"; od -A d -t x1 "$artifact" | head -20
    done
    echo "fuzz $target: FAILED (status $status); log in $dir/fuzz.log"
    exit 1
fi
echo "fuzz $target: no crash in $seconds s"
