package replay_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jobevent/jobevent/internal/scenario"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// byteEvents decodes arbitrary bytes into an event stream over a small
// vocabulary (four vertices, small numbers, every kind), so that the fuzzer
// reaches deep states, malformed ones included: unknown vertices, subtasks
// out of range, parallelisms out of range, epochs going back, partitions
// for consumers that are not out-edges, cycles.
func byteEvents(data []byte) []format.Event {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	ids := []string{"a", "b", "c", "d", "zz"}
	id := func() string { return ids[next()%len(ids)] }
	small := func() int32 { return int32(next()%7) - 1 }
	g := &format.Graph{}
	for i := 0; i < 4; i++ {
		coord := []string{"", format.CoordinatorNone, format.CoordinatorBatchSnapshot, format.CoordinatorNoBatchSnapshot}[next()%4]
		g.Vertices = append(g.Vertices, format.Vertex{ID: ids[i], Parallelism: small(), MaxParallelism: small(), Coordinator: coord})
	}
	for n := next() % 6; n > 0; n-- {
		g.Edges = append(g.Edges, format.Edge{From: id(), To: id(), Pattern: []string{format.PatternPointwise, format.PatternAllToAll}[next()%2]})
	}
	events := []format.Event{{Seq: 1, Epoch: 1, Kind: format.KindJobSubmitted, Job: "fuzz", Graph: g}}
	for seq := int64(2); len(data) > 0; seq++ {
		e := format.Event{Seq: seq, Epoch: int32(1 + next()%3), Kind: format.Kinds[next()%len(format.Kinds)],
			Vertex: id(), Subtask: small(), Attempt: small(), Worker: fmt.Sprintf("w%d", next()%3)}
		switch e.Kind {
		case format.KindVertexInitialized:
			e.Parallelism = small()
			if next()%16 == 0 {
				e.Parallelism = 1 << 30
			}
		case format.KindSubtaskFinished:
			if next()%3 > 0 {
				e.Partitions = []format.Partition{}
				for n := next() % 3; n > 0; n-- {
					e.Partitions = append(e.Partitions, format.Partition{Consumer: id(), Bytes: int64(next())})
				}
			}
		case format.KindSubtasksReset:
			for n := next() % 3; n > 0; n-- {
				e.Subtasks = append(e.Subtasks, format.SubtaskRef{Vertex: id(), Subtask: small()})
			}
		case format.KindSnapshot:
			e.Coordinators = map[string][]byte{id(): {byte(next())}}
		}
		events = append(events, e)
	}
	return events
}

// exercise runs everything the package offers over one stream; none of it
// may panic.
func exercise(t *testing.T, events []format.Event) {
	st, err := replay.Fold(&replay.SliceSource{Events: events}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, avail := range []replay.Availability{replay.AllRecorded(st), nil} {
		plan := replay.Plan(st, avail)
		total := 0
		for _, v := range plan.Vertices {
			total += int(v.Parallelism)
		}
		if total != len(plan.Subtasks) || plan.Summary.Keep+plan.Summary.Rerun+plan.Summary.Run != total {
			t.Fatalf("plan has %d rows and summary %+v for %d subtasks", len(plan.Subtasks), plan.Summary, total)
		}
		_ = plan.Resets()
		_ = plan.Kept()
		deferred := map[string]bool{}
		for _, v := range plan.Deferred() {
			deferred[v] = true
		}
		_ = st.ExpandReset([]format.SubtaskRef{{Vertex: "a", Subtask: 0}, {Vertex: "zz", Subtask: -1}}, deferred)
	}
	_ = replay.Validate(&replay.SliceSource{Events: events}, replay.ValidateOptions{})
	if d := replay.Diff(st, st); !d.Equal() {
		t.Fatalf("a state differs from itself: %v", d.Differences)
	}
}

func FuzzApplyPlan(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x02\x02\x03\x01\x05\x00\x01\x01\x02\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a"))
	f.Add(bytes.Repeat([]byte{3, 1, 2, 0, 4, 1, 1, 9, 2, 3}, 20))
	f.Fuzz(func(t *testing.T, data []byte) {
		exercise(t, byteEvents(data))
	})
}

func FuzzFoldJSON(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/validate/*.jsonl")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	scenarios, _ := filepath.Glob(filepath.Join(replayScenarios, "*.txt"))
	for _, p := range scenarios {
		if s, err := scenario.ReadFile(p); err == nil && s.Block("log") != nil {
			f.Add([]byte(s.Block("log").Input))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := format.NewJSONReader(bytes.NewReader(data))
		var events []format.Event
		for len(events) < 500 {
			e, err := r.Next()
			if err != nil {
				break
			}
			events = append(events, e)
		}
		exercise(t, events)
	})
}

// TestByteEvents_Corpus runs the fuzz decoder over seeded random bytes, so
// that plain `go test` covers malformed streams too.
func TestByteEvents_Corpus(t *testing.T) {
	for seed := 0; seed < 300; seed++ {
		data := make([]byte, 40+seed%200)
		x := uint32(seed*2654435761 + 1)
		for i := range data {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			data[i] = byte(x)
		}
		exercise(t, byteEvents(data))
	}
}
