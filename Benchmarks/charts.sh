#!/usr/bin/env bash
# Draws StoreBenchmark's JSON report (--json-file) as SVG charts with gnuplot (docs/benchmarks.md):
#   read-ratios.svg          DSK ÷ raw LMDB, DSK ÷ SQLite and DSK-on-PG ÷ libpq per read workload
#   group-commit-events.svg  the event log: saves/s and p99 latency against savers, per backend
#   group-commit-messages.svg  the same for group commit into the messages
#   postgres-reads.svg       PostgreSQL reads in µs per operation: the store, libpq unprepared and
#                            prepared, and a SELECT 1 (the round trip) from the same rounds
# Usage: Benchmarks/charts.sh REPORT.json OUTPUT-DIRECTORY
set -euo pipefail

report="${1:?usage: charts.sh REPORT.json OUTPUT-DIRECTORY}"
out="${2:?usage: charts.sh REPORT.json OUTPUT-DIRECTORY}"
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "charts: gnuplot is missing (make deps installs gnuplot-nox)" >&2
  exit 1
fi
mkdir -p "$out"
data="$(mktemp -d /tmp/storebench-charts.XXXXXX)"
trap 'rm -rf "$data"' EXIT

# JSON → gnuplot data files: reads.dat (one line per workload), and per commit table one block
# per backend (tasks, saves/s, p99 µs), blocks separated by two blank lines for `index`.
python3 - "$report" "$data" <<'PYTHON'
import json, sys
report = json.load(open(sys.argv[1]))
data = sys.argv[2]
reads = ("gets/s", "queries/s", "scans/s")
postgres = report.get("postgres", {})
pg = {row["workload"]: row["versusLibpq"] for row in postgres.get("rows", []) if row["unit"] in reads}
# The Codable ceiling rows bound the Codable rows (docs/benchmarks.md): the table shows them, the chart does not.
names = [row["workload"] for row in report["rows"] if row["unit"] in reads and "ceiling]" not in row["workload"]]
names += [name for name in pg if name not in names]
lmdb = {row["workload"]: row for row in report["rows"]}
def label(name):
    # Short enough to sit under its bars: the workload, then on a second line what sets it apart.
    base = ("get" if name.startswith("get") else "range" if name.startswith("created_ts")
            else "scan" if name.startswith("full scan") else "pair" if "sender and recipient" in name
            else name.split(" → ")[0])
    marks = [("single-field", "single-field" in name), ("compound", "compound" in name),
             ("covering", "covering" in name), ("prepared", "prepared" in name),
             ("record", "[RecordDecodable]" in name)]
    extra = "\\n".join(mark for mark, present in marks if present)
    return (base + ("\\n" + extra if extra else "")).replace('"', "")
series = [("DSK ÷ raw LMDB", "#4477aa"), ("DSK ÷ SQLite", "#ee6677"), ("DSK on PG ÷ libpq", "#228833")]
present = set()
with open(f"{data}/reads.dat", "w") as file:
    for name in names:
        row = lmdb.get(name)
        values = [row["versusRaw"] if row else "NaN", row["versusSQLite"] if row else "NaN", pg.get(name, "NaN")]
        present.update(column for column, value in enumerate(values) if value != "NaN")
        file.write('"%s" %s\n' % (label(name), " ".join(str(v) for v in values)))
# The plot clauses of the series that have data (gnuplot refuses a histogram without points).
clauses = ['"%s" using %d:xtic(1) title "%s" linecolor rgb "%s"' % (f"{data}/reads.dat", column + 2, *series[column])
           for column in sorted(present)]
open(f"{data}/reads.plot", "w").write(", ".join(clauses))

with open(f"{data}/postgres.dat", "w") as file:
    for row in postgres.get("rows", []):
        if row["unit"] in reads and "libpqUnprepared" in row:
            file.write('"%s" %f %f %f %f\n' % (label(row["workload"]), 1e6 / row["dataStoreKit"],
                1e6 / row["libpqUnprepared"], 1e6 / row["libpq"], row["roundTripMicroseconds"]))

