#!/usr/bin/env bash
# run.sh SCENARIO OUTDIR     runs one scenario; writes OUTDIR/{job-events/,truth.json,plan.json}
# run.sh all OUTROOT         runs every scenario in one JVM, each into OUTROOT/<scenario>/
# run.sh S1,S2 OUTROOT       runs the named scenarios, each into OUTROOT/<scenario>/
# run.sh list                names the scenarios
# run.sh selftest OUTROOT    checks that the harness rejects broken scenarios (a failover point
#                            never reached, a wrong job output)
# run.sh restcheck OUTROOT   runs the scenarios that stop a TaskManager and, after each job, runs
#                            $JOBEVENT replay OUTDIR/ha/.../job-events --dry-run --flink-rest URL
#                            against the live MiniCluster (no --lost-worker): it must equal the truth
#
# FLINK=1.20 (the default) or FLINK=2 picks the Flink version (the Maven profile flink-1.20 or
# flink-2). The harness is built with Maven on first use and again when a source file changes;
# MVN_OFFLINE=1 adds -o once ~/.m2 holds the dependencies. The Flink log (the JobMaster's INFO
# lines about job recovery, WARN and up from the rest) goes to OUTDIR/flink.log; HARNESS_JAVA_OPTS
# adds JVM options (say -Dorg.slf4j.simpleLogger.log.org.apache.flink.runtime.dispatcher=info).
# Exit status: 0 every scenario passed, 1 one failed, 2 usage error.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

flink="${FLINK:-1.20}"
case "$flink" in
  1.20|flink-1.20) profile=flink-1.20 ;;
  2|flink-2) profile=flink-2 ;;
  *) echo "run.sh: FLINK must be 1.20 or 2, not $flink" >&2; exit 2 ;;
esac

if [ $# -eq 1 ] && [ "$1" = list ]; then
  out=""
elif [ $# -eq 2 ]; then
  out="$2"
else
  echo "usage: [FLINK=1.20|2] run.sh SCENARIO|all|S1,S2,... OUTDIR   or   run.sh list" >&2
  exit 2
fi

build="$here/target/$profile"
stamp="$build/classpath.txt"
if [ ! -f "$stamp" ] || [ -n "$(find "$here/src" "$here/pom.xml" -newer "$stamp" -print -quit)" ]; then
  mvn_flags=(-q -B -f "$here/pom.xml" -P "$profile")
  [ "${MVN_OFFLINE:-}" = 1 ] && mvn_flags+=(-o)
  mvn_log="$(mktemp)"
  if ! mvn "${mvn_flags[@]}" package -DskipTests >"$mvn_log" 2>&1; then
    cat "$mvn_log" >&2
    rm -f "$mvn_log"
    echo "run.sh: the Maven build of the harness ($profile) failed" >&2
    exit 1
  fi
  rm -f "$mvn_log"
  touch "$stamp"
fi

# JDK 17 options that Flink's own config.yaml passes (env.java.opts.all).
jdk_opts=(
  --add-exports=java.base/sun.net.util=ALL-UNNAMED
  --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED
  --add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED
  --add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
  --add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED
  --add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED
  --add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED
  --add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED
  --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.text=ALL-UNNAMED
  --add-opens=java.base/java.time=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED
)

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
rc=0
java -Xms512m -Xmx1536m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
  -Djava.io.tmpdir="$jvm_tmp" \
  "${jdk_opts[@]}" "${log_opts[@]}" ${HARNESS_JAVA_OPTS:-} \
  -cp "$build/classes:$(cat "$stamp")" \
  io.github.jobevent.flinkharness.Harness "$@" || rc=$?
exit "$rc"
