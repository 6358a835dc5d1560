package replay_test

import (
	"fmt"
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// TestValidate_FirstMasterDiedAfterSubmit: when the first master died right
// after job_submitted was durable, the recovering master's master_started is
// the second event, of epoch 2. That log is well-formed; a second event of
// epoch 2 that is not a recovering master_started is not.
func TestValidate_FirstMasterDiedAfterSubmit(t *testing.T) {
	graph := &format.Graph{Vertices: []format.Vertex{{ID: "src", Operator: "sequence", Parallelism: 1, MaxParallelism: 1, Coordinator: format.CoordinatorBatchSnapshot}}}
	events := func(recovering bool) []format.Event {
		return []format.Event{
			{Seq: 1, Epoch: 1, Kind: format.KindJobSubmitted, Job: "j", Graph: graph},
			{Seq: 2, Epoch: 2, Kind: format.KindMasterStarted, Job: "j", Master: "m2", Recovering: recovering},
			{Seq: 3, Epoch: 2, Kind: format.KindVertexInitialized, Job: "j", Vertex: "src", Parallelism: 1},
		}
	}
	if got := replay.Validate(&replay.SliceSource{Events: events(true)}, replay.ValidateOptions{}); len(got) != 0 {
		t.Fatalf("findings = %v, want none", got)
	}
	got := replay.Validate(&replay.SliceSource{Events: events(false)}, replay.ValidateOptions{})
	if len(got) != 1 || got[0].Rule != replay.RuleEpochStart || got[0].Seq != 2 {
		t.Fatalf("findings = %v, want one %s at seq 2", got, replay.RuleEpochStart)
	}
}

// claimedSource is a SliceSource with epoch objects.
type claimedSource struct {
	replay.SliceSource
	claims []replay.EpochClaim
}

func (s *claimedSource) Claims() []replay.EpochClaim { return s.claims }

// TestValidate_EpochClaims compares the epoch objects with the events:
// a start_seq other than the epoch's first seq, an epoch with events and
// no object, and an object whose epoch has no event are findings.
func TestValidate_EpochClaims(t *testing.T) {
	graph := &format.Graph{Vertices: []format.Vertex{{ID: "src", Operator: "sequence", Parallelism: 1, MaxParallelism: 1}}}
	events := []format.Event{
		{Seq: 1, Epoch: 1, Kind: format.KindJobSubmitted, Job: "j", Graph: graph},
		{Seq: 2, Epoch: 1, Kind: format.KindMasterStarted, Job: "j", Master: "m1"},
		{Seq: 3, Epoch: 1, Kind: format.KindVertexInitialized, Job: "j", Vertex: "src", Parallelism: 1},
		{Seq: 4, Epoch: 2, Kind: format.KindMasterStarted, Job: "j", Master: "m2", Recovering: true},
	}
	claim := func(e int32, start int64) replay.EpochClaim {
		return replay.EpochClaim{Epoch: e, StartSeq: start, Key: fmt.Sprintf("epochs/%08x", e)}
	}
	for _, tc := range []struct {
		name   string
		claims []replay.EpochClaim
		want   []string // "severity rule seq"
	}{
		{"agree", []replay.EpochClaim{claim(1, 1), claim(2, 4)}, nil},
		{"start_seq disagrees", []replay.EpochClaim{claim(1, 1), claim(2, 6)}, []string{"error epoch-start-seq 4"}},
		{"unclaimed", []replay.EpochClaim{claim(1, 1)}, []string{"error epoch-unclaimed 4"}},
		{"claimed, no events", []replay.EpochClaim{claim(1, 1), claim(2, 4), claim(3, 5)}, []string{"warning epoch-unused 0"}},
	} {
		src := &claimedSource{SliceSource: replay.SliceSource{Events: events}, claims: tc.claims}
		var got []string
		for _, f := range replay.Validate(src, replay.ValidateOptions{}) {
			got = append(got, fmt.Sprintf("%s %s %d", f.Severity, f.Rule, f.Seq))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: findings = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestValidate_Empty: a log without events is an error (it has no
// job_submitted), unless a torn tail explains it.
func TestValidate_Empty(t *testing.T) {
	got := replay.Validate(&replay.SliceSource{}, replay.ValidateOptions{})
	if len(got) != 1 || got[0].Rule != replay.RuleJobSubmitted || got[0].Severity != replay.SeverityError {
		t.Fatalf("findings = %v, want one %s error", got, replay.RuleJobSubmitted)
	}
}
