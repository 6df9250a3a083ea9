#!/usr/bin/env bash
# Client instructions per PostgreSQL read, DataStoreKit on PostgreSQL beside the hand-written libpq
# floor, counted by callgrind over every thread of the client (the server's work is in its own
# process, so what is counted is exactly the client's). Each workload runs twice, N and then 2N
# reads in a fresh database loaded alike, and the difference is N reads' work with loading,
# start-up and shut-down cancelled. Prints a Markdown table and writes
# .build/benchmark-report/pg-instructions.json. Runs against the server PGHOST names, else a
# throwaway cluster (Tests/Postgres/with-cluster.sh).
#
#   Benchmarks/pg-instructions.sh [SIZE] [READS]     (defaults: 2000 documents, 200 reads; the scan reads a tenth)
#   WORKLOADS="get range" Benchmarks/pg-instructions.sh
#   STOREBENCHMARK=/path/to/StoreBenchmark Benchmarks/pg-instructions.sh   (another build, e.g. to compare)
#   SIDES=pg Benchmarks/pg-instructions.sh          (DataStoreKit alone: the floor's counts do not change)
#   PG_READS=threads Benchmarks/pg-instructions.sh  (StoreBenchmark --postgres-reads for DataStoreKit's side;
#                                                    default poll=1000000: callgrind's slowdown outlasts the
#                                                    store's 200 µs window, so the caller's-thread path is counted)
set -euo pipefail
cd "$(dirname "$0")/.."
# The build needs the Debian packages the Makefile installs; the counting needs valgrind.
make -s deps
command -v valgrind >/dev/null || { echo "$0 counts with callgrind: install valgrind (apt-get install valgrind)" >&2; exit 1; }
if [ -z "${PGHOST:-}" ]; then exec Tests/Postgres/with-cluster.sh "$0" "$@"; fi
size=${1:-2000}
reads=${2:-200}
read -r -a workloads <<<"${WORKLOADS:-get range pair pair-compound scan}"
out=.build/benchmark-report
mkdir -p "$out"
# Loading hashes fields into dictionaries: with a random seed per process the two runs' loads differ.
export SWIFT_DETERMINISTIC_HASHING=1
binary=${STOREBENCHMARK:-}
if [ -z "$binary" ]; then
    swift build -c release --product StoreBenchmark >&2
    binary=$(swift build -c release --show-bin-path)/StoreBenchmark
fi

# Every instruction of one callgrind run of `--profile WORKLOAD`, all threads.
count_all() {
    local workload=$1 count=$2 profile="$out/callgrind.$1.$2.out" reads=()
    [ "${workload#pg-}" != "$workload" ] && reads=(--postgres-reads "${PG_READS:-poll=1000000}")
    valgrind --tool=callgrind --separate-threads=no --callgrind-out-file="$profile" \
        "$binary" --size "$size" --profile "$workload" --profile-operations "$count" "${reads[@]}" \
        >/dev/null 2>"$out/callgrind.$workload.$count.log" || { cat "$out/callgrind.$workload.$count.log" >&2; exit 1; }
    awk '/^totals:/ { print $2 }' "$profile"
}

echo "| read | DataStoreKit on PostgreSQL | libpq | ratio |"
echo "|---|---:|---:|---:|"
json="{\"size\": $size, \"reads\": $reads, \"instructions\": {"
separator=""
for workload in "${workloads[@]}"; do
    count=$reads
    [ "$workload" = scan ] && count=$(( reads / 10 > 0 ? reads / 10 : 1 ))
    per=()
    for side in ${SIDES:-pg libpq}; do
        once=$(count_all "$side-$workload" "$count")
        twice=$(count_all "$side-$workload" $(( 2 * count )))
        per+=($(( (twice - once) / count )))
    done
    [ ${#per[@]} -eq 2 ] || per+=(0)
    ratio=$(awk -v a="${per[0]}" -v b="${per[1]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
    echo "| $workload | ${per[0]} | ${per[1]} | $ratio |"
    json+="$separator\"$workload\": {\"dataStoreKit\": ${per[0]}, \"libpq\": ${per[1]}}"
    separator=", "
done
echo "$json}}" >"$out/pg-instructions.json"
