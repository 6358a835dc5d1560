#!/usr/bin/env bash
# `jobevent serve`'s pages against the CLI answering the same questions, in
# one run, with the same binary (README.md, Performance: "serve"): a job page
# of a generated log of $EVENTS (1000000) events (failures, three failovers,
# a master that died mid-job) against `status` + `replay --dry-run` +
# `timeline --svg --points 200` + one `replay --dry-run --at SEQ` per
# failover; and the job list of $LOGS (1000) small logs against `ls`. Each
# page is timed cold (the first request of a new server) and warm (the next).
# Prints the medians of $RUNS (3) runs. KEEP=DIR keeps and reuses the logs.
# Usage: bench/serve.sh   (env: EVENTS=1000000 LOGS=1000 RUNS=3 KEEP=DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${KEEP:-}
if [ -z "$out" ]; then
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
go build -o "$out/jobevent" ./cmd/jobevent
go build -o "$out/servebench" ./bench/servebench
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
"$out/servebench" -dir "$out/data" -jobevent "$out/jobevent" -events "${EVENTS:-1000000}" -logs "${LOGS:-1000}" -runs "${RUNS:-3}" 2> >(grep -v '^jobevent: serving' >&2)
