#!/usr/bin/env bash
# The event store against JSON lines, in one run (issue figures in README.md).
# Usage: bench/log.sh [EVENTS] [DUMP_EVENTS]   (defaults: 1000000 and 10000000)
# Runs on one core (GOMAXPROCS=1) so that figures are per core.
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-1000000}
dump_events=${2:-10000000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/jobevent" ./cmd/jobevent
go build -o "$out/logbench" ./bench/logbench
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(go version | cut -d' ' -f3)"
GOMAXPROCS=1 "$out/logbench" -events "$events" -dump-events "$dump_events" -jobevent "$out/jobevent" -dir "$out"
