package main

import (
	"errors"

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
)

// flinkSkippedRules are the rules of the event model that do not apply to
// a Flink log: Flink records no starts, no failures, no times and no
// epoch objects, and jobevent synthesizes the job_submitted and
// master_started events, so these would report what Flink never writes.
var flinkSkippedRules = map[string]bool{
	replay.RuleFinishWithoutStart: true,
	replay.RuleAttemptOverlap:     true,
	replay.RuleFencedWrite:        true,
	replay.RuleEpochStartSeq:      true,
	replay.RuleEpochUnclaimed:     true,
	replay.RuleEpochUnused:        true,
	replay.RuleUnknownObject:      true,
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
	return pre, true, nil
}
