package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/pkg/flink"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// Rules of validate's Flink profile, beside replay's rule ids.
const (
	// ruleFlinkGap: a file is missing from the numbering; Flink reads no
	// file after it.
	ruleFlinkGap = "flink-gap"
	// ruleFlinkName: an events.* name that is not a file number.
	ruleFlinkName = "flink-file-name"
	// ruleFlinkAccumulator: a user accumulator class that Flink reads with
	// the system class loader on replay.
	ruleFlinkAccumulator = "flink-user-accumulator"
)

// flinkSkippedRules are the rules of the event model that do not apply to
// a Flink log: Flink records no starts, no failures, no times and no
// epoch objects, and jobevent synthesizes the job_submitted and
// master_started events, so these would report what Flink never writes.
// Coordinator snapshots are keyed by OperatorID, which is the vertex's id
// only for the head of a chain: a snapshot of another operator is no
// finding.
var flinkSkippedRules = map[string]bool{
	replay.RuleFinishWithoutStart:  true,
	replay.RuleAttemptOverlap:      true,
	replay.RuleFencedWrite:         true,
	replay.RuleEpochStartSeq:       true,
	replay.RuleEpochUnclaimed:      true,
	replay.RuleEpochUnused:         true,
	replay.RuleUnknownObject:       true,
	replay.RuleSnapshotCoordinator: true,
}

// validateFlink validates arg with the Flink profile of the rules when it
// is a Flink log (ok true); a record Flink fails on is an error finding
// naming its file and offset.
func validateFlink(c *cli.Context, arg string, fo *flinkOptions) (fs []replay.Finding, ok bool, err error) {
	src, err := openFlinkSource(c.Context, arg, fo)
	if err != nil {
		var ce *flink.CorruptError
		if errors.As(err, &ce) {
			return []replay.Finding{{Severity: replay.SeverityError, Rule: replay.RuleCorrupt, Key: ce.File,
				Message: ce.Error() + ": " + flinkCorruptHint}}, true, nil
		}
		return nil, true, err
	}
	if src == nil {
		return nil, false, nil
	}
	defer src.Close()
	var pre []replay.Finding
	for _, n := range src.Notices() {
		switch n.Kind {
		case noticeFlinkGap:
			pre = append(pre, replay.Finding{Severity: replay.SeverityWarning, Rule: ruleFlinkGap, Key: n.Key, Message: n.Message})
		case noticeFlinkName:
			pre = append(pre, replay.Finding{Severity: replay.SeverityWarning, Rule: ruleFlinkName, Key: n.Key, Message: n.Message})
		case format.NoticeTornTail:
			pre = append(pre, replay.Finding{Severity: replay.SeverityWarning, Rule: replay.RuleTornTail, Key: n.Key, Message: n.Message})
		}
	}
	for _, f := range replay.Validate(src, replay.ValidateOptions{}) {
		if !flinkSkippedRules[f.Rule] {
			pre = append(pre, f)
		}
	}
	return append(pre, userAccumulators(src.log)...), true, nil
}

// userAccumulators warns, once per class, about the accumulators whose
// class is neither Flink's nor the JDK's: Flink deserializes them with
// the system class loader when it replays the log, and fails the replay
// (deleting the log and restarting the whole job) when the class is only
// in the job's jar.
func userAccumulators(l *flink.Log) []replay.Finding {
	r, err := l.Reader()
	if err != nil {
		return nil
	}
	defer r.Close()
	var out []replay.Finding
	seen := map[string]bool{}
	for {
		rec, err := r.Next()
		if err != nil {
			return out
		}
		f, ok := rec.Event.(*flink.VertexFinished)
		if !ok {
			continue
		}
		for _, a := range f.Accumulators {
			if a.Class == "" || seen[a.Class] || strings.HasPrefix(a.Class, "org.apache.flink.") || strings.HasPrefix(a.Class, "java.") {
				continue
			}
			seen[a.Class] = true
			out = append(out, replay.Finding{Severity: replay.SeverityWarning, Rule: ruleFlinkAccumulator, Key: fmt.Sprintf("%s@%d", rec.File, rec.Offset),
				Message: fmt.Sprintf("accumulator %q is of class %s: Flink reads it with the system class loader when it replays this log; if the class is only in the job's jar, Flink fails the replay, deletes the log and restarts the whole job", a.Name, a.Class)})
		}
	}
}
