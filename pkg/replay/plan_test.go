package replay_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

var update = flag.Bool("update", false, "rewrite the expected plans under testdata/replay")

const replayCases = "../../testdata/replay"

// caseSpec is a case.json: the failover to plan, as the flags of `replay
// --dry-run` describe it. Every field is optional.
type caseSpec struct {
	At             int64                  `json:"at"`
	LostWorkers    []string               `json:"lost_workers"`
	LostPartitions []string               `json:"lost_partitions"`
	NoWorkers      bool                   `json:"no_workers"`
	Available      *[]replay.PartitionLoc `json:"available"`
}

// TestPlan_Cases runs every case under testdata/replay: log.jsonl folded up
// to case.json's "at", planned with case.json's availability, and compared
// with plan.json (regenerate with -update, then review every diff against
// the rule in docs/recovery.md).
func TestPlan_Cases(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(replayCases, "*", "log.jsonl"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases under %s (%v)", replayCases, err)
	}
	for _, logPath := range dirs {
		dir := filepath.Dir(logPath)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			spec := readCase(t, dir)
			st := foldFile(t, logPath, spec.At)
			avail, err := replay.BuildAvailability(st, availOptions(t, spec))
			if err != nil {
				t.Fatalf("BuildAvailability: %v", err)
			}
			plan := replay.Plan(st, avail)
			checkInvariants(t, st, avail, plan)
			got, err := json.MarshalIndent(plan, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			want := filepath.Join(dir, "plan.json")
			if *update {
				if err := os.WriteFile(want, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantData, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run go test ./pkg/replay -update)", err)
			}
			if !bytes.Equal(got, wantData) {
				t.Fatalf("plan differs from %s\ngot:\n%s\nwant:\n%s", want, got, wantData)
			}
		})
	}
}

func readCase(t *testing.T, dir string) caseSpec {
	t.Helper()
	var spec caseSpec
	data, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if os.IsNotExist(err) {
		return spec
	}
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		t.Fatalf("case.json: %v", err)
	}
	return spec
}

func availOptions(t *testing.T, spec caseSpec) replay.AvailabilityOptions {
	t.Helper()
	o := replay.AvailabilityOptions{LostWorkers: spec.LostWorkers, NoWorkers: spec.NoWorkers}
	if spec.Available != nil {
		o.Available = *spec.Available
	}
	for _, s := range spec.LostPartitions {
		i := strings.LastIndexByte(s, '/')
		n, err := strconv.Atoi(s[i+1:])
		if i <= 0 || err != nil {
			t.Fatalf("case.json: lost partition %q: want VERTEX/SUBTASK", s)
		}
		o.LostPartitions = append(o.LostPartitions, format.SubtaskRef{Vertex: s[:i], Subtask: int32(n)})
	}
	return o
}

// foldFile folds a JSONL log up to seq at (0: all).
func foldFile(t *testing.T, path string, at int64) *replay.State {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := replay.Fold(format.NewJSONReader(f), at)
	if err != nil {
		t.Fatalf("Fold: %v", err)
	}
	if st.Skipped() > 0 {
		t.Fatalf("Fold skipped %d events: %v", st.Skipped(), st.SkipErrors())
	}
	return st
}
