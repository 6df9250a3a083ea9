#!/usr/bin/env bash
# Builds the HTML documentation of the library modules with the toolchain's docc, from symbol graphs
# (no package plugin is available), into .build/docs/DataStoreKit.doccarchive. Each module's catalog is
# staged with the docs/ pages it presents as articles; DataStoreCore is built first with link metadata,
# so the modules above it resolve links into it. Any warning fails the build.
set -euo pipefail
cd "$(dirname "$0")/.."

out=.build/docs
graphs=$(swift build --show-bin-path)/../symbolgraph
rm -rf "$out" && mkdir -p "$out/staged"
swift package dump-symbol-graph --minimum-access-level public --skip-inherited-docs >"$out/symbol-graph.log"

# Which docs/ pages each module's catalog carries as articles (file name → article name).
articles_DataStoreKit="queries:Queries concurrency:Concurrency reliability:Reliability encoding:Encoding
  architecture:Architecture benchmarks:Benchmarks cli:CLI"
articles_DataStoreREST="rest:REST"
articles_DataStorePostgres="postgres:Postgres"
articles_DataStoreCore=""
articles_DataStoreEngine="contention:Contention"
articles_LMDB=""

convert() { # module, then the archives it links into
    local module=$1 && shift
    local catalog="$out/staged/$module.docc" symbols="$out/staged/$module-symbols"
    cp -R "Sources/$module/$module.docc" "$catalog"
    local list="articles_$module"
    for pair in ${!list}; do cp "docs/${pair%%:*}.md" "$catalog/${pair##*:}.md"; done
    mkdir -p "$symbols" && cp "$graphs/$module.symbols.json" "$symbols/"
    for extension in "$graphs/$module"@*.symbols.json; do [ -e "$extension" ] && cp "$extension" "$symbols/"; done
    local dependencies=()
    for archive in "$@"; do dependencies+=(--dependency "$out/$archive.doccarchive"); done
    docc convert "$catalog" --additional-symbol-graph-dir "$symbols" --output-path "$out/$module.doccarchive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.datastorekit.$module" \
        --enable-experimental-external-link-support "${dependencies[@]}" \
        --transform-for-static-hosting ${DOCC_STRICT---warnings-as-errors} 2>&1 | tee "$out/$module.log"
}

convert LMDB
convert DataStoreCore
convert DataStoreEngine DataStoreCore
convert DataStoreKit DataStoreCore DataStoreEngine
convert DataStoreREST DataStoreCore
convert DataStorePostgres DataStoreCore DataStoreEngine DataStoreKit
docc merge "$out"/{DataStoreKit,DataStoreCore,DataStoreEngine,DataStoreREST,DataStorePostgres,LMDB}.doccarchive \
    --synthesized-landing-page-name DataStoreKit --output-path "$out/DataStoreKit-all.doccarchive"
echo "documentation: $out/DataStoreKit-all.doccarchive (static HTML; serve the folder, open /documentation/)"
