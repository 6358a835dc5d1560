package main

import (
	"encoding/json"
	"testing"
)

func TestDiff(t *testing.T) {
	healthy, failover := logPath("healthy.jsonl"), logPath("failover.jsonl")
	r := runCLI(t, "diff", healthy, healthy).wantCode(t, 0)
	r.golden(t, "diff-same.table")
	runCLI(t, "diff", healthy, healthy, "--events").wantCode(t, 0)

	r = runCLI(t, "diff", healthy, failover).wantCode(t, 1)
	if r.stderr != "" {
		t.Errorf("stderr = %q, want nothing: the differences are the output", r.stderr)
	}
	r.golden(t, "diff-healthy-failover.table")
	r = runCLI(t, "diff", healthy, failover, "--format", "json").wantCode(t, 1)
	if !json.Valid([]byte(r.stdout)) {
		t.Errorf("diff --format json is not JSON: %s", r.stdout)
	}
	r.golden(t, "diff-healthy-failover.json")
	r = runCLI(t, "diff", failover, healthy, "--events").wantCode(t, 1)
	r.golden(t, "diff-failover-healthy-events.table")
}

func TestDiff_Errors(t *testing.T) {
	runCLI(t, "diff", logPath("healthy.jsonl"), logPath("bad-syntax.jsonl")).wantOneLineError(t, 2, "bad-syntax.jsonl: line 5")
	runCLI(t, "diff", logPath("healthy.jsonl"), "mem://diff-nothing").wantOneLineError(t, 2, "no event log at")
}
