#!/usr/bin/env bash
# `jobevent watch`'s cost at scale (pkg/watch's benchmarks): 1,000 generated Flink HA cluster
# directories (each a real run's plan file and job-events) and 100 jobevent logs on file://. It
# prints the machine, then the time of a poll of the unchanged tree (BenchmarkPollUnchanged, mean
# of POLLS) and an hour of polls at the 2 s interval simulated back to back (BenchmarkPollHour:
# 1,800 polls; heap in use and RSS at its start and end).
# Usage: bench/watch.sh   (env: POLLS=20)
set -euo pipefail
cd "$(dirname "$0")/.."
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
go test -run XX -bench 'PollUnchanged' -benchtime "${POLLS:-20}x" -count 1 ./pkg/watch/ | grep -E 'Benchmark|first poll'
go test -run XX -bench 'PollHour' -benchtime 1x -count 1 -timeout 30m ./pkg/watch/ | grep -E 'Benchmark|first poll'
