package replay

import "fmt"

// Severities of a Finding. The string values are part of validate's JSON.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Rule ids of Validate. They are stable: CI configurations and the JSON of
// `jobevent validate --format json` name them. The package documentation
// has the table of what each one checks.
const (
	RuleSchemaVersion         = "schema-version"
	RuleSyntax                = "syntax"
	RuleCorrupt               = "corrupt"
	RuleTornTail              = "torn-tail"
	RuleUnknownObject         = "unknown-object"
	RuleFencedWrite           = "fenced-write"
	RuleJobSubmitted          = "job-submitted"
	RuleInvalidGraph          = "invalid-graph"
	RuleEpochStart            = "epoch-start"
	RuleEpochOrder            = "epoch-order"
	RuleSeqOrder              = "seq-order"
	RuleUnknownVertex         = "unknown-vertex"
	RuleSubtaskRange          = "subtask-range"
	RuleVertexNotInitialized  = "vertex-not-initialized"
	RuleVertexReinitialized   = "vertex-reinitialized"
	RuleParallelism           = "parallelism-mismatch"
	RuleAttemptOrder          = "attempt-order"
	RuleAttemptOverlap        = "attempt-overlap"
	RuleFinishWithoutStart    = "finish-without-start"
	RuleFinishedTwice         = "finished-twice"
	RuleConsumerBeforeInputs  = "consumer-before-producer"
	RuleUnknownPartition      = "unknown-partition"
	RuleSnapshotCoordinator   = "snapshot-coordinator"
	RuleInvalidField          = "invalid-field"
	RuleAfterJobFinished      = "after-job-finished"
	RuleEpochStartSeq         = "epoch-start-seq"
	RuleEpochUnclaimed        = "epoch-unclaimed"
	RuleEpochUnused           = "epoch-unused"
	RuleTooManyFindings       = "too-many-findings"
	defaultMaxFindings        = 1000
	findingsTruncatedTemplate = "stopped after %d findings"
)

// Finding is one violation Validate found. Seq is the event concerned (0
// when there is none, e.g. a damaged object); Key is where it came from
// (the object key or file path a Keyer source reports), or "".
type Finding struct {
	Severity string `json:"severity"`
	Seq      int64  `json:"seq"`
	Key      string `json:"key"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	// Line is the line of a JSONL file the event is on (a Liner source),
	// 0 when unknown; for CI annotations (not in the JSON form).
	Line int `json:"-"`
}

// String reads like "error seq 7 seq-order: seq 9 after 7, want 8".
func (f Finding) String() string {
	if f.Seq > 0 {
		return fmt.Sprintf("%s seq %d %s: %s", f.Severity, f.Seq, f.Rule, f.Message)
	}
	return fmt.Sprintf("%s %s: %s", f.Severity, f.Rule, f.Message)
}

// ValidateOptions tune Validate.
type ValidateOptions struct {
	// MaxFindings stops validation after this many findings, with a last
	// too-many-findings warning; 0 means 1000.
	MaxFindings int
}
