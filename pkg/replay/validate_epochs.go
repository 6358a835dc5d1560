package replay

import (
	"fmt"
	"sort"
)

// EpochClaim is an epoch object of a log as Validate sees it: the epoch,
// the first seq its master writes (start_seq), and the object's key.
type EpochClaim struct {
	Epoch    int32
	StartSeq int64
	Key      string
}

// Claimer is implemented by a Source that knows the epoch objects of its
// log (a bucket log; a JSONL file has none). Validate calls Claims once,
// after the source's last event, and compares them with the events.
type Claimer interface {
	Claims() []EpochClaim
}

// end runs the checks that need the whole log: a log holds events, and
// agrees with its epoch objects.
func (v *validator) end() {
	if v.events == 0 {
		if !v.torn {
			v.report(SeverityError, 0, RuleJobSubmitted, "the log holds no events: it must start with job_submitted at seq 1 (events/ is empty or missing; a master that has just claimed epoch 1 has not flushed yet)")
		}
		return
	}
	if v.claimer != nil {
		v.checkClaims(v.claimer.Claims())
	}
}

// checkClaims compares the epoch objects with the events kept: every
// epoch with events has an object, its first event is at the object's
// start_seq, and every object's epoch has events.
func (v *validator) checkClaims(claims []EpochClaim) {
	byEpoch := make(map[int32]EpochClaim, len(claims))
	for _, c := range claims {
		byEpoch[c.Epoch] = c
	}
	epochs := make([]int32, 0, len(v.epochSeq))
	for e := range v.epochSeq {
		epochs = append(epochs, e)
	}
	sort.Slice(epochs, func(i, j int) bool { return epochs[i] < epochs[j] })
	for _, e := range epochs {
		first := v.epochSeq[e]
		c, ok := byEpoch[e]
		switch {
		case !ok:
			v.add(Finding{Severity: SeverityError, Seq: first, Rule: RuleEpochUnclaimed,
				Message: spf("events of epoch %d from seq %d, but the log has no epoch object for epoch %d: no master claimed it", e, first, e)})
		case c.StartSeq != first:
			v.add(Finding{Severity: SeverityError, Seq: first, Key: c.Key, Rule: RuleEpochStartSeq,
				Message: spf("epoch %d begins at seq %d, but its epoch object says start_seq %d", e, first, c.StartSeq)})
		}
	}
	for _, c := range claims {
		if _, ok := v.epochSeq[c.Epoch]; !ok {
			v.add(Finding{Severity: SeverityWarning, Key: c.Key, Rule: RuleEpochUnused,
				Message: spf("epoch %d was claimed (start_seq %d), but the log holds no event of it, not even its master_started: its master stopped before its first flush, or has not flushed yet", c.Epoch, c.StartSeq)})
		}
	}
}

func spf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
