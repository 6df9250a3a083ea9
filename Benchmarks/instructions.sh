#!/usr/bin/env bash
# Instructions per operation for DataStoreKit's read workloads, counted by callgrind inside the
# benchmark's profile loop only (loading the data is not counted), and per save for the event
# log's write path beside the raw LMDB floor. Unlike times, the counts do not move with the
# machine's load, so a change's effect shows at once. Prints a Markdown table and writes
# .build/benchmark-report/instructions.json.
#
#   Benchmarks/instructions.sh [SIZE] [OPERATIONS] [SAVES]   (defaults: 20000 documents, 2000 operations, 1000 saves)
#   Benchmarks/instructions.sh 1000 0 1000                   (the write path alone: OPERATIONS 0 skips the reads)
#   Benchmarks/instructions.sh 5000 200 0                    (the reads alone: SAVES 0 skips the write path)
#   WORKLOADS="range range-covering" Benchmarks/instructions.sh   (only these reads)
#   BUILD_SIZE=0 Benchmarks/instructions.sh                        (skip the index build's count)
#
# The raw-* reads are the floor: the raw LMDB backend's get, compound point query, empty query and
# full scan; sqlite-scan is SQLite's full scan (sqlite-get, sqlite-range and sqlite-pair also exist).
#
# The index build is counted per document over every thread (the writer commits what the caller
# sorts): a run that builds the compound index twice (dropping it between) minus one that builds it
# once, over BUILD_SIZE documents (default 20000).
set -euo pipefail
cd "$(dirname "$0")/.."
# The build needs the Debian packages the Makefile installs; the counting needs valgrind.
make -s deps
command -v valgrind >/dev/null || { echo "$0 counts with callgrind: install valgrind (apt-get install valgrind)" >&2; exit 1; }
size=${1:-20000}
operations=${2:-2000}
saves=${3:-1000}
read -r -a workloads <<<"${WORKLOADS:-get get-codable range range-codable range-covering pair-compound pair-compound-codable pair-compound-prepared empty empty-prepared scan raw-get raw-pair-compound raw-empty raw-scan sqlite-scan}"
[ "$operations" -gt 0 ] || workloads=()
# The savers, the writer and the threads that resume savers all work for a save, and a toggle
# counts one thread only: each of these runs twice on every thread, saving N and then 2N events of
# one pool, and the difference is N saves' work with set-up, start-up and shut-down cancelled.
save_workloads=(events1 events4 raw-events1 raw-events4 raw-single1)
[ "$saves" -gt 0 ] || save_workloads=()
out=.build/benchmark-report
mkdir -p "$out"
swift build -c release --product StoreBenchmark >&2
binary=$(swift build -c release --show-bin-path)/StoreBenchmark

echo "| workload | instructions per operation |"
echo "|---|---:|"
json="{\"size\": $size, \"operations\": $operations, \"instructions\": {"
separator=""
for workload in ${workloads[@]+"${workloads[@]}"}; do
    # The scan reads every document: fewer rounds keep it to about the others' time.
    count=$operations
    case $workload in *scan) count=$(( operations / 100 > 0 ? operations / 100 : 1 )) ;; esac
    profile="$out/callgrind.$workload.out"
    valgrind --tool=callgrind --callgrind-out-file="$profile" --toggle-collect='*profileLoop*' \
        "$binary" --size "$size" --profile "$workload" --profile-operations "$count" >/dev/null 2>"$out/callgrind.$workload.log"
    # awk reads to the end: exiting early would kill callgrind_annotate with SIGPIPE, failing the pipeline.
    total=$(callgrind_annotate "$profile" 2>/dev/null | awk '/PROGRAM TOTALS/ && !found { gsub(",", "", $1); print $1; found = 1 }')
    per=$(( total / count ))
    echo "| $workload | $per |"
    json+="$separator\"$workload\": $per"
    separator=", "
done
json+="}, \"saves\": $saves, \"instructionsPerSave\": {"

# Every instruction of a callgrind run, all threads.
count_all() {
    local workload=$1 count=$2 profile="$out/callgrind.$1.$2.out"
    valgrind --tool=callgrind --separate-threads=no --callgrind-out-file="$profile" \
        "$binary" --size 1000 --profile "$workload" --profile-operations "$count" --profile-pool $(( 2 * saves )) \
        >/dev/null 2>"$out/callgrind.$workload.$count.log"
    awk '/^totals:/ { print $2 }' "$profile"
}

[ ${#save_workloads[@]} -eq 0 ] || {
    echo
    echo "| write path (relaxed durability) | instructions per save |"
    echo "|---|---:|"
}
separator=""
for workload in ${save_workloads[@]+"${save_workloads[@]}"}; do
    once=$(count_all "$workload" "$saves")
    twice=$(count_all "$workload" $(( 2 * saves )))
    per=$(( (twice - once) / saves ))
    echo "| $workload | $per |"
    json+="$separator\"$workload\": $per"
    separator=", "
done
json+="}"

build_size=${BUILD_SIZE:-20000}
if [ "$build_size" -gt 0 ]; then
    count_builds() {
        local profile="$out/callgrind.build.$1.out"
        valgrind --tool=callgrind --separate-threads=no --callgrind-out-file="$profile" \
            "$binary" --size "$build_size" --profile build --profile-operations "$1" \
            >/dev/null 2>"$out/callgrind.build.$1.log"
        awk '/^totals:/ { print $2 }' "$profile"
    }
    once=$(count_builds 1)
    twice=$(count_builds 2)
    per=$(( (twice - once) / build_size ))
    echo
    echo "| index build ($build_size documents, all threads) | instructions per document |"
    echo "|---|---:|"
    echo "| build | $per |"
    json+=", \"buildSize\": $build_size, \"instructionsPerBuiltDocument\": $per"
fi
echo "$json}" >"$out/instructions.json"
