#!/usr/bin/env bash
# `jobevent replay LOG --dry-run --format json` on a generated log of a clean
# 250k-way source → map → sink run (bench/logbench -shape wide, 1M events by
# default): wall, user and system CPU seconds and peak RSS of each run, with
# /usr/bin/time, on every core of the machine. Given a second binary (built
# from an earlier commit), it times that one in the same run, alternating with
# this tree's, and prints the medians; it checks that
# both print the same bytes. With CALLGRIND=1 and valgrind installed, it also
# counts the instructions of one run of each (GODEBUG=asyncpreemptoff=1, so
# that the count does not depend on preemption signals).
# Usage: bench/replay.sh [BASE_JOBEVENT]   (env: EVENTS=1000000 RUNS=3 CALLGRIND=0 KEEP=DIR)
# EVENTS up to 4194304: past it the wide job's source is wider than a vertex may be (the log's
# vertex_initialized is out of range, and the replay skips every event).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-}
events=${EVENTS:-1000000}
if [ "$events" -gt 4194304 ]; then
	echo "bench/replay.sh: EVENTS is at most 4194304: the wide job is EVENTS/4 wide, at most 1,048,576 (replay.MaxParallelism)" >&2
	exit 2
fi
runs=${RUNS:-3}
out=${KEEP:-}
if [ -z "$out" ]; then
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
go build -o "$out/jobevent" ./cmd/jobevent
if [ ! -d "$out/log/imported" ]; then
	go run ./bench/logbench -shape wide -events "$events" -dir "$out/log" >"$out/logbench.txt"
fi
log="file://$out/log/imported?prefix=bench/"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
echo "log: $(grep -o '^log: [0-9]* events' "$out/logbench.txt" | cut -d' ' -f2) events, $(du -sh "$out/log/imported" | cut -f1) of segments"

# once NAME BINARY: time one run, print it, keep its output, and append its wall time and
# peak RSS to NAME.walls and NAME.rss.
once() {
	/usr/bin/time -o "$out/$1.time" -f "%e %U %S %M" "$2" replay "$log" --dry-run --format json >"$out/$1.json" 2>"$out/$1.err"
	read -r wall user sys rss <"$out/$1.time"
	printf '%-6s wall %5.2f s, CPU %5.2f s (user %5.2f, sys %5.2f), peak RSS %4d MiB\n' \
		"$1" "$wall" "$(echo "$user + $sys" | bc)" "$user" "$sys" $((rss / 1024))
	echo "$wall" >>"$out/$1.walls"
	echo $((rss / 1024)) >>"$out/$1.rss"
}

# median FILE: the median of the numbers in FILE, one a line.
median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# instructions NAME BINARY: count the instructions of one run.
instructions() {
	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$out/$1.callgrind" \
		"$2" replay "$log" --dry-run --format json >/dev/null 2>"$out/$1.valgrind"
	printf '%-6s instructions: %s\n' "$1" "$(awk '/Collected/{print $4}' "$out/$1.valgrind")"
}

rm -f "$out"/*.walls "$out"/*.rss
for i in $(seq "$runs"); do # alternating, so that the machine's other load falls on both
	once new "$out/jobevent"
	if [ -n "$base" ]; then
		once base "$base"
	fi
done
echo "medians: this tree $(median "$out/new.walls") s, peak RSS $(median "$out/new.rss") MiB"
if [ -n "$base" ]; then
	echo "         base binary $(median "$out/base.walls") s, peak RSS $(median "$out/base.rss") MiB"
	if cmp -s "$out/new.json" "$out/base.json"; then
		echo "outputs: identical ($(wc -c <"$out/new.json") bytes)"
	else
		echo "outputs: DIFFERENT" >&2
		exit 1
	fi
fi
if [ "${CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
	instructions new "$out/jobevent"
	if [ -n "$base" ]; then
		instructions base "$base"
	fi
fi
