#!/usr/bin/env bash
# The event store against every bucket backend, in one run: mem, file, and
# the emulators — gofakes3 (S3) and fake-gcs-server (GCS) in process, and
# Azurite (Azure Blob), installed from npm into ~/.cache/jobevent-ci like
# .ci/run does. Prints a table of segment write latency (p50/p99), read
# throughput of a 1M-event log, and read time of logs of 100, 1,000 and
# 10,000 segments before and after compaction.
# Usage: bench/cloud.sh [BENCH_REGEXP]   (default: all of BenchmarkCloud)
# Emulators are not the clouds: the figures compare the store's own costs
# (requests per segment, listing, decoding) across drivers, not services.
set -euo pipefail
cd "$(dirname "$0")/.."

AZURITE_VERSION=3.37.0
cache="${JOBEVENT_CI_CACHE:-$HOME/.cache/jobevent-ci}"
azurite_dir="$cache/azurite-$AZURITE_VERSION"
if [ ! -x "$azurite_dir/node_modules/.bin/azurite-blob" ] && command -v npm >/dev/null; then
  echo "installing azurite@$AZURITE_VERSION into $azurite_dir" >&2
  mkdir -p "$azurite_dir"
  npm install --prefix "$azurite_dir" --no-audit --no-fund --no-save --loglevel=error "azurite@$AZURITE_VERSION" >&2
fi
export PATH="$azurite_dir/node_modules/.bin:$PATH"

out=$(mktemp -d)
bench_pid=
cleanup() {
  # The benchmark binary and the Azurite servers it started are one group.
  [ -n "$bench_pid" ] && kill -TERM -- "-$bench_pid" 2>/dev/null || true
  rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

go test -c -o "$out/blob.test" ./pkg/blob/
filter=${1:-BenchmarkCloud}
# run REGEXP BENCHTIME runs the benchmarks as a process group of their own.
run() {
  setsid bash -c 'cd pkg/blob && exec "$0" -test.run "^$" -test.bench "$1" -test.benchtime "$2" -test.timeout 60m' \
    "$out/blob.test" "$1" "$2" >> "$out/raw.txt" 2>&1 &
  bench_pid=$!
  wait "$bench_pid" || failed=1
  bench_pid=
}
failed=0
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(go version | cut -d' ' -f3)"
[[ BenchmarkCloudSegmentWrite =~ $filter ]] && run 'BenchmarkCloudSegmentWrite' 200x
[[ BenchmarkCloudRead1M =~ $filter ]] && run 'BenchmarkCloudRead1M' 3x
[[ BenchmarkCloudReadSegments =~ $filter ]] && run 'BenchmarkCloudReadSegments' 1x
if [ "$failed" != 0 ] || grep -q -e '^--- FAIL' -e '^FAIL' "$out/raw.txt"; then
  cat "$out/raw.txt"; exit 1
fi

awk '
/^BenchmarkCloudSegmentWrite\// {
  split($1, p, "/"); be = p[2]; sub(/-[0-9]+$/, "", be)
  for (i = 3; i < NF; i++) { if ($(i+1) == "p50-ms") p50[be] = $i; if ($(i+1) == "p99-ms") p99[be] = $i }
  order[++n] = be
}
/^BenchmarkCloudRead1M\// {
  split($1, p, "/"); be = p[2]; sub(/-[0-9]+$/, "", be)
  for (i = 3; i < NF; i++) { if ($(i+1) == "events/s") eps[be] = $i; if ($(i+1) == "segments") segs[be] = $i }
  if (!(be in seen)) { seen[be] = 1; if (n == 0) order2[++m] = be }
}
/^BenchmarkCloudReadSegments\// {
  split($1, p, "/"); be = p[2]; k = p[3]; phase = p[4]; sub(/-[0-9]+$/, "", phase)
  t[be, k, phase] = $3 / 1e9
  for (i = 3; i < NF; i++) if ($(i+1) == "segments-after") after[be, k] = $i
  if (!((be) in seen3)) { seen3[be] = 1; order3[++q] = be }
}
END {
  if (n > 0) {
    printf "\nsegment write (1,000 events, fencing check + conditional upload)\n"
    printf "%-8s %10s %10s\n", "backend", "p50 ms", "p99 ms"
    for (i = 1; i <= n; i++) printf "%-8s %10s %10s\n", order[i], p50[order[i]], p99[order[i]]
  }
  if (length(eps) > 0) {
    printf "\nread of a 1M-event log (Writer defaults)\n"
    printf "%-8s %12s %10s\n", "backend", "events/s", "segments"
    for (be in eps) printf "%-8s %12.0f %10s\n", be, eps[be], segs[be]
  }
  if (q > 0) {
    printf "\nread of a finished log of 10-event segments, before and after compact (seconds)\n"
    printf "%-8s %8s %8s %10s %10s %10s %8s\n", "backend", "segments", "list", "before", "compact", "after", "after#"
    for (i = 1; i <= q; i++) {
      be = order3[i]
      split("100 1000 10000", ks, " ")
      for (j = 1; j <= 3; j++) {
        k = ks[j]
        if ((be, k, "before") in t)
          printf "%-8s %8s %8.3f %10.3f %10.3f %10.3f %8s\n", be, k, t[be, k, "list"], t[be, k, "before"], t[be, k, "compact"], t[be, k, "after"], after[be, k]
      }
    }
  }
}' "$out/raw.txt"
