package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A duration setting without a unit is refused when a spec is submitted
// (LoadSpec), naming the key, the value and a unit; the job.yaml of a log,
// read by ParseSpec, keeps its old reading (milliseconds).
func TestLoadSpec_UnitlessDuration(t *testing.T) {
	t.Parallel()
	const head = "job: u\nvertices:\n  - {id: s, operator: sequence, args: {to: 3}, parallelism: 1}\nsettings:\n"
	tests := []struct {
		setting, want string // want "" for a spec that loads
	}{
		{"heartbeat.interval: 2", `u.yaml:5: settings.heartbeat.interval: 2 has no unit; write 2s or 2000ms`},
		{`heartbeat.timeout: "30"`, `settings.heartbeat.timeout: 30 has no unit; write 30s or 30000ms`},
		{"restart-strategy.fixed-delay.delay: 1.5", `1.5 has no unit; write 1.5s or 1500ms`},
		{"execution.batch.job-recovery.snapshot.min-pause: 0", ""},
		{"heartbeat.interval: 2s", ""},
		{"heartbeat.interval: 500 ms", ""},
		{"restart-strategy.fixed-delay.attempts: 2", ""}, // a count, not a duration
	}
	dir := t.TempDir()
	for _, tt := range tests {
		path := filepath.Join(dir, "u.yaml")
		if err := os.WriteFile(path, []byte(head+"  "+tt.setting+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadSpec(path)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.setting, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrSpec)):
			t.Errorf("%s: error = %v, want a spec error containing %q", tt.setting, err, tt.want)
		}
	}
	s, err := ParseSpec("job.yaml", []byte(head+"  heartbeat.interval: 2\n"))
	if err != nil || s.Settings.HeartbeatInterval != 2*time.Millisecond {
		t.Fatalf("ParseSpec of a recorded job.yaml = %v, %v; want heartbeat.interval 2ms", s, err)
	}
}
