#!/usr/bin/env bash
# readbench.sh measures, in one run on the same files, jobevent's Flink reader (pkg/flink:
# flink.OpenDir, Next to io.EOF) against Flink's own FileSystemJobEventStore (start, readEvent to
# null, stop(false): the reader a recovering JobMaster replays with). It prints a machine line
# (cores, CPU model, load average, go and java versions), builds bench/flinklog, writes a
# RECORDS-record job-events directory with it (the records of the Flink version's real
# rebalance-hash events.0, then its vertex-finished records repeated, as BenchmarkDryRun builds
# its log), then runs the two readers alternately RUNS times: each time a fresh JVM running
# ReadBench (2 untimed warm-up reads for the JIT, then 5 timed) and bench/flinklog -read (5 timed).
# Last it prints each reader's best wall and CPU time over all runs (CPU time is the whole
# process's, every thread, during the read) and the ratios, Flink / jobevent.
# FLINK=1.20 (the default) or FLINK=2 picks the Flink version, as for run.sh; RECORDS=100000
# and RUNS=3 by default. The JVM gets -Xmx4g and the JDK 17 options of Flink's config.yaml.
# Exit status: 0, 1 if the two readers' record counts disagree (or a read fails), 2 usage error.
# CI: for each version, FLINK=$v RECORDS=10000 RUNS=1 interop/flink/readbench.sh (the counts must agree; the times are
# the machine's and are not checked).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[ $# -eq 0 ] || { echo "usage: [FLINK=1.20|2] [RECORDS=100000] [RUNS=3] readbench.sh" >&2; exit 2; }
records="${RECORDS:-100000}"
runs="${RUNS:-3}"
case "$records$runs" in
  *[!0-9]*) echo "readbench.sh: RECORDS and RUNS must be numbers" >&2; exit 2 ;;
esac

. "$here/build.sh"
case "$profile" in
  flink-1.20) version=1.20.5 ;;
  flink-2) version=2.3.0 ;;
esac
src="$(find "$root/testdata/flink/$version/rebalance-hash" -path '*/job-events/events.0' | sort | head -n 1)"
[ -n "$src" ] || { echo "readbench.sh: no job-events/events.0 under testdata/flink/$version/rebalance-hash" >&2; exit 1; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/readbench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

cpu="$(grep -m 1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "machine: $(nproc) cores, ${cpu:-unknown CPU}, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$(go version | cut -d' ' -f3-), java $(java -version 2>&1 | head -n 1)"

(cd "$root" && go build -o "$tmp/flinklog" ./bench/flinklog)
"$tmp/flinklog" -gen -records "$records" -from "$src" -dir "$tmp/log" | sed "s#$tmp/##; s#$root/##"
dir="$tmp/log/job-events"

# best FILE prints the wall and CPU seconds and the records of FILE's "best wall X s cpu Y s records N" line.
best() { awk '$1 == "best" && $2 == "wall" { print $3, $6, $9 }' "$1"; }

# keep FILE NAME appends the best line of FILE, run $i's, to $tmp/NAME.best.
keep() {
  best "$1" >>"$tmp/$2.best"
  [ "$(wc -l <"$tmp/$2.best")" -eq "$i" ] || { echo "readbench.sh: $2 printed no best line in run $i" >&2; exit 1; }
}
# summary NAME prints the least wall and CPU seconds of NAME's runs and their record count,
# "differs" when the runs read different counts.
summary() {
  awk 'NR == 1 { w = $1; c = $2; n = $3 } $1 < w { w = $1 } $2 < c { c = $2 } $3 != n { n = "differs" }
    END { print w, c, n }' "$tmp/$1.best"
}

for i in $(seq 1 "$runs"); do
  echo "== run $i/$runs: Flink $version FileSystemJobEventStore (ReadBench)"
  java -Xmx4g -Djava.io.tmpdir="$tmp" -Dorg.slf4j.simpleLogger.defaultLogLevel=error "${jdk_opts[@]}" \
    -cp "$build/classes:$(cat "$stamp")" \
    io.github.jobevent.flinkharness.ReadBench "$dir" 5 2 | sed "s#$tmp/##" | tee "$tmp/java.out"
  keep "$tmp/java.out" ReadBench
  echo "== run $i/$runs: jobevent flink.OpenDir (bench/flinklog)"
  "$tmp/flinklog" -read -dir "$dir" -runs 5 | sed "s#$tmp/##" | tee "$tmp/go.out"
  keep "$tmp/go.out" flinklog
done
read -r flink_wall flink_cpu flink_n < <(summary ReadBench)
read -r go_wall go_cpu go_n < <(summary flinklog)
for n in "$flink_n" "$go_n"; do
  [ "$n" != differs ] || { echo "readbench.sh: a reader read different record counts in different runs" >&2; exit 1; }
done

echo "== best of $runs runs, $records-record directory from ${src#"$root/"}, load average now $(cut -d' ' -f1-3 /proc/loadavg)"
echo "flink    $version best wall $flink_wall s cpu $flink_cpu s records $flink_n"
echo "jobevent best wall $go_wall s cpu $go_cpu s records $go_n"
awk -v fw="$flink_wall" -v fc="$flink_cpu" -v gw="$go_wall" -v gc="$go_cpu" \
  'BEGIN { printf "ratio flink/jobevent wall %.1fx cpu %.1fx\n", fw / gw, fc / gc }'
if [ "$flink_n" != "$go_n" ]; then
  echo "readbench.sh: the record counts disagree: Flink read $flink_n, jobevent $go_n" >&2
  exit 1
fi