def commits(rows, path, solid):
    """Writes the blocks; the first `solid` backends are drawn solid, the rest (PostgreSQL) dashed."""
    backends = []
    for row in rows:
        if row["backend"] not in backends:
            backends.append(row["backend"])
    with open(path, "w") as file:
        for backend in backends:
            file.write('"%s"\n' % backend)
            for row in sorted((r for r in rows if r["backend"] == backend), key=lambda r: r["tasks"]):
                file.write("%d %f %f\n" % (row["tasks"], row["commitsPerSecond"], row["latency"]["p99Microseconds"]))
            file.write("\n\n")
    open(path.replace(".dat", ".count"), "w").write("%d %d\n" % (min(solid, len(backends)), len(backends)))

lmdb_events = report.get("eventCommits", [])
solid = len({row["backend"] for row in lmdb_events})
commits(lmdb_events + postgres.get("eventCommits", []), f"{data}/events.dat", solid)
commits(report.get("commits", []), f"{data}/messages.dat", 1000)
machine = report.get("machine", {})
open(f"{data}/title", "w").write("%d messages, %s cores, load %s" % (
    report["size"], machine.get("cores", "?"), machine.get("loadAverage", "?")))
open(f"{data}/postgres-title", "w").write("%d messages on %s" % (
    postgres.get("size", 0), postgres.get("status", "?").split(",")[0].replace("against ", "")))
PYTHON

title="$(cat "$data/title")"

[ -s "$data/reads.plot" ] && gnuplot <<GNUPLOT
set terminal svg size 960,480 dynamic font "sans,11" background rgb "white"
set output "$out/read-ratios.svg"
set title "Reads: DataStoreKit ÷ its floor or peer (above 1: faster) — $title"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top right
set grid ytics
set yrange [0:*]
set ylabel "ratio"
set xtics nomirror font ",10"
set bmargin 6
set termoption noenhanced
set arrow from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 linewidth 1.5 front
plot $(cat "$data/reads.plot")
GNUPLOT

if [ -s "$data/postgres.dat" ]; then
  gnuplot <<GNUPLOT
set terminal svg size 960,480 dynamic font "sans,11" background rgb "white"
set output "$out/postgres-reads.svg"
set termoption noenhanced
set title "PostgreSQL reads: wall-clock µs per operation (lower is faster) — $(cat "$data/postgres-title")"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left
set grid ytics
set logscale y
set ylabel "µs per operation"
set xtics nomirror font ",10"
set bmargin 4
plot "$data/postgres.dat" using 2:xtic(1) title "DSK on PG" linecolor rgb "#228833", \
     "" using 3 title "libpq, unprepared" linecolor rgb "#ccbb44", \
     "" using 4 title "libpq, prepared (the floor)" linecolor rgb "#4477aa", \
     "" using 5 title "SELECT 1 (the round trip)" linecolor rgb "#bbbbbb"
GNUPLOT
fi

draw_commits() {
  local name="$1" heading="$2" solid blocks
  read -r solid blocks <"$data/$name.count"
  [ "$blocks" -gt 0 ] || return 0
  local file="$data/$name.dat"
  # Column $1 of every block: LMDB's backends with filled circles, PostgreSQL's with open squares.
  series() {
    local clause="for [i=0:$solid-1] \"$file\" index i using 1:$1 with linespoints linewidth 2 pointtype 7"
    clause="$clause title columnheader(1)"
    if [ "$blocks" -gt "$solid" ]; then
      clause="$clause, for [i=$solid:$blocks-1] \"$file\" index i using 1:$1 with linespoints linewidth 1.5"
      clause="$clause pointtype 4 pointsize 1.2 title columnheader(1)"
    fi
    echo "$clause"
  }
  gnuplot <<GNUPLOT
set terminal svg size 1200,560 dynamic font "sans,11" background rgb "white"
set output "$out/group-commit-$name.svg"
set multiplot layout 1,2 title "$heading — $title"
set logscale x 2
set logscale y
set xlabel "concurrent savers"
set grid
set key below font ",9" maxrows 2
set termoption noenhanced
set ylabel "saves/s"
set title "throughput"
plot $(series 2)
set ylabel "p99 latency (µs)"
set title "p99 latency, call to acknowledgement"
plot $(series 3)
unset multiplot
GNUPLOT
}
draw_commits events "Group commit into a fresh event log, durable (open squares: PostgreSQL)"
draw_commits messages "Group commit into the messages, durable"
ls "$out"/*.svg | sed 's/^/charts: /'
