package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_WriteRetryAttempts: job-event.store.write-retry.attempts bounds
// how often the master tries to upload a segment under a bucket outage
// (here: the events directory replaced by a file) before it gives up.
func TestRun_WriteRetryAttempts(t *testing.T) {
	t.Parallel()
	spec, err := ParseSpec("gate.yaml", []byte(`job: outage
vertices:
  - {id: numbers, operator: sequence, args: {to: 9}, parallelism: 1}
  - {id: wait, operator: test_gate, args: {name: outage}, parallelism: 1}
edges:
  - {from: numbers, to: wait, pattern: pointwise}
settings:
  job-event.store.write-retry.attempts: 2
`))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Settings.WriteRetryAttempts != 2 || DefaultSettings().WriteRetryAttempts != 10 {
		t.Fatalf("write retry attempts = %d (default %d), want 2 (default 10)", spec.Settings.WriteRetryAttempts, DefaultSettings().WriteRetryAttempts)
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "log")
	entered, open := newGate("outage")
	defer open()
	ctx, cancel := context.WithTimeout(context.Background(), processDeadline)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, spec, Options{Dir: dir, Events: "file://" + root + "?prefix=outage/"})
		done <- err
	}()
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("the gate was never reached")
	}
	events := filepath.Join(root, "outage", "events")
	if err := os.Rename(events, events+".gone"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(events, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	open()
	select {
	case err = <-done:
	case <-ctx.Done():
		t.Fatal("the master did not give up")
	}
	if err == nil || !strings.Contains(err.Error(), "failed 2 times") {
		t.Fatalf("run = %v, want the upload given up after 2 attempts", err)
	}
}

func TestSettings_WriteRetryAttemptsBounds(t *testing.T) {
	t.Parallel()
	var s Settings
	for _, bad := range []string{"0", "-1", "1001", "x"} {
		if err := s.Set(KeyWriteRetryAttempts, bad); err == nil {
			t.Errorf("Set(%s, %q) = nil error", KeyWriteRetryAttempts, bad)
		}
	}
}
