#!/usr/bin/env bash
# run.sh SCENARIO OUTDIR     runs one scenario; writes OUTDIR/{job-events/,truth.json,plan.json}
# run.sh all OUTROOT         runs every scenario in one JVM, each into OUTROOT/<scenario>/
# run.sh S1,S2 OUTROOT       runs the named scenarios, each into OUTROOT/<scenario>/
# run.sh list                names the scenarios
# run.sh selftest OUTROOT    checks that the harness rejects broken scenarios (a failover point
#                            never reached, a wrong job output)
# run.sh restcheck OUTROOT   runs the scenarios that stop a TaskManager and, after each job, runs
#                            $JOBEVENT replay OUTDIR/ha/.../job-events --dry-run --strict --flink-rest URL
#                            against the live MiniCluster (no --lost-worker): it must equal the truth.
#                            JOBEVENT names the binary; without it, run.sh builds one from this
#                            repository (go build ./cmd/jobevent) into its temporary directory
# run.sh watchcheck OUTROOT  runs $JOBEVENT watch on a failover scenario's HA dir and REST from
#                            submission to the job's end and checks its archive and /metrics
#                            (WatchCheck); JOBEVENT as for restcheck
#
# FLINK=1.20 (the default) or FLINK=2 picks the Flink version (the Maven profile flink-1.20 or
# flink-2). The harness is built with Maven on first use and again when a source file changes;
# MVN_OFFLINE=1 adds -o once ~/.m2 holds the dependencies. The Flink log (the JobMaster's INFO
# lines about job recovery, WARN and up from the rest) goes to OUTDIR/flink.log; HARNESS_JAVA_OPTS
# adds JVM options (say -Dorg.slf4j.simpleLogger.log.org.apache.flink.runtime.dispatcher=info).
# Exit status: 0 every scenario passed, 1 one failed, 2 usage error.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if [ $# -eq 1 ] && [ "$1" = list ]; then
  out=""
elif [ $# -eq 2 ]; then
  out="$2"
else
  echo "usage: [FLINK=1.20|2] run.sh SCENARIO|all|S1,S2,... OUTDIR   or   run.sh list" >&2
  exit 2
fi

. "$here/build.sh"

log_opts=()
if [ -n "$out" ]; then
  mkdir -p "$out"
  log_opts=(
    -Dorg.slf4j.simpleLogger.logFile="$out/flink.log"
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn
    -Dorg.slf4j.simpleLogger.log.org.apache.flink.runtime.scheduler.adaptivebatch=info
    -Dorg.slf4j.simpleLogger.log.org.apache.flink.runtime.jobmaster.event=info
    -Dorg.slf4j.simpleLogger.log.org.apache.flink.runtime.jobmaster.JobMaster=info
    -Dorg.slf4j.simpleLogger.showDateTime=true
    -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS
  )
fi

# Everything Flink puts in java.io.tmpdir (REST upload dir, blob stores, RPC jars) goes to a
# directory of this run, removed at the end; each scenario also has a temporary directory of its
# own (HA storage, shuffle files) that the harness removes.
jvm_tmp="$(mktemp -d "${TMPDIR:-/tmp}/flink-harness.XXXXXX")"
trap 'rm -rf "$jvm_tmp"' EXIT
if { [ "${1:-}" = restcheck ] || [ "${1:-}" = watchcheck ]; } && [ -z "${JOBEVENT:-}" ]; then
  if ! (cd "$here/../.." && go build -o "$jvm_tmp/jobevent" ./cmd/jobevent); then
    echo "${0##*/}: restcheck: go build ./cmd/jobevent failed" >&2
    exit 1
  fi
  export JOBEVENT="$jvm_tmp/jobevent"
fi
rc=0
java -Xms512m -Xmx1536m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
  -Djava.io.tmpdir="$jvm_tmp" \
  "${jdk_opts[@]}" "${log_opts[@]}" ${HARNESS_JAVA_OPTS:-} \
  -cp "$build/classes:$(cat "$stamp")" \
  io.github.jobevent.flinkharness.Harness "$@" || rc=$?
exit "$rc"
