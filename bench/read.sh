#!/usr/bin/env bash
# Reading a log: jobevent and DuckDB on the same segment files, in one run
# (README.md, Performance: "Reading and validation").
# Usage: bench/read.sh [LOG_DIR]
#   LOG_DIR is a log's directory (holding events/ and epochs/); without it a
#   log of $EVENTS (1000000) events is generated: bench/logbench -shape wide.
# Prints, with the median of $RUNS (3) runs: count(*), sum(bytes_out) through
# jobevent's projected reader and DuckDB's read_parquet; a full scan (every
# field into events; every column into a DuckDB table); `jobevent validate`
# under /usr/bin/time (wall, user+sys CPU, peak RSS) and its events/s.
# DuckDB comes from npm (@duckdb/node-api, the version interop/duckdb pins),
# installed once under $JOBEVENT_BENCH_CACHE (~/.cache/jobevent-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
events=${EVENTS:-1000000}
cache=${JOBEVENT_BENCH_CACHE:-$HOME/.cache/jobevent-bench}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/jobevent" ./cmd/jobevent
go build -o "$out/readbench" ./bench/readbench
log=${1:-}
if [ -z "$log" ]; then
	go build -o "$out/logbench" ./bench/logbench
	"$out/logbench" -shape wide -events "$events" -dir "$out/gen" >/dev/null
	rm -rf "$out/gen/store" "$out/gen"/log.jsonl*
	log="$out/gen/imported/bench"
	sync # the generator's writes, flushed now rather than during the measures
fi
nseg=$(ls "$log/events" | grep -c '\.parquet$')
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "log: $log ($nseg segments, $(du -sb "$log/events" | cut -f1) bytes)"

echo
echo "== jobevent (in process: bench/readbench, GOMAXPROCS=$(nproc))"
"$out/readbench" -log "$log" -runs "$runs"

echo
echo "== DuckDB (in process: node, @duckdb/node-api)"
version=$(sed -n 's/.*"@duckdb\/node-api": *"\([^"]*\)".*/\1/p' interop/duckdb/package.json)
if [ ! -d "$cache/node_modules/@duckdb/node-api" ]; then
	npm install --prefix "$cache" --no-audit --no-fund --no-save --loglevel=error "@duckdb/node-api@$version" >/dev/null
fi
cp bench/readbench/duckdb.mjs "$cache/duckdb.mjs"
node "$cache/duckdb.mjs" "$(cd "$log" && pwd)/events" "$runs"

echo
echo "== jobevent validate (the binary under /usr/bin/time; median of $runs by wall)"
for i in $(seq "$runs"); do
	/usr/bin/time -f "%e %U %S %M" -o "$out/time.$i" "$out/jobevent" validate "$log" --quiet >/dev/null
	cat "$out/time.$i"
done | sort -n | awk -v n="$runs" 'NR==int((n+1)/2){
	printf "wall %.2f s, cpu %.2f s (user %.2f, sys %.2f), peak RSS %.0f MiB\n", $1, $2+$3, $2, $3, $4/1024 }'
events_total=0
for f in "$log"/events/*.parquet; do
	IFS=- read -r _ first last <<<"$(basename "$f" .parquet)"
	events_total=$((events_total + 16#$last - 16#$first + 1))
done
echo "events: $events_total"
for i in $(seq "$runs"); do cat "$out/time.$i"; done | sort -n | awk -v n="$runs" -v ev="$events_total" 'NR==int((n+1)/2){
	printf "validate: %.2fM events/s (wall), %.2fM events per CPU second\n", ev/$1/1e6, ev/($2+$3)/1e6 }'
