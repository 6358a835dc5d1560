package replay_test

import (
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
