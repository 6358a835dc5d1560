package testenv

import (
	"os"
	"strings"
	"testing"
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
