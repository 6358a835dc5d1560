#!/usr/bin/env bash
# make-testdata.sh regenerates testdata/flink/: runs the scenarios below on both Flink versions and
# keeps, per run, testdata/flink/<flink version>/<scenario>/{ha/, truth.json, plan.json,
# recovery.log}. ha/ is Flink's HA storage directory as Flink left it at the (last) failover:
# ha/<cluster-id>/<jobId>/job-events/events.N, ha/<cluster-id>/submittedJobGraph<hex> (1.20) or
# submittedExecutionPlan<hex> (2.x), and on 2.x ha/<cluster-id>/shuffleMaster-snapshot/;
# ha.failover-N/ is the same at failover N when a scenario has several. recovery.log holds the
# recovering JobMaster's job-recovery lines of that run (the "Partitions to be released: ...,
# missed partitions: ..., partitions to be reserved: ..." line among them). Every run makes new
# ids, so regenerating changes every file: commit the result only with a reason, and update
# testdata/flink/README.md if the set changes. SCENARIOS=a,b overrides the set; only the
# scenarios run are replaced (delete a dropped scenario's directory by hand).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dest="$here/../../testdata/flink"
scenarios=${SCENARIOS:-rebalance-hash,forward-pointwise,auto-parallelism,min-pause-released-producer,lost-taskmanager,task-failure-before-failover,two-failovers,no-batch-snapshot-source-partition-lost,union-sources,connect-keyed,broadcast-side,dataset-two-consumers,two-datasets-same-vertices,fan-out-sinks,auto-pointwise,file-source,datagen-source-partly-done}
# RUN=all runs every scenario (and prints how long each version took) but keeps only the above.
# The trailing comma makes even one scenario a list: each into $tmp/$flink/<scenario>/.
run=${RUN:-$scenarios,}

# FLINKS="2" runs one version only. OUT=DIR keeps every run (OUT/<1.20|2>/<scenario>/, with flink.log) for JOBEVENT_FLINK_ROOT.
if [ -n "${OUT:-}" ]; then
  tmp="$OUT"
  mkdir -p "$tmp"
else
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
fi
for flink in ${FLINKS:-1.20 2}; do
  start=$SECONDS
  FLINK=$flink "$here/run.sh" "$run" "$tmp/$flink" | tee "$tmp/$flink.out"
  echo "flink $flink: run.sh $run took $((SECONDS - start)) s"
  version="$(sed -n 's/^flink-\([^:]*\): .*/\1/p' "$tmp/$flink.out")"
  # The recovery lines of each scenario's job, split by the job name in "Initializing job".
  awk -v dir="$tmp/$flink" '
    /Initializing job .jobevent harness: / { s = $0; sub(/.*jobevent harness: /, "", s); sub(/\047.*/, "", s) }
    s != "" && /DefaultBatchJobRecoveryHandler - (Try to recover|Partitions to be|Restart all|JobVertex .* is finished|Fail to replay|Job .* successfully recovered|All operator coordinators|Restore operator)/ {
      line = $0; sub(/^[0-9:.]+ \[[^]]*\] /, "", line); print line >> (dir "/" s "/recovery.log")
    }' "$tmp/$flink/flink.log"
  for s in ${scenarios//,/ }; do
    rm -rf "${dest:?}/$version/$s"
    mkdir -p "$dest/$version/$s"
    cp -r "$tmp/$flink/$s/ha" "$tmp/$flink/$s/truth.json" "$tmp/$flink/$s/plan.json" "$dest/$version/$s/"
    for earlier in "$tmp/$flink/$s"/ha.failover-*; do
      [ -d "$earlier" ] && cp -r "$earlier" "$dest/$version/$s/"
    done
    [ -f "$tmp/$flink/$s/recovery.log" ] && cp "$tmp/$flink/$s/recovery.log" "$dest/$version/$s/"
  done
done
du -sh "$dest"
