#!/usr/bin/env bash
# `jobevent replay DIR --dry-run --format json` on a Flink job-events directory of RECORDS
# records (bench/flinklog -gen: a real Flink run's records from testdata/flink, its
# rebalance-hash scenario, then its vertex-finished records repeated; 100k records and 359 MB
# by default), under /usr/bin/time: wall, user and system CPU seconds and peak RSS of each run.
# Beside it, in the same run: the page-cache floor (the directory's bytes read once more by cat,
# warm) and, given a second binary (built from an earlier commit), that binary alternating with
# this tree's, checking that both print the same bytes. The last lines give the medians and
# their ratios.
# Usage: bench/flink.sh [BASE_JOBEVENT]   (env: RECORDS=100000 RUNS=5 FLINK=1.20|2 KEEP=DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-}
records=${RECORDS:-100000}
runs=${RUNS:-5}
case "${FLINK:-1.20}" in
1.20) version=1.20.5 ;;
2) version=2.3.0 ;;
*) echo "bench/flink.sh: FLINK is 1.20 or 2" >&2; exit 2 ;;
esac
out=${KEEP:-}
if [ -z "$out" ]; then
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
go build -o "$out/jobevent" ./cmd/jobevent
go build -o "$out/flinklog" ./bench/flinklog
from=$(ls testdata/flink/$version/rebalance-hash/ha/default/*/job-events/events.0)
if [ ! -d "$out/log/job-events" ]; then
	"$out/flinklog" -gen -records "$records" -from "$from" -dir "$out/log" >/dev/null
fi
dir="$out/log/job-events"
echo "machine: $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(free -g | awk '/Mem:/{print $2}') GiB, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
echo "log: Flink $version, $(du -sh "$dir" | cut -f1) in $(ls "$dir" | wc -l) file(s), from $from"

# once NAME COMMAND...: time one run, print it, and append its wall time to NAME.walls.
once() {
	local name=$1
	shift
	/usr/bin/time -o "$out/$name.time" -f "%e %U %S %M" "$@" >"$out/$name.out" 2>"$out/$name.err"
	read -r wall user sys rss <"$out/$name.time"
	printf '%-6s wall %5.2f s, CPU %5.2f s (user %5.2f, sys %5.2f), peak RSS %4d MiB\n' \
		"$name" "$wall" "$(echo "$user + $sys" | bc)" "$user" "$sys" $((rss / 1024))
	echo "$wall" >>"$out/$name.walls"
}

# median NAME: the median of NAME's wall times.
median() { sort -n "$out/$1.walls" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

rm -f "$out"/*.walls
cat "$dir"/* >/dev/null # into the page cache
for i in $(seq "$runs"); do
	once floor cat "$dir"/*
	once new "$out/jobevent" replay "$dir" --dry-run --format json
	if [ -n "$base" ]; then
		once base "$base" replay "$dir" --dry-run --format json
	fi
done
# ratio A B: A / B, to two places.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
echo "medians: this tree $(median new) s, the page-cache floor $(median floor) s: $(ratio "$(median new)" "$(median floor)")× the floor"
if [ -n "$base" ]; then
	echo "base binary $(median base) s: this tree takes $(ratio "$(median new)" "$(median base)")× its time"
	if cmp -s "$out/new.out" "$out/base.out"; then
		echo "outputs: identical ($(wc -c <"$out/new.out") bytes)"
	else
		echo "outputs: DIFFERENT" >&2
		exit 1
	fi
fi
