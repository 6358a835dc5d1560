package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/format"
)

// wideSpec joins two vertices of width w all-to-all.
func wideSpec(w int, settings string) string {
	return fmt.Sprintf(`job: wide
vertices:
  - {id: src, operator: sequence, args: {to: %d}, parallelism: %d}
  - {id: agg, operator: count, parallelism: %d}
edges:
  - {from: src, to: agg, pattern: all_to_all}
settings:
  execution.batch.job-recovery.snapshot.min-pause: 0s
%s`, w*2, w, w, settings)
}

func TestParseSpec_Limits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, spec, want string
	}{
		{"subpartitions", wideSpec(32768, ""), "all_to_all src → agg makes 1073741824 subpartitions (32768 × 32768"},
		{"splits", "job: s\nvertices:\n  - {id: s, operator: sequence, args: {to: 2000000, splits: 1048576}, parallelism: 4}\n",
			"1048576 splits, more than job-event.limits.max-splits (65536)"},
		{"vertices", wideSpec(2, "  job-event.limits.max-vertices: 1\n"), "2 vertices, more than job-event.limits.max-vertices (1)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSpec("big.yaml", []byte(c.spec))
			if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	// A job that needs more raises the limit in its settings.
	if _, err := ParseSpec("big.yaml", []byte(wideSpec(32768, "  job-event.limits.max-subpartitions: 2000000000\n"))); err != nil {
		t.Fatalf("raised limit: %v", err)
	}
	if _, err := ParseSpec("ok.yaml", []byte(wideSpec(2048, ""))); err != nil {
		t.Fatalf("2048 × 2048 within the default limit: %v", err)
	}
}

// TestRun_SnapshotsOnlyChangedCoordinators: a snapshot event carries the
// coordinators whose state changed since the log last recorded it, so the
// log does not grow with sources × snapshots; the latest state of each
// coordinator at every snapshot is its state then, which is what recovery
// restores (drills check the plans).
func TestRun_SnapshotsOnlyChangedCoordinators(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("job: many\nvertices:\n")
	const sources = 6
	for i := 0; i < sources; i++ {
		fmt.Fprintf(&b, "  - {id: s%d, operator: sequence, args: {to: 20, splits: 4}, parallelism: 2}\n", i)
	}
	b.WriteString("  - {id: agg, operator: count, parallelism: 1}\nedges:\n")
	for i := 0; i < sources; i++ {
		fmt.Fprintf(&b, "  - {from: s%d, to: agg, pattern: all_to_all}\n", i)
	}
	b.WriteString("settings:\n  execution.batch.job-recovery.snapshot.min-pause: 0s\n")
	spec, err := ParseSpec("many.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(testenv.Context(t), spec, Options{Dir: t.TempDir(), Seeded: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	last := map[string][]byte{}
	snapshots, entries := 0, 0
	for _, e := range readLog(t, sum.Log) {
		if e.Kind != format.KindSnapshot {
			continue
		}
		snapshots++
		for id, state := range e.Coordinators {
			entries++
			if prev, ok := last[id]; ok && bytes.Equal(prev, state) {
				t.Fatalf("snapshot at seq %d repeats the unchanged state of %s", e.Seq, id)
			}
			last[id] = state
		}
	}
	if len(last) != sources || snapshots < sources*2 {
		t.Fatalf("%d snapshots naming %d coordinators, want at least %d naming %d", snapshots, len(last), sources*2, sources)
	}
	if entries >= snapshots*sources {
		t.Fatalf("%d coordinator states in %d snapshots: every snapshot carries every coordinator", entries, snapshots)
	}
}
