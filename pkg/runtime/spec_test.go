package runtime

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

const goodSpec = `job: wc
vertices:
  - id: src
    operator: sequence
    args: {to: 99, splits: 4}
    parallelism: 2
  - id: agg
    operator: count
    parallelism: auto
edges:
  - {from: src, to: agg, pattern: all_to_all}
`

func TestParseSpec_Good(t *testing.T) {
	t.Parallel()
	s, err := ParseSpec("wc.yaml", []byte(goodSpec+`settings:
  execution.batch.job-recovery.snapshot.min-pause: 30 s
  job-event.store.write-buffer.size: 64kb
  execution.batch.job-recovery.enabled: false
`))
	if err != nil {
		t.Fatal(err)
	}
	g := s.Graph()
	want := &format.Graph{
		Vertices: []format.Vertex{
			{ID: "src", Operator: "sequence", Parallelism: 2, MaxParallelism: 2, Coordinator: format.CoordinatorBatchSnapshot},
			{ID: "agg", Operator: "count", Parallelism: 0, MaxParallelism: 128, Coordinator: format.CoordinatorNone},
		},
		Edges: []format.Edge{{From: "src", To: "agg", Pattern: format.PatternAllToAll}},
	}
	if len(g.Vertices) != 2 || g.Vertices[0] != want.Vertices[0] || g.Vertices[1] != want.Vertices[1] || g.Edges[0] != want.Edges[0] {
		t.Fatalf("graph = %+v, want %+v", g, want)
	}
	st := s.Settings
	if st.SnapshotMinPause != 30*time.Second || st.WriteBufferSize != 64<<10 || st.RecoveryEnabled {
		t.Fatalf("settings = %+v", st)
	}
	if d := DefaultSettings(); d.WorkerRecoveryTimeout != 30*time.Second || d.SnapshotMinPause != 3*time.Minute ||
		d.WriteBufferSize != 1<<20 || d.WriteBufferFlushInterval != time.Second || !d.RecoveryEnabled {
		t.Fatalf("defaults = %+v, want Flink's", d)
	}
}

func TestParseSpec_Downgrade(t *testing.T) {
	t.Parallel()
	s, err := ParseSpec("wc.yaml", []byte(strings.Replace(goodSpec, "parallelism: 2\n", "parallelism: 2\n    coordinator: no_batch_snapshot\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Graph().Vertices[0].Coordinator; got != format.CoordinatorNoBatchSnapshot {
		t.Fatalf("coordinator = %q, want no_batch_snapshot", got)
	}
}

func TestParseSpec_Errors(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, spec, want string }{
		{"syntax", "job: [\n", "bad.yaml:"},
		{"no job", "vertices: []\n", "job: missing"},
		{"bad job name", "job: a/b\nvertices: []\n", "bad.yaml:1: job: want a name"},
		{"no vertices", "job: x\n", "vertices: want at least one vertex"},
		{"unknown field", "job: x\nvertex: []\n", "bad.yaml:2: vertex: unknown field"},
		{"parallelism", strings.Replace(goodSpec, "parallelism: auto", "parallelism: many", 1), `bad.yaml:9: vertices[1].parallelism: want a number (1 to 32768) or "auto"`},
		{"zero parallelism", strings.Replace(goodSpec, "parallelism: 2", "parallelism: 0", 1), "bad.yaml:6: vertices[0].parallelism: want a number"},
		{"unknown operator", strings.Replace(goodSpec, "operator: count", "operator: cuont", 1), `vertices[1].operator: unknown operator "cuont" (known:`},
		{"bad args", strings.Replace(goodSpec, "splits: 4", "splits: four", 1), "bad.yaml:3: vertices[0]: operator sequence: args.splits: want an integer"},
		{"unknown arg", strings.Replace(goodSpec, "splits: 4", "splitz: 4", 1), "args.splitz: unknown argument"},
		{"duplicate id", strings.Replace(goodSpec, "id: agg", "id: src", 1), `vertices[1].id: duplicate vertex id "src"`},
		{"unknown vertex", strings.Replace(goodSpec, "to: agg", "to: nope", 1), `bad.yaml:11: edges[0].to: unknown vertex "nope"`},
		{"bad pattern", strings.Replace(goodSpec, "all_to_all}", "broadcast}", 1), `edges[0].pattern: want pointwise or all_to_all, got "broadcast"`},
		{"source with input", goodSpec + "  - {from: agg, to: src, pattern: pointwise}\n", `source "src" (operator sequence) cannot have inputs`},
		{"orphan", strings.Replace(goodSpec, "  - {from: src, to: agg, pattern: all_to_all}\n", "", 1), `vertex "agg" (operator count) has no inputs and is not a source`},
		{"auto source", strings.Replace(goodSpec, "parallelism: 2", "parallelism: auto", 1), "a source needs a fixed parallelism"},
		{"max below", strings.Replace(goodSpec, "parallelism: 2", "parallelism: 2\n    max_parallelism: 1", 1), "max_parallelism: 1 is below parallelism 2"},
		{"coordinator on transform", strings.Replace(goodSpec, "parallelism: auto", "parallelism: auto\n    coordinator: batch_snapshot", 1), "only sources have a coordinator"},
		{"bad coordinator", strings.Replace(goodSpec, "parallelism: 2", "parallelism: 2\n    coordinator: sometimes", 1), "coordinator: want batch_snapshot or no_batch_snapshot"},
		{"unknown setting", goodSpec + "settings:\n  execution.batch.job-recovery.enable: true\n", "bad.yaml:13: settings.execution.batch.job-recovery.enable: unknown setting"},
		{"bad duration", goodSpec + "settings:\n  execution.batch.job-recovery.snapshot.min-pause: soon\n", "want a duration"},
		{"bad size", goodSpec + "settings:\n  job-event.store.write-buffer.size: 1 parsec\n", "unknown size unit"},
		{"alias", "job: &a x\nvertices: *a\n", "anchors and aliases are not supported"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSpec("bad.yaml", []byte(c.spec))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !errors.Is(err, ErrSpec) {
				t.Errorf("error %v does not wrap ErrSpec", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %q, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestParseSpec_Cycle(t *testing.T) {
	t.Parallel()
	spec := `job: c
vertices:
  - {id: s, operator: sequence, args: {to: 3}, parallelism: 1}
  - {id: a, operator: count, parallelism: 1}
  - {id: b, operator: count, parallelism: 1}
edges:
  - {from: s, to: a, pattern: pointwise}
  - {from: a, to: b, pattern: pointwise}
  - {from: b, to: a, pattern: pointwise}
`
	_, err := ParseSpec("c.yaml", []byte(spec))
	if err == nil || !strings.Contains(err.Error(), "cycle a → b → a") {
		t.Fatalf("err = %v, want the cycle a → b → a", err)
	}
}

func FuzzParseSpec(f *testing.F) {
	f.Add([]byte(goodSpec))
	f.Add([]byte("job: x\nvertices: [{id: a}]\n"))
	for _, spec := range hostileSpecs() {
		f.Add([]byte(spec))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec("fuzz.yaml", data)
		if err == nil && s.Graph() == nil {
			t.Fatal("a spec without a graph")
		}
	})
}

func TestParseDurationAndSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"3 min": 3 * time.Minute, "30s": 30 * time.Second, "500": 500 * time.Millisecond, "1.5 h": 90 * time.Minute, "0s": 0} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]int64{"1mb": 1 << 20, "16 MiB": 16 << 20, "64k": 64 << 10, "100": 100} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1s", "3 fortnights", "1e300 days", "106752 days", "9223372036854775808"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) = nil error", bad)
		}
	}
}
