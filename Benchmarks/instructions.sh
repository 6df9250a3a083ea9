#!/usr/bin/env bash
# Instructions per operation for DataStoreKit's read workloads, counted by callgrind inside the
# benchmark's profile loop only (loading the data is not counted). Unlike times, the counts do not
# move with the machine's load, so a change's effect shows at once. Prints a Markdown table and
# writes .build/benchmark-report/instructions.json.
#
#   Benchmarks/instructions.sh [SIZE] [OPERATIONS]     (defaults: 20000 documents, 2000 operations)
#   WORKLOADS="range range-covering" Benchmarks/instructions.sh    (only these)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-20000}
operations=${2:-2000}
read -r -a workloads <<<"${WORKLOADS:-get get-codable range range-codable range-covering pair-compound empty scan}"
out=.build/benchmark-report
mkdir -p "$out"
swift build -c release --product StoreBenchmark >&2
binary=$(swift build -c release --show-bin-path)/StoreBenchmark

echo "| workload | instructions per operation |"
echo "|---|---:|"
json="{\"size\": $size, \"operations\": $operations, \"instructions\": {"
separator=""
for workload in "${workloads[@]}"; do
    # The scan reads every document: fewer rounds keep it to about the others' time.
    count=$operations
    [ "$workload" = scan ] && count=$(( operations / 100 > 0 ? operations / 100 : 1 ))
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
echo "$json}}" >"$out/instructions.json"
