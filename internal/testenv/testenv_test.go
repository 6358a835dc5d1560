package testenv

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestNeed_Found(t *testing.T) {
	if path := Need(t, "go", "https://go.dev/dl"); path == "" {
		t.Fatal("Need(go) = \"\", want the path of the go command")
	}
}

// TestNeed_Missing runs Need in a subtest on a program that does not
// exist: outside CI the subtest skips and the skip is counted.
func TestNeed_Missing(t *testing.T) {
	if os.Getenv("CI") == "true" {
		t.Skip("in CI a missing program is a failure")
	}
	before := Summary()
	t.Cleanup(func() {
		missing.Lock()
		clear(missing.tests)
		missing.Unlock()
	})
	t.Run("missing", func(t *testing.T) {
		Need(t, "jobevent-no-such-program", "nowhere")
		t.Fatal("Need returned for a missing program")
	})
	got := Summary()
	if want := "skipped 1 test without jobevent-no-such-program (nowhere)"; before != "" || got != want {
		t.Fatalf("Summary = %q (before: %q), want %q", got, before, want)
	}
}

func TestPackagePath(t *testing.T) {
	if got := packagePath(); !strings.HasSuffix(got, "/internal/testenv") {
		t.Fatalf("packagePath = %q, want the import path of this package", got)
	}
}

// TestContext: the context ends with the test, and carries its deadline.
func TestContext(t *testing.T) {
	var ctx context.Context
	t.Run("inner", func(t *testing.T) {
		ctx = Context(t)
		d, ok := ctx.Deadline()
		if !ok || time.Until(d) > Deadline || time.Until(d) < Deadline-time.Minute {
			t.Fatalf("deadline = %v, %v; want about %v from now", d, ok, Deadline)
		}
		if ctx.Err() != nil {
			t.Fatalf("ended early: %v", ctx.Err())
		}
	})
	if ctx.Err() == nil {
		t.Fatal("the context outlived its test")
	}
}
