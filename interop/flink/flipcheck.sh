#!/usr/bin/env bash
# flipcheck.sh [FILE] regenerates the flip table pkg/flink/testdata/flips/<name>.txt: for every
# byte of a real job-events file (by default the small events.1 of the Flink version's
# min-pause-released-producer run, kept under pkg/flink/testdata/flips), whether Flink's own
# FileSystemJobEventStore reads the file with that byte XOR 0x01 (a bit flip: names stay ASCII)
# and XOR 0xff (a byte flip), one table each ("reads N": N events) or fails
# ("fails": Flink fails the replay, deletes the log and restarts the job). pkg/flink's
# TestFlipMatrix_Java compares jobevent's reader with the table, so go test needs no JVM.
# FLINK=1.20 (the default) or FLINK=2 picks the Flink version, as for run.sh; each version has
# its own file and tables (1.20.5-*, 2.3.0-*).
# The JVM runs with Flink's default JobManager heap (-Xmx1g), which decides what a huge claimed
# length does (an OutOfMemoryError fails the replay).
# CI: for each version, FLINK=$v interop/flink/flipcheck.sh; then git diff --exit-code pkg/flink/testdata/flips
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[ $# -le 1 ] || { echo "usage: [FLINK=1.20|2] flipcheck.sh [FILE]" >&2; exit 2; }

. "$here/build.sh"
case "$profile" in
  flink-1.20) default=pkg/flink/testdata/flips/1.20.5-min-pause-released-producer-events.1 ;;
  flink-2) default=pkg/flink/testdata/flips/2.3.0-min-pause-released-producer-events.1 ;;
esac
rel="${1:-$default}"

name="$(echo "$rel" | sed 's#^pkg/flink/testdata/flips/##; s#^testdata/flink/##; s#/job-events/#-#; s#/#-#g')"
jvm_tmp="$(mktemp -d "${TMPDIR:-/tmp}/flipcheck.XXXXXX")"
trap 'rm -rf "$jvm_tmp"' EXIT
for mask in 01 ff; do
  dest="$root/pkg/flink/testdata/flips/$name.xor$mask.txt"
  mkdir -p "$(dirname "$dest")"
  java -Xmx1g -XX:TieredStopAtLevel=1 -Djava.io.tmpdir="$jvm_tmp" \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=error "${jdk_opts[@]}" \
    -cp "$build/classes:$(cat "$stamp")" \
    io.github.jobevent.flinkharness.FlipCheck "$root/$rel" "$rel" "$mask" >"$jvm_tmp/table"
  mv "$jvm_tmp/table" "$dest"
  echo "flipcheck.sh: wrote ${dest#"$root/"}"
done
