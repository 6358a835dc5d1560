#!/usr/bin/env bash
# import throughput and the cost of recording on small jobs, in one run (README, Performance).
#
#   import: `jobevent import` of a generated JSON lines log (bench/logbench -shape wide: a
#   source → map → sink run with noisy metrics) into a file:// log, with this tree's binary and,
#   when BASE is given, another binary on the same file; ROUNDS rounds (default 5) of one run of
#   each, alternating, medians of wall, user+sys CPU and peak RSS (/usr/bin/time); then DuckDB
#   converting the same file to Parquet (3 runs after a warm-up), and the ratio of the two wall
#   times; the load average before and after.
#
#   recording: every job of testdata/jobs run clean, and crashed after half of its events
#   (--crash-after-seq, --seed 1) then resumed (--resume); the share of the master's wall time
#   spent recording (its JSON summary's recording_seconds / wall_seconds), medians of 3.
#
# Usage: [ROUNDS=5] bench/import.sh [BASE_BINARY] [EVENTS]   (EVENTS defaults to 1000000)
# The machine's other load shows in the wall times: compare CPU seconds when it is shared.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-}
events=${2:-1000000}
rounds=${ROUNDS:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/jobevent" ./cmd/jobevent
go build -o "$out/logbench" ./bench/logbench
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"

"$out/logbench" -shape wide -events "$events" -jsonl "$out/log.jsonl"
n=$(wc -l <"$out/log.jsonl")
echo "import: $n events, $(($(stat -c %s "$out/log.jsonl") >> 20)) MiB of JSON lines"

# median prints the median of its arguments.
median() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }

# import_bench runs each binary of its arguments (name=binary) once per round, alternating, so
# that the machine's load falls on all of them alike, and prints each one's medians.
import_bench() {
	local pair name bin i
	for i in $(seq "$rounds"); do
		for pair in "$@"; do
			name=${pair%%=*} bin=${pair#*=}
			rm -rf "$out/log-$name"
			/usr/bin/time -f '%e %U %S %M' -o "$out/time" "$bin" import "$out/log.jsonl" "$out/log-$name" --quiet
			read -r wall user sys kb <"$out/time"
			echo "$wall $(echo "$user + $sys" | bc) $kb" >>"$out/runs-$name"
			rm -rf "$out/log-$name"
		done
	done
	for pair in "$@"; do
		name=${pair%%=*}
		local w c r
		w=$(median $(cut -d' ' -f1 "$out/runs-$name")) c=$(median $(cut -d' ' -f2 "$out/runs-$name"))
		r=$(median $(cut -d' ' -f3 "$out/runs-$name"))
		printf '%-8s %8.2f s wall %10.0f events/s %8.2f s CPU %10.0f events/CPU-s %6d MiB RSS  (walls: %s)\n' \
			"$name" "$w" "$(echo "$n / $w" | bc -l)" "$c" "$(echo "$n / $c" | bc -l)" "$((r >> 10))" \
			"$(cut -d' ' -f1 "$out/runs-$name" | sort -g | tr '\n' ' ' | sed 's/ $//')"
	done
}
if [ -n "$base" ]; then
	import_bench this="$out/jobevent" base="$base" | tee "$out/this.txt"
else
	import_bench this="$out/jobevent" | tee "$out/this.txt"
fi

# The peer, in the same run: DuckDB converting the same JSON lines file to Parquet (npm
# @duckdb/node-api at the version interop/duckdb pins, installed once under
# $JOBEVENT_BENCH_CACHE, as bench/read.sh does). Skipped without node and npm.
cache=${JOBEVENT_BENCH_CACHE:-$HOME/.cache/jobevent-bench}
if command -v node >/dev/null && command -v npm >/dev/null; then
	version=$(sed -n 's/.*"@duckdb\/node-api": *"\([^"]*\)".*/\1/p' interop/duckdb/package.json)
	if [ ! -d "$cache/node_modules/@duckdb/node-api" ]; then
		npm install --prefix "$cache" --no-audit --no-fund --no-save --loglevel=error "@duckdb/node-api@$version" >/dev/null
	fi
	cp bench/readbench/duckdb_import.mjs "$cache/duckdb_import.mjs"
	node "$cache/duckdb_import.mjs" "$out/log.jsonl" "$out" 3 | tee "$out/duckdb.txt" | grep -v '^duckdb_wall'
	awk 'NR==FNR && $1=="this" {w=$2} NR!=FNR && $1=="duckdb_wall" {printf "import / DuckDB: %.3fx the wall time\n", w/$2}' \
		"$out/this.txt" "$out/duckdb.txt"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# Recording share of the shipped jobs, run from a copy (outputs land next to the spec).
cp -r testdata/jobs testdata/text "$out/"
share() { jq -r '"\(.wall_seconds) \(.recording_seconds)"' "$1"; }
ms() { echo "$1 * 1000" | bc -l; }
rec_bench() { # name binary
	echo
	printf '%-6s %-20s %28s %28s\n' "$1" job "clean: wall, recording" "resume: wall, recording"
	for spec in "$out"/jobs/*.yaml; do
		local job cw=() cr=() cs=() rw=() rr=() rs=() w r last
		job=$(basename "$spec" .yaml)
		for i in 1 2 3; do
			local log="$out/ev/$1-$job-$i"
			rm -rf "$out/jobs/jobevents-out" # a sink refuses another log's committed output
			"$2" run "$spec" --events "$log-clean" --format json >"$out/clean.json" 2>"$out/err" ||
				{ echo "clean run of $job failed: $(cat "$out/err")" >&2; exit 1; }
			read -r w r < <(share "$out/clean.json")
			cw+=("$w") cr+=("$r") cs+=("$(echo "100 * $r / $w" | bc -l)")
			last=$(jq .last_seq "$out/clean.json")
			rm -rf "$out/jobs/jobevents-out"
			"$2" run "$spec" --events "$log" --seed 1 --crash-after-seq $((last / 2)) >/dev/null 2>&1 || true
			"$2" run "$spec" --events "$log" --resume --format json >"$out/resume.json" 2>"$out/err" ||
				{ echo "resume of $job failed: $(cat "$out/err")" >&2; exit 1; }
			read -r w r < <(share "$out/resume.json")
			rw+=("$w") rr+=("$r") rs+=("$(echo "100 * $r / $w" | bc -l)")
		done
		printf '%-6s %-20s %8.1f ms %6.1f ms %4.0f%% %8.1f ms %6.1f ms %4.0f%%\n' "$1" "$job" \
			"$(ms "$(median "${cw[@]}")")" "$(ms "$(median "${cr[@]}")")" "$(median "${cs[@]}")" \
			"$(ms "$(median "${rw[@]}")")" "$(ms "$(median "${rr[@]}")")" "$(median "${rs[@]}")"
	done
}
echo
echo "recording: medians of 3 runs; the share is the median of the runs' shares"
rec_bench this "$out/jobevent"
if [ -n "$base" ]; then
	rec_bench base "$base"
fi
