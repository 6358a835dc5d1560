package replay_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/golden"
	"github.com/jobevent/jobevent/internal/scenario"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// replayScenarios holds the recovery scenarios, one file each.
const replayScenarios = "../../testdata/replay"

// TestPlan_Scenarios runs every scenario of testdata/replay/*.txt: the
// `log` block is the log, and each `plan FLAGS` block plans it with the
// availability of those flags and compares the plan (as JSON) with its
// expected output. -update rewrites the expected plans in place; review
// every diff against the rule in docs/recovery.md.
func TestPlan_Scenarios(t *testing.T) {
	for _, f := range readScenarios(t) {
		t.Run(strings.TrimSuffix(filepath.Base(f.Path), ".txt"), func(t *testing.T) {
			runScenario(t, f)
			if golden.Updating() {
				if err := f.Rewrite(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// readScenarios parses every scenario file of testdata/replay.
func readScenarios(t *testing.T) []*scenario.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(replayScenarios, "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenarios under %s (%v)", replayScenarios, err)
	}
	files := make([]*scenario.File, len(paths))
	for i, p := range paths {
		if files[i], err = scenario.ReadFile(p); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// runScenario runs the blocks of f in order.
func runScenario(t *testing.T, f *scenario.File) {
	t.Helper()
	var log string
	for _, b := range f.Blocks {
		switch b.Cmd {
		case "log":
			if len(b.Args) > 0 || b.Expected != "" {
				t.Fatalf("%s: log takes no arguments and has no expected output", f.Pos(b))
			}
			log = b.Input
		case "plan":
			got := planScenario(t, f, b, log)
			if golden.Updating() {
				b.Expected = got
			} else if got != b.Expected {
				t.Errorf("%s: plan differs (go test -update rewrites it; review the diff):\n%s", f.Pos(b), golden.Diff(b.Expected, got))
			}
		default:
			t.Fatalf("%s: unknown command %q (want log or plan)", f.Pos(b), b.Cmd)
		}
	}
}

// planScenario folds log up to --at and plans it with the availability of
// the block's flags, as replay --dry-run does, and returns the plan as
// indented JSON.
func planScenario(t *testing.T, f *scenario.File, b *scenario.Block, log string) string {
	t.Helper()
	at, opts, err := parsePlanFlags(b)
	if err != nil {
		t.Fatalf("%s: %v", f.Pos(b), err)
	}
	st, err := replay.Fold(format.NewJSONReader(strings.NewReader(log)), at)
	if err != nil {
		t.Fatalf("%s: Fold: %v", f.Pos(b), err)
	}
	if st.Skipped() > 0 {
		t.Fatalf("%s: Fold skipped %d events: %v", f.Pos(b), st.Skipped(), st.SkipErrors())
	}
	avail, err := replay.BuildAvailability(st, opts)
	if err != nil {
		t.Fatalf("%s: BuildAvailability: %v", f.Pos(b), err)
	}
	plan := replay.Plan(st, avail)
	checkInvariants(t, st, avail, plan)
	got, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(got) + "\n"
}

// parsePlanFlags reads the what-if flags of replay --dry-run from a plan
// block: --at SEQ, --lost-worker W, --lost-partition V/I, --no-workers, and
// --available, whose list of partitions is the block's input.
func parsePlanFlags(b *scenario.Block) (at int64, o replay.AvailabilityOptions, err error) {
	fs := flag.NewFlagSet(b.Cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int64Var(&at, "at", 0, "")
	fs.Func("lost-worker", "", func(w string) error {
		o.LostWorkers = append(o.LostWorkers, w)
		return nil
	})
	fs.Func("lost-partition", "", func(s string) error {
		ref, err := parseSubtaskRef(s)
		o.LostPartitions = append(o.LostPartitions, ref)
		return err
	})
	fs.BoolVar(&o.NoWorkers, "no-workers", false, "")
	available := fs.Bool("available", false, "")
	if err := fs.Parse(b.Args); err != nil {
		return 0, o, err
	}
	if fs.NArg() > 0 {
		return 0, o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *available {
		o.Available, err = decodeAvailable(b.Input)
	} else if b.Input != "" {
		err = fmt.Errorf("input without --available")
	}
	return at, o, err
}

// parseSubtaskRef parses VERTEX/SUBTASK.
func parseSubtaskRef(s string) (format.SubtaskRef, error) {
	i := strings.LastIndexByte(s, '/')
	n, err := strconv.Atoi(s[i+1:])
	if i <= 0 || err != nil {
		return format.SubtaskRef{}, fmt.Errorf("lost partition %q: want VERTEX/SUBTASK", s)
	}
	return format.SubtaskRef{Vertex: s[:i], Subtask: int32(n)}, nil
}

// decodeAvailable decodes the JSON list of an --available file.
func decodeAvailable(input string) ([]replay.PartitionLoc, error) {
	locs := []replay.PartitionLoc{}
	dec := json.NewDecoder(bytes.NewReader([]byte(input)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&locs); err != nil {
		return nil, fmt.Errorf("--available: %w", err)
	}
	return locs, nil
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
