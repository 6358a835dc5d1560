package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProcess_SigintStopsDrill sends SIGINT to a real `jobevent drill`
// during its clean run: it exits 130 with one line that names no
// temporary log for the user to go on with, and deletes its scratch
// directory.
func TestProcess_SigintStopsDrill(t *testing.T) {
	bin := buildBinary(t)
	dir, tmp := t.TempDir(), t.TempDir()
	spec := filepath.Join(dir, "slowjob.yaml")
	if err := os.WriteFile(spec, []byte(fmt.Sprintf(slowJob, "10s")), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "drill", spec, "--points", "2")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		logs, _ := filepath.Glob(filepath.Join(tmp, "jobevent-drill-*", "clean", "*", "*", "job.yaml"))
		if len(logs) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the drill's clean run never started; stderr:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond) // polling interval of the scratch directory
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("drill after SIGINT: %v, want exit 130; stderr:\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "stopped by SIGINT") || strings.Contains(last, tmp) || strings.Contains(last, "resume") {
		t.Fatalf("drill's last line %q, want it to say it stopped, naming no temporary log", last)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("the interrupted drill left %v in its temporary directory", left)
	}
}
