#!/usr/bin/env bash
# make-testdata.sh regenerates testdata/flink/: runs the scenarios below on both Flink versions and
# keeps, per run, testdata/flink/<flink version>/<scenario>/{job-events/, truth.json, plan.json,
# recovery.log}. recovery.log holds the recovering JobMaster's job-recovery lines of that run
# (the "Partitions to be released: ..., missed partitions: ..., partitions to be reserved: ..."
# line among them). Every run makes new ids, so regenerating changes every file: commit the
# result only with a reason, and update testdata/flink/README.md if the set changes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dest="$here/../../testdata/flink"
scenarios=rebalance-hash,forward-pointwise,auto-parallelism,min-pause-released-producer,lost-taskmanager,task-failure-before-failover,two-failovers,no-batch-snapshot-source-partition-lost

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for flink in 1.20 2; do
  FLINK=$flink "$here/run.sh" "$scenarios" "$tmp/$flink" | tee "$tmp/$flink.out"
  version="$(sed -n 's/^flink-\([^:]*\): .*/\1/p' "$tmp/$flink.out")"
  rm -rf "${dest:?}/$version"
  mkdir -p "$dest/$version"
  # The recovery lines of each scenario's job, split by the job name in "Initializing job".
  awk -v dir="$tmp/$flink" '
    /Initializing job .jobevent harness: / { s = $0; sub(/.*jobevent harness: /, "", s); sub(/\047.*/, "", s) }
    s != "" && /DefaultBatchJobRecoveryHandler - (Try to recover|Partitions to be|Restart all|JobVertex .* is finished|Fail to replay|Job .* successfully recovered|All operator coordinators|Restore operator)/ {
      line = $0; sub(/^[0-9:.]+ \[[^]]*\] /, "", line); print line >> (dir "/" s "/recovery.log")
    }' "$tmp/$flink/flink.log"
  for s in ${scenarios//,/ }; do
    mkdir -p "$dest/$version/$s"
    cp -r "$tmp/$flink/$s/job-events" "$tmp/$flink/$s/truth.json" "$tmp/$flink/$s/plan.json" "$dest/$version/$s/"
    if [ -d "$tmp/$flink/$s/job-events.failover-1" ]; then
      cp -r "$tmp/$flink/$s/job-events.failover-1" "$dest/$version/$s/"
    fi
    [ -f "$tmp/$flink/$s/recovery.log" ] && cp "$tmp/$flink/$s/recovery.log" "$dest/$version/$s/"
  done
done
du -sh "$dest"
