#!/usr/bin/env bash
# hashgen.sh OUTDIR [COUNT] [SEED]   writes COUNT random topologies (default 300, seed 1) as Flink's
# HA store keeps them, with the JobVertexIDs Flink assigns (see HashGen.java), into OUTDIR/case-NNNN/.
#
# FLINK=1.20 (the default) or FLINK=2 picks the Flink version, as for run.sh. MVN_OFFLINE=1 adds -o.
# The Go side checks every case:
#   JOBEVENT_FLINK_HASHGEN=OUTDIR go test ./pkg/flink/ -run TestHashGenAll -count=1
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
case "${FLINK:-1.20}" in
  1.20|flink-1.20) profile=flink-1.20 ;;
  2|flink-2) profile=flink-2 ;;
  *) echo "hashgen.sh: FLINK must be 1.20 or 2, not $FLINK" >&2; exit 2 ;;
esac
if [ $# -lt 1 ] || [ $# -gt 3 ]; then
  echo "usage: [FLINK=1.20|2] hashgen.sh OUTDIR [COUNT] [SEED]" >&2
  exit 2
fi
build="$here/target/$profile"
stamp="$build/classpath.txt"
if [ ! -f "$stamp" ] || [ -n "$(find "$here/src" "$here/pom.xml" -newer "$stamp" -print -quit)" ]; then
  mvn_flags=(-q -B -f "$here/pom.xml" -P "$profile")
  [ "${MVN_OFFLINE:-}" = 1 ] && mvn_flags+=(-o)
  mvn "${mvn_flags[@]}" package -DskipTests >&2
  touch "$stamp"
fi
exec java -Xmx768m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
  --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=error \
  -cp "$build/classes:$(cat "$stamp")" io.github.jobevent.flinkhash.HashGen "$1" "${2:-300}" "${3:-1}"
