# DataStoreKit — every target installs what it needs on a fresh Debian machine
# that has only the Swift toolchain, then does its job. (python3 serves the REST tests'
# loopback server; postgresql gives the PostgreSQL tests and benchmark rows a throwaway server;
# gnuplot draws the benchmark's charts.)

SWIFT ?= swift
APT_PACKAGES := liblmdb-dev libsqlite3-dev libpq-dev postgresql pkg-config gnuplot-nox
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)

.PHONY: deps build test run bench fuzz sanitize powerloss lint format docs api-check ci clean

## deps: install the Debian packages the build needs, only when missing.
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	command -v python3 >/dev/null 2>&1 || missing="$$missing python3"; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

## The power-loss recorder, an LD_PRELOAD library the power-loss tests run the workload under
## (docs/reliability.md, Power loss).
POWERLOSS_RECORDER := $(CURDIR)/.build/powerloss/librecorder.so
$(POWERLOSS_RECORDER): Tests/PowerLoss/recorder.c
	mkdir -p $(dir $@)
	cc -shared -fPIC -O2 -Wall -Wextra -o $@ $< -ldl -lpthread

## with-cluster: runs its arguments against a throwaway PostgreSQL server (docs/postgres.md, Tests),
## or against the one PGHOST names.
WITH_CLUSTER := Tests/Postgres/with-cluster.sh

## test: the whole test suite, the PostgreSQL tests against a throwaway server.
test: deps $(POWERLOSS_RECORDER)
	POWERLOSS_RECORDER=$(POWERLOSS_RECORDER) $(WITH_CLUSTER) $(SWIFT) test

## powerloss: the power-loss tests alone, at POWERLOSS_IMAGES crash images (two thirds durable).
POWERLOSS_IMAGES ?= 5000
powerloss: deps $(POWERLOSS_RECORDER)
	$(SWIFT) build --build-tests
	POWERLOSS_RECORDER=$(POWERLOSS_RECORDER) DATASTORE_POWERLOSS_IMAGES=$(POWERLOSS_IMAGES) \
	  $(SWIFT) test --skip-build --filter PowerLossTests

## run: the project's main job: the side-by-side store benchmark (DataStoreKit, raw LMDB, SQLite, and
## DataStoreKit on PostgreSQL against hand-written libpq) at the quick size (100 000 messages, a few
## minutes on 2 cores), release build; then its charts (Benchmarks/charts.sh) into $(BENCH_REPORT).
## The PostgreSQL rows use the server PGHOST names, else a throwaway cluster with durable commits
## and a buffer cache that holds both backends' tables (Tests/Postgres/with-cluster.sh);
## BENCH_FLAGS="--no-postgres" skips them.
## Extra flags: make run BENCH_FLAGS="--json" (see: swift run -c release StoreBenchmark --help).
BENCH_FLAGS ?=
BENCH_REPORT := .build/benchmark-report
BENCH_SERVER = $(if $(findstring --no-postgres,$(BENCH_FLAGS)),,DATASTORE_PG_SERVER_OPTIONS="-c fsync=on -c shared_buffers=1GB" $(WITH_CLUSTER))
define bench_postgres_line
@if echo "$(BENCH_FLAGS)" | grep -q -- --no-postgres; then echo "PostgreSQL rows: skipped (--no-postgres)"; \
elif [ -n "$$PGHOST" ]; then echo "PostgreSQL rows: against the server PGHOST names ($$PGHOST)"; \
else echo "PostgreSQL rows: against a throwaway cluster (Tests/Postgres/with-cluster.sh, fsync on, shared_buffers 1GB)"; fi
endef

run: deps
	$(SWIFT) build -c release --product StoreBenchmark
	$(bench_postgres_line)
	$(BENCH_SERVER) $(SWIFT) run -c release --skip-build StoreBenchmark --size quick \
	  --json-file $(BENCH_REPORT)/report.json $(BENCH_FLAGS)
	Benchmarks/charts.sh $(BENCH_REPORT)/report.json $(BENCH_REPORT)

## bench: the same benchmark at the full size (1 000 000 messages; PostgreSQL rows at 100 000).
bench: deps
	$(SWIFT) build -c release --product StoreBenchmark
	$(bench_postgres_line)
	$(BENCH_SERVER) $(SWIFT) run -c release --skip-build StoreBenchmark --size full \
	  --json-file $(BENCH_REPORT)/report-full.json $(BENCH_FLAGS)
	Benchmarks/charts.sh $(BENCH_REPORT)/report-full.json $(BENCH_REPORT)/full

## fuzz: each libFuzzer target (record, key, query) for FUZZ_SECONDS from its committed seeds.
FUZZ_SECONDS ?= 20
fuzz: deps
	Tests/Fuzz/run.sh all $(FUZZ_SECONDS)

## sanitize: the concurrent suites under ThreadSanitizer, the LMDB and DataStoreCore suites under
## AddressSanitizer (docs/reliability.md, Sanitizers).
sanitize: deps
	Tests/Sanitizers/run.sh all

## docs: the HTML documentation of the library modules (DocC catalogs, docs/ pages as articles) into
## .build/docs/DataStoreKit-all.doccarchive, with the toolchain's docc; any warning fails it.
docs: deps
	docs/make-docs.sh

## api-check: the CLI type-checks as an outside package would see the libraries (no `package` symbols),
## so the tool uses only public store API. Needs the debug build `make test` leaves.
api-check: deps
	$(SWIFT) build --product datastore
	swiftc -typecheck -swift-version 6 -package-name OutsidePackage -I $$($(SWIFT) build --show-bin-path)/Modules \
	  $$(for m in Sources/C*/module.modulemap; do echo -Xcc -fmodule-map-file=$$m; done) \
	  $$(pkg-config --cflags-only-I libpq lmdb | sed 's/-I/-Xcc -I/g') \
	  $$(find Sources/datastore -name '*.swift')

## lint: the house format (.swift-format: 4 spaces, 120 columns), checked strictly.
SWIFT_FORMAT ?= swift-format
FORMATTED := Sources Tests Benchmarks Examples Package.swift
lint:
	$(SWIFT_FORMAT) lint --strict --recursive --parallel $(FORMATTED)

## format: rewrites the sources in the house format.
format:
	$(SWIFT_FORMAT) format --in-place --recursive --parallel $(FORMATTED)

clean:
	$(SWIFT) package clean
