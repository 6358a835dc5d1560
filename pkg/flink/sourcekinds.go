package flink

import (
	"fmt"

	"github.com/jobevent/jobevent/pkg/format"
)

// batchSnapshotSources lists, per Flink version, the Source classes whose
// split enumerators implement SupportsBatchSnapshot, so that a recovering
// JobMaster restores their split assignment instead of resetting the whole
// source: IteratorSourceEnumerator (NumberSequenceSource,
// DataGeneratorSource) and StaticFileSplitEnumerator (FileSource, as
// flink-connector-files 1.20.5 and 2.3.0 build it) on both versions. Every
// other known source has none.
var batchSnapshotSources = map[string]map[string]bool{
	"1.20": {
		"org.apache.flink.api.connector.source.lib.NumberSequenceSource":              true,
		"org.apache.flink.connector.datagen.source.DataGeneratorSource":               true,
		"org.apache.flink.connector.file.src.FileSource":                              true,
		"org.apache.flink.connector.file.src.AbstractFileSource":                      true,
		"org.apache.flink.streaming.api.functions.source.datagen.DataGeneratorSource": false,
	},
	"2.x": {
		"org.apache.flink.api.connector.source.lib.NumberSequenceSource": true,
		"org.apache.flink.connector.datagen.source.DataGeneratorSource":  true,
		"org.apache.flink.connector.file.src.FileSource":                 true,
		"org.apache.flink.connector.file.src.AbstractFileSource":         true,
	},
}

// SourceKind returns the coordinator kind of a job vertex whose operator
// coordinators hold the Source classes srcs ("" entries are coordinators
// that are not sources, such as a sink's committer), on Flink version
// ("1.20" or "2.x"): format.CoordinatorBatchSnapshot when every source
// supports batch snapshots, format.CoordinatorNoBatchSnapshot otherwise,
// and "" when srcs is empty. assumed is non-empty, one line, when a class
// is not in the table and no other coordinator is known to lack batch
// snapshots: it is then assumed to have none (the conservative kind: Flink
// resets such a source whole).
func SourceKind(version string, srcs []string) (kind, assumed string) {
	return coordinatorKind(version, srcs, nil)
}

// coordinatorKind is SourceKind where the table does not know a class and
// evidence(k), when given, may: whether the k-th coordinator supports
// batch snapshots, and whether that is known (CoordinatorEvidence).
func coordinatorKind(version string, srcs []string, evidence func(k int) (supports, known bool)) (kind, assumed string) {
	if len(srcs) == 0 {
		return "", ""
	}
	table := batchSnapshotSources[version]
	lacking := false // a coordinator is known to have no batch snapshot
	for k, s := range srcs {
		ok, known := table[s]
		if !known && evidence != nil {
			ok, known = evidence(k)
		}
		switch {
		case known:
			lacking = lacking || !ok
		case assumed != "":
		case s == "" || s[0] == '?':
			// A coordinator that is no source (e.g. a sink committer):
			// Flink's coordinators of that kind do not snapshot splits.
			assumed = fmt.Sprintf("operator coordinator %s is not a source; assumed without batch snapshots", s)
		default:
			assumed = fmt.Sprintf("source class %s is not in the Flink %s table; assumed without batch snapshots (--coordinator overrides)", s, version)
		}
	}
	if lacking {
		return format.CoordinatorNoBatchSnapshot, ""
	}
	if assumed != "" {
		return format.CoordinatorNoBatchSnapshot, assumed
	}
	return format.CoordinatorBatchSnapshot, ""
}
